"""The day's speech timer on a FakeClock: the soft cue, 时间到, 过, 暂停/继续."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_conductor import DAY_TALK, conductor

from narrator.audio.conductor import Conductor
from narrator.audio.timer import Command, SpeechTimer
from narrator.judge.script import Script


def ear(c: Conductor, said: dict[float, Command]) -> Callable[[float | None], Command | None]:
    """A host who says `said[t]` at speaking time t (s after the speech started); otherwise silence."""
    start = c.clock.now()
    pending = sorted(said.items())

    def listen(timeout_s: float | None) -> Command | None:
        now = c.clock.now() - start
        if pending and (timeout_s is None or pending[0][0] <= now + timeout_s):
            t, command = pending.pop(0)
            c.clock.sleep(max(0.0, t - now))
            return command
        assert timeout_s is not None, "paused with nobody to say 继续: the test would wait forever"
        c.clock.sleep(timeout_s)
        return None

    return listen


def timed(seconds: float, said: dict[float, Command]) -> tuple[str, list[tuple[float, str]], float]:
    c = conductor()
    c.say([DAY_TALK])
    c.ready()
    start = c.now_s()
    timer = SpeechTimer.for_script(c, Script("zh-Hans"), seconds)
    how = timer.run(ear(c, said))
    lines = [(round(p.start_s - start, 3), p.line.text) for p in c.timeline if p.line.key.startswith("timer.")]
    return how, lines, round(c.now_s() - start, 3)


def test_a_full_speech_gets_the_soft_cue_and_time_is_up() -> None:
    how, lines, took = timed(90, {})
    assert how == "timeout" and took == 90.0
    assert lines == [(75.0, "还剩十五秒。"), (90.0, "时间到。")]


def test_pass_ends_the_speech_early_and_says_nothing() -> None:
    how, lines, took = timed(90, {40.0: "pass"})
    assert (how, lines, took) == ("passed", [], 40.0)


def test_pause_stops_the_clock_and_resume_restarts_it() -> None:
    how, lines, took = timed(60, {10.0: "pause", 70.0: "resume"})
    assert how == "timeout" and took == 120.0  # 60 s of speaking time plus a 60 s pause
    assert lines == [(105.0, "还剩十五秒。"), (120.0, "时间到。")]


def test_a_short_speech_gets_no_soft_cue() -> None:
    assert timed(10, {})[1] == [(10.0, "时间到。")]


def test_step_by_step() -> None:
    c = conductor()
    timer = SpeechTimer.for_script(c, Script("zh-Hant"), 30)
    assert timer.until_next_s() is None and timer.remaining_s == 30
    timer.start()
    assert timer.until_next_s() == 15
    c.clock.sleep(20)
    assert timer.poll() == "warning" and timer.until_next_s() == pytest.approx(10)
    timer.pause()
    c.clock.sleep(100)
    assert timer.remaining_s == pytest.approx(10) and timer.poll() is None
    timer.resume()
    timer.stop()
    assert timer.state == "done" and timer.ended == "passed"
    with pytest.raises(RuntimeError):
        timer.start()
    with pytest.raises(ValueError):
        SpeechTimer(c, 0)
