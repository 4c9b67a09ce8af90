"""A host who knows the deal and answers every prompt at random but legally: for property tests,
benchmarks and the demo. It answers identification prompts truthfully from the deal."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from narrator.engine.answers import (
    Answer,
    Ballots,
    Cards,
    Direction,
    Duel,
    Pass,
    Seats,
    SelfExplode,
    TakeCard,
    VoteResult,
    YesNo,
)
from narrator.engine.game import Game
from narrator.engine.prompts import Prompt
from narrator.engine.roles import WOLF_CARDS, Role
from narrator.engine.rules import Setup

if TYPE_CHECKING:
    from narrator.session.journal import JournalStore
    from narrator.session.session import Session


PASS = Pass()  # a value: one for every speech the host ends
NOBODY = Seats(())


@dataclass
class Deal:
    """Who holds which card: seat → role, and the thief's two face-down cards."""

    seats: dict[int, Role]
    buried: tuple[Role, ...] = ()

    @classmethod
    def shuffle(cls, setup: Setup, rng: random.Random) -> Deal:
        cards = list(setup.deck)
        n = setup.players
        while True:
            rng.shuffle(cards)
            if not bad_pair(setup, tuple(cards[n:])):
                return cls({i + 1: cards[i] for i in range(n)}, tuple(cards[n:]))

    @classmethod
    def from_list(cls, setup: Setup, seats: list[Role]) -> Deal:
        """A deal given seat by seat; with a thief the two cards left over are the buried ones."""
        left = list(setup.deck)
        for r in seats:
            left.remove(r)
        return cls({i + 1: r for i, r in enumerate(seats)}, tuple(left))


def bad_pair(setup: Setup, buried: tuple[Role, ...]) -> bool:
    """`thief_pair: no_wolf_pairs` (seed 002:22): the judge reshuffles until the face-down pair is neither
    盗贼+狼 nor 狼+狼."""
    if setup.rules.thief_pair != "no_wolf_pairs" or len(buried) != 2:
        return False
    wolves = sum(1 for c in buried if c in WOLF_CARDS)
    return wolves == 2 or (wolves == 1 and Role.THIEF in buried)


@dataclass
class AutoHost:
    deal: Deal
    rng: random.Random
    explode_chance: float = 0.01
    duel_chance: float = 0.02
    held: dict[int, Role] = field(default_factory=dict)
    _holders: dict[Role, Seats] = field(default_factory=dict, repr=False)
    """Each card's seats, in seat order, as `_holders_of` holds them (rebuilt when `held` is no longer that:
    the thief took a card)."""
    _holders_of: dict[int, Role] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.held = dict(self.deal.seats)

    def identify(self, role: Role) -> Seats:
        if self._holders_of != self.held:
            by_role: dict[Role, list[int]] = {}
            for seat, held in sorted(self.held.items()):
                by_role.setdefault(held, []).append(seat)
            self._holders = {r: Seats(tuple(seats)) for r, seats in by_role.items()}
            self._holders_of = dict(self.held)
        return self._holders.get(role, NOBODY)

    def propose(self, game: Game, prompt: Prompt) -> Answer:
        rng = self.rng
        accepts = prompt.accepts
        if Pass in accepts:  # speeches and last words, most of a game's prompts: asked first
            if SelfExplode in accepts and rng.random() < self.explode_chance:
                wolves = [s for s in game.state.alive if game.state.is_wolf(s)]
                if wolves:
                    return SelfExplode(rng.choice(wolves))
            if Duel in accepts and rng.random() < self.duel_chance:
                # the living knight (or, now and then, someone who is not: the judge refuses it)
                alive = sorted(game.state.alive)
                knights = [s for s in alive if self.held.get(s) is Role.KNIGHT]
                knight = knights[0] if knights and rng.random() < 0.9 else rng.choice(alive)
                return Duel(knight, rng.choice(alive))
            return PASS
        kind = prompt.kind
        if kind.endswith(".identify") and prompt.role is not None:
            return self.identify(prompt.role)
        if kind == "thief.cards":
            return Cards(self.deal.buried)
        if kind == "thief.choose":
            cards: tuple[Role, ...] = prompt.info["cards"]
            wolf_cards = [c for c in cards if c in WOLF_CARDS]
            pick: Role | None = rng.choice(wolf_cards) if wolf_cards else rng.choice([*cards, None])
            return TakeCard(pick)
        if Seats in accepts:
            lo, hi = prompt.min_seats, min(prompt.max_seats, len(prompt.seats))
            k = rng.randint(lo, hi) if hi <= 2 else rng.randint(lo, min(hi, lo + 3))
            return Seats(tuple(rng.sample(prompt.seats, k)))
        if YesNo in accepts:
            return YesNo(rng.random() < 0.5)
        if Ballots in accepts:
            voters = prompt.info["voters"]
            targets = prompt.seats
            votes = tuple([(v, rng.choice(targets)) for v in voters if rng.random() < 0.9])
            return Ballots(votes)
        if Direction in accepts:
            return Direction(rng.choice(("left", "right")))
        raise AssertionError(f"no way to answer {kind}")

    def answer(self, game: Game, prompt: Prompt) -> Answer:
        """A legal answer: random proposals until one is accepted by the prompt's own check."""
        for _ in range(50):
            answer = self.propose(game, prompt)
            if prompt.refuse(answer) is None:
                if isinstance(answer, TakeCard) and game.state.thief_seat is None:
                    seat = game.state.seat_of(Role.THIEF)
                    if seat is not None and answer.role is not None:
                        self.held[seat] = answer.role
                    elif seat is not None:
                        self.held[seat] = Role.VILLAGER
                return answer
        if Ballots in prompt.accepts:
            return VoteResult(None)
        if Seats in prompt.accepts and prompt.min_seats == 0:
            return Seats(())
        raise AssertionError(f"no legal answer found for {prompt.kind}: {prompt}")


def play_random(setup: Setup, seed: int, *, store: JournalStore | None = None, max_answers: int = 5000) -> Session:
    """One complete game through a Session (journaled into `store` when given): a random deal and random
    legal answers. The judge's lines are not taken (a Session renders them only when asked)."""
    from narrator.session.session import Session

    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    session = Session(setup, seed, store=store)
    game = session.game
    for _ in range(max_answers):
        prompt = game.prompt
        if prompt is None:
            return session
        session.submit(host.answer(game, prompt))
    raise RuntimeError(f"game {seed} did not end after {max_answers} answers")
