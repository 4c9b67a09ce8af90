"""Fixtures for the voice tests: a network that is not there, a fake voice, and a local edge-tts server.

Nothing here mocks EdgeVoice away: network failures are real failed connections (a socket layer that
refuses to connect, a proxy port nobody listens on, a proxy that never answers), and the "edge" server
is a real WebSocket server on 127.0.0.1 speaking edge-tts's protocol.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from voice_testkit import FakeVoice, mp3_of, tone

# ---- the network, unplugged -----------------------------------------------------------------------------


@dataclass
class Unplugged:
    """Every internet socket connection and name lookup fails, as without a network; each is recorded."""

    attempts: list[str] = field(default_factory=list)


def unplug(monkeypatch: pytest.MonkeyPatch) -> Unplugged:
    """Make every internet connection and name lookup fail (and be recorded) until `monkeypatch` undoes it."""
    unplugged = Unplugged()
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            unplugged.attempts.append(f"connect {address}")
            raise OSError(errno.ENETUNREACH, "Network is unreachable")
        real_connect(sock, address)  # type: ignore[arg-type]

    def connect_ex(sock: socket.socket, address: object) -> int:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            unplugged.attempts.append(f"connect_ex {address}")
            return errno.ENETUNREACH
        return real_connect_ex(sock, address)  # type: ignore[arg-type]

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> list[object]:
        unplugged.attempts.append(f"getaddrinfo {host}")
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return unplugged


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Unplugged:
    return unplug(monkeypatch)


@pytest.fixture
def closed_port() -> int:
    """A local TCP port nobody listens on: connecting to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.fixture
def silent_proxy() -> Iterator[int]:
    """A local TCP port that accepts connections and never says a word (a proxy that hangs)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


# ---- a fake voice ------------------------------------------------------------------------------------


@pytest.fixture
def fake_voice() -> FakeVoice:
    return FakeVoice()


# ---- a local edge-tts server --------------------------------------------------------------------------


@dataclass
class EdgeServer:
    """A WebSocket server speaking edge-tts's protocol; it answers every request with `mp3`."""

    url: str
    mp3: bytes
    requests: list[str] = field(default_factory=list)
    """The SSML request messages received."""


def _serve_edge(server: EdgeServer, ready: threading.Event, box: dict[str, object]) -> None:
    from aiohttp import WSMsgType, web

    async def speak(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for msg in ws:
            if msg.type != WSMsgType.TEXT or "Path:ssml" not in msg.data:
                continue
            server.requests.append(msg.data)
            head = "X-RequestId:0\r\nContent-Type:application/json; charset=utf-8\r\n"
            await ws.send_str(head + "Path:turn.start\r\n\r\n{}")
            audio_head = b"X-RequestId:0\r\nContent-Type:audio/mpeg\r\nPath:audio\r\n"
            for i in range(0, len(server.mp3), 4096):
                await ws.send_bytes(len(audio_head).to_bytes(2, "big") + audio_head + server.mp3[i : i + 4096])
            await ws.send_str(head + "Path:turn.end\r\n\r\n{}")
        return ws

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/{tail:.*}", speak)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        server.url = f"ws://127.0.0.1:{port}/consumer/speech/synthesize/readaloud/edge/v1?TrustedClientToken=x"
        box["loop"] = asyncio.get_running_loop()
        box["stop"] = stop_event = asyncio.Event()
        ready.set()
        await stop_event.wait()
        await runner.cleanup()

    asyncio.run(main())


@contextmanager
def running_edge_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[EdgeServer]:
    """edge-tts pointed (through its own WSS_URL constant) at a local server; no proxies from the env."""
    import edge_tts.communicate

    sound = tone("狼人请睁眼。", seconds_per_char=1 / 6)  # 1 s
    server = EdgeServer(url="", mp3=mp3_of(sound))
    ready, box = threading.Event(), dict[str, object]()
    thread = threading.Thread(target=_serve_edge, args=(server, ready, box), daemon=True)
    thread.start()
    assert ready.wait(10), "the local edge-tts server did not start"
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "WS_PROXY", "WSS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
        monkeypatch.delenv(var.lower(), raising=False)
    monkeypatch.setattr(edge_tts.communicate, "WSS_URL", server.url)
    try:
        yield server
    finally:
        loop, stop = box["loop"], box["stop"]
        assert isinstance(loop, asyncio.AbstractEventLoop) and isinstance(stop, asyncio.Event)
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)


@pytest.fixture
def edge_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[EdgeServer]:
    with running_edge_server(monkeypatch) as server:
        yield server
