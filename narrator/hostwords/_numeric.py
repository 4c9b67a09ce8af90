"""Readers for the answers built from seat numbers: Seats, SelfExplode, Ballots, VoteResult.

Each reader takes the cleaned characters and returns its answer, raises `Unlike` when the words are not this
kind of answer at all, or raises `NotUnderstood` / `Ambiguous` when they clearly are but something is wrong
with them (a seat missing, a voter named twice). Nothing is dropped or guessed: every word must be known.
"""

from __future__ import annotations

from collections.abc import Sequence

from narrator.engine.answers import Ballots, Seats, SelfExplode, VoteResult

from . import _lexicon as lex
from ._errors import Ambiguous, NotUnderstood, Unlike
from ._text import Char, Tok, tokens

MAX_SEAT = 99
"""Seats above the table size are the engine's to reject; beyond two digits it is surely a mishearing."""


def known(chars: Sequence[Char], lexicon: lex.Lexicon, hint: str) -> list[Tok]:
    """The words, or `Unlike` naming the first one not understood (so the host hears what went wrong)."""
    toks = tokens(chars, lexicon)
    for tok in toks:
        if tok.kind == "unk":
            raise Unlike(f"没听懂“{tok.text}”，{hint}")
    return toks


def seat(tok: Tok) -> int:
    """A numeral as a seat number; 0 and absurd numbers are refused here rather than passed on."""
    if tok.num == 0:
        raise NotUnderstood("没有零号，请再说一遍座位号")
    if tok.num > MAX_SEAT:
        raise NotUnderstood(f"没有{tok.num}号，请再说一遍座位号")
    return tok.num


def read_seats(chars: Sequence[Char]) -> Seats:
    """Seats in the order said. A seat said twice counts once: hosts repeat for emphasis ("七号，七号")."""
    toks = known(chars, lex.SEATS, "请说座位号")
    nums = [seat(t) for t in toks if t.kind == "num"]
    if any(t.tag == "nobody" for t in toks):
        if nums:
            raise Ambiguous("既说了没有人，又说了座位号，请再说一遍")
        return Seats(())
    if not nums:
        raise Unlike("没听清座位号，请再说一遍")
    return Seats(tuple(dict.fromkeys(nums)))


def read_self_explode(chars: Sequence[Char]) -> SelfExplode:
    toks = known(chars, lex.SELF_EXPLODE, "请说几号自爆")
    if not any(t.tag == "explode" for t in toks):
        raise Unlike("没听到自爆")
    nums = sorted({seat(t) for t in toks if t.kind == "num"})
    if not nums:
        raise NotUnderstood("几号自爆？请说座位号")
    if len(nums) > 1:
        raise Ambiguous("只能一个人自爆，请再说是几号")
    return SelfExplode(nums[0])


def read_ballots(chars: Sequence[Char]) -> Ballots:
    """A vote record: runs of voters, each closed by 投 and one target, or by 弃票.

    The target of a 投 is exactly one seat, so a new group may start right after it even without a comma
    ("1 2 投 7 3 4 投 5"). Voters who abstain are checked for repeats like the others, then left out.
    """
    toks = known(chars, lex.BALLOTS, "请按“几号投几号”说")
    if not any(t.tag in ("vote", "abstain", "none") for t in toks):
        raise Unlike("没听清谁投了谁，请按“几号投几号”说")
    if any(t.tag == "none" for t in toks) and any(t.kind == "num" for t in toks):
        raise Ambiguous("既说了都弃票，又说了座位号，请再说一遍")
    votes: list[tuple[int, int]] = []
    named: set[int] = set()
    pending: list[int] = []
    awaiting_target = False
    for tok in toks:
        if tok.kind == "num":
            n = seat(tok)
            if awaiting_target:
                votes.extend((voter, n) for voter in pending)
                pending, awaiting_target = [], False
            elif n in named or n in pending:
                raise NotUnderstood(f"{n}号投了两次，请再说一遍")
            else:
                pending.append(n)
        elif tok.tag in ("vote", "abstain"):
            if awaiting_target:
                raise NotUnderstood("投给几号没听清，请再说一遍")
            if not pending:
                raise NotUnderstood(f"谁{'投' if tok.tag == 'vote' else '弃'}的票没听清，请再说一遍")
            named.update(pending)
            if tok.tag == "abstain":
                pending = []
            awaiting_target = tok.tag == "vote"
    if awaiting_target:
        raise NotUnderstood("投给几号没听清，请再说一遍")
    if pending:
        raise NotUnderstood(f"{pending[0]}号投给谁没听清，请再说一遍")
    return Ballots(tuple(votes))


def read_vote_result(chars: Sequence[Char]) -> VoteResult:
    toks = known(chars, lex.VOTE_RESULT, "请说几号出局，或者谁和谁平票")
    tags = {t.tag for t in toks}
    nums = list(dict.fromkeys(seat(t) for t in toks if t.kind == "num"))
    if not tags & {"out", "tie", "none"}:
        raise Unlike("没听清结果，请说几号出局，或者谁和谁平票")
    if "none" in tags:
        if nums or "tie" in tags:
            raise Ambiguous("既说了没有人出局，又说了座位号或平票，请再说一遍")
        return VoteResult(None)
    if {"out", "tie"} <= tags:
        raise Ambiguous("是出局还是平票？请再说一遍")
    if "tie" in tags:
        if len(nums) < 2:
            raise NotUnderstood("平票至少要两个人，请说是哪几号平票")
        return VoteResult(None, tuple(nums))
    if not nums:
        raise NotUnderstood("几号出局？请说座位号")
    if len(nums) > 1:
        raise Ambiguous("只能一个人出局，请再说是几号")
    return VoteResult(nums[0])
