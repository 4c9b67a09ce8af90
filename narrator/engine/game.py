"""The game: prompt → answer → events, with an append-only journal, exact undo and replay.

The flow is a generator that yields prompts and receives legal answers; it changes the state only by
emitting events, so `State.fold(journal)` always equals the live state. Undo and replay re-run the flow
from the set-up with the recorded answers: the seed is part of the set-up, so both are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Ballots, Duel, Seats, SelfExplode, VoteResult
from narrator.engine.base import Flowing, GameOver
from narrator.engine.day import Day
from narrator.engine.night import Night
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.roles import Camp
from narrator.engine.rules import Setup
from narrator.engine.state import State, recorder
from narrator.engine.values import quick_init


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


@quick_init
@dataclass(frozen=True, slots=True)
class Accepted:
    events: tuple[ev.Event, ...]


@dataclass(frozen=True, slots=True)
class Rejected:
    """An illegal answer: nothing changed. The judge's script says why (`refusals.<code>`, filled with
    `values`); `kind` is the prompt's kind ("" once the game is over)."""

    kind: str
    code: str
    values: Mapping[str, object]

    @property
    def refusal(self) -> Refusal:
        return Refusal(self.code, self.values)


class ReplayDiverged(ValueError):
    """Checked replay stopped at answer `index` (0-based): it was given to a prompt of kind `expected`, but
    the game asks `got` there ("" once the game is over); or (`refusal` set) the prompt is the same kind but
    refuses the answer."""

    def __init__(self, index: int, expected: str, got: str, refusal: Refusal | None = None) -> None:
        self.index, self.expected, self.got, self.refusal = index, expected, got, refusal
        if refusal is not None:
            why = f"{expected} refuses it ({refusal.code} {dict(refusal.values)})"
        elif got:
            why = f"it was given to {expected}, but the game asks {got}"
        else:
            why = f"it was given to {expected}, but the game is over"
        super().__init__(f"replay diverged at answer {index + 1}: {why}")


class Game:
    def __init__(self, setup: Setup, seed: int = 0) -> None:
        self.setup = setup
        self.seed = seed
        self.journal: list[ev.Event] = []
        self.answers: list[tuple[str, Answer]] = []
        self.state = State()
        self._flow = Flow(setup, seed, recorder(self.journal, self.state), self.state).run()
        self.prompt: Prompt | None = next(self._flow, None)

    @property
    def over(self) -> bool:
        return self.prompt is None

    @property
    def winner(self) -> Camp | None:
        return self.state.winner

    def answer(self, answer: Answer) -> Accepted | Rejected:
        prompt = self.prompt
        if prompt is None:
            over = refuse("game.over")
            return Rejected("", over.code, over.values)
        refusal = self.refusal(prompt, answer)
        if refusal is not None:
            return Rejected(prompt.kind, refusal.code, refusal.values)
        start = len(self.journal)
        self.answers.append((prompt.kind, answer))
        try:
            self.prompt = self._flow.send(answer)
        except StopIteration:
            self.prompt = None
        return Accepted(tuple(self.journal[start:]))

    def refusal(self, prompt: Prompt, answer: Answer) -> Refusal | None:
        """Why `answer` is illegal now, or None. A seat that cannot be chosen says why when the game knows
        better than the prompt: not on this table, or out of the game."""
        refusal = prompt.refuse(answer)
        if refusal is not None and refusal.code == "answer.wrong_kind":
            return refusal
        named = _NAMED.get(type(answer))
        if named is not None:  # a seat not on this table is said first
            refusal = self.outside_table(named(answer)) or refusal
        if refusal is not None and refusal.code == "seat.not_selectable":
            return self.why_not(refusal, prompt.kind)
        return refusal

    def outside_table(self, seats: tuple[int, ...]) -> Refusal | None:
        """A seat the table does not have ("13号" in a 12-player game), among the seats an answer names."""
        players = self.setup.players
        for x in seats:
            if not 1 <= x <= players:
                return refuse("seat.no_such", seat=x, n=players)
        return None

    def why_not(self, refusal: Refusal, kind: str = "") -> Refusal:
        """A seat on the table that cannot be chosen here: say it is out of the game when it is, or (the
        piper) that it is charmed already."""
        seat = refusal.values["seat"]
        if isinstance(seat, int) and seat not in self.state.alive:
            return refuse("seat.dead", seat=seat)
        if kind == "piper.charm" and seat in self.state.charmed:
            return refuse("piper.already_charmed", seat=seat)
        return refusal

    @classmethod
    def replay(cls, setup: Setup, seed: int, answers: Iterable[tuple[str, Answer]],
               asked: list[tuple[int, Prompt]] | None = None) -> Game:
        """The game after these (prompt kind, answer) pairs, checked: each answer must meet a prompt of the
        kind it was given to and be accepted there, else ReplayDiverged names the first that does not. With
        `asked`, the journal's length and the prompt when each answer was asked are appended to it (what a
        resume needs to say the lines in their places without replaying the game again)."""
        game = cls(setup, seed)
        for index, (kind, answer) in enumerate(answers):
            prompt = game.prompt
            got = prompt.kind if prompt is not None else ""
            if got != kind:
                raise ReplayDiverged(index, kind, got)
            if asked is not None and prompt is not None:
                asked.append((len(game.journal), prompt))
            result = game.answer(answer)
            if isinstance(result, Rejected):
                raise ReplayDiverged(index, kind, got, result.refusal)
        return game

    def undo(self, asked: list[tuple[int, Prompt]] | None = None) -> Game:
        """The same game without its last answer (a new Game; this one is left as it was); `asked` as for
        `replay`."""
        return Game.replay(self.setup, self.seed, self.answers[:-1], asked)


def _vote_result(answer: VoteResult) -> tuple[int, ...]:
    return answer.tied if answer.out is None else (answer.out,)


_NAMED: dict[type, Callable[[Any], tuple[int, ...]]] = {
    Seats: lambda answer: answer.seats,
    SelfExplode: lambda answer: (answer.seat,),
    VoteResult: _vote_result,
    Ballots: lambda answer: tuple(chain.from_iterable(answer.votes)),
    Duel: lambda answer: (answer.knight, answer.target),
}
"""Every seat an answer names (voters and targets alike), by answer type: the others name none."""
