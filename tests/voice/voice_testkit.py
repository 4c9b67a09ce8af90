"""Helpers shared by the voice tests (imported as `voice_testkit`, like tests/audio's audio_testkit)."""

from __future__ import annotations

import asyncio
import errno
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pytest

from narrator.audio import SAMPLE_RATE
from narrator.judge.lines import Line
from narrator.voice.base import Audio, Voice


def tone(text: str, seconds_per_char: float = 0.05) -> Audio:
    """A distinct, deterministic sound per text: a tone whose pitch and length depend on the text."""
    n = max(1, round(SAMPLE_RATE * seconds_per_char * len(text)))
    freq = 200 + sum(map(ord, text)) % 600
    t = np.arange(n) / SAMPLE_RATE
    return (0.5 * np.sin(2 * np.pi * freq * t) * np.hanning(n)).astype(np.float32)


class FakeVoice:
    """A voice for tests: counts its calls; its key changes with its name and rate like a real one."""

    def __init__(self, name: str = "fake", rate: str = "+0%") -> None:
        self.name, self.rate = name, rate
        self.calls: list[str] = []

    @property
    def key(self) -> str:
        return f"fake:{self.name}:rate={self.rate}"

    def synthesize(self, text: str) -> Audio:
        self.calls.append(text)
        return tone(text)


class Counting:
    """A real voice, counting what it is asked to say."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice
        self.calls: list[str] = []

    @property
    def key(self) -> str:
        return self.voice.key

    @property
    def label(self) -> str:
        return str(getattr(self.voice, "label", self.voice.key))

    def synthesize(self, text: str) -> Audio:
        self.calls.append(text)
        return self.voice.synthesize(text)


def mp3_of(audio: Audio) -> bytes:
    """`audio` encoded as edge-tts sends it: MP3, 24 kHz mono, 48 kbit/s."""
    proc = subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "f32le", "-ar", str(SAMPLE_RATE), "-ac", "1",
         "-i", "pipe:0", "-f", "mp3", "-b:a", "48k", "pipe:1"],
        input=audio.astype("<f4").tobytes(), capture_output=True, check=True,
    )  # fmt: skip
    return proc.stdout


def game_lines(lang: str, games: int) -> list[Line]:
    """Every line (table and host) the judge says in `games` random legal games over the presets."""
    import random

    from narrator.engine.game import Game
    from narrator.judge.narrate import Judge
    from narrator.judge.presets import make_setup, preset_names
    from narrator.judge.script import Script
    from narrator.sim.autohost import AutoHost, Deal

    judge, out = Judge(Script(lang)), []
    names = preset_names()
    for seed in range(games):
        setup = make_setup(names[seed % len(names)])
        rng = random.Random(seed)
        host, game, done = AutoHost(Deal.shuffle(setup, rng), rng), Game(setup, seed), 0
        while True:
            for event in game.journal[done:]:
                out.extend(judge.event_lines(event, game.state))
            done = len(game.journal)
            if game.prompt is None:
                break
            out.extend(judge.prompt_lines(game.prompt, game.state))
            game.answer(host.answer(game, game.prompt))
    return out


# ---- the network, unplugged, and a local edge-tts server ----------------------------------------------


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


@dataclass
class EdgeServer:
    """A WebSocket server speaking edge-tts's protocol; it answers every request with `mp3`."""

    url: str
    mp3: bytes
    requests: list[str] = field(default_factory=list)
    """The SSML request messages received."""
    open_now: int = 0
    most_open: int = 0
    """The most connections open at once."""


def _serve_edge(server: EdgeServer, ready: threading.Event, box: dict[str, object]) -> None:
    from aiohttp import WSMsgType, web

    async def speak(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        server.open_now += 1
        server.most_open = max(server.most_open, server.open_now)
        try:
            await answer(ws)
        finally:
            server.open_now -= 1
        return ws

    async def answer(ws: web.WebSocketResponse) -> None:
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
