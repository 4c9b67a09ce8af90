"""The game: prompt → answer → events, with an append-only journal, exact undo and replay.

The flow is a generator that yields prompts and receives legal answers; it changes the state only by
emitting events, so `State.fold(journal)` always equals the live state. Undo and replay re-run the flow
from the set-up with the recorded answers: the seed is part of the set-up, so both are exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from narrator.engine import events as ev
from narrator.engine.answers import Answer
from narrator.engine.base import Flowing, GameOver
from narrator.engine.day import Day
from narrator.engine.night import Night
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Camp
from narrator.engine.rules import Setup
from narrator.engine.state import State


class Flow(Night, Day):
    def run(self) -> Flowing:
        self.emit(ev.GameStarted(self.setup.players, self.setup.deck, self.rules))
        n = 0
        try:
            while True:
                n += 1
                yield from self.night(n)
                yield from self.day(n)
        except GameOver:
            return


@dataclass(frozen=True, slots=True)
class Accepted:
    events: tuple[ev.Event, ...]


@dataclass(frozen=True, slots=True)
class Rejected:
    """An illegal answer: nothing changed. `reason` is a sentence the judge can say aloud."""

    kind: str
    reason: str


class Game:
    def __init__(self, setup: Setup, seed: int = 0) -> None:
        self.setup = setup
        self.seed = seed
        self.journal: list[ev.Event] = []
        self.answers: list[tuple[str, Answer]] = []
        self.state = State()
        self._flow = Flow(setup, seed, self._record, self.state).run()
        self.prompt: Prompt | None = next(self._flow, None)

    def _record(self, event: ev.Event) -> None:
        self.journal.append(event)
        self.state.apply(event)

    @property
    def over(self) -> bool:
        return self.prompt is None

    @property
    def winner(self) -> Camp | None:
        return self.state.winner

    def answer(self, answer: Answer) -> Accepted | Rejected:
        prompt = self.prompt
        if prompt is None:
            return Rejected("", "游戏已经结束了")
        reason = prompt.refuse(answer)
        if reason is not None:
            return Rejected(prompt.kind, reason)
        start = len(self.journal)
        self.answers.append((prompt.kind, answer))
        try:
            self.prompt = self._flow.send(answer)
        except StopIteration:
            self.prompt = None
        return Accepted(tuple(self.journal[start:]))

    @classmethod
    def replay(cls, setup: Setup, seed: int, answers: Iterable[Answer]) -> Game:
        game = cls(setup, seed)
        for answer in answers:
            result = game.answer(answer)
            if isinstance(result, Rejected):
                raise ValueError(f"replay diverged at {result.kind}: {result.reason}")
        return game

    def undo(self) -> Game:
        """The same game without its last answer (a new Game; this one is left as it was)."""
        return Game.replay(self.setup, self.seed, [a for _, a in self.answers[:-1]])
