"""Lines the host types while the judge is still speaking are no answer to the question that follows: the
live loop drops them and says so once on the host's console, instead of refusing each in turn at the new
question. Lines piped in are kept (a whole game can be piped in). Through the whole path: the real TextEar
on a typed line source, First, the loop's GuardedEar and Dialogue, the Session."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator

from play_testkit import demo_scenario

from narrator.engine.prompts import Prompt
from narrator.judge.lines import Line
from narrator.listen.base import Heard
from narrator.listen.first import First
from narrator.listen.text import TextEar
from narrator.play.loop import Live, View
from narrator.play.mouth import PrintMouth
from narrator.play.scripted import host_script
from narrator.session.session import Session


class Keyboard:
    """The host's console: lines he types, one at a time (`interactive`: narrator/play/console.py's TypedLine)."""

    interactive = True

    def __init__(self) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()

    def type(self, line: str | None) -> None:
        """A line typed (None: the keyboard is gone)."""
        self.lines.put(line)

    def __iter__(self) -> Iterator[str]:
        while (line := self.lines.get()) is not None:
            yield line


class Host:
    """Types the script's next answer when the loop listens and everything typed so far was heard: after the
    question was asked."""

    def __init__(self, ear: First, keyboard: Keyboard, answers: list[str]) -> None:
        self.ear, self.keyboard, self.answers = ear, keyboard, list(answers)
        self.outstanding = 0

    def type(self, line: str | None) -> None:
        self.outstanding += line is not None
        self.keyboard.type(line)

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if not self.outstanding:
            self.type(self.answers.pop(0) if self.answers else None)  # None: nothing more to say
        heard = self.ear.listen(prompt, max_seat, timeout_s)
        self.outstanding -= heard is not None
        return heard

    def __getattr__(self, name: str) -> object:
        return getattr(self.ear, name)


class Alerts(View):
    def __init__(self) -> None:
        self.alerts: list[str] = []
        self.refusals: list[str] = []

    def alert(self, text: str) -> None:
        self.alerts.append(text)

    def refused(self, text: str) -> None:
        self.refusals.append(text)


def test_lines_typed_while_the_judge_speaks_are_dropped_with_one_note() -> None:
    scripted = host_script(demo_scenario())
    session = Session(scripted.game.setup, scripted.game.seed)
    keyboard = Keyboard()
    ear = First([TextEar(keyboard)])
    said: list[Line] = []
    host = Host(ear, keyboard, ["开始", *scripted.utterances])

    def impatient(line: Line) -> None:
        said.append(line)
        if len(said) == 3:  # the host types twice while the judge is still speaking
            before = ear.queue.qsize()
            host.type("七号")
            host.type("救")
            deadline = time.monotonic() + 10
            while ear.queue.qsize() < before + 2:  # … and the judge speaks on until both were read
                assert time.monotonic() < deadline, "the typed lines never arrived"
                time.sleep(0.001)

    view = Alerts()
    outcome = Live(session, PrintMouth(impatient), host, view=view).run()
    assert outcome.code == 0
    assert session.game.journal == scripted.game.journal  # the early lines answered nothing
    assert view.alerts == ["问题问完之前输入的没有用上，请现在回答。"]  # one note for the two lines
    assert view.refusals == []  # neither was refused at the next question
