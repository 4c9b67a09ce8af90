"""Readers for the answers said in words rather than seats: YesNo, Pass, Cards, TakeCard, Direction.

Same contract as `_numeric`: return the answer, raise `Unlike` when the words are another kind of answer,
`NotUnderstood` / `Ambiguous` when they are this kind but broken or self-contradictory ("救 不救").
"""

from __future__ import annotations

from collections.abc import Sequence

from narrator.engine.answers import Cards, Direction, Pass, TakeCard, YesNo
from narrator.engine.refusals import refuse
from narrator.engine.roles import Role

from . import _lexicon as lex
from ._errors import Ambiguous, NotUnderstood, Unlike
from ._numeric import known
from ._text import Char, Tok


def _no_seats(toks: Sequence[Tok], wanted: str) -> None:
    """A seat number in a wordy answer means the host answered another question; say so, don't drop it."""
    if any(t.kind == "num" for t in toks):
        raise Unlike(refuse("words.seats_not_wanted", wanted=wanted))


def read_yesno(chars: Sequence[Char]) -> YesNo:
    toks = known(chars, lex.YESNO, "yes_no")
    _no_seats(toks, "yes_no")
    tags = {t.tag for t in toks} - {"filler"}
    if tags == {"yes", "no"}:
        raise Ambiguous(refuse("words.yes_and_no"))
    if not tags:
        raise Unlike(refuse("words.unclear", wanted="yes_no"))
    return YesNo("yes" in tags)


def read_pass(chars: Sequence[Char]) -> Pass:
    """过 and its variants. A seat ("七号过") is refused, not ignored: Pass cannot carry it, and a host
    naming a seat may be talking about someone other than the current speaker."""
    toks = known(chars, lex.PASS, "pass")
    if not any(t.tag == "pass" for t in toks):
        raise Unlike(refuse("words.unclear", wanted="pass"))
    if any(t.kind == "num" for t in toks):
        raise NotUnderstood(refuse("words.pass_with_seat"))
    return Pass()


def _role(tok: Tok) -> Role:
    return Role(tok.tag.removeprefix("role:"))


def read_cards(chars: Sequence[Char]) -> Cards:
    """Card names in the order said.

    A count right before a name repeats it ("两张村民" = two villagers; "都"/"是" may sit between). A count
    not followed by a name announces the total ("两张牌是狼人和村民") and must agree with the names heard,
    unless 都 hands it on to one name ("两张牌都是村民").
    """
    toks = known(chars, lex.CARDS, "cards")
    _no_seats(toks, "cards")
    roles: list[Role] = []
    totals: list[int] = []
    count: int | None = None
    for tok in toks:
        if tok.tag.startswith("role:"):
            roles.extend([_role(tok)] * (count or 1))
            count = None
        elif tok.tag.startswith("count:"):
            if count is not None:
                totals.append(count)
            count = int(tok.tag.removeprefix("count:"))
        elif tok.text in ("都", "都是") and count is None and totals and not roles:
            count = totals.pop()  # "两张牌都是村民": the total is what 都 repeats
        elif tok.text not in ("都", "是", "都是") and count is not None:
            totals.append(count)
            count = None
    if count is not None:
        totals.append(count)
    if not roles:
        raise Unlike(refuse("words.no_cards"))
    if any(total != len(roles) for total in totals):
        raise NotUnderstood(refuse("words.card_count", n=totals[0], n_heard=len(roles)))
    return Cards(tuple(roles))


def read_take_card(chars: Sequence[Char]) -> TakeCard:
    toks = known(chars, lex.TAKE_CARD, "take_card")
    _no_seats(toks, "take_card")
    roles = list(dict.fromkeys(_role(t) for t in toks if t.tag.startswith("role:")))
    keep = any(t.tag == "keep" for t in toks)
    if keep and roles:
        raise Ambiguous(refuse("words.keep_and_card"))
    if keep:
        return TakeCard(None)
    if len(roles) > 1:
        raise Ambiguous(refuse("words.one_card"))
    if not roles:
        raise Unlike(refuse("words.no_card"))
    return TakeCard(roles[0])


def read_direction(chars: Sequence[Char]) -> Direction:
    toks = known(chars, lex.DIRECTION, "direction")
    _no_seats(toks, "direction")
    tags = {t.tag for t in toks} - {"filler"}
    if tags == {"left", "right"}:
        raise Ambiguous(refuse("words.left_and_right"))
    if not tags:
        raise Unlike(refuse("words.unclear", wanted="direction"))
    return Direction("left" if "left" in tags else "right")
