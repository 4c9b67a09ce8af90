"""Ports and their fakes go through the same contract cases (the Voice's are in tests/voice/)."""

from __future__ import annotations

import pytest

from narrator.clock import Clock, FakeClock, SystemClock


@pytest.fixture(params=["fake", "system"])
def clock(request: pytest.FixtureRequest) -> Clock:
    return FakeClock() if request.param == "fake" else SystemClock()


def test_clock_is_monotonic_and_sleep_waits_at_least(clock: Clock) -> None:
    assert isinstance(clock, Clock)
    a = clock.now()
    clock.sleep(0.02)
    b = clock.now()
    assert b - a >= 0.02 - 1e-9
    clock.sleep(0)
    clock.sleep(-1)  # nothing, never an error
    assert clock.now() >= b


def test_fake_clock_starts_at_zero_and_only_moves_when_told() -> None:
    c = FakeClock()
    assert c.now() == 0.0
    c.sleep(1.5)
    c.advance(2)
    assert c.now() == 3.5 and c.slept == [1.5]
    with pytest.raises(ValueError):
        c.advance(-1)
