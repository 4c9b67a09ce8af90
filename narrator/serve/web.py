"""The finished games' recap pages on the players' phones: a read-only web server on the local network,
advertised by mDNS as `narrator.local`.

What it serves, and nothing else: `/` — the list of finished games, newest first — and `/games/<id>/` — one
finished game's recap page (the self-contained `game.recap.html` that `narrator.play.run.finish` writes). A game
is served only when its journal says it is over *and* its page was written: a game in progress (its cards are
secret) is never served, and no path from the request ever reaches the disk — the id is looked up among the
saved games' folder names, so `..`, encoded slashes or absolute paths are simply not found (404). GET and HEAD
only; every answer says `no-store` and a content security policy that allows no script.

The server is the standard library's `ThreadingHTTPServer` (a handful of phones after a game: no need for a
framework; its threads are daemons, one per request), started after the ready line so power-on does not wait
for it. `zeroconf` announces `narrator.local` (an A record for each of the device's IPv4 addresses) and an
`_http._tcp` service, also on a thread: a network that is not there yet only means no announcement
(logged). Where it listens is `web.listen` in the config or `serve --web-listen`: "auto" (port 80 — the unit
grants the capability to bind it — else 8080), "HOST:PORT", ":PORT", or "off" (also `serve --no-web`).
"""

from __future__ import annotations

import contextlib
import html
import logging
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from narrator.common.zh import to_script
from narrator.play import store
from narrator.session.journal import JournalError

if TYPE_CHECKING:
    from zeroconf import ServiceInfo, Zeroconf

log = logging.getLogger("narrator.serve")

HOSTNAME = "narrator"
"""The mDNS name: http://narrator.local/."""
AUTO_PORTS = (80, 8080)
STOP_WAIT_S = 3.0
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
}
_GAME = re.compile(r"^/games/([^/]+)/?$")


class WebError(ValueError):
    """`web.listen` cannot be used; the message names the value and the choices."""


def parse_listen(spec: str) -> list[tuple[str, int]] | None:
    """The addresses to try, in order ("auto": every address, port 80 then 8080); None for "off"."""
    spec = spec.strip()
    if spec in ("off", "no", "none"):
        return None
    if spec in ("", "auto"):
        return [("0.0.0.0", port) for port in AUTO_PORTS]
    host, colon, port = spec.rpartition(":")
    if not colon or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise WebError(f"web.listen {spec!r}: write auto, off, HOST:PORT or :PORT (e.g. 0.0.0.0:8080)")
    return [(host.strip("[]") or "0.0.0.0", int(port))]


@dataclass
class Finished:
    """The finished games of a games folder, each read once per change of its journal (a replay)."""

    root: Path | None = None
    _seen: dict[str, tuple[tuple[int, int], bool]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def games(self) -> list[store.SavedGame]:
        """Finished games with a recap page, newest first."""
        return [g for g in reversed(store.all_games(self.root)) if self.finished(g)]

    def find(self, game_id: str) -> store.SavedGame | None:
        return next((g for g in store.all_games(self.root) if g.id == game_id and self.finished(g)), None)

    def finished(self, game: store.SavedGame) -> bool:
        page = page_of(game)
        try:
            stat = game.journal.stat()
        except OSError:
            return False
        if not page.is_file():
            return False
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            seen = self._seen.get(game.id)
            if seen is not None and seen[0] == stamp:
                return seen[1]
        try:
            over = game.load().over
        except (OSError, JournalError):
            over = False
        with self._lock:
            self._seen[game.id] = (stamp, over)
        return over


def page_of(game: store.SavedGame) -> Path:
    return game.recap_stem.with_name(game.recap_stem.name + ".recap.html")


def index_page(games: list[store.SavedGame], lang: str) -> str:
    title = to_script("狼人之夜 · 复盘", lang)
    rows = []
    for game in games:
        meta = game.meta()
        when = str(meta.get("started", game.id)).replace("T", " ")
        preset = str(meta.get("preset", ""))
        rows.append(f'<li><a href="/games/{html.escape(game.id)}/">{html.escape(when)}'
                    f"<span>{html.escape(preset)}</span></a></li>")
    empty = to_script("还没有结束的游戏。", lang)
    body = f"<ul>{''.join(rows)}</ul>" if rows else f"<p>{html.escape(empty)}</p>"
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            '<meta name="viewport" content="width=device-width,initial-scale=1"><style>'
            "body{font-family:system-ui,'Noto Sans CJK SC','WenQuanYi Zen Hei',sans-serif;margin:0 auto;"
            "max-width:40rem;padding:1rem;line-height:1.5}ul{list-style:none;padding:0}"
            "li a{display:block;padding:.8rem;margin:.4rem 0;border:1px solid #ddd;border-radius:.5rem;"
            "color:inherit;text-decoration:none}li span{display:block;color:#666;font-size:.9em}</style></head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>\n")


class _Handler(BaseHTTPRequestHandler):
    server: RecapServer
    server_version = "narrator"
    sys_version = ""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _answer(self, *, body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        finished = self.server.finished
        data: bytes | None = None
        if path == "/":
            data = index_page(finished.games(), self.server.lang).encode("utf-8")
        elif (match := _GAME.match(path)) is not None:
            game = finished.find(match.group(1))
            if game is not None:
                with contextlib.suppress(OSError):
                    data = page_of(game).read_bytes()
        if data is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", body)
        else:
            self._send(HTTPStatus.OK, data, "text/html; charset=utf-8", body)

    def _send(self, status: HTTPStatus, data: bytes, kind: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for key, value in HEADERS.items():
            self.send_header(key, value)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _refuse(self) -> None:
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def log_message(self, format: str, *args: object) -> None:
        return None  # a page seen is no event of the device's log


class RecapServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], finished: Finished, lang: str) -> None:
        self.finished, self.lang = finished, lang
        super().__init__(address, _Handler)


@dataclass
class Web:
    """The recap server and its mDNS announcement, for the life of `serve`."""

    listen: str = "auto"
    root: Path | None = None
    lang: str = "zh-Hans"
    announce: bool = True
    server: RecapServer | None = None
    _zeroconf: tuple[Zeroconf, ServiceInfo] | None = None
    _thread: threading.Thread | None = None
    _announcer: threading.Thread | None = None

    def start(self) -> str | None:
        """Bind and serve on a thread; the address phones open (None: off, or nothing could be bound)."""
        addresses = parse_listen(self.listen)
        if addresses is None:
            return None
        finished = Finished(self.root)
        for address in addresses:
            try:
                self.server = RecapServer(address, finished, self.lang)
                break
            except OSError as exc:
                log.info("web: cannot listen on %s:%d (%s)", *address, exc.strerror or exc)
        if self.server is None:
            log.warning("web: the recap pages are not served (nowhere to listen: %s)", self.listen)
            return None
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.5},
                                        name="narrator-web", daemon=True)
        self._thread.start()
        host, port = self.server.server_address[:2]
        log.info("web: recap pages at http://%s:%d/", host, port)
        if self.announce and not _loopback(str(host)):
            self._announcer = threading.Thread(target=self._announce, args=(str(host), int(port)),
                                               name="narrator-mdns", daemon=True)
            self._announcer.start()
        return self.address

    @property
    def port(self) -> int | None:
        return None if self.server is None else int(self.server.server_address[1])

    @property
    def address(self) -> str | None:
        """What the table is told to open: narrator.local when announced, else the address bound."""
        if self.server is None:
            return None
        host, port = str(self.server.server_address[0]), self.port
        name = f"{HOSTNAME}.local" if not _loopback(host) else host
        return name if port == 80 else f"{name}:{port}"

    def urls(self) -> list[str]:
        """Where phones open the pages: narrator.local (mDNS), then the device's own addresses — a phone that
        does not resolve .local names (many Android ones) opens those."""
        where = self.address
        if where is None or self.server is None:
            return []
        host, port = str(self.server.server_address[0]), self.port
        ips = [] if _loopback(host) else own_addresses() if host == "0.0.0.0" else [host]
        return [where, *(ip if port == 80 else f"{ip}:{port}" for ip in ips)]

    def _announce(self, host: str, port: int) -> None:
        try:
            from zeroconf import IPVersion, ServiceInfo, Zeroconf

            mine = [host] if host != "0.0.0.0" else own_addresses()
            if not mine:
                log.warning("web: no network address to announce %s.local on (the pages are served anyway)",
                            HOSTNAME)
                return
            info = ServiceInfo("_http._tcp.local.", f"{HOSTNAME}._http._tcp.local.", port=port,
                               addresses=[socket.inet_aton(a) for a in mine], server=f"{HOSTNAME}.local.",
                               properties={"path": "/"})
            zc = Zeroconf(ip_version=IPVersion.V4Only)
            zc.register_service(info, allow_name_change=True)
            self._zeroconf = (zc, info)
            log.info("web: announced %s.local (%s)", HOSTNAME, ", ".join(mine))
        except Exception as exc:  # no multicast, no network: the pages are still there by address
            log.warning("web: mDNS announcement failed (%s); open the pages by address", exc)

    def stop(self) -> None:
        """Stop serving; the announcement is withdrawn (zeroconf's goodbye) within a few seconds at most."""
        if self._announcer is not None:
            self._announcer.join(STOP_WAIT_S)  # registering probes the network for about a second
        if self._zeroconf is not None:
            zc = self._zeroconf[0]
            closing = threading.Thread(target=_quietly, args=(zc.close,), name="narrator-mdns-bye", daemon=True)
            closing.start()
            closing.join(STOP_WAIT_S)
            self._zeroconf = None
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


def _quietly(call: Callable[[], object]) -> None:
    with contextlib.suppress(Exception):
        call()


def own_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback."""
    import ifaddr

    out = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                out.append(ip.ip)
    return out


def _loopback(host: str) -> bool:
    return host.startswith("127.") or host in ("localhost", "::1")
