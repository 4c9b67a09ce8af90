"""The one place that wires real voices: edge-tts with an espeak-ng fallback, through the disk cache."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from narrator.voice.base import Voice
from narrator.voice.cache import VoiceCache, default_cache_dir
from narrator.voice.edge import DEFAULT_EDGE_VOICE, EdgeVoice
from narrator.voice.espeak import DEFAULT_ESPEAK_VOICE, EspeakVoice
from narrator.voice.fallback import FallbackVoice, label
from narrator.voice.speaker import Speaker, is_pause

Backend = Literal["edge", "espeak"]
BACKENDS: tuple[Backend, ...] = ("edge", "espeak")
DEFAULT_VOICES: dict[str, str] = {"edge": DEFAULT_EDGE_VOICE, "espeak": DEFAULT_ESPEAK_VOICE}
"""The preferred voices; espeak-ng takes the best one the installed espeak-ng offers (espeak_voices)."""


def pieces_to_build(lang: str = "zh-Hans", max_seat: int = 18) -> list[str]:
    """Every spoken piece a game of the `lang` script can need: what `narrator voices build` renders."""
    from narrator.judge.script import Script

    pieces = set(Script(lang).fixed_pieces(max_seat))
    return sorted(p for p in pieces if not is_pause(p))


def make_voice(
    backend: str = "edge", voice: str | None = None, *, rate: str = "+0%", pitch: str = "+0Hz",
    volume: str = "+0%", proxy: str | None = None, warn: Callable[[str], None] | None = None,
) -> Voice:  # fmt: skip
    """"edge": edge-tts falling back to espeak-ng (same rate, pitch and volume) when unreachable;
    "espeak": espeak-ng alone. Bad settings raise ValueError."""
    if backend == "espeak":
        return EspeakVoice(voice, rate=rate, pitch=pitch, volume=volume)
    if backend != "edge":
        raise ValueError(f"unknown voice backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    edge = EdgeVoice(voice or DEFAULT_EDGE_VOICE, rate=rate, pitch=pitch, volume=volume, proxy=proxy)
    espeak = EspeakVoice(None, rate=rate, pitch=pitch, volume=volume)
    return FallbackVoice(edge, espeak, warn)


def make_speaker(
    voice: Voice, *, cache_dir: str | Path | None = None, lang: str = "zh-Hans", offline: bool = False
) -> Speaker:
    """The speaker for a game: `voice` through the cache at default_cache_dir(cache_dir).

    If `voice` falls back and the cache holds every piece of the `lang` script for the fallback but
    not for the primary (a `voices build` that ran offline), the game starts on the fallback: it speaks in
    the voice that was built, and never tries the network (saying so once, through the voice's warning)."""
    speaker = Speaker(voice, VoiceCache(default_cache_dir(cache_dir)), offline=offline)
    if isinstance(voice, FallbackVoice) and not voice.using_fallback:
        pieces = pieces_to_build(lang)
        primary, fallback = voice.primary.key, voice.fallback.key
        if not _complete(speaker, primary, pieces) and _complete(speaker, fallback, pieces):
            voice.use_fallback(
                f"{label(voice.primary)} is not in the voice cache (run `narrator voices build` online for it)"
            )
    return speaker


def _complete(speaker: Speaker, key: str, pieces: Iterable[str]) -> bool:
    cache = speaker.cache
    return cache is not None and all(cache.has(key, p) for p in pieces)
