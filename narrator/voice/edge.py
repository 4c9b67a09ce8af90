"""edge-tts: Microsoft Edge's online neural voices. Natural, but needs the network (so: cache, and fall back).

The default is zh-CN-YunyangNeural. edge-tts's voice list describes it as a male news voice, "Professional,
Reliable": an announcer who speaks evenly and clearly, which is what a judge (法官) is. The other male
Mandarin voices are less fitting: YunjianNeural is tagged "Passion" (a sports commentator), YunxiNeural
"Lively, Sunshine" (a teenager). `--voice` picks another, e.g. zh-TW-YunJheNeural for a Taiwanese accent.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from collections.abc import Coroutine, Iterator, Sequence
from typing import TypeVar

from narrator.voice.base import Audio, VoiceError, VoiceSettings, VoiceUnavailable
from narrator.voice.pcm import decode_mp3, decode_mp3s

DEFAULT_EDGE_VOICE = "zh-CN-YunyangNeural"
_T = TypeVar("_T")
_EDGE_NAME = re.compile(r"^[a-z]{2,}-[A-Z]{2,}-.+Neural$|^Microsoft Server Speech Text to Speech Voice \(.+\)$")


class EdgeVoice:
    """One edge-tts request per piece; the MP3 it streams (24 kHz) is decoded by ffmpeg to SAMPLE_RATE."""

    def __init__(
        self, voice: str = DEFAULT_EDGE_VOICE, *, rate: str = "+0%", pitch: str = "+0Hz", volume: str = "+0%",
        proxy: str | None = None, connect_timeout_s: int = 10, receive_timeout_s: int = 30, timeout_s: float = 60.0,
    ) -> None:  # fmt: skip
        if not _EDGE_NAME.match(voice):
            raise ValueError(f"{voice!r} is not an edge-tts voice name (like {DEFAULT_EDGE_VOICE!r})")
        if not (voice.startswith("zh-") or "(zh-" in voice):
            raise ValueError(f"edge-tts voice {voice!r} does not speak Chinese; choose a zh-CN, zh-TW or zh-HK "
                             f"voice (like {DEFAULT_EDGE_VOICE!r}; `narrator voices list` suggests some)")
        self.settings = VoiceSettings("edge", voice, rate, pitch, volume, engine=f"edge-tts={_edge_version()}")
        self.proxy = proxy
        """An HTTP proxy URL for the connection, or None (edge-tts then also honours HTTPS_PROXY)."""
        self.connect_timeout_s = connect_timeout_s
        """s. Giving up on connecting to the service (or the proxy)."""
        self.receive_timeout_s = receive_timeout_s
        """s. Giving up when the service stops sending."""
        self.timeout_s = timeout_s
        """s. Giving up on one piece altogether. edge-tts sets no overall limit, and a proxy or portal that
        accepts the connection and then says nothing would otherwise hang the game."""

    @property
    def key(self) -> str:
        return self.settings.key

    @property
    def label(self) -> str:
        return f"edge-tts ({self.settings.voice})"

    def synthesize(self, text: str) -> Audio:
        return decode_mp3(self.fetch_mp3(text))

    def synthesize_many(
        self, texts: Sequence[str], *, at_once: int = 4, batch: int = 32
    ) -> Iterator[tuple[str, Audio]]:
        """Each of `texts` with its audio, in order, as synthesize gives it: the first alone (an unreachable
        service is then met by one request, not `at_once`), the rest `batch` at a time, fetched `at_once`
        requests at a time and decoded by one ffmpeg per batch. A piece is a short request, so a build over
        the internet waits on round trips, not bandwidth. Raises as synthesize does, after yielding what is
        done."""
        chunks = [list(texts[:1]), *(list(texts[i : i + batch]) for i in range(1, len(texts), batch))]
        for chunk in filter(None, chunks):
            yield from zip(chunk, decode_mp3s(self._fetch_mp3s(chunk, at_once)), strict=True)

    def fetch_mp3(self, text: str) -> bytes:
        """The MP3 edge-tts streams for `text`. Network and service failures become VoiceUnavailable."""
        return self._fetch_mp3s([text], 1)[0]

    def _fetch_mp3s(self, texts: list[str], at_once: int) -> list[bytes]:
        """The MP3s of `texts`, `at_once` requests at a time; failures become VoiceUnavailable or VoiceError."""
        import aiohttp
        import edge_tts.exceptions

        async def fetch_all() -> list[bytes]:
            requests = asyncio.Semaphore(at_once)

            async def one(text: str) -> bytes:
                async with requests:
                    return await asyncio.wait_for(self._stream(text), self.timeout_s)

            return list(await asyncio.gather(*(one(text) for text in texts)))

        try:
            clips = _run(fetch_all())
        except edge_tts.exceptions.NoAudioReceived as exc:
            # The service answered and said nothing: it has no such voice (or refuses these settings).
            # Falling back would speak in another voice than the one asked for: say so instead.
            raise VoiceError(
                f"edge-tts answered but sent no audio for voice {self.settings.voice!r}: it does not have that "
                "voice, or refuses its --rate/--pitch/--volume (`edge-tts --list-voices` lists its voices)"
            ) from exc
        except (aiohttp.ClientError, TimeoutError, OSError, edge_tts.exceptions.EdgeTTSException) as exc:
            # ClientConnectorError (DNS, refused, unreachable; a dead proxy), ServerTimeoutError (connect or
            # read timeout), WSServerHandshakeError (the service refused us, e.g. 403), WebSocketError,
            # NoAudioReceived / Unexpected…: all mean "edge-tts cannot speak for us now".
            reason = describe_failure(exc)
            if isinstance(exc, TimeoutError) and not str(exc):  # our own overall deadline
                reason = f"no answer within {self.timeout_s:g} s"
            raise VoiceUnavailable(reason) from exc
        if not all(clips):
            raise VoiceUnavailable("edge-tts sent no audio")
        return clips

    async def _stream(self, text: str) -> bytes:
        import edge_tts

        s = self.settings
        communicate = edge_tts.Communicate(
            text, s.voice, rate=s.rate, pitch=s.pitch, volume=s.volume, proxy=self.proxy,
            connect_timeout=self.connect_timeout_s, receive_timeout=self.receive_timeout_s,
        )  # fmt: skip
        chunks: list[bytes] = []
        async for chunk in communicate.stream():
            if chunk["type"] == "audio":
                chunks.append(chunk["data"])
        return b"".join(chunks)


def _edge_version() -> str:
    """The installed edge-tts package's version, part of the cache key ("none" when it is missing)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("edge-tts")
    except PackageNotFoundError:
        return "none"


def describe_failure(exc: BaseException) -> str:
    """A one-line reason for a warning, without aiohttp's object reprs."""
    import aiohttp

    if isinstance(exc, aiohttp.ClientConnectorError):
        os_error = exc.os_error
        why = os_error.strerror or str(os_error) or type(os_error).__name__
        return f"cannot connect to {exc.host}:{exc.port}: {why}"
    if isinstance(exc, TimeoutError):
        return f"timed out ({exc})" if str(exc) else "timed out"
    if isinstance(exc, aiohttp.WSServerHandshakeError):
        return f"the service refused the connection (HTTP {exc.status})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _run(coro: Coroutine[object, None, _T]) -> _T:
    """Run a coroutine to completion from sync code, even if this thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()

