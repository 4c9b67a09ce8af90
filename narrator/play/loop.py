"""The live loop: the Session's lines → the mouth (conductor/mixer, or printed) → wait until the table has
heard them → listen to the host → submit → next, until the game is over.

Every accepted answer is on disk (the Session's journal, fsynced) before the judge says the next line, so
a crash or `kill -9` loses nothing that was accepted, and `narrator resume` repeats the last question.

The host's words at any prompt may also be the controls: 撤销 / 说错了 (take back the last answer), 重复
(say the question again), 暂停 … 继续. Refusals are said to the host channel when the prompt is secret.
Ctrl-C pauses (继续, or Enter, continues); a second Ctrl-C saves and exits with the `resume` command.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from narrator.judge.lines import Line
from narrator.play import lines as play_lines
from narrator.play.ears import Ear, Heard, InputEnded
from narrator.play.interrupts import Interrupts, Quit
from narrator.play.mouth import DeviceLost, Mouth
from narrator.session import Refused, Session

UNDO_WORDS = ("撤销", "撤銷", "说错了", "說錯了")
REPEAT_WORDS = ("重复", "重複", "再说一遍", "再說一遍")
PAUSE_WORDS = ("暂停", "暫停")
CONTINUE_WORDS = ("继续", "繼續", "")


@dataclass
class Outcome:
    code: int
    """0 the game ended; 3 the input ended first (resume later); 130 the host quit with Ctrl-C."""
    reason: str = ""


class View:
    """What the host's console shows; the loop tells it everything. The plain one does nothing."""

    def line(self, line: Line) -> None: ...
    def heard(self, heard: Heard) -> None: ...
    def refused(self, text: str) -> None: ...
    def alert(self, text: str) -> None: ...
    def update(self, session: Session) -> None: ...


@dataclass
class Live:
    session: Session
    mouth: Mouth
    ear: Ear
    view: View = field(default_factory=View)
    interrupts: Interrupts = field(default_factory=Interrupts)
    poll_s: float = 0.2
    """s. How often a wait checks for Ctrl-C and a lost device."""
    retry_s: float = 2.0
    """s. How often a lost device is tried again."""
    sleep: Callable[[float], None] = time.sleep
    now: Callable[[], float] = time.monotonic
    degraded: str | None = None
    """The device that is lost ("table" …), or None."""
    _last: list[Line] = field(default_factory=list)
    _next_retry: float = 0.0

    @property
    def script(self) -> Any:
        return self.session.judge.script

    # ---- speaking -------------------------------------------------------------------------------------

    def speak(self, lines: list[Line]) -> None:
        """Say the lines and wait until the room has heard them. A lost device keeps the game going."""
        for line in lines:
            self.view.line(line)
        if self.degraded is not None and not self._try_reopen():
            for line in lines:
                self._print_only(line)
            return
        try:
            for line in lines:
                self.mouth.say(line)
            self.mouth.heard()
        except DeviceLost as lost:
            self._lost(lost)

    def _print_only(self, line: Line) -> None:
        printer = getattr(self.mouth, "printer", None)
        if printer is not None and line.to == "host":
            printer(line)

    def _lost(self, lost: DeviceLost) -> None:
        if self.degraded is None:
            self.degraded = lost.which
            name = play_lines.device_name(self.script, lost.which if lost.which != "mic" else "mic")
            text = play_lines.message(self.script, "device_lost", device=name).text
            self.view.alert(f"{text} ({lost.why})")
        self._next_retry = self.now() + self.retry_s

    def _try_reopen(self) -> bool:
        if self.degraded is None:
            return True
        if self.now() < self._next_retry:
            return False
        if not self.mouth.reopen():
            self._next_retry = self.now() + self.retry_s
            return False
        name = play_lines.device_name(self.script, self.degraded)
        self.degraded = None
        self.view.alert(play_lines.message(self.script, "device_back", device=name).text)
        return True

    # ---- listening ------------------------------------------------------------------------------------

    def hear(self) -> Heard:
        """The host's next utterance; pauses on Ctrl-C; tries a lost device again while waiting."""
        prompt = self.session.prompt
        assert prompt is not None
        while True:
            if self.interrupts.paused:
                self.pause()
            if self.degraded is not None:
                self._try_reopen()
            try:
                heard = self.ear.listen(prompt, self.session.setup.players, timeout_s=self.poll_s)
            except DeviceLost as lost:
                self._lost(lost)
                self.sleep(self.poll_s)
                continue
            if heard is not None:
                self.view.heard(heard)
                return heard

    def pause(self) -> None:
        """Paused (Ctrl-C or 暂停): wait for 继续 (or an empty line / Enter); a second Ctrl-C quits."""
        self.view.alert(play_lines.message(self.script, "paused").text + "（Ctrl-C 再按一次：保存并退出）")
        self.mouth.say(play_lines.message(self.script, "paused")) if self.degraded is None else None
        prompt = self.session.prompt
        assert prompt is not None
        while True:
            heard = self.ear.listen(prompt, self.session.setup.players, timeout_s=self.poll_s)
            if heard is not None and heard.text.strip() in CONTINUE_WORDS:
                break
        self.interrupts.resume()
        self.view.alert(play_lines.message(self.script, "resumed").text)

    # ---- the game -------------------------------------------------------------------------------------

    def wait_for_start(self) -> None:
        """Before the first answer: the cards to deal, then "开始"."""
        self.speak([play_lines.deal_line(self.script, self.session.setup)])
        words = play_lines.start_words(self.script)
        while self.hear().text.strip("。！!. ") not in words:
            self.speak([play_lines.message(self.script, "not_started")])

    def say_where(self) -> None:
        status = self.session.status()
        prompt = self.session.prompt
        assert prompt is not None
        self.speak([play_lines.where_line(self.script, prompt, status.night, status.day, status.phase)])

    def run(self, *, resumed: bool = False) -> Outcome:
        self.interrupts.install()
        try:
            return self._run(resumed)
        except Quit:
            return Outcome(130, "quit")
        except InputEnded:
            return Outcome(3, "input ended")
        finally:
            self.interrupts.uninstall()

    def _run(self, resumed: bool) -> Outcome:
        if not self.session.answers:
            self.wait_for_start()
        elif resumed and self.session.prompt is not None:
            self.say_where()
        while True:
            lines = self.session.take_lines()
            if lines:
                self._last = [x for x in lines]
            self.view.update(self.session)
            self.speak(lines)
            if self.session.over:
                return Outcome(0, "over")
            self.answer_one()

    def answer_one(self) -> None:
        """Listen until an answer is accepted (or taken back)."""
        while True:
            heard = self.hear()
            text = heard.text.strip()
            if text in UNDO_WORDS:
                with self.interrupts.shielded():
                    undone = self.session.undo()
                if undone:
                    return
                continue
            if text in REPEAT_WORDS:
                self.speak(self._last)
                continue
            if text in PAUSE_WORDS:
                self.pause()
                continue
            with self.interrupts.shielded():
                result = self.session.submit(text)
            if isinstance(result, Refused):
                self.view.refused(result.line.text)
                self.speak([result.line])
                continue
            return
