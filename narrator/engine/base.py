"""The flow's shared machinery: emitting events into the journal and asking the host."""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Mapping
from functools import partial
from typing import Any

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Duel, Pass, Seats, SelfExplode, YesNo
from narrator.engine.plan import plan
from narrator.engine.prompts import Check, Prompt
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.roles import NO_EXPLODE, Role
from narrator.engine.rules import Setup
from narrator.engine.state import State

Flowing = Generator[Prompt, Answer, Any]

# Built once: prompts are asked tens of times a game (hot in random-game property runs and benchmarks).
SEATS = frozenset({Seats})
YES_NO = frozenset({YesNo})
SPEECH = frozenset({Pass})
SPEECH_OR_EXPLODE = frozenset({Pass, SelfExplode})
SPEECH_OR_DUEL = frozenset({Pass, Duel})
SPEECH_EXPLODE_OR_DUEL = frozenset({Pass, SelfExplode, Duel})


class GameOver(Exception):
    """Unwinds the flow once GameEnded has been emitted."""


class FlowBase:
    """State is only ever changed through `emit`, so the journal alone rebuilds it."""

    def __init__(self, setup: Setup, seed: int, emit: Callable[[ev.Event], None], state: State) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.s = state
        self.seed = seed
        self._rng: random.Random | None = None
        self.emit: Callable[[ev.Event], None] = emit
        """Record an event: append it to the journal and fold it into the state."""
        self._speeches: dict[tuple[int, str, bool, bool], Prompt] = {}
        # The cached speech prompts' check refers to the state, not to this flow: a finished game then holds
        # no reference cycle and is freed by reference counting, not left to the cyclic garbage collector.
        self._refuse_explode = partial(refuse_explode, state)
        self._refuse_speech = partial(refuse_speech, state)
        self.plan = plan(setup)  # the deck's needs, once per set-up: steps, seats, which roles' bookkeeping
        self.new_moon_deck = list(setup.rules.new_moon)  # 新月: the event deck, shuffled once from the seed
        if self.new_moon_deck:
            self.rng.shuffle(self.new_moon_deck)

    @property
    def rng(self) -> random.Random:
        """The game's own random draws (新月's deck, a PK decided at random), seeded from the set-up: made
        when first needed, as most games never draw."""
        if self._rng is None:
            self._rng = random.Random(self.seed)
        return self._rng

    def when(self) -> ev.When:
        s = self.s
        return ev.When("day", s.day) if s.day >= s.night else ev.When("night", s.night)

    # ---- asking -----------------------------------------------------------------------------------------

    def ask_seats(
        self,
        kind: str,
        seats: tuple[int, ...],
        lo: int = 1,
        hi: int = 1,
        *,
        role: Role | None = None,
        actor: int | None = None,
        check: Check | None = None,
        secret: bool = False,
        info: Mapping[str, Any] | None = None,
    ) -> Generator[Prompt, Answer, tuple[int, ...]]:
        answer = yield Prompt(kind, SEATS, role, actor, seats, lo, hi, secret, info or {}, check)
        assert isinstance(answer, Seats)
        return answer.seats

    def ask_one(
        self,
        kind: str,
        seats: tuple[int, ...],
        optional: bool,
        *,
        role: Role | None = None,
        actor: int | None = None,
        check: Check | None = None,
        secret: bool = False,
        info: Mapping[str, Any] | None = None,
    ) -> Flowing:
        """One seat, or None when the host says nobody (and nobody is allowed)."""
        lo = 0 if optional else 1
        answer = yield Prompt(kind, SEATS, role, actor, seats, lo, 1, secret, info or {}, check)
        assert isinstance(answer, Seats)
        return answer.seats[0] if answer.seats else None

    def ask_yes(self, kind: str, *, role: Role | None = None, actor: int | None = None,
                check: Check | None = None, info: Mapping[str, Any] | None = None) -> Flowing:
        answer = yield Prompt(kind, YES_NO, role, actor, (), 0, 0, True, info or {}, check)
        assert isinstance(answer, YesNo)
        return answer.yes

    def living(self, *, but: int | None = None) -> tuple[int, ...]:
        living = self.s.living()
        return living if but is None else tuple([x for x in living if x != but])

    def speech(self, seat: int, kind: str = "speech.end", explode: bool = True, duel: bool = False) -> Flowing:
        """One speech; returns the seat of a wolf who exploded during it, the knight's Duel (`duel`: a day
        speech in a deck with a 骑士), else None."""
        prompt = self._speeches.get((seat, kind, explode, duel))
        if prompt is None:  # a prompt is a value: each seat's speech prompt is built once a game
            can_explode = explode and self.rules.self_explode
            if duel:
                accepts = SPEECH_EXPLODE_OR_DUEL if can_explode else SPEECH_OR_DUEL
                prompt = Prompt(kind, accepts, None, seat, (), 0, 0, False, {}, self._refuse_speech)
            else:
                accepts = SPEECH_OR_EXPLODE if can_explode else SPEECH
                prompt = Prompt(kind, accepts, None, seat, (), 0, 0, False, {}, self._refuse_explode)
            self._speeches[seat, kind, explode, duel] = prompt
        answer = yield prompt
        if type(answer) is not Pass:
            if isinstance(answer, SelfExplode):
                return answer.seat
            if isinstance(answer, Duel):
                return answer
        self.emit(ev.SpeechEnded(seat, kind == "last_words.end"))
        return None


def refuse_explode(s: State, answer: Answer) -> Refusal | None:
    """Why a self-explosion during a speech is illegal, or None (other answers are not its business)."""
    if not isinstance(answer, SelfExplode):
        return None
    seat = answer.seat
    if seat not in s.alive:
        return refuse("explode.not_alive", seat=seat)
    if not s.is_wolf(seat):
        return refuse("explode.not_wolf", seat=seat)
    role = s.roles.get(seat)
    if role is Role.WOLF_BEAUTY:
        return refuse("explode.wolf_beauty")
    if role in NO_EXPLODE:  # 石像鬼, 机械狼, 恶魔, 恶灵骑士
        return refuse("explode.cannot", seat=seat)
    return None


def refuse_speech(s: State, answer: Answer) -> Refusal | None:
    """A day speech in a deck with a 骑士: a self-explosion, or "N号决斗M号" (once, by the living knight)."""
    if not isinstance(answer, Duel):
        return refuse_explode(s, answer) if isinstance(answer, SelfExplode) else None
    knight, target = answer.knight, answer.target
    if knight not in s.alive or s.roles.get(knight) is not Role.KNIGHT:
        return refuse("knight.not_knight", seat=knight)
    if s.knight_used:
        return refuse("knight.used")
    if not s.has_power(Role.KNIGHT):
        return refuse("knight.no_power")
    if target == knight:
        return refuse("knight.self")
    if target not in s.alive:
        return refuse("knight.target_dead", seat=target)
    return None
