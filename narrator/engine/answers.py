"""What the host can answer: small frozen values, produced by `narrator.hostwords` from speech or text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from narrator.engine.roles import Role
from narrator.engine.values import quick_init


@quick_init
@dataclass(frozen=True, slots=True)
class Seats:
    """One or more seats (座位号, 1-based) in the order said. Empty = nobody (空刀 / 不用 / 没有 / 不开枪)."""

    seats: tuple[int, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class YesNo:
    """救 / 不救, 翻牌 / 不翻, 要 / 不要."""

    yes: bool


@quick_init
@dataclass(frozen=True, slots=True)
class Pass:
    """过: a speech or last words ended."""


@quick_init
@dataclass(frozen=True, slots=True)
class SelfExplode:
    """N号自爆: a wolf reveals himself by day."""

    seat: int


@quick_init
@dataclass(frozen=True, slots=True)
class Cards:
    """Role cards named by the host (the thief's two face-down cards)."""

    roles: tuple[Role, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class TakeCard:
    """The thief's choice: a card from the two, or None to keep his own (不换)."""

    role: Role | None


@quick_init
@dataclass(frozen=True, slots=True)
class Ballots:
    """A vote record: voter seat -> target seat. Voters not named abstain (弃票).

    "1 2 5 9 投 7号，3 4 投 5号" gives {1: 7, 2: 7, 5: 7, 9: 7, 3: 5, 4: 5}.
    """

    votes: tuple[tuple[int, int], ...]

    def as_dict(self) -> dict[int, int]:
        return dict(self.votes)


@quick_init
@dataclass(frozen=True, slots=True)
class VoteResult:
    """A quick result without the breakdown: "七号出局" / "七号当选" (out=7), "三号 七号 平票" (tied=(3, 7)),
    "没有人出局" / "平安日" (out=None, tied=())."""

    out: int | None
    tied: tuple[int, ...] = ()


@quick_init
@dataclass(frozen=True, slots=True)
class Direction:
    """警左 / 警右: which side of the sheriff speaks first."""

    side: Literal["left", "right"]


@quick_init
@dataclass(frozen=True, slots=True)
class Duel:
    """N号决斗M号: the knight reveals himself during a day speech and duels a living player."""

    knight: int
    target: int


Answer = Seats | YesNo | Pass | SelfExplode | Cards | TakeCard | Ballots | VoteResult | Direction | Duel
