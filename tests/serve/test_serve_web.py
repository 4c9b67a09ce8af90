"""The recap pages on the players' phones, against the running device: `narrator serve` plays a 9-player game by
typed text, says where its recap is at the end (a table line), and serves it read-only — in a phone's browser
(headless Chromium, 390 px wide) the list and the page load, fit the width and show the game; a second game
still in play is never served (not even with a page forged into its folder), and no path reaches anything else
on the disk."""

from __future__ import annotations

import dataclasses
import http.client
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from narrator.judge.presets import make_setup
from narrator.play.scripted import host_script
from narrator.play.store import SavedGame, all_games, save_game
from narrator.serve.web import Finished, Web, WebError, own_addresses, parse_listen
from narrator.session.journal import FileStore, load
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

from .phone import Phone

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
SEED = 4242


def get(port: int, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path)
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


def raw(port: int, request: bytes) -> bytes:
    """A request as written, not as a client library would clean it up."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


def answers_in(path: Path) -> int:
    return len(load(FileStore(path)).answers) if path.exists() else -1


@pytest.mark.slow
def test_a_finished_game_on_a_phone_and_nothing_else(tmp_path: Path) -> None:
    game = host_script(dataclasses.replace(Scenario.load(SCENARIOS / "011_wolf_kill_first_wolves_win.yaml"),
                                           seed=SEED))
    env = {**os.environ, "NARRATOR_DATA_DIR": str(tmp_path / "data"), "NARRATOR_CONFIG_DIR": str(tmp_path / "cfg")}
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "secret.txt").write_text("not for phones", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "narrator.cli.main", "serve", "--input", "text",
                             "--table-device", "none", "--seed", str(SEED), "--web-listen", "127.0.0.1:0"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    assert proc.stdin is not None
    # the first game to its end, then a second one three answers into its first night (in play)
    proc.stdin.write("\n".join(["开始新游戏", "九个", "预女猎", "开始", *game.utterances, "再来一局", "开始",
                                *host_script(dataclasses.replace(game_scenario(), seed=SEED + 1)).utterances[:3]])
                     + "\n")
    proc.stdin.flush()
    games_root = tmp_path / "data" / "games"
    deadline = time.monotonic() + 120
    while not (len(games := all_games(games_root)) == 2 and answers_in(games[1].journal) == 3):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the second game never reached its first night"
        time.sleep(0.05)
    finished, playing = all_games(games_root)
    try:
        log = read_log_until(proc, "web: recap pages at")
        port = int(re.search(r"web: recap pages at http://127\.0\.0\.1:(\d+)/", log).group(1))  # type: ignore[union-attr]

        # the list has the finished game only; the finished game's page is its recap
        status, headers, body = get(port, "/")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert headers["cache-control"] == "no-store" and "default-src 'none'" in headers["content-security-policy"]
        assert f"/games/{finished.id}/".encode() in body and playing.id.encode() not in body
        status, _, page = get(port, f"/games/{finished.id}/")
        assert status == 200 and page == (finished.folder / "game.recap.html").read_bytes()
        assert get(port, f"/games/{finished.id}/", "HEAD")[:2][0] == 200

        # a game in play is never served — not even when a page is forged into its folder
        (playing.folder / "game.recap.html").write_text("<p>cards</p>", encoding="utf-8")
        assert get(port, f"/games/{playing.id}/")[0] == 404
        assert playing.id.encode() not in get(port, "/")[2]

        # nothing else of the disk, however the path is written
        for path in ["/games/", f"/games/{finished.id}/journal.jsonl", f"/games/{finished.id}/game.recap.md",
                     f"/games/{finished.id}/meta.json", f"/games/{finished.id}/lock", "/secret.txt",
                     "/../secret.txt", "/games/../secret.txt", "/games/..%2Fsecret.txt", "/games/%2e%2e/",
                     f"/games/{finished.id}/../../secret.txt", f"/games/{finished.id}%2F..%2F..%2Fsecret.txt/",
                     "/games/..%2f..%2fcfg%2fconfig.toml/", "//etc/passwd", "/etc/passwd", "/games/.", "/games/..",
                     f"/games/{finished.id}/.", "/favicon.ico", "/index.html"]:
            status, _, body = get(port, path)
            assert status == 404 and b"not for phones" not in body and b"journal" not in body, path
        for request in (b"GET ../secret.txt HTTP/1.0\r\n\r\n", b"GET /games/../../secret.txt HTTP/1.0\r\n\r\n",
                        b"GET http://x/../secret.txt HTTP/1.0\r\n\r\n"):
            answer = raw(port, request)
            assert answer.startswith(b"HTTP/1.0 404") and b"not for phones" not in answer, request
        assert get(port, "/", "POST")[0] == 405
        assert get(port, f"/games/{finished.id}/", "DELETE")[0] == 405 and finished.journal.exists()

        # on a phone: the list and the page load, fit 390 px, and show the game
        with Phone(tmp_path / "phone") as phone:
            phone.open(f"http://127.0.0.1:{port}/")
            assert phone.js("window.innerWidth") == 390
            assert phone.js("document.documentElement.scrollWidth") <= 390
            links = phone.js("[...document.querySelectorAll('a')].map(a => a.getAttribute('href'))")
            assert links == [f"/games/{finished.id}/"]
            phone.js("document.querySelector('a').click()")
            time.sleep(0.5)
            deadline = time.monotonic() + 30
            while phone.js("location.pathname") != f"/games/{finished.id}/":
                assert time.monotonic() < deadline, "the link did not open the game"
                time.sleep(0.1)
            while phone.js("document.readyState") != "complete":
                time.sleep(0.1)
            assert "狼人阵营胜利" in phone.js("document.body.innerText")
            assert phone.js("document.querySelectorAll('svg').length") >= 1  # the vote pictures
            wide = phone.js("document.documentElement.scrollWidth")
            assert wide <= 390, f"the recap page is {wide} px wide on a 390 px phone"
    finally:
        out, err = proc.communicate("", timeout=60)  # the typed input ends
    assert proc.returncode == 3, err  # the typed input ran out, in the second game: saved
    assert "复盘也放在了网页上：手机连上这里的网络，打开 127.0.0.1:" in out  # said to the table after the game
    assert f"🌐 http://127.0.0.1:{port}/" in out


def game_scenario() -> Scenario:
    return Scenario.load(SCENARIOS / "014_seer_sees_camp.yaml")


def read_log_until(proc: subprocess.Popen[str], marker: str) -> str:
    """serve's stderr up to the line with `marker` (the rest is read at the end)."""
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + 60
    while marker not in seen:
        line = proc.stderr.readline()
        assert line or proc.poll() is None, seen
        seen += line
        assert time.monotonic() < deadline, seen
    return seen


def test_only_games_that_are_over_and_have_a_page_are_finished(tmp_path: Path) -> None:
    session = Session(make_setup("9人预女猎"), 1)
    saved: SavedGame = save_game(session, "9人预女猎", root=tmp_path)
    session.close()
    (saved.folder / "game.recap.html").write_text("<p>forged</p>", encoding="utf-8")
    assert Finished(tmp_path).games() == [] and Finished(tmp_path).find(saved.id) is None


def test_where_it_listens() -> None:
    assert parse_listen("auto") == [("0.0.0.0", 80), ("0.0.0.0", 8080)]
    assert parse_listen(":8080") == [("0.0.0.0", 8080)]
    assert parse_listen("192.168.1.5:80") == [("192.168.1.5", 80)]
    assert parse_listen("off") is None
    for bad in ("8080", "x:y", "host:70000"):
        with pytest.raises(WebError):
            parse_listen(bad)


@pytest.mark.skipif(not own_addresses(), reason="no network address but loopback: nothing to announce on")
def test_narrator_local_is_announced_on_the_network_and_withdrawn_at_the_end(tmp_path: Path) -> None:
    from zeroconf import AddressResolver, IPVersion, Zeroconf  # type: ignore[attr-defined]

    web = Web(":0", root=tmp_path)
    assert web.start() == f"narrator.local:{web.port}"
    assert web.urls() == [f"narrator.local:{web.port}", *(f"{ip}:{web.port}" for ip in own_addresses())]
    assert web._announcer is not None
    web._announcer.join(30)
    zc = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        info = zc.get_service_info("_http._tcp.local.", "narrator._http._tcp.local.", timeout=5000)
        assert info is not None and info.port == web.port and info.server == "narrator.local."
        host = AddressResolver("narrator.local.")
        assert host.request(zc, 5000)
        address = host.parsed_addresses()[0]
        assert address in own_addresses()
        conn = http.client.HTTPConnection(address, web.port, timeout=30)  # a phone opens what it resolved
        conn.request("GET", "/")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        web.stop()
        zc.close()
    gone = Zeroconf(ip_version=IPVersion.V4Only)
    try:  # the goodbye was sent: a fresh listener finds no narrator.local service
        assert gone.get_service_info("_http._tcp.local.", "narrator._http._tcp.local.", timeout=1500) is None
    finally:
        gone.close()
