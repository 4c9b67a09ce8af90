"""The day's speech timer on the Clock port: `speech_seconds` per speech (last words the same), a soft
cue `warn_before_s` before the end ("还剩十五秒。"), "时间到。" at the end; "过" ends a speech early,
"暂停"/"继续" stop and restart the clock. The lines go through the Conductor like every other line.

    timer = SpeechTimer.for_script(conductor, judge.script, rules.speech_seconds)
    conductor.ready()                      # "请七号发言。" has been heard: the speech starts now
    how = timer.run(next_command)          # -> "passed" (过) or "timeout" (时间到 was said)

`next_command(timeout_s)` is the live loop's ear: it waits at most `timeout_s` seconds (None: as long as it
takes, while paused) and returns "pass", "pause", "resume", or None when nothing was said. The timer
can also be driven step by step: start(), pause(), resume(), stop(), poll(), until_next_s().
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from narrator.audio.conductor import Conductor
    from narrator.judge.lines import Line
    from narrator.judge.script import Script

Command = Literal["pass", "pause", "resume"]
State = Literal["idle", "running", "paused", "done"]


class SpeechTimer:
    """One speech's clock. See the module docstring."""

    def __init__(self, conductor: Conductor, seconds: float, *, warning: Line | None = None,
                 timeout: Line | None = None, warn_before_s: float = 15.0) -> None:
        if seconds <= 0:
            raise ValueError(f"a speech lasts more than 0 s, got {seconds}")
        self.conductor, self.seconds = conductor, float(seconds)
        self.warning, self.timeout, self.warn_before_s = warning, timeout, warn_before_s
        self.state: State = "idle"
        self.warned = seconds <= warn_before_s or warning is None  # a short speech gets no soft cue
        self.ended: Literal["passed", "timeout"] | None = None
        self._used = 0.0  # s of speaking time used before the current run
        self._since: float | None = None  # clock time the current run started

    @classmethod
    def for_script(cls, conductor: Conductor, script: Script, seconds: float,
                   warn_before_s: float = 15.0) -> SpeechTimer:
        return cls(conductor, seconds, warning=script.line("timer", "speech.warning"),
                   timeout=script.line("timer", "speech.timeout"), warn_before_s=warn_before_s)

    @property
    def elapsed_s(self) -> float:
        """s of speaking time used (paused time not counted)."""
        running = 0.0 if self._since is None else self.conductor.clock.now() - self._since
        return min(self.seconds, self._used + running)

    @property
    def remaining_s(self) -> float:
        return self.seconds - self.elapsed_s

    def start(self) -> None:
        if self.state != "idle":
            raise RuntimeError(f"the speech timer is {self.state}; start() once")
        self.state, self._since = "running", self.conductor.clock.now()

    def pause(self) -> None:
        """暂停: the clock stops; nothing is said."""
        if self.state == "running":
            self._used, self._since, self.state = self.elapsed_s, None, "paused"

    def resume(self) -> None:
        """继续: the clock runs again from where it stopped."""
        if self.state == "paused":
            self.state, self._since = "running", self.conductor.clock.now()

    def stop(self) -> None:
        """过: the speech ends early, nothing is said."""
        if self.state in ("running", "paused", "idle"):
            self._used, self._since, self.state, self.ended = self.elapsed_s, None, "done", "passed"

    def until_next_s(self) -> float | None:
        """s until the timer next says something (or ends), None while paused or done."""
        if self.state != "running":
            return None
        left = self.remaining_s
        return max(0.0, left - self.warn_before_s) if not self.warned else left

    def poll(self) -> Literal["warning", "timeout"] | None:
        """Say what is due now; returns what was said ("timeout" also ends the speech)."""
        if self.state != "running":
            return None
        if self.remaining_s <= 0:
            self._used, self._since, self.state, self.ended = self.seconds, None, "done", "timeout"
            if self.timeout is not None:
                self.conductor.say([self.timeout])
            return "timeout"
        if not self.warned and self.remaining_s <= self.warn_before_s:
            self.warned = True
            if self.warning is not None:
                self.conductor.say([self.warning])
            return "warning"
        return None

    def run(self, next_command: Callable[[float | None], Command | None]) -> Literal["passed", "timeout"]:
        """Time one speech from now to its end (see the module docstring)."""
        if self.state == "idle":
            self.start()
        while self.poll() != "timeout" and self.state != "done":
            command = next_command(self.until_next_s())
            self.conductor.pump()
            if command == "pass":
                self.stop()
            elif command == "pause":
                self.pause()
            elif command == "resume":
                self.resume()
        assert self.ended is not None
        return self.ended
