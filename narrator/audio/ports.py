"""The audio output port: what a game loop plays its lines through, and a recording fake.

`AudioOut` is what `narrator.audio.playback.Player` offers a loop (start, say, wait_drained, close); the
fake `RecordingOut` keeps every line it was given, per channel, and "plays" it on a Clock: with a
FakeClock a loop's waits for the table to have heard a line cost no time in tests. The other ports live
with their kind: the Clock in narrator/common/clock.py, the journal store in narrator/session/journal.py, the Voice in
narrator/voice/base.py, the Ear in narrator/listen/base.py, the live loop's Mouth in narrator/play/mouth.py
and its console's View in narrator/play/loop.py. tests/test_ports.py runs each real adapter and its fake
through the same contract cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.common.clock import Clock, FakeClock
from narrator.judge.lines import Line


@runtime_checkable
class AudioOut(Protocol):
    @property
    def has_host_output(self) -> bool:
        """True when host lines reach a device of their own (an earpiece); else they are printed."""
        ...

    def start(self) -> None: ...

    def say(self, line: Line, clip: np.ndarray, pause_after_s: float | None = None) -> object:
        """Queue `clip` (mono float32 at SAMPLE_RATE) for `line`'s channel behind what is queued; returns at
        once. Host lines never reach the table's device."""
        ...

    def wait_drained(self, timeout_s: float | None = None) -> bool:
        """Block until everything queued has been played (True), or the timeout passed (False)."""
        ...

    def close(self) -> None: ...


@dataclass
class Played:
    line: Line
    seconds: float
    start_s: float
    """When it began on the clock (after what was queued before it on its channel)."""


@dataclass
class RecordingOut:
    """A fake AudioOut: records what each channel would have played, in order, timed on `clock`."""

    clock: Clock = field(default_factory=FakeClock)
    host_output: bool = False
    table: list[Played] = field(default_factory=list)
    host: list[Played] = field(default_factory=list)
    printed: list[str] = field(default_factory=list)
    """Host lines without a host output: printed for the host, never played."""
    started: bool = False
    closed: bool = False
    _ends: dict[str, float] = field(default_factory=dict)

    @property
    def has_host_output(self) -> bool:
        return self.host_output

    def start(self) -> None:
        if self.closed:
            raise RuntimeError("this output was closed")
        self.started = True

    def say(self, line: Line, clip: np.ndarray, pause_after_s: float | None = None) -> Played | None:
        if not self.started or self.closed:
            raise RuntimeError("say() before start() or after close()")
        if line.to == "host" and not self.host_output:
            self.printed.append(line.text)
            return None
        channel = "host" if line.to == "host" else "all"
        seconds = len(clip) / SAMPLE_RATE + (pause_after_s or 0.0)
        start = max(self.clock.now(), self._ends.get(channel, 0.0))
        self._ends[channel] = start + seconds
        played = Played(line, seconds, start)
        (self.host if channel == "host" else self.table).append(played)
        return played

    def wait_drained(self, timeout_s: float | None = None) -> bool:
        end = max(self._ends.values(), default=0.0)
        left = end - self.clock.now()
        if timeout_s is not None and left > timeout_s:
            self.clock.sleep(timeout_s)
            return False
        self.clock.sleep(left)
        return True

    def close(self) -> None:
        self.closed = True
