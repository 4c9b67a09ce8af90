"""The dialogue's repairs at one question (mixed into `Dialogue`, narrator/listen/dialogue.py): what to do
with an answer once it is read — keep its seats and ask for the rest, correct one seat, offer a choice between
two readings, read it back, or take it — and the seat-by-seat offers after two misses.

The state is `converge.Gathered` (what this question has gathered); the rules of doubt are doubt.py's. Every
line goes through the dialogue's `own` / `say`, so at night every repair is heard by the host alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, cast

from narrator.engine.answers import Seats, VoteResult
from narrator.engine.game import Accepted
from narrator.engine.prompts import Prompt
from narrator.hostwords import Ambiguous, NotUnderstood
from narrator.judge.lines import Line
from narrator.judge.script import Script, Seat, seats
from narrator.listen.base import Heard
from narrator.listen.converge import (
    PARTIAL_CODES,
    Correction,
    Gathered,
    corrected,
    merged,
    multi_seat,
    needed,
    one_seat_apart,
)
from narrator.listen.doubt import SPOKEN, Policy
from narrator.listen.grammar import UNK
from narrator.listen.questions import A, Questions
from narrator.session.session import names_secret


@dataclass(frozen=True, slots=True)
class Pending(Generic[A]):
    """Keep listening; `answer` is the read-back waiting for 对 (or None)."""

    answer: A | Seats | None


class Repairs(Generic[A]):
    """Acting on an answer read at one question (see the module docstring)."""

    gathered: Gathered
    session: Questions[A]
    script: Script
    refused_in_secret: bool

    if TYPE_CHECKING:  # the dialogue's own, used here
        @property
        def policy(self) -> Policy: ...
        def own(self, key: str, prompt: Prompt | None, **values: object) -> None: ...
        def say(self, line: Line, prompt: Prompt | None, *, remember: bool = True, quiet: bool = False) -> None: ...
        def refuse(self, line: Line, prompt: Prompt | None, heard: Heard | None = None) -> None: ...
        def read(self, text: str, prompt: Prompt) -> A: ...
        def read_back(self, answer: A | Seats, prompt: Prompt, heard: Heard | None = None, *,
                      again: bool = False) -> None: ...
        def secret_now(self, prompt: Prompt | None) -> bool: ...
        def _reads_back(self, heard: Heard, answer: A | Seats, prompt: Prompt) -> bool: ...
        def _given_again(self, heard: Heard, answer: A | Seats, prompt: Prompt) -> bool: ...
        def taken_again(self, answer: A | Seats, prompt: Prompt, heard: Heard) -> Accepted | Pending[A]: ...
        def _submit(self, answer: A | Seats, prompt: Prompt) -> Accepted | Pending[A]: ...
    def _answered(self, answer: A | Seats, heard: Heard, prompt: Prompt,
                  pending: A | Seats | None, *, doubted: bool = False) -> Accepted | Pending[A]:
        """An answer read from the host's words (or gathered): kept for more seats, a choice, read back, or
        submitted. `doubted`: seats read beside a word that names none (converge.partial) — the whole answer
        they complete is read back whatever the policy, as is any answer completed with seats kept."""
        chosen = self.gathered.chosen(answer)
        if chosen is not None:
            answer = chosen
        self.gathered.close()
        if isinstance(answer, Seats) and multi_seat(prompt) and answer.seats:
            if isinstance(pending, Seats) and len(answer.seats) < needed(prompt):
                self.own("which_one", prompt)  # one seat for a whole answer waiting: which does it replace?
                return Pending(pending)
            whole = merged(self.gathered.kept, answer.seats, needed(prompt))
            doubted = doubted or whole != answer.seats  # seats kept from an earlier breath: never confirmed
            answer = Seats(whole)
        refusal = self.session.refusal(prompt, answer)
        if refusal is not None:
            if refusal.code in PARTIAL_CODES and isinstance(answer, Seats) and answer.seats:
                self.gathered.kept = answer.seats  # the seats heard are kept; only the rest is asked for
                self.own("still_missing", prompt, seats=seats(answer.seats),
                         n=self.script.count(needed(prompt) - len(answer.seats)))
                return Pending(None)
            line = self.session.refusal_line(prompt, refusal)
            if names_secret(refusal) and not self.secret_now(prompt):
                self.refused_in_secret = True  # a lover's ballot: the table must not hear it asked again
            self.refuse(line, prompt, heard)
            return self._missed(prompt, pending) if heard.source in SPOKEN else Pending(pending)
        self.gathered.kept = ()
        if heard.source in SPOKEN and pending is not None and answer == pending:
            # the read-back answered with what it said: a correction misread the same way, or a 对 in other
            # words — never taken; 对 is asked for, and it is a miss
            if self.gathered.missed():
                return self._offer_next(prompt)
            self.read_back(answer, prompt, heard, again=True)
            return Pending(pending)
        if heard.source in SPOKEN and isinstance(answer, Seats) and len(answer.seats) == 1:
            if answer.seats[0] in self.gathered.declined:  # the seat he said was not it: the same misreading
                self.own("not_that", prompt, seat=Seat(answer.seats[0]))
                return self._missed(prompt, pending)
            if isinstance(pending, Seats) and len(pending.seats) == 1 and answer != pending:
                self.gathered.declined.add(pending.seats[0])  # a read-back answered with another seat: a miss
                self.gathered.misses += 1
        rival = self._rival(heard, answer, prompt) if chosen is None else None
        if rival is not None and isinstance(answer, Seats):
            # two readings one seat apart (a rival is only ever found for seats): "是一号还是七号？", the ear
            # listens for those two
            self.gathered.open_choice(answer, rival)
            a, b = one_seat_apart(answer, rival) or (0, 0)
            self.own("choice", prompt, a=Seat(a), b=Seat(b))
            return Pending(None)
        if doubted or self._reads_back(heard, answer, prompt) or (
                heard.source in SPOKEN and (pending is not None or chosen is not None)):
            # while a read-back waits, a new spoken answer is itself read back, never taken
            if not doubted and pending is None and chosen is None and self._given_again(heard, answer, prompt):
                return self.taken_again(answer, prompt, heard)  # the answer 撤销 took back: confirmed once
            self.read_back(answer, prompt, heard)
            return Pending(answer)
        return self._submit(answer, prompt)

    def _rival(self, heard: Heard, answer: A | Seats, prompt: Prompt) -> Seats | None:
        """Another reading of the same speech, legal here and one seat away from `answer`, close enough to be a
        doubt (any, when every spoken seat is doubted): what a choice offers."""
        if heard.source not in SPOKEN or not heard.alternatives or not isinstance(answer, Seats):
            return None  # only seats are one seat apart
        best = heard.alternatives[0][1]
        for text, score in heard.alternatives[1:]:
            try:
                other = self.read(" ".join(t for t in text.split() if t != UNK), prompt)
            except (NotUnderstood, Ambiguous):
                continue
            if not isinstance(other, Seats) or other == answer or one_seat_apart(answer, other) is None:
                continue
            if self.session.refusal(prompt, other) is not None:
                continue
            if self.policy.seat_doubt == "always" or best - score < self.policy.doubt_gap:
                return other
        return None

    def _corrected(self, fix: Correction, heard: Heard, prompt: Prompt,
                   pending: A | Seats | None) -> Accepted | Pending[A]:
        """"不是十号，是十一号" / "去掉十号": one seat of the answer waiting (or of the seats kept) changed."""
        base = pending.seats if isinstance(pending, Seats) else self.gathered.kept
        changed = corrected(base, fix)
        if changed is None:
            self.own("not_in_answer", prompt, seat=Seat(fix.drop or 0))
            return Pending(pending)
        self.gathered.kept = ()
        if not changed:
            self.own("dropped", prompt)
            return Pending(None)
        return self._answered(Seats(changed), heard, prompt, None, doubted=True)  # never taken unread

    def _missed(self, prompt: Prompt, pending: A | Seats | None = None) -> Pending[A]:
        """A spoken answer refused, or a 不对: after the second at one question, offer one seat at a time (typed
        words are never misheard: a seat offered by voice would not help them)."""
        if self.gathered.offer is None and self.gathered.missed():
            return self._offer_next(prompt)
        return Pending(pending)

    def _offer_next(self, prompt: Prompt) -> Pending[A]:
        """Offer the next seat — none the game would refuse as the whole answer (at a one-seat question: the
        wolves already identified at the idiot's, the seer himself at his check): 对 to it could only be
        refused, and a walk through twelve seats is long enough."""
        seat = self.gathered.next_offer()
        while (seat is not None and not multi_seat(prompt)
               and self.session.refusal(prompt, self._offered(seat, prompt)) is not None):
            self.gathered.declined.add(seat)
            seat = self.gathered.next_offer()
        if seat is None:
            self.gathered = Gathered(prompt)
            self.own("dropped", prompt)
        else:
            self.own("offer", prompt, seat=Seat(seat), keys=str(seat))
        return Pending(None)

    def _offered(self, seat: int, prompt: Prompt) -> A | Seats:
        """The whole answer 对 to an offered seat gives: that seat, or who is out at a vote (only a game's
        Session asks a VoteResult: its answers are A there)."""
        return Seats((seat,)) if Seats in prompt.accepts else cast("A", VoteResult(out=seat))

    def _offer_answered(self, yes: bool, prompt: Prompt) -> Accepted | Pending[A]:
        """对 / 不对 to "是七号吗？": the seat is taken (with the seats kept), or the next is offered."""
        seat = self.gathered.offer
        assert seat is not None
        if not yes:
            self.gathered.declined.add(seat)
            return self._offer_next(prompt)
        kept = (*self.gathered.kept, seat)
        if multi_seat(prompt) and len(kept) < needed(prompt):
            self.gathered.kept = kept
            return self._offer_next(prompt)
        self.gathered = Gathered(prompt)
        answer = Seats(kept) if Seats in prompt.accepts else self._offered(seat, prompt)
        refusal = self.session.refusal(prompt, answer)
        if refusal is not None:
            self.refuse(self.session.refusal_line(prompt, refusal), prompt)
            return Pending(None)
        return self._submit(answer, prompt)  # each seat was said back and confirmed with 对
