"""The Clock port: what the live loop's waits, the speech timer and the drawn holds read and sleep on.

`SystemClock` is the real one (time.monotonic / time.sleep); `FakeClock` starts at 0.0 and its `sleep`
advances it at once, so timing code is tested without waiting. tests/test_ports.py runs both through the
same contract cases.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    def now(self) -> float:
        """Seconds, monotonic (only differences mean anything)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait `seconds` (nothing for zero or less)."""
        ...


class SystemClock:
    """The machine's monotonic clock."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock that only moves when told: `sleep(s)` and `advance(s)` add s at once."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self.slept: list[float] = []
        """Every sleep asked for, in order (for tests of the waits themselves)."""

    def now(self) -> float:
        return self._now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if seconds > 0:
            self._now += seconds

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self._now += seconds
