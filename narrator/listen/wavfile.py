"""A WAV file as the microphone: its utterances are heard one per `listen`, as fast as they decode.

The file's clock is its own sample position (seconds from its start). Any rate and channel count is
read (mixed to mono, resampled to 16 kHz). At the end of the file `listen` returns None and the ear is
closed.
"""

from __future__ import annotations

import wave
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

import numpy as np

from narrator.engine.prompts import Prompt
from narrator.listen.base import Context, Heard, Source
from narrator.listen.recognizer import SAMPLE_RATE
from narrator.listen.voice import VoiceEar, VoiceOptions

if TYPE_CHECKING:
    from narrator.listen.grammar import Grammar
    from narrator.listen.recognizer import Recognizer
    from narrator.listen.vad import Endpointer


class AudioFileError(Exception):
    """A file that is not a readable WAV (one sentence naming it)."""


def read_wav(path: Path) -> np.ndarray:
    """Mono float32 at 16 kHz."""
    try:
        with wave.open(str(path), "rb") as w:
            rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
            raw = w.readframes(w.getnframes())
    except (OSError, EOFError, wave.Error) as e:
        raise AudioFileError(f"cannot read {path} as a WAV file: {e}") from None
    if width != 2:
        raise AudioFileError(f"{path}: only 16-bit PCM WAV files are read (this one has {8 * width}-bit samples)")
    x = np.frombuffer(raw, "<i2").astype(np.float32).reshape(-1, channels).mean(axis=1) / 32768.0
    if rate != SAMPLE_RATE:
        n = round(len(x) * SAMPLE_RATE / rate)
        x = np.interp(np.arange(n) * rate / SAMPLE_RATE, np.arange(len(x)), x).astype(np.float32)
    out: np.ndarray = x.astype(np.float32)
    return out


class FileEar(VoiceEar):
    source: Source = "file"

    def __init__(self, samples: np.ndarray | Path, recognizer: Recognizer, grammar: Grammar, endpointer: Endpointer,
                 *, block_s: float = 0.064, **kw: Unpack[VoiceOptions]) -> None:
        super().__init__(recognizer, grammar, endpointer, **kw)
        self.samples = read_wav(samples) if isinstance(samples, Path) else samples
        self.pos = 0
        self.block = int(block_s * SAMPLE_RATE)

    @property
    def now(self) -> float:
        return self.pos / SAMPLE_RATE

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        self.begin(Context(prompt, max_seat, self.now))
        stop = None if timeout_s is None else self.now + timeout_s
        while self.queue.empty():
            if self.pos >= len(self.samples):
                self.flush()
                if self.queue.empty():
                    self.end()
                break
            if stop is not None and self.now >= stop:
                return None
            chunk = self.samples[self.pos : self.pos + self.block]
            t = self.now
            self.pos += len(chunk)
            self.feed(chunk, t)
        item = self.queue.get()
        return item
