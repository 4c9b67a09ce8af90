"""The one place the host's Chinese words become typed answers (`narrator.engine.answers`).

The judge asks a question whose prompt takes a few answer types; `parse` tries a reader for each of them and
returns the answer only when exactly one reading exists. The host is at a noisy table and the recogniser
mishears, so the rule throughout is: never guess. Unknown words, contradictions and two possible readings
all raise, with a sentence the judge can say aloud to ask again.

Readings chosen for inputs that could go either way (each pinned by tests):

* Chinese digits never group on their own: "三五七号" and "一 二 号" are several seats; "十二" and "十 二"
  are twelve (Vosk writes 十 and the digit after it as separate words); "二十" is twenty but "五 十" with a
  space is five and ten. Arabic digits group only when written together: "12" is twelve, "1 2" is two seats.
* 0 is never a seat; numbers over 99 are refused; 19…99 are returned for the engine to reject.
* A seat said twice in a `Seats` answer counts once ("七号，七号"); in a vote record it is an error.
* 不用 / 没有 mean "nobody" to a seat prompt and "no" to a yes/no prompt; a prompt taking both gets
  `Ambiguous`.
* 过 with a seat ("七号过") is refused: `Pass` cannot say whose turn ended.
* In a vote record each 投 takes exactly one target, so a new group may follow without a comma
  ("1 2 投 7 3 4 投 5"); 弃票 voters are checked for repeats, then left out like unnamed ones.
* A count before a card name repeats it ("两张村民"); a count before 牌 is a total that must match
  ("两张牌是狼人和村民"), unless 都 hands it on ("两张牌都是村民").
* Keywords may be split by Vosk's spaces ("空 刀", "投 给") but never by punctuation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from narrator.engine.answers import (
    Answer,
    Ballots,
    Cards,
    Direction,
    Pass,
    Seats,
    SelfExplode,
    TakeCard,
    VoteResult,
    YesNo,
)

from . import _lexicon as lex
from ._errors import Ambiguous, NotUnderstood, Unlike
from ._numeric import MAX_SEAT, read_ballots, read_seats, read_self_explode, read_vote_result
from ._text import Char, clean, zh_number
from ._verbal import read_cards, read_direction, read_pass, read_take_card, read_yesno

__all__ = ["Ambiguous", "NotUnderstood", "parse", "phrases"]

Reader = Callable[[Sequence[Char]], Answer]

# Order matters only for which complaint is said when several types fail equally badly.
_READERS: dict[type, tuple[Reader, lex.Lexicon, str]] = {
    Seats: (read_seats, lex.SEATS, "座位号"),
    YesNo: (read_yesno, lex.YESNO, "是或者不是"),
    Pass: (read_pass, lex.PASS, "过"),
    SelfExplode: (read_self_explode, lex.SELF_EXPLODE, "几号自爆"),
    Cards: (read_cards, lex.CARDS, "牌的身份"),
    TakeCard: (read_take_card, lex.TAKE_CARD, "拿哪张牌或者不换"),
    Ballots: (read_ballots, lex.BALLOTS, "几号投几号"),
    VoteResult: (read_vote_result, lex.VOTE_RESULT, "几号出局"),
    Direction: (read_direction, lex.DIRECTION, "警左或者警右"),
}
_SEATED = (Seats, SelfExplode, Ballots, VoteResult)


def _kinds(accepts: Iterable[type]) -> list[type]:
    wanted = set(accepts)
    unknown = wanted - set(_READERS)
    if unknown or not wanted:
        raise TypeError(f"hostwords cannot read {sorted(t.__name__ for t in unknown) or 'nothing'}")
    return [kind for kind in _READERS if kind in wanted]


def _describe(answer: Answer) -> str:
    """An answer as the judge would say it back, to spell out the readings of an ambiguous phrase."""
    match answer:
        case Seats(seats=()):
            return "没有人"
        case Seats(seats=seats):
            return "、".join(f"{n}号" for n in seats)
        case YesNo(yes=yes):
            return "是" if yes else "不是"
        case Pass():
            return "过"
        case SelfExplode(seat=n):
            return f"{n}号自爆"
        case Cards(roles=roles):
            return "、".join(role.zh for role in roles)
        case TakeCard(role=role):
            return "不换" if role is None else f"拿{role.zh}"
        case VoteResult(out=None, tied=()):
            return "没有人出局"
        case VoteResult(out=None, tied=tied):
            return "、".join(f"{n}号" for n in tied) + "平票"
        case VoteResult(out=out):
            return f"{out}号出局"
        case Direction(side=side):
            return "警左" if side == "left" else "警右"
        case _:
            return "投票记录"


def parse(text: str, accepts: Iterable[type]) -> Answer:
    """The single answer of an accepted type that `text` says, or `NotUnderstood` / `Ambiguous`.

    When several types are accepted and none fits, the complaint of a type the words clearly tried to be
    ("3号投了两次") is preferred over "not recognised" ones; if all are the latter and only one type was
    asked for, its own (more precise) complaint is used.
    """
    kinds = _kinds(accepts)
    chars = clean(text)
    if not chars:
        raise NotUnderstood("没听到内容，请再说一遍")
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
        readings = "”还是“".join(_describe(a) for a in found)
        raise Ambiguous(f"听不出是“{readings}”，请换个说法")
    if strong:
        raise strong[0]
    if len(weak) == 1:
        raise NotUnderstood(weak[0].reason) from None
    raise NotUnderstood("没听懂，请说" + "，或者".join(_READERS[k][2] for k in kinds))


def _seat_words(max_seat: int) -> list[str]:
    words = [f"{zh_number(n)}号" for n in range(1, max_seat + 1)]
    words += [zh_number(n) for n in range(1, max_seat + 1)]
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
