"""Offline rendering through the same Mixer as live playback, to two time-aligned WAV files.

    result = render_to_files(items, "game.public.wav", "game.host.wav", pacer=Pacer(seed))

`items` is a sequence of:

- ``(line, clip)``: a judge Line and its speech (mono float32 at SAMPLE_RATE), queued exactly as
  ``Player.say(line, clip)`` queues it live: channel from ``line.to``, cue and bed switch from the line,
  pause drawn from the Pacer by ``line.pause``;
- ``(line, clip, pause_s)``: the same with an explicit pause in seconds;
- ``SYNC``: both channels wait until both have drained, which is what ``Player.wait_drained()`` does
  live (the judge waits for the room, e.g. before listening for the host's answer). Without it the two
  channels run independently, as they do live.

The public file holds the table speaker's signal (speech, cues, bed); the host file holds only host
lines, sample-aligned with the public one. At the end the bed fades out over the mixer's crossfade time.
Files are 16-bit PCM mono WAV at SAMPLE_RATE.
"""

from __future__ import annotations

import wave
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio.mixer import Mixer, Ticket
from narrator.judge.lines import Line

if TYPE_CHECKING:
    from narrator.audio.pacing import Pacer


class _Sync(Enum):
    SYNC = "sync"


SYNC = _Sync.SYNC
"""Render item: both channels wait for each other (live: Player.wait_drained())."""

RenderItem = tuple[Line, np.ndarray] | tuple[Line, np.ndarray, float] | _Sync

_BLOCK = 4800  # frames per pull offline; any size gives the same samples


@dataclass(frozen=True)
class Placed:
    """Where one line landed in the rendered files."""

    line: Line
    start_s: float
    """s. First sample of the line's group (its cue, or its speech)."""
    speech_s: float
    """s. First sample of the speech."""
    end_s: float
    """s. End of the pause after the line."""


@dataclass(frozen=True)
class Rendered:
    public: np.ndarray
    """Public channel, mono float32 at SAMPLE_RATE."""
    host: np.ndarray
    """Host channel, same length, sample-aligned with public."""
    timeline: list[Placed]
    """Every line in queueing order."""

    @property
    def duration_s(self) -> float:
        """s."""
        return len(self.public) / SAMPLE_RATE


def render(items: Iterable[RenderItem], *, pacer: Pacer | None = None, mixer: Mixer | None = None,
           tail_s: float | None = None) -> Rendered:
    """Render items (see module docstring) in memory through `mixer` (default: a fresh Mixer(), i.e. the
    user's sounds where present). `tail_s` (default: the bed crossfade) is the bed's fade-out at the end."""
    mixer = mixer or Mixer()
    public: list[np.ndarray] = []
    host: list[np.ndarray] = []
    placed: list[tuple[Line, Ticket]] = []

    def run(frames: int) -> None:
        while frames > 0:
            p, h = mixer.pull(min(frames, _BLOCK))
            public.append(p)
            host.append(h)
            frames -= len(p)

    def drain() -> None:  # pull exactly up to the point where the longer channel runs out
        run(max(mixer.pending_frames("all"), mixer.pending_frames("host")))

    for item in items:
        if item is SYNC:
            drain()
            continue
        assert not isinstance(item, _Sync)
        line, clip = item[0], item[1]
        if len(item) == 3:
            pause = float(item[2])
        elif pacer is not None:
            pause = pacer.draw(line.pause)
        else:
            raise ValueError(f"no pause for {line.key or line.text!r}: pass pacer= or (line, clip, pause_s)")
        placed.append((line, mixer.enqueue_line(line, clip, pause)))
    drain()
    if mixer.bed != "off":
        mixer.switch_bed("off")
        run(round((mixer.config.bed_crossfade_s if tail_s is None else tail_s) * SAMPLE_RATE))
    empty = np.zeros(0, np.float32)
    timeline = [Placed(line, _s(t.start_frame), _s(t.speech_frame), _s(t.end_frame)) for line, t in placed]
    return Rendered(np.concatenate(public or [empty]), np.concatenate(host or [empty]), timeline)


def _s(frame: int | None) -> float:
    assert frame is not None, "render() drains the mixer, so every ticket has its frames"
    return frame / SAMPLE_RATE


def write_wav(path: str | Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    """16-bit PCM mono WAV (values outside [-1, 1] are clipped)."""
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def render_to_files(items: Iterable[RenderItem], public_path: str | Path,
                    host_path: str | Path, *, pacer: Pacer | None = None, mixer: Mixer | None = None,
                    tail_s: float | None = None) -> Rendered:
    """render() and write the public and host channels to two WAV files; returns what was rendered."""
    result = render(items, pacer=pacer, mixer=mixer, tail_s=tail_s)
    write_wav(public_path, result.public)
    write_wav(host_path, result.host)
    return result
