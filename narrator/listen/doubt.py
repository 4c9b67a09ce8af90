"""What the ear doubts, and so reads back before the answer is taken: the dialogue's read-back policy.

A wrong answer taken is far worse than a question asked twice, so the rule is: never take a spoken answer the
recogniser may have got wrong without a read-back ("七号，对吗？") and 对. What counts as doubt:

* **the N-best gap** (`doubtful`): the best reading has [unk] in it, or another reading that means something
  else is within `doubt_gap` score units of it. Read back at *every* prompt (`doubt_everywhere`), not only
  the irreversible ones.
* **every spoken seat** (`seat_doubt = "always"`, the default): measured through the room with the Korean
  stand-in, no score separates a right seat reading from a wrong one (wrong readings came with confidence
  1.0 and no competitor: docs/benchmarks.md), so a seat answer by voice is always read back. A model that
  has been measured to separate them may use `"score"` (the gap alone decides). The same for any other
  number an answer says it holds (`numbered`: the lobby's player count, 十八个 read as 八个).
* **irreversible prompts** (`read_back = "irreversible"`, the default): every spoken kill, poison, shot,
  take, exile, badge, duel — and the role identifications and the seer's check, which decide every later
  step of the game.

Typed text and keys are never misheard: they are read back only under `read_back = "always"` (or when the
answer asks for it itself, the lobby's 关机).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from narrator.engine.answers import Answer, Ballots, Duel, Seats, SelfExplode, VoteResult
from narrator.engine.prompts import Prompt
from narrator.hostwords import Ambiguous, NotUnderstood, parse
from narrator.listen.base import Heard
from narrator.listen.grammar import UNK, Pack
from narrator.listen.recognizer import PAUSE

IRREVERSIBLE_ENDINGS = ("kill", "poison", "shoot", "shot", "take", "exile", "identify", "check")
"""Prompt kinds ending so (`wolves.kill`, `seer.check`, `wolves.identify` …) decide the game: read back."""
IRREVERSIBLE_KINDS = frozenset({"vote.exile", "pk.vote", "badge.pass"})
ReadBack = Literal["always", "irreversible", "doubt"]
READ_BACK: tuple[ReadBack, ...] = ("always", "irreversible", "doubt")
SeatDoubt = Literal["always", "score"]
SEAT_DOUBT: tuple[SeatDoubt, ...] = ("always", "score")
SPOKEN = ("voice", "file")
"""Sources that come through the recogniser (and so can be misheard)."""
PASS_WORDS = frozenset({"过", "过了", "跳过", "過", "過了", "跳過"})
"""Words that skip a step: at an irreversible prompt they mean nobody only once read back and confirmed
(放弃, 不开枪, the keypad's 0 say it at once): after a run of "请说过" a 过 there is easily a slip (issue 29)."""
SEATED = (Seats, Ballots, VoteResult, SelfExplode, Duel)
"""Answers that name seats (or nobody, where seats are asked): what the recogniser misreads unnoticed."""


def irreversible(kind: str, answer: object = None) -> bool:
    """Kill, poison, shot, take, exile, badge, duel, and the identifications and checks that decide every later
    step: answers the game cannot afford wrong."""
    return (kind in IRREVERSIBLE_KINDS or kind.rsplit(".", 1)[-1] in IRREVERSIBLE_ENDINGS
            or isinstance(answer, Duel))


Reader = Callable[[str, Prompt], object]
"""What reads the host's words at a prompt (`host_answer`, the lobby's `read`): an answer, or NotUnderstood /
Ambiguous raised; what it reads is only compared here."""


@runtime_checkable
class Confirmed(Protocol):
    """An answer that says whether it must be confirmed with 对 before it is taken (the lobby's 关机)."""

    @property
    def confirm(self) -> bool: ...


@runtime_checkable
class Numbered(Protocol):
    """An answer that says whether it is a number the recogniser misreads with confidence, as it does a seat
    (the lobby's player count): read back when spoken, whatever the scores."""

    @property
    def numbered(self) -> bool: ...


def host_answer(text: str, prompt: Prompt) -> Answer:
    """The game's reader (hostwords.parse for the prompt's answer types)."""
    return parse(text, prompt.accepts)


def meaning(text: str, prompt: Prompt, pack: Pack, read: Reader = host_answer) -> object:
    """What a reading means here: a control name, an Answer, or None (not understood)."""
    words = " ".join(t for t in text.split() if t not in (UNK, PAUSE))
    control = pack.control(words)
    if control is not None and control not in ("confirm", "deny"):
        return control
    try:
        return read(words, prompt)
    except (NotUnderstood, Ambiguous):
        return control


def doubtful(heard: Heard, prompt: Prompt, pack: Pack, gap: float,
             read: Reader = host_answer) -> bool:
    """Speech whose best reading is unsure by the recogniser's own scores: [unk] in it, or another reading
    meaning something else within `gap` of its score. Keys and typed text are never in doubt."""
    if heard.source not in SPOKEN:
        return False
    if not heard.alternatives:
        return True
    best_text, best_score = heard.alternatives[0]
    if UNK in best_text.split():
        return True
    best = meaning(best_text, prompt, pack, read)
    for text, score in heard.alternatives[1:]:
        other = meaning(text, prompt, pack, read)
        if other is not None and other != best:
            return best_score - score < gap
    return False


@dataclass(frozen=True)
class Policy:
    """Which answers are read back (the config's `game.read_back`, `game.seat_doubt`, `game.doubt_gap`)."""

    read_back: ReadBack = "irreversible"
    seat_doubt: SeatDoubt = "always"
    doubt_gap: float = 3.0
    doubt_everywhere: bool = True
    """Read back what the scores doubt at every prompt (the lobby of `narrator serve` too); False: at
    irreversible ones only."""

    def reads_back(self, heard: Heard, answer: object, prompt: Prompt, pack: Pack,
                   read: Reader = host_answer) -> bool:
        """Whether `answer`, heard as `heard` at `prompt`, must be read back and confirmed before it is taken."""
        if self.read_back == "always" or (isinstance(answer, Confirmed) and answer.confirm):
            return True
        if irreversible(prompt.kind, answer) and heard.text.strip(" 。！!.") in PASS_WORDS:  # typed too
            return True
        if heard.source not in SPOKEN:
            return False
        if self.seat_doubt == "always" and (isinstance(answer, SEATED) or (isinstance(answer, Numbered)
                                                                     and answer.numbered)):
            return True  # a spoken seat, or another number (the lobby's player count): misread with confidence
        final = irreversible(prompt.kind, answer)
        if final and self.read_back == "irreversible":
            return True
        return (final or self.doubt_everywhere) and doubtful(heard, prompt, pack, self.doubt_gap, read)


def heard_words(heard: Heard) -> str:
    """What was heard, in host words, for a read-back whose answer has no words of its own: [unk], pauses and
    anything that is not Chinese (a model's raw token) left out."""
    return "".join(t for t in heard.text.split() if t not in (UNK, PAUSE) and all(_cjk(c) or c.isdigit() for c in t))


def shown_words(heard: Heard) -> str:
    """What was heard as the host's console shows it: a spoken answer's host words, each word of a reading that
    is not one (a model's raw token: "하나", [unk]) left out ("" when none is left); typed and keyed lines as
    they came."""
    if heard.source not in SPOKEN:
        return heard.text
    return " ".join(t for t in heard.text.split() if t not in (UNK, PAUSE) and all(_cjk(c) or c.isdigit() for c in t))


def _cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"
