"""Prompts: what the engine needs next, for whom, whether it is secret, and which answers are legal."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

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
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.roles import Role
from narrator.engine.values import quick_init

Check = Callable[[Any], "Refusal | None"]

ANSWER_SLUGS: dict[type, str] = {
    Seats: "seats",
    YesNo: "yes_no",
    Pass: "pass",
    SelfExplode: "self_explode",
    Cards: "cards",
    TakeCard: "take_card",
    Ballots: "ballots",
    VoteResult: "vote_result",
    Direction: "direction",
    Duel: "duel",
}
"""Each answer type's slug: the script says it as `names.answers.<slug>` ("座位号", "过" …)."""


@quick_init
@dataclass(frozen=True, slots=True)
class Prompt:
    """The host is asked one thing.

    `kind` is stable ("witch.save", "vote.exile", "<role>.identify", …: docs/scenarios.md lists them all).
    The host always answers; `actor` is the seat the prompt is about (the speaker, the hunter …), `role` the
    card that acts. `secret` prompts carry host-only `info` (the witch's victim) and must not be said aloud.
    """

    kind: str
    accepts: frozenset[type]
    role: Role | None = None
    actor: int | None = None
    seats: tuple[int, ...] = ()
    """Seats a `Seats` answer may name (also the legal targets of votes)."""
    min_seats: int = 1
    max_seats: int = 1
    secret: bool = False
    info: Mapping[str, Any] = field(default_factory=dict)
    check: Check | None = None
    """Extra legality rule beyond seats and counts; returns why an answer is refused, or None."""

    def refuse(self, answer: Answer) -> Refusal | None:
        """Why this answer is illegal here (a code the judge's script says aloud), or None if it is legal."""
        if type(answer) not in self.accepts:
            # In the order of ANSWER_SLUGS, so the same prompt always names its answers the same way.
            wanted = tuple(slug for t, slug in ANSWER_SLUGS.items() if t in self.accepts)
            return refuse("answer.wrong_kind", wanted=wanted)
        if isinstance(answer, Seats):
            refusal = self._refuse_seats(answer.seats)
            if refusal:
                return refusal
        return self.check(answer) if self.check else None

    def _refuse_seats(self, seats: tuple[int, ...]) -> Refusal | None:
        n = len(seats)
        if len(set(seats)) != n:
            return refuse("seat.twice")
        for s in seats:
            if s not in self.seats:
                if s == self.actor and self.role is not None:
                    return self_refusal(self.kind, self.role)
                if self.kind == "sheriff.withdraw":
                    return refuse("sheriff.not_candidate", seat=s)
                return refuse("seat.not_selectable", seat=s)
        if n < self.min_seats:
            if self.min_seats == self.max_seats:
                return refuse("seat.too_few_exact", n=self.min_seats)
            return refuse("seat.too_few", n=self.min_seats)
        if n > self.max_seats:
            if self.max_seats == 0:
                return refuse("seat.none_allowed")
            return refuse("seat.too_many", n=self.max_seats) if self.max_seats > 1 else refuse("seat.only_one")
        return None


def self_refusal(kind: str, role: Role) -> Refusal:
    """Why the acting player cannot name himself, in the words of what he does ("预言家不能查验自己")."""
    if kind == "seer.check":
        return refuse("seer.check_self")
    if kind == "wild_child.model":
        return refuse("wild_child.model_self")
    if kind == "wolf_beauty.charm":
        return refuse("wolf_beauty.charm_self")
    if kind == "piper.charm":
        return refuse("piper.charm_self")
    return refuse("seat.self", role=role)
