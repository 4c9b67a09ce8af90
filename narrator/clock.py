"""The Clock port: the one time source of the live loop, real or fake.

    clock = SystemClock()     # time.monotonic / time.sleep
    clock = FakeClock()       # now() starts at 0.0; sleep(s) advances at once (tests, offline render)

Everything that waits or measures a pause in the judge (narrator/audio/conductor.py, the speech timer)
takes a Clock, so the same code runs a real game and a test that goes through a whole night instantly.
"""

from __future__ import annotations

import math
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """s, monotonic."""
        ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """Real time: time.monotonic() and time.sleep()."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """Test time: now() starts at 0.0, sleep(s) and advance(s) move it forward at once."""

    def __init__(self) -> None:
        self._now = 0.0

    def now(self) -> float:
        return self._now

    def sleep(self, seconds: float) -> None:
        self.advance(max(0.0, seconds))

    def advance(self, seconds: float) -> None:
        if seconds < 0 or not math.isfinite(seconds):
            raise ValueError(f"a clock only moves forward by a finite amount, got {seconds}")
        self._now += seconds
