"""An answer as the judge says it back (`names.readings`): the readings of words that could mean two things."""

from __future__ import annotations

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


def reading(answer: Answer) -> tuple[str, dict[str, object]]:
    """The key of `answer`'s line in `names.readings` and the values that fill it."""
    match answer:
        case Seats(seats=()):
            return "nobody", {}
        case Seats(seats=named):
            return "seats", {"seats": named}
        case YesNo(yes=yes):
            return ("yes" if yes else "no"), {}
        case Pass():
            return "pass", {}
        case SelfExplode(seat=n):
            return "self_explode", {"seat": n}
        case Cards(roles=roles):
            return "cards", {"roles": roles}
        case TakeCard(role=None):
            return "keep", {}
        case TakeCard(role=role):
            return "take", {"role": role}
        case VoteResult(out=None, tied=()):
            return "no_one_out", {}
        case VoteResult(out=None, tied=tied):
            return "tie", {"seats": tied}
        case VoteResult(out=out):
            return "out", {"seat": out}
        case Direction(side=side):
            return side, {}
        case Ballots():
            return "ballots", {}
        case Duel(knight=knight, target=target):
            return "duel", {"seat": knight, "target": target}
    raise TypeError(f"no reading for {answer!r}")
