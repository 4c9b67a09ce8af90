"""The live loop: the Session's lines → the mouth (conductor/mixer, or printed) → wait until the table has
heard them → listen to the host (the ear's Dialogue: read-backs, 撤销, 重复, 暂停/继续, refusals to the host
channel when secret) → next, until the game is over.

Every accepted answer is on disk (the Session's journal, fsynced) before the judge says the next line, and
after each batch of lines has left the speaker the journal marks it heard, so a crash or `kill -9` loses
nothing that was accepted, and `narrator resume` says what the table missed, then the last question again.
The game is saved from 开始 on (`on_start`). Ctrl-C pauses (the dialogue waits for 继续), at the start word
too; a second Ctrl-C, SIGTERM or SIGHUP saves and exits with the `resume` command. A journal that cannot be
written (a full or read-only disk) is a stop, not a crash: the host is told, the answer is not taken, and
the game waits until it can write again, then asks the question again.
A speaker or microphone that disappears keeps the game: the host is told, the lines are printed, and the
loop uses the device again once it is back (or goes on with the keypad / typed text).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from narrator.common.clock import Clock, SystemClock
from narrator.engine.answers import Answer
from narrator.engine.prompts import Prompt
from narrator.judge.lines import Line
from narrator.judge.script import Script
from narrator.listen.base import Ear
from narrator.listen.dialogue import Dialogue, DialogueConfig
from narrator.listen.grammar import START, WAKE_KINDS
from narrator.listen.questions import Questions
from narrator.play import lines as play_lines
from narrator.play.ears import GuardedEar, Heard, InputEnded
from narrator.play.interrupts import Interrupts, Quit
from narrator.play.mouth import DeviceLost, Mouth
from narrator.session.journal import JournalWriteError
from narrator.session.session import Refused, Session

if TYPE_CHECKING:
    from narrator.audio.conductor import Conductor
    from narrator.audio.timer import Command

PAUSED = "Ctrl-C：已暂停。说或输入“继续”接着玩；再按一次 Ctrl-C 保存并退出。"


@dataclass
class Outcome:
    code: int
    """0 the game ended; 3 the input ended first (resume later); 130 the host quit with Ctrl-C; 143 / 129
    SIGTERM / SIGHUP."""
    reason: str = ""


@runtime_checkable
class View(Protocol):
    """The console's port: what the host's console shows; the loop tells it everything
    (narrator/play/console.py's HostConsole, the lobby's LobbyView, QuietView)."""

    def line(self, line: Line) -> None: ...
    def heard(self, heard: Heard) -> None: ...
    def refused(self, text: str) -> None: ...
    def alert(self, text: str) -> None: ...
    def update(self, session: Session) -> None: ...
    def listening(self) -> None: ...


class QuietView:
    """A View that shows nothing; the others override what they show."""

    def line(self, line: Line) -> None:
        return None

    def heard(self, heard: Heard) -> None:
        return None

    def refused(self, text: str) -> None:
        return None

    def alert(self, text: str) -> None:
        return None

    def update(self, session: Session) -> None:
        return None

    def listening(self) -> None:
        """The ear listens for the host's answer now: the question's lines were all heard."""
        return None


@dataclass
class Live:
    session: Session | Questions[object]
    """The game's Session, or a lobby that only speaks and listens through the loop (narrator/serve)."""
    mouth: Mouth
    ear: Ear
    """The ear (narrator.listen: First of the mic, keypad, text …); wrapped in a GuardedEar here."""
    view: View = field(default_factory=QuietView)
    config: DialogueConfig = field(default_factory=DialogueConfig)
    interrupts: Interrupts = field(default_factory=Interrupts)
    poll_s: float = 0.2
    """s. How often a wait checks for Ctrl-C and a lost device."""
    retry_s: float = 2.0
    """s. How often a lost device is tried again."""
    sleep: Callable[[float], None] = time.sleep
    now: Callable[[], float] = time.monotonic
    clock: Clock | None = None
    """The dialogue's clock (narrator.common.clock port); None: the system clock."""
    degraded: str | None = None
    """The device that is lost ("table" …), or None."""
    on_start: Callable[[], None] | None = None
    """Called once 开始 is heard, before the opening (a new game is saved from then on)."""
    writable: Callable[[], OSError | None] = lambda: None
    """Why the journal's folder cannot be written now (None: it can): polled while a write fault waits."""
    _next_retry: float = 0.0

    @property
    def script(self) -> Script:
        return self.session.judge.script

    @property
    def game(self) -> Session:
        """The game's Session: only a game runs the loop (serve's lobby only speaks and listens through it)."""
        assert isinstance(self.session, Session), "Live.run plays a game's Session"
        return self.session

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
        """The speaker is gone: the host's console shows every line (the host reads the table's out)."""
        self.mouth.show(line)

    def _lost(self, lost: DeviceLost) -> None:
        """The table speaker or the earpiece failed: print the lines until `mouth.reopen()` works."""
        if self.degraded is None:
            self.degraded = lost.which
            self.view.alert(f"{self._told('device_lost', lost.which).text} ({lost.why})")
        self._next_retry = self.now() + self.retry_s

    def _mic_lost(self, lost: DeviceLost) -> None:
        """The microphone stopped (the ear reopens it): the console says so, and the earpiece if there is one;
        the keypad and typed text answer meanwhile."""
        told = self._told("device_lost", "mic")
        self.view.alert(f"{told.text} ({lost.why})")
        if self._has_earpiece():
            self.speak([told])

    def _told(self, key: str, which: str) -> Line:
        return play_lines.message(self.script, key, device=play_lines.device_name(self.script, which))

    def _has_earpiece(self) -> bool:
        return self.degraded is None and self.mouth.has_earpiece

    def _try_reopen(self) -> bool:
        if self.degraded is None:
            return True
        if self.now() < self._next_retry:
            return False
        if not self.mouth.reopen():
            self._next_retry = self.now() + self.retry_s
            return False
        which, self.degraded = self.degraded, None
        self.view.alert(self._told("device_back", which).text)
        return True

    # ---- listening ------------------------------------------------------------------------------------

    def guarded(self) -> GuardedEar:
        return GuardedEar(self.ear, self.interrupts, poll_s=self.poll_s, retry_s=self.retry_s,
                          on_lost=self._mic_lost, on_back=self._back, on_pause=lambda: self.view.alert(PAUSED),
                          now=self.now, on_heard=self._heard, on_early=self._typed_early,
                          on_listen=self.view.listening)

    def _heard(self, heard: Heard) -> None:
        """The host's words: on his console, and a try at the question the Conductor times (his time there,
        repairs included, is inside the wait every step gets alike)."""
        self.view.heard(heard)
        conductor = self.mouth.conductor
        if conductor is not None:
            conductor.tried()

    def _typed_early(self) -> None:
        """Lines typed before the question were dropped: the host's console says so, once per question."""
        self.view.alert(play_lines.message(self.script, "typed_early").text)

    def _back(self, which: str) -> None:
        told = self._told("device_back", which)
        self.view.alert(told.text)
        if self._has_earpiece():
            self.speak([told])

    def hear(self, ear: GuardedEar, prompt: Prompt) -> Heard:
        """The host's next utterance, outside the dialogue (the start word, at `START`)."""
        while True:
            heard = ear.listen(prompt, self.game.setup.players, timeout_s=None)
            if heard is not None:
                return heard
            if ear.ended():
                raise InputEnded()

    def say_line(self, line: Line) -> None:
        """The dialogue's voice: say one line, wait until it was heard."""
        self.speak([line])
        if line.key.startswith("refusals."):
            self.view.refused(line.text)

    # ---- the game -------------------------------------------------------------------------------------

    def wait_for_start(self, ear: GuardedEar, dialogue: Dialogue[Answer]) -> None:
        """Before the first answer: the cards to deal, then "开始"; 重复 says the cards line again, 规则 … is
        answered aloud. Ctrl-C pauses here as everywhere (the pause holds until 继续; a second Ctrl-C quits)."""
        self.speak([play_lines.deal_line(self.script, self.game.setup)])
        words = play_lines.start_words(self.script)
        while True:
            text = self.hear(ear, START).text.strip("。！!. ")
            control = "pause" if text == "暂停" else dialogue.pack.control(text)  # Ctrl-C is heard as 暂停
            if control == "pause" or (dialogue.paused and control != "resume"):
                dialogue.paused = True
                continue
            if dialogue.paused:
                dialogue.paused = False
                self.speak([play_lines.message(self.script, "resumed")])
                continue
            if text in words:
                return
            if control == "repeat":  # 重复: the cards line again
                self.speak([play_lines.deal_line(self.script, self.game.setup)])
                continue
            explained = self.game.explain(text, before_start=True)  # 规则 … while the cards are dealt
            if isinstance(explained, Refused):
                explained = [explained.line]
            self.speak(explained or [play_lines.message(self.script, "not_started")])

    def resumed_lines(self, lines: list[Line]) -> list[Line]:
        """A stopped game goes on: the table hears only "继续游戏。", then what it had not heard yet (`lines`,
        up to the question); where the game stands — that question — goes to the host alone (his earpiece,
        his console)."""
        where = [play_lines.where_line(self.script, self.game.place())] if not self.game.over else []
        return [play_lines.resumed_line(self.script), *where, *lines]

    def run(self, *, resumed: bool = False, started: bool = False) -> Outcome:
        """Play to the end. `started`: the cards were dealt and "开始" heard already (serve's lobby)."""
        self.interrupts.install()
        try:
            return self._run(resumed, started)
        except Quit as stop:
            return Outcome(stop.code, stop.why)
        except InputEnded:
            return Outcome(3, "input ended")
        finally:
            self.interrupts.uninstall()

    def _run(self, resumed: bool, started: bool) -> Outcome:
        self.game.acks = True  # the host says 过 where a step asks him nothing (host_words.py)
        ear = self.guarded()
        ear.follow(self.mouth.playing)  # deaf to every line and cue the device plays, whoever said it
        dialogue = Dialogue(self.game, ear, self.say_line, self.clock or SystemClock(), self.config)
        ear.dialogue = dialogue
        dialogue.moved = lambda: self.view.update(self.game)  # 撤销: the panel shows the question asked again
        conductor = self.mouth.conductor
        if conductor is not None:  # past the bound the table hears "请稍等" while the host is waited for
            conductor.please_wait = conductor.please_wait or self.script.line("events", "please_wait")
            dialogue.wake = lambda: self._wake(conductor)
            if self.ear.microphones() or self.config.read_back == "always":
                conductor.expect_repairs(1)  # every spoken seat (or every answer) is read back: a repair
        if not resumed and not started:
            self.wait_for_start(ear, dialogue)
        if not resumed:
            self._saving(self.on_start or (lambda: None))
        while True:
            lines = self.game.take_lines()
            if resumed:
                lines, resumed = self.resumed_lines(lines), False
            self.view.update(self.game)
            self.speak(lines)
            if self.game.over:
                self._saving(self.game.heard)  # the end was heard: a resume has nothing left to say
                return Outcome(0, "over")
            self._saving(self.game.heard)
            ear.ask()
            try:
                if self.timed_speech(ear, dialogue):
                    continue
                if dialogue.answer(lines) is None and not self.game.over:
                    raise InputEnded()
            except JournalWriteError as fault:
                self._wait_writable(fault)

    def _wake(self, conductor: Conductor) -> float | None:
        """The Conductor's "请稍等" when it is due (the dialogue calls this while it listens)."""
        before = len(conductor.timeline)
        try:
            left = conductor.wake()
        except Exception as exc:  # the speaker failed: as for any line (Live.speak)
            self._lost(DeviceLost("table", str(exc)))
            return None
        for placed in conductor.timeline[before:]:
            self.view.line(placed.line)
        return left

    def _saving(self, write: Callable[[], None]) -> None:
        """Do a journal write; while the disk refuses it, tell the host and wait until it can be done."""
        while True:
            try:
                write()
                return
            except JournalWriteError as fault:
                self._wait_writable(fault)

    def _wait_writable(self, fault: JournalWriteError) -> None:
        """The journal could not be written: the answer was not taken. Tell the host (console and earpiece)
        what and where, wait until the folder can be written again, then go on (the question is asked
        again). Ctrl-C twice still saves what stands and quits."""
        told = play_lines.message(self.script, "cannot_save")
        self.view.alert(f"{told.text} {fault}")
        self.speak([told])
        while self.writable() is not None:
            self.sleep(self.retry_s)
        self.speak([play_lines.message(self.script, "can_save")])

    def timed_speech(self, ear: GuardedEar, dialogue: Dialogue[Answer]) -> bool:
        """A speech or last words, timed when the mouth has a conductor: `speech_seconds`, the 15 s cue,
        时间到; 过 ends it early, 暂停 / 继续 stop and restart the clock. True when the speech was answered
        here (过 or time up: the game moves on); other answers and controls (N号自爆, 撤销 …) end the timer
        and go to the dialogue. By voice a command begins with the judge's name (法官，过: the ear drops a
        player's own words, a bare 过 included); the ear listens through the timer's own cue (it holds neither
        the name nor a command: narrator/audio/mixer.py LISTENED_THROUGH), so a command said over it is heard;
        words heard but not understood leave the speech running."""
        prompt = self.game.prompt
        conductor = self.mouth.conductor
        if prompt is None or prompt.kind not in WAKE_KINDS or conductor is None:
            return False
        from narrator.audio.timer import SpeechTimer
        from narrator.engine.answers import Pass
        from narrator.listen.dialogue import meaning

        timer = SpeechTimer.for_script(conductor, self.script, self.game.setup.rules.speech_seconds)
        other: list[Heard] = []

        def next_command(timeout_s: float | None) -> Command | None:
            heard = ear.listen(prompt, self.game.setup.players, timeout_s)
            if heard is None:
                if ear.ended():
                    raise InputEnded()
                return None
            said = meaning(heard.text, prompt, dialogue.pack)  # the console saw it already (GuardedEar)
            if said == "pause":
                return "pause"
            if said == "resume":
                return "resume"
            if isinstance(said, Pass):
                return "pass"
            if said is None:
                return None  # not understood: the speech goes on
            other.append(heard)
            return "pass"

        timer.run(next_command)
        self.speak([])
        if other:
            ear.push(other[0])
            return False
        self.game.submit(Pass())
        return True

