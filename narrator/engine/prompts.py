"""Prompts: what the engine needs next, for whom, whether it is secret, and which answers are legal."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from narrator.engine.answers import Answer, Ballots, Pass, Seats, SelfExplode, VoteResult
from narrator.engine.roles import Role

Check = Callable[[Any], "str | None"]

ANSWER_NAMES: dict[type, str] = {
    Seats: "座位号",
    Pass: "过",
    SelfExplode: "N号自爆",
    Ballots: "票型",
    VoteResult: "投票结果",
}


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
    """Extra legality rule beyond seats and counts; returns the reason an answer is refused, or None."""

    def refuse(self, answer: Answer) -> str | None:
        """Why this answer is illegal here (a sentence the judge can say aloud), or None if it is legal."""
        if type(answer) not in self.accepts:
            wanted = "或".join(ANSWER_NAMES.get(t, t.__name__) for t in self.accepts)
            return f"现在需要的是{wanted}"
        if isinstance(answer, Seats):
            reason = self._refuse_seats(answer.seats)
            if reason:
                return reason
        return self.check(answer) if self.check else None

    def _refuse_seats(self, seats: tuple[int, ...]) -> str | None:
        n = len(seats)
        if len(set(seats)) != n:
            return "同一个座位说了两次"
        for s in seats:
            if s not in self.seats:
                return f"{s}号不能选" if 1 <= s <= 18 else f"没有{s}号"
        if n < self.min_seats:
            if self.min_seats == self.max_seats:
                return f"需要说{self.min_seats}个座位号"
            return f"至少需要{self.min_seats}个座位号"
        if n > self.max_seats:
            if self.max_seats == 0:
                return "这里不能选人"
            return f"最多只能选{self.max_seats}个座位号" if self.max_seats > 1 else "只能选一个座位号"
        return None
