"""The voice port: text in, audio out (mono float32 at SAMPLE_RATE), its settings and its errors.

Adapters (edge-tts, espeak-ng) live in their own modules; `FallbackVoice` swaps one for another when the
first cannot be reached; `Speaker` renders a judge's Line piece by piece through a disk cache.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Audio = npt.NDArray[np.float32]
"""Mono float32 samples in [-1, 1] at narrator.audio.SAMPLE_RATE."""

_RATE = re.compile(r"^[+-]\d+%$")
_PITCH = re.compile(r"^[+-]\d+Hz$")


@runtime_checkable
class Voice(Protocol):
    """Anything that can say a piece of text."""

    @property
    def key(self) -> str:
        """Everything that changes the sound (backend, voice, rate, pitch, volume): the cache key's prefix.

        Read it *after* `synthesize`: a voice that falls back changes its key to the fallback's."""
        ...

    def synthesize(self, text: str) -> Audio:
        """The text spoken, mono float32 at SAMPLE_RATE. Raises VoiceUnavailable when the voice's service
        cannot be reached (worth falling back) and VoiceError when it cannot work at all."""
        ...


@runtime_checkable
class SpeaksMany(Protocol):
    """A voice that says many texts at once better than one by one (edge-tts fetches them together)."""

    def synthesize_many(self, texts: Sequence[str]) -> Iterator[tuple[str, Audio]]: ...


@runtime_checkable
class Labelled(Protocol):
    """A voice with a human name ("edge-tts (zh-CN-YunyangNeural)")."""

    @property
    def label(self) -> str: ...


@runtime_checkable
class Switching(Protocol):
    """A voice that speaks through another one (FallbackVoice: its primary, then its fallback)."""

    @property
    def active(self) -> Voice: ...


@runtime_checkable
class Configured(Protocol):
    """A voice with settings (edge-tts, espeak-ng): its volume is one of them."""

    @property
    def settings(self) -> VoiceSettings: ...


def synthesize_many(voice: Voice, texts: Sequence[str]) -> Iterator[tuple[str, Audio]]:
    """Each of `texts` with its audio, in order: by the voice's own `synthesize_many` when it has one (edge-tts
    fetches many at once), else one `synthesize` at a time. Read `voice.key` after each: it may change."""
    if isinstance(voice, SpeaksMany):
        yield from voice.synthesize_many(texts)
        return
    for text in texts:
        yield text, voice.synthesize(text)


class VoiceError(RuntimeError):
    """The voice cannot work here: a missing program, bad settings, undecodable audio."""


class VoiceUnavailable(VoiceError):
    """The voice's service cannot be reached right now (no network, refused, timed out): fall back."""


class MissingPiece(LookupError):
    """Cache-only mode met a piece that was never rendered with this voice."""

    def __init__(self, piece: str, key: str, where: str) -> None:
        self.piece = piece
        self.key = key
        super().__init__(
            f"the piece {piece!r} is not in the voice cache ({where}) for voice {key}; "
            "run `narrator voices build` with the same voice settings, online, to render it"
        )


@dataclass(frozen=True, slots=True)
class VoiceSettings:
    """What a voice sounds like, in edge-tts's own notation (espeak-ng maps it onto its scales)."""

    backend: str
    """"edge" or "espeak"."""
    voice: str
    """Backend voice name: "zh-CN-YunyangNeural" (edge-tts), "cmn-latn-pinyin" (espeak-ng)."""
    rate: str = "+0%"
    """Speaking-rate change in percent of the voice's normal rate, e.g. "-10%"."""
    pitch: str = "+0Hz"
    """Pitch shift in Hz, e.g. "-5Hz"."""
    volume: str = "+0%"
    """Loudness change in percent, e.g. "+20%"."""
    engine: str = ""
    """What renders it and its version ("espeak-ng=1.51", "edge-tts=7.3.1"): part of the cache key, so
    pieces made by another release are made again."""

    def __post_init__(self) -> None:
        if not self.voice:
            raise ValueError("voice name is empty")
        for name, value, pattern, example in (
            ("rate", self.rate, _RATE, "-10%"),
            ("volume", self.volume, _RATE, "+20%"),
            ("pitch", self.pitch, _PITCH, "-5Hz"),
        ):
            if not pattern.match(value):
                raise ValueError(f"{name} must look like {example!r}, not {value!r}")

    @property
    def key(self) -> str:
        key = f"{self.backend}:{self.voice}:rate={self.rate}:pitch={self.pitch}:volume={self.volume}"
        return f"{key}:{self.engine}" if self.engine else key

    @property
    def rate_percent(self) -> int:
        """%. Speaking-rate change."""
        return int(self.rate[:-1])

    @property
    def volume_percent(self) -> int:
        """%. Loudness change."""
        return int(self.volume[:-1])

    @property
    def pitch_hz(self) -> int:
        """Hz. Pitch shift."""
        return int(self.pitch[:-2])
