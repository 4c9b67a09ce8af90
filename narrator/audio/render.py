"""Offline rendering: a Tape pulls the Mixer as the Conductor's clock moves and writes as it goes.

    mixer, clock = Mixer(), FakeClock()
    tape = Tape(mixer, "game.wav", "game.host.wav")
    conductor = Conductor(mixer, clock, voice, seed=seed, tape=tape)
    ...                                   # conductor.say(...), conductor.ready(), clock.sleep(...)
    conductor.settle(); rendered = tape.close(conductor.timeline)

The public file holds the table speaker's signal (speech, cues, bed); the host file holds only host
lines, sample-aligned with the public one. At the end the bed fades out over the mixer's crossfade time.
Files are 16-bit PCM mono WAV at SAMPLE_RATE, written block by block: memory does not grow with the
length of the game. `keep=True` also keeps the samples in memory (tests).
"""

from __future__ import annotations

import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio.mixer import Mixer

if TYPE_CHECKING:
    from narrator.audio.timeline import Placed

_BLOCK = 4800  # frames per pull offline; any size gives the same samples


@dataclass
class Rendered:
    frames: int
    """Length of both channels in frames."""
    timeline: list[Placed]
    """Every line in the judge's order."""
    public: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    """Public channel samples (only with Tape(keep=True))."""
    host: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    """Host channel samples (only with Tape(keep=True))."""

    @property
    def duration_s(self) -> float:
        """s."""
        return self.frames / SAMPLE_RATE


def _pcm(samples: np.ndarray) -> bytes:
    pcm: bytes = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
    return pcm


def _open(path: str | Path) -> wave.Wave_write:
    w = wave.open(str(path), "wb")  # noqa: SIM115 (the Tape writes it block by block and closes it)
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(SAMPLE_RATE)
    return w


class Tape:
    """Pulls both channels of `mixer` up to a frame and writes them to WAV files (either may be None)."""

    def __init__(self, mixer: Mixer, public_path: str | Path | None = None, host_path: str | Path | None = None,
                 *, keep: bool = False) -> None:
        self.mixer = mixer
        self.frames = 0
        self._writers = [_open(p) if p is not None else None for p in (public_path, host_path)]
        self._kept: tuple[list[np.ndarray], list[np.ndarray]] | None = ([], []) if keep else None
        self._public, self._host = np.empty(_BLOCK, np.float32), np.empty(_BLOCK, np.float32)

    def run_to(self, frame: int) -> None:
        """Pull and write until `frame` (no-op if already there)."""
        while self.frames < frame:
            n = min(_BLOCK, frame - self.frames)
            public, host = self._public[:n], self._host[:n]
            self.mixer.pull_public_into(public)
            self.mixer.pull_host_into(host)
            for writer, block in zip(self._writers, (public, host), strict=True):
                if writer is not None:
                    writer.writeframes(_pcm(block))
            if self._kept is not None:
                self._kept[0].append(public.copy())
                self._kept[1].append(host.copy())
            self.frames += n

    def close(self, timeline: list[Placed] | None = None, tail_s: float | None = None) -> Rendered:
        """Play out what is queued, fade the bed out (`tail_s`, default the mixer's crossfade), close the
        files and return what was rendered."""
        self.run_to(self.frames + max(self.mixer.pending_frames("all"), self.mixer.pending_frames("host")))
        if self.mixer.bed != "off":
            self.mixer.switch_bed("off")
            tail = self.mixer.config.bed_crossfade_s if tail_s is None else tail_s
            self.run_to(self.frames + round(tail * SAMPLE_RATE))
        for writer in self._writers:
            if writer is not None:
                writer.close()
        self._writers = [None, None]
        rendered = Rendered(self.frames, list(timeline or []))
        if self._kept is not None:
            empty = [np.zeros(0, np.float32)]
            rendered.public = np.concatenate(self._kept[0] or empty)
            rendered.host = np.concatenate(self._kept[1] or empty)
        return rendered

    def abort(self) -> None:
        """Close the files without playing out (an error stopped the render)."""
        for writer in self._writers:
            if writer is not None:
                writer.close()
        self._writers = [None, None]


def write_wav(path: str | Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    """16-bit PCM mono WAV (values outside [-1, 1] are clipped)."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(_pcm(samples))
