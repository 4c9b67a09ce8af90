"""Readers for the answers built from seat numbers: Seats, SelfExplode, Ballots, VoteResult.

Each reader takes the cleaned characters and returns its answer, raises `Unlike` when the words are not this
kind of answer at all, or raises `NotUnderstood` / `Ambiguous` when they clearly are but something is wrong
with them (a seat missing, a voter named twice). Nothing is dropped or guessed: every word must be known.
"""

from __future__ import annotations

from collections.abc import Sequence

from narrator.engine.answers import Ballots, Duel, Seats, SelfExplode, VoteResult
from narrator.engine.refusals import refuse

from . import _lexicon as lex
from ._errors import Ambiguous, NotUnderstood, Unlike
from ._text import Char, Tok, tokens

MAX_SEAT = 99
"""Seats above the table size are the engine's to reject; beyond two digits it is surely a mishearing."""


def known(chars: Sequence[Char], lexicon: lex.Lexicon, wanted: str) -> list[Tok]:
    """The words, or `Unlike` naming the first one not understood (so the host hears what went wrong) and
    what to say instead (`wanted`: an answer slug, said as `names.answers.<slug>`)."""
    toks = tokens(chars, lexicon)
    for tok in toks:
        if tok.kind == "unk":
            raise Unlike(refuse("words.unknown", heard=tok.text, wanted=wanted))
    return toks


def seat(tok: Tok) -> int:
    """A numeral as a seat number; 0 and absurd numbers are refused here rather than passed on."""
    if tok.num == 0:
        raise NotUnderstood(refuse("words.seat_zero"))
    if tok.num > MAX_SEAT:
        raise NotUnderstood(refuse("words.seat_too_big"))
    return tok.num


def read_seats(chars: Sequence[Char]) -> Seats:
    """Seats in the order said. One seat said again and again counts once: hosts repeat for emphasis
    ("七号，七号"). A seat named again among others ("4号 9号 10号 12号 4号") and a word after the first
    seat that names none ("1号 3号 6号 4号 是"; but "十号退水") are refused, never dropped: each is a seat
    word misheard, so the list is not what the host said."""
    toks = known(chars, lex.SEATS, "seats")
    nums = [seat(t) for t in toks if t.kind == "num"]
    if any(t.tag == "nobody" for t in toks):
        if nums:
            raise Ambiguous(refuse("words.nobody_and_seats"))
        return Seats(())
    if not nums:
        raise Unlike(refuse("words.no_seat"))
    distinct = tuple(dict.fromkeys(nums))
    if 1 < len(distinct) < len(nums):
        again = next(n for i, n in enumerate(nums) if n in nums[:i])
        raise NotUnderstood(refuse("words.seat_again", seat=again))
    first = next(i for i, t in enumerate(toks) if t.kind == "num")
    stray = next((t for t in toks[first:] if t.kind == "word" and t.tag not in ("filler", "verb_after")), None)
    if stray is not None:
        raise NotUnderstood(refuse("words.stray", heard=stray.text))
    return Seats(distinct)


def read_self_explode(chars: Sequence[Char]) -> SelfExplode:
    toks = known(chars, lex.SELF_EXPLODE, "self_explode")
    if not any(t.tag == "explode" for t in toks):
        raise Unlike(refuse("words.no_explode"))
    nums = sorted({seat(t) for t in toks if t.kind == "num"})
    if not nums:
        raise NotUnderstood(refuse("words.explode_no_seat"))
    if len(nums) > 1:
        raise Ambiguous(refuse("words.explode_several"))
    return SelfExplode(nums[0])


def read_duel(chars: Sequence[Char]) -> Duel:
    """"五号决斗三号": the knight's seat, 决斗, the target's seat (both needed, in that order)."""
    toks = known(chars, lex.DUEL, "duel")
    at = next((i for i, t in enumerate(toks) if t.tag == "duel"), None)
    if at is None:
        raise Unlike(refuse("words.no_duel"))
    before = [seat(t) for t in toks[:at] if t.kind == "num"]
    after = [seat(t) for t in toks[at + 1 :] if t.kind == "num"]
    if len(before) != 1 or len(after) != 1:
        raise NotUnderstood(refuse("words.duel_seats"))
    return Duel(before[0], after[0])


def read_ballots(chars: Sequence[Char]) -> Ballots:
    """A vote record: runs of voters, each closed by 投 and one target, or by 弃票.

    The target of a 投 is exactly one seat, so a new group may start right after it even without a comma
    ("1 2 投 7 3 4 投 5"). Voters who abstain are checked for repeats like the others, then left out.
    """
    toks = known(chars, lex.BALLOTS, "ballots")
    if not any(t.tag in ("vote", "abstain", "none") for t in toks):
        raise Unlike(refuse("words.no_ballots"))
    if any(t.tag == "none" for t in toks) and any(t.kind == "num" for t in toks):
        raise Ambiguous(refuse("words.abstain_and_seats"))
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
                raise NotUnderstood(refuse("words.voted_twice", seat=n))
            else:
                pending.append(n)
        elif tok.tag in ("vote", "abstain"):
            if awaiting_target:
                raise NotUnderstood(refuse("words.no_target"))
            if not pending:
                raise NotUnderstood(refuse("words.no_voter") if tok.tag == "vote" else refuse("words.no_abstainer"))
            named.update(pending)
            if tok.tag == "abstain":
                pending = []
            awaiting_target = tok.tag == "vote"
    if awaiting_target:
        raise NotUnderstood(refuse("words.no_target"))
    if pending:
        raise NotUnderstood(refuse("words.target_of", seat=pending[0]))
    return Ballots(tuple(votes))


def read_vote_result(chars: Sequence[Char]) -> VoteResult:
    toks = known(chars, lex.VOTE_RESULT, "vote_result")
    tags = {t.tag for t in toks}
    nums = list(dict.fromkeys(seat(t) for t in toks if t.kind == "num"))
    if not tags & {"out", "tie", "none"}:
        raise Unlike(refuse("words.no_result"))
    if "none" in tags:
        if nums or "tie" in tags:
            raise Ambiguous(refuse("words.none_and_seats"))
        return VoteResult(None)
    if {"out", "tie"} <= tags:
        raise Ambiguous(refuse("words.out_and_tie"))
    if "tie" in tags:
        if len(nums) < 2:
            raise NotUnderstood(refuse("words.tie_of_one"))
        return VoteResult(None, tuple(nums))
    if not nums:
        raise NotUnderstood(refuse("words.out_no_seat"))
    if len(nums) > 1:
        raise Ambiguous(refuse("words.out_several"))
    return VoteResult(nums[0])
