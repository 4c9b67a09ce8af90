"""What the ear's dialogue asks through (`Questions`): a game's `Session`, or the lobby of `narrator serve`
(narrator/serve/lobby.py), each with its own reader. The dialogue is generic over what that reader reads
(`A`: a game's `Answer`, the lobby's `Choice`); its seat repairs (narrator/listen/repairs.py) make `Seats` of
their own, so a questioner takes `A | Seats` back (a game's Answer holds Seats; the lobby takes anything and
says what it cannot take)."""

from __future__ import annotations

from typing import Protocol, TypeVar

from narrator.engine.answers import Seats
from narrator.engine.game import Accepted
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import Refusal
from narrator.judge.lines import Line
from narrator.judge.script import Script
from narrator.session.session import Refused

A = TypeVar("A")
"""What the questioner's reader reads: a game's Answer, or the lobby's Choice."""


class Seated(Protocol):
    """What the dialogue asks of a set-up: the highest seat an answer may name (a game's Setup)."""

    @property
    def players(self) -> int: ...


class Scripted(Protocol):
    """Who speaks the dialogue's own lines: the game's Judge, or the lobby's, with the script."""

    @property
    def script(self) -> Script: ...


class Questions(Protocol[A]):
    """What the dialogue asks through: a game's `Session`, or the lobby of `narrator serve`
    (narrator/serve/lobby.py), each with its own reader (`read`)."""

    @property
    def prompt(self) -> Prompt | None: ...
    @property
    def night(self) -> bool: ...
    @property
    def setup(self) -> Seated: ...
    @property
    def judge(self) -> Scripted: ...
    @property
    def repeat_refusals(self) -> bool:
        """Whether 重复 says a refusal again (a game), or the question (the lobby)."""
        ...
    def repeat_lines(self) -> list[Line]: ...
    def take_lines(self) -> list[Line]: ...
    def read(self, text: str, prompt: Prompt) -> A:
        """The answer (or the lobby's choice) the words say at `prompt`; NotUnderstood says why not."""
        ...
    def submit(self, answer: A | Seats) -> Accepted | Refused: ...
    def undo(self) -> bool: ...
    def taken_back(self, prompt: Prompt | None) -> A | Seats | None:
        """The answer 撤销 took back at `prompt`, asked again now (None: none): given again, it is no new doubt."""
        ...
    def refusal(self, prompt: Prompt, answer: A | Seats) -> Refusal | None: ...
    def refusal_line(self, prompt: Prompt | None, refusal: Refusal) -> Line: ...
    def hidden(self, prompt: Prompt | None) -> bool: ...
    def explain(self, words: str, *, before_start: bool = False) -> list[Line] | Refused | None: ...
