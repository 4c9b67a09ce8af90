"""Converging on an answer instead of asking it again from scratch: what one question has gathered so far.

The recogniser's errors stick to the word (七号 came out 一号 every time in the room): saying the same words
again rarely helps. So at one question the dialogue (narrator/listen/dialogue.py) keeps what it heard and asks
only for what is missing or in doubt:

* **Keep the seats heard.** A multi-seat answer with too few seats (three wolves of four) keeps them and asks
  for the rest: "一号、四号、八号，还差一个。" The next seats are added ("十号" → all four, read back).
* **Correct one seat.** "不是十号，是十一号" / "十号换成十一号" replaces one seat of the answer waiting for 对
  (or of the seats kept); "去掉十号" / "十号去掉" / "十号不对" takes one out (and asks for the rest).
* **A choice between two readings.** When the recogniser's two best readings are both legal and differ in
  one seat, the judge asks "是一号还是七号？" and the ear listens for those two seats only.
* **One seat at a time.** After two misses at one question (a refusal, or 不对), the judge offers the seats
  one at a time — those the recogniser's readings at this question point at most first (named in the most
  of the host's utterances, then the highest among the N-best) — and names the keypad key for each
  ("是七号吗？说对或不对，也可以在键盘上按7和回车。"); 对 / 不对 are what the ear reads best. The ear listens for
  对 / 不对 and every seat of the question (`listening`): another seat said at an offer is heard as itself — a
  correction, read back like any seat (at a one-seat question the seat offered is declined) —, where with
  the offered seat alone in the grammar it came back as a bare 对 54 times in 528 (`scripts/bench_offer.py`,
  docs/benchmarks.md; 3 in 528 with every seat, 对 and 不对 read as before). "九号 确认" at the offer of
  九号 — the seat offered and 对, nothing else (`offer_confirmed`) — is a 对: the room read the host's 맞아 so
  eight times in a row.

Nothing here is taken without the host's 对 or his own keys: a gathered answer goes through the same
read-back policy as any other (narrator/listen/doubt.py). `Gathered` is the state; the functions are pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from narrator.engine.answers import Seats, VoteResult
from narrator.engine.prompts import Prompt
from narrator.hostwords import Ambiguous, NotUnderstood, parse
from narrator.listen.base import Heard
from narrator.listen.grammar import UNK
from narrator.listen.recognizer import PAUSE

MISSES_BEFORE_OFFERS = 2
"""Misses (refusals, 不对) at one question before the judge offers one seat at a time."""
PARTIAL_CODES = frozenset({"seat.too_few_exact", "seat.too_few"})
"""Refusals that mean only "more seats": the seats heard are kept."""


@dataclass(frozen=True, slots=True)
class Correction:
    """"不是十号，是十一号": take `drop` out, put `add` in (either may be None)."""

    drop: int | None
    add: int | None


_NOT_BUT = re.compile(r"^不是(?P<drop>.+?)[,，、]?(?:而是|是|换成|改成)(?P<add>.+)$")
_CHANGE = re.compile(r"^(?P<drop>.+?)(?:换成|改成)(?P<add>.+)$")
_REMOVE = re.compile(r"^(?:去掉|删掉|拿掉|不要)(?P<drop>.+)$|^(?P<drop2>.+?)(?:去掉|删掉|拿掉|不要|不对|错了)$")


def _one_seat(words: str) -> int | None:
    try:
        answer = parse(words, {Seats})
    except (NotUnderstood, Ambiguous):
        return None
    return answer.seats[0] if isinstance(answer, Seats) and len(answer.seats) == 1 else None


def read_correction(text: str) -> Correction | None:
    """The one-seat correction `text` says ("不是十号，是十一号", "十号换成十一号", "去掉十号", "十号不对"), or
    None."""
    flat = "".join(t for t in text.split() if t not in (UNK, PAUSE)).strip("，,。 ")
    for pattern in (_NOT_BUT, _CHANGE):
        m = pattern.match(flat)
        if m:
            drop, add = _one_seat(m["drop"]), _one_seat(m["add"])
            return Correction(drop, add) if drop is not None and add is not None and drop != add else None
    m = _REMOVE.match(flat)
    if m:
        drop = _one_seat(m["drop"] or m["drop2"])
        return Correction(drop, None) if drop is not None else None
    return None


def corrected(seats: tuple[int, ...], fix: Correction) -> tuple[int, ...] | None:
    """`seats` with `fix` applied; None when the seat to drop is not among them (or the one to add is)."""
    if fix.drop not in seats or (fix.add is not None and fix.add in seats):
        return None
    if fix.add is None:
        return tuple(s for s in seats if s != fix.drop)
    return tuple(fix.add if s == fix.drop else s for s in seats)


def merged(kept: tuple[int, ...], new: tuple[int, ...], needed: int) -> tuple[int, ...]:
    """The seats kept with the new ones added — or the new ones alone when they are a whole answer."""
    if len(new) >= needed or not kept:
        return new
    return tuple(dict.fromkeys([*kept, *new]))


def needed(prompt: Prompt) -> int:
    """How many seats a whole answer names (the fewest the prompt takes)."""
    return max(prompt.min_seats, 1)


def multi_seat(prompt: Prompt) -> bool:
    return prompt.accepts == frozenset({Seats}) and prompt.min_seats > 1


def seats_in(text: str) -> tuple[int, ...]:
    """The seats a reading names, in order, whatever else is in it ("七号 하나" → (7,))."""
    out: list[int] = []
    for token in text.split():
        seat = _one_seat(token)
        if seat is not None and seat not in out:
            out.append(seat)
    return tuple(out)


STRAY_CODES = frozenset({"words.unknown", "words.stray"})
"""Refusals of a seat list with a word in it that names no seat: a word the parser does not know ("열", the
model's piece of 十一号), or one it knows after the seats ("四号 六号 是")."""


def partial(text: str, prompt: Prompt) -> tuple[int, ...]:
    """The seats of a spoken multi-seat answer with a word in it that names no seat ("一号 四号 八号 열 是": the
    model's piece of 十一号; "四号 六号 是"): kept when they are fewer than the answer needs and none is said
    twice (a seat again is a misreading: refused, never kept); () otherwise — a whole answer with a stray
    word is refused, as the parser says (the word may be a seat misheard). What is kept is never taken as it
    is: the seats still missing are asked for, and the whole answer is read back (`Repairs._answered`)."""
    if not multi_seat(prompt):
        return ()
    named = [s for s in (_one_seat(t) for t in text.split()) if s is not None]
    if not named or len(set(named)) < len(named) or len(named) >= needed(prompt):
        return ()
    return tuple(named) if all(s in prompt.seats for s in named) else ()


def offer_confirmed(text: str, offer: int, control: Callable[[str], str | None]) -> bool:
    """"九号 确认" / "确认 九号" at the offer of 九号: 对 (one or more) and the seat offered, nothing else — no other
    word, no other seat, no 不对 (`control`: the pack's control of a word)."""
    words = [t for t in text.split() if t not in (UNK, PAUSE)]
    rest = [t for t in words if control(t) != "confirm"]
    return len(rest) < len(words) and bool(rest) and _one_seat(" ".join(rest)) == offer and all(
        control(t) is None for t in rest)


def one_seat_apart(a: object, b: object) -> tuple[int, int] | None:
    """Two seat answers of the same size that differ in exactly one seat: (a's seat, b's seat)."""
    if not (isinstance(a, Seats) and isinstance(b, Seats)) or len(a.seats) != len(b.seats):
        return None
    only_a = [s for s in a.seats if s not in b.seats]
    only_b = [s for s in b.seats if s not in a.seats]
    if len(only_a) == 1 and len(only_b) == 1:
        return only_a[0], only_b[0]
    return None


@dataclass
class Gathered:
    """What one question has gathered: seats kept, misses, the seats heard, a choice or an offer open."""

    prompt: Prompt
    kept: tuple[int, ...] = ()
    misses: int = 0
    heard: list[int] = field(default_factory=list)
    """Seats the recogniser read at this question (every reading), first heard first: offered first."""
    times: dict[int, int] = field(default_factory=dict)
    """In how many of the host's utterances at this question some reading named each seat: the seat he means
    tends to come back, in one reading or another, each time he says it."""
    weight: dict[int, float] = field(default_factory=dict)
    """How high in the readings each seat came: 1 for a best reading, 1/2 for the second …, summed over his
    utterances (of two seats heard as often, the one read first)."""
    choice: tuple[Seats, Seats] | None = None
    """The two readings the host is choosing between ("是一号还是七号？")."""
    offer: int | None = None
    """The seat offered one at a time ("是七号吗？")."""
    declined: set[int] = field(default_factory=set)
    _narrowed: Prompt | None = None

    def note(self, heard: Heard) -> None:
        """Remember the seats of every reading of a spoken answer (the candidates of one-at-a-time offers)."""
        pointed: dict[int, float] = {}
        for rank, (text, _) in enumerate(heard.alternatives or ((heard.text, 0.0),)):
            for seat in seats_in(text):
                if seat in self.prompt.seats:
                    pointed[seat] = max(pointed.get(seat, 0.0), 1.0 / (rank + 1))
                if seat not in self.heard and seat in self.prompt.seats:
                    self.heard.append(seat)
        for seat, w in pointed.items():
            self.times[seat] = self.times.get(seat, 0) + 1
            self.weight[seat] = self.weight.get(seat, 0.0) + w

    def missed(self) -> bool:
        """Count a miss; True when it is time to offer one seat at a time — then the seats kept so far are let
        go (they were never confirmed; they come first among the seats offered, being heard first): from now
        on `kept` holds only seats the host confirmed with 对."""
        self.misses += 1
        if self.offering_allowed() and self.misses >= MISSES_BEFORE_OFFERS:
            self.kept = ()
            return True
        return False

    def offering_allowed(self) -> bool:
        """Seats to offer one at a time: where seats are asked, and at a vote's result ("是九号吗？": who is
        out — the words of a result are misread like any seat's)."""
        return bool(self.prompt.accepts & {Seats, VoteResult}) and bool(self.prompt.seats)

    def next_offer(self) -> int | None:
        """The next seat to offer: those the readings point at most first — named in the most utterances, then
        the highest in them, then heard first — then the others in order; None when none is left."""
        heard = sorted(self.heard, key=lambda s: (-self.times.get(s, 0), -self.weight.get(s, 0.0)))
        for seat in [*heard, *self.prompt.seats]:
            if seat not in self.kept and seat not in self.declined:
                self.offer = seat
                self._narrowed = None
                return seat
        self.offer = None
        return None

    def open(self) -> bool:
        """Something gathered at this question that 撤销 would drop (rather than take back the last answer)."""
        return bool(self.kept) or self.choice is not None or self.offer is not None

    def open_choice(self, a: Seats, b: Seats) -> None:
        self.choice, self.offer, self._narrowed = (a, b), None, None

    def close(self) -> None:
        """The choice or offer is answered (or dropped): listen for the whole question again."""
        self.choice, self.offer, self._narrowed = None, None, None

    def listening(self) -> Prompt:
        """The prompt the ear listens with: the question's own, or narrowed to a choice's two seats, or at an
        offer to one seat of the question (the same object while it lasts: the voice ear keeps an utterance in
        progress)."""
        if self.choice is None and self.offer is None:
            return self.prompt
        if self._narrowed is None:
            if self.choice is not None:
                pair = one_seat_apart(*self.choice)
                seats = tuple(s for s in self.prompt.seats if pair is not None and s in pair)
            elif self.offer is not None:  # 对 / 不对 and one seat — the offered one or a correction (every seat
                # of the question: another seat is heard as itself, not as 对); at a vote not the ballots' words
                self._narrowed = replace(self.prompt, accepts=frozenset({Seats}), min_seats=1, max_seats=1)
                return self._narrowed
            else:
                seats = ()
            self._narrowed = replace(self.prompt, seats=seats or self.prompt.seats)
        return self._narrowed

    def chosen(self, answer: object) -> Seats | None:
        """The choice's reading the host's answer picks ("七号" of "是一号还是七号？"), or None."""
        if self.choice is None:
            return None
        if isinstance(answer, Seats) and answer in self.choice:  # a choice is between seats
            return answer
        pair = one_seat_apart(*self.choice)
        if pair is not None and isinstance(answer, Seats) and len(answer.seats) == 1:
            for option, seat in zip(self.choice, pair, strict=True):
                if answer.seats[0] == seat:
                    return option
        return None
