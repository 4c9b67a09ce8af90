"""The one place the host's Chinese words become typed answers (`narrator.engine.answers`).

The judge asks a question whose prompt takes a few answer types; `parse` tries a reader for each of them and
returns the answer only when exactly one reading exists. The host is at a noisy table and the recogniser
mishears, so the rule throughout is: never guess. Unknown words, contradictions and two possible readings
all raise, with a refusal code (`narrator.engine.refusals`) whose line in the judge's script asks again.

Readings chosen for inputs that could go either way (each pinned by tests):

* Chinese digits never group on their own: "三五七号" and "一 二 号" are several seats; "十二" and "十 二"
  are twelve (Vosk writes 十 and the digit after it as separate words); "二十" is twenty but "五 十" with a
  space is five and ten. Arabic digits group only when written together: "12" is twelve, "1 2" is two seats.
* 0 is never a seat; numbers over 99 are refused; 19…99 are returned for the engine to reject.
* One seat said again in a `Seats` answer counts once ("七号，七号"); a seat again among others ("3 5 3")
  and a word after the seats ("1号 3号 是") are refused (a seat word misheard); in a vote record a seat
  twice is an error.
* 不用 / 没有 mean "nobody" to a seat prompt and "no" to a yes/no prompt; a prompt taking both gets
  `Ambiguous`.
* 过 with a seat ("七号过") is refused: `Pass` cannot say whose turn ended.
* In a vote record each 投 takes exactly one target, so a new group may follow without a comma
  ("1 2 投 7 3 4 投 5"); 弃票 voters are checked for repeats, then left out like unnamed ones.
* A count before a card name repeats it ("两张村民"); a count before 牌 is a total that must match
  ("两张牌是狼人和村民"), unless 都 hands it on ("两张牌都是村民").
* Keywords may be split by Vosk's spaces ("空 刀", "投 给") but never by punctuation.
* Text longer than `MAX_CHARS` is refused unread (`words.too_long`): no answer is that long, and a reader
  never spends more than linear time on what it is given. Text holding U+FFFD (bytes that were not
  UTF-8, replaced where they were decoded) is refused as unreadable (`words.unreadable`).
* A typed "0" alone means what the keypad's 0 means: 没有 (nobody, no, 平安日); "0号" and 零号 are refused.
* 自爆 said where the prompt takes no self-explosion (a vote, a night question) is refused with that reason
  (投票时不能自爆), not as words not understood.
* 过 to a seat prompt is nobody (the guard's 过 is 空守); 退水 said where no seat is asked (a candidate
  during the election speeches) is refused with the hint that the judge asks for withdrawals after them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from narrator.common.numbers import chinese_number
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
from narrator.engine.prompts import ANSWER_SLUGS
from narrator.engine.refusals import refuse

from . import _lexicon as lex
from ._errors import Ambiguous, NotUnderstood, Unlike
from ._numeric import MAX_SEAT, read_ballots, read_duel, read_seats, read_self_explode, read_vote_result
from ._text import Char, clean
from ._verbal import read_cards, read_direction, read_pass, read_take_card, read_yesno
from .rules_words import rules_request

__all__ = ["MAX_CHARS", "Ambiguous", "NotUnderstood", "parse", "phrases", "rules_request"]

Reader = Callable[[Sequence[Char]], Answer]

# Order matters only for which complaint is said when several types fail equally badly.
_READERS: dict[type, tuple[Reader, lex.Lexicon]] = {
    Seats: (read_seats, lex.SEATS),
    YesNo: (read_yesno, lex.YESNO),
    Pass: (read_pass, lex.PASS),
    SelfExplode: (read_self_explode, lex.SELF_EXPLODE),
    Cards: (read_cards, lex.CARDS),
    TakeCard: (read_take_card, lex.TAKE_CARD),
    Ballots: (read_ballots, lex.BALLOTS),
    VoteResult: (read_vote_result, lex.VOTE_RESULT),
    Direction: (read_direction, lex.DIRECTION),
    Duel: (read_duel, lex.DUEL),
}
_SEATED = (Seats, SelfExplode, Ballots, VoteResult, Duel)


def _kinds(accepts: Iterable[type]) -> list[type]:
    wanted = set(accepts)
    unknown = wanted - set(_READERS)
    if unknown or not wanted:
        raise TypeError(f"hostwords cannot read {sorted(t.__name__ for t in unknown) or 'nothing'}")
    return [kind for kind in _READERS if kind in wanted]


MAX_CHARS = 300
"""The longest text read as an answer (a ballot of 18 seats said in full, with Vosk's spaces, is about 150
characters); longer is refused unread."""
UNREADABLE = "\ufffd"
"""What a byte that was not UTF-8 becomes where input is decoded (errors="replace")."""


def parse(text: str, accepts: Iterable[type]) -> Answer:
    """The single answer of an accepted type that `text` says, or `NotUnderstood` / `Ambiguous`.

    When several types are accepted and none fits, the complaint of a type the words clearly tried to be
    ("3号投了两次") is preferred over "not recognised" ones; if all are the latter and only one type was
    asked for, its own (more precise) complaint is used.
    """
    if len(text) > MAX_CHARS:  # no answer is this long: refused before any parsing, in constant time
        raise NotUnderstood(refuse("words.too_long"))
    if UNREADABLE in text:  # bytes that were no UTF-8 (the ear decoded them once, marking each bad one)
        raise NotUnderstood(refuse("words.unreadable"))
    kinds = _kinds(accepts)
    chars = clean(text)
    if not chars:
        raise NotUnderstood(refuse("words.empty"))
    if "".join(c.ch for c in chars) in ("0", "０"):  # the keypad's 0, typed
        chars = clean("没有")
    said = "".join(c.ch for c in chars)
    if Seats not in kinds and any(word in said for word in lex.WITHDRAW):
        raise NotUnderstood(refuse("words.withdraw_later"))
    if SelfExplode not in kinds and any(word in said for word in lex.EXPLODE):  # not "没听懂": why not now
        wanted = tuple(ANSWER_SLUGS[k] for k in kinds)
        if Ballots in kinds or VoteResult in kinds:
            raise NotUnderstood(refuse("words.explode_in_vote", wanted=wanted))
        raise NotUnderstood(refuse("words.explode_not_now", wanted=wanted))
    found: list[Answer] = []
    strong: list[NotUnderstood] = []
    weak: list[NotUnderstood] = []
    for kind in kinds:
        try:
            answer = _READERS[kind][0](chars)
        except Unlike as miss:
            weak.append(miss)
        except NotUnderstood as miss:
            strong.append(miss)
        else:
            if answer not in found:
                found.append(answer)
    if len(found) == 1:
        return found[0]
    if found:
        # The script says each reading back as the judge would ("没有人" or "不是"): `names.readings`.
        raise Ambiguous(refuse("words.ambiguous", readings=tuple(found)))
    if strong:
        raise strong[0]
    if len(weak) == 1:
        raise NotUnderstood(weak[0].refusal) from None
    raise NotUnderstood(refuse("words.not_understood", wanted=tuple(ANSWER_SLUGS[k] for k in kinds)))


def _seat_words(max_seat: int) -> list[str]:
    words = [f"{chinese_number(n)}号" for n in range(1, max_seat + 1)]
    words += [chinese_number(n) for n in range(1, max_seat + 1)]
    # 号 on its own too: Vosk may only know it as a separate word ("七 号").
    return [*words, "号", "幺号", "幺", *(("两号", "两") if max_seat >= 2 else ())]


def phrases(accepts: Iterable[type], max_seat: int) -> list[str]:
    """Every word or phrase worth recognising for a prompt, for a small per-prompt Vosk grammar.

    Built from the very tables the readers use, so the recogniser is never offered a word the parser would
    then refuse. Fillers are left out (they carry no meaning, and a tiny grammar recognises better); words
    written in Latin letters (role slugs) are left out since Vosk's Chinese model never outputs them.
    """
    if not 1 <= max_seat <= MAX_SEAT:
        raise ValueError(f"max_seat must be 1…{MAX_SEAT}, not {max_seat}")
    kinds = _kinds(accepts)
    out: list[str] = _seat_words(max_seat) if any(k in _SEATED for k in kinds) else []
    for kind in kinds:
        out += [word for word, tag in _READERS[kind][1].items() if tag != "filler" and not word.isascii()]
    return list(dict.fromkeys(out))
