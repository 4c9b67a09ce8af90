"""Votes: the exile vote (weights, the raven's curse, lovers' ban), PK, and the sheriff election's ballots.

Seed switches: `vote_call` — everyone at once (today), by show of hands target by target (H6: one prompt
per target, from the left of the last death, each hand raised once), or with eyes closed (H9: the judge
announces only the result, the 票型 goes to the host); `self_explode_until: vote_end` (I5) lets a wolf
explode while a vote is called.
"""

from __future__ import annotations

from typing import Literal

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Ballots, Seats, SelfExplode, VoteResult
from narrator.engine.base import SEATS, FlowBase, Flowing, refuse_explode
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.roles import Role
from narrator.engine.speaking import ring
from narrator.engine.state import State

VOTE = frozenset({Ballots, VoteResult})
VOTE_OR_EXPLODE = frozenset({Ballots, VoteResult, SelfExplode})

Outcome = tuple[Literal["out", "tie", "none", "explode"], tuple[int, ...]]


def _not_voter(state: State, seat: int) -> Refusal:
    """The refusal of a ballot from a seat that may not vote: a revealed idiot never votes again, the
    dead never vote, anyone else only not this time (a candidate, a PK seat, the scapegoat's choice)."""
    if state.idiot_revealed and state.roles.get(seat) is Role.IDIOT and seat in state.alive:
        return refuse("vote.idiot", seat=seat)
    if seat not in state.alive:
        return refuse("vote.dead", seat=seat)
    return refuse("vote.not_voter", seat=seat)


class Votes(FlowBase):
    def vote(self, kind: str, voters: tuple[int, ...], targets: tuple[int, ...], *, weighted: bool) -> Flowing:
        """Ask for a vote; returns ("out", (seat,)), ("tie", seats), ("none", ()) or ("explode", (wolf,))."""
        self.emit(ev.VoteCalled(kind, voters, targets))
        if not voters:  # the scapegoat's voters died, a PK of every voter: no call, no ballots, nobody out
            return ("none", ())
        if self.rules.vote_call == "by_target":
            result = yield from self.vote_by_hands(kind, voters, targets, weighted)
            return result
        lovers = self.s.lovers
        state = self.s
        voting, named = frozenset(voters), frozenset(targets)

        def check(answer: Answer) -> Refusal | None:
            if isinstance(answer, SelfExplode):
                return refuse_explode(state, answer)
            if isinstance(answer, VoteResult):
                for x in (answer.out,) if answer.out is not None else answer.tied:
                    if x not in named:
                        return refuse("vote.not_candidate", seat=x)
                if answer.out is None and len(answer.tied) == 1:
                    return refuse("vote.tie_of_one")
                return None
            assert isinstance(answer, Ballots)
            seen: set[int] = set()
            for voter, target in answer.votes:
                if voter in seen:
                    return refuse("vote.twice", seat=voter)
                seen.add(voter)
                if voter not in voting:
                    return _not_voter(state, voter)
                if target not in named:
                    return refuse("vote.not_target", seat=target)
                if lovers is not None and {voter, target} == set(lovers):
                    return refuse("vote.lovers", a=voter, b=target)
            return None

        accepts = VOTE_OR_EXPLODE if self.explode_in_votes() else VOTE
        answer = yield Prompt(kind, accepts, None, None, targets, 0, 0, False, {"voters": voters}, check)
        self.close_eyes_vote(kind)  # 请大家睁眼, whatever ended the vote
        if isinstance(answer, SelfExplode):
            return ("explode", (answer.seat,))
        if isinstance(answer, VoteResult):
            if answer.out is not None:
                return ("out", (answer.out,))
            return ("tie", tuple(sorted(answer.tied))) if answer.tied else ("none", ())
        assert isinstance(answer, Ballots)
        return self.count(kind, answer.votes, targets, weighted)

    def explode_in_votes(self) -> bool:
        return self.rules.self_explode and self.rules.self_explode_until == "vote_end"

    def close_eyes_vote(self, kind: str) -> None:
        if self.rules.vote_call == "eyes_closed":
            self.emit(ev.VoteClosed(kind))

    def count(self, kind: str, votes: tuple[tuple[int, int], ...], targets: tuple[int, ...], weighted: bool) -> Outcome:
        tally: dict[int, float] = {}
        sheriff = self.s.sheriff if weighted else None  # State.vote_weight, inlined
        weight = self.rules.sheriff_weight
        for voter, target in votes:
            tally[target] = tally.get(target, 0.0) + (weight if voter == sheriff else 1.0)
        curse = self.s.curse
        if kind == "vote.exile" and curse is not None and curse in targets and self.rules.raven_votes:
            tally[curse] = tally.get(curse, 0.0) + self.rules.raven_votes
        self.emit(ev.VotesCounted(kind, tuple(sorted(votes)), tuple(sorted(tally.items()))))
        if not tally:
            return ("none", ())
        top = max(tally.values())
        leaders = tuple(sorted([x for x, v in tally.items() if v == top]))
        return ("out", leaders) if len(leaders) == 1 else ("tie", leaders)

    def vote_by_hands(self, kind: str, voters: tuple[int, ...], targets: tuple[int, ...], weighted: bool) -> Flowing:
        """H6: the judge calls each target in turn from the left of the last death; those voting for him raise
        a hand, once each. The host names the hands (or nobody) for every target."""
        s, lovers = self.s, self.s.lovers
        start = s.last_death if s.last_death else s.players
        order = [x for x in ring(s.players, start, True) if x in targets]
        votes: list[tuple[int, int]] = []
        left = list(voters)
        for target in order:
            if not left:
                break

            def check(answer: Answer, target: int = target) -> Refusal | None:
                if isinstance(answer, SelfExplode):
                    return refuse_explode(s, answer)
                seats = answer.seats if isinstance(answer, Seats) else ()
                for voter in seats:
                    if lovers is not None and {voter, target} == set(lovers):
                        return refuse("vote.lovers", a=voter, b=target)
                return None

            accepts = SEATS | ({SelfExplode} if self.explode_in_votes() else set())
            answer = yield Prompt("vote.hands", frozenset(accepts), None, None, tuple(left), 0, len(left), False,
                                  {"voters": tuple(left), "target": target, "vote": kind}, check)
            if isinstance(answer, SelfExplode):
                return ("explode", (answer.seat,))
            assert isinstance(answer, Seats)
            votes += [(v, target) for v in answer.seats]
            left = [v for v in left if v not in answer.seats]
        return self.count(kind, tuple(votes), targets, weighted)
