"""Votes: the exile vote (weights, the raven's curse, lovers' ban), PK, and the sheriff election's ballots."""

from __future__ import annotations

from typing import Literal

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Ballots, VoteResult
from narrator.engine.base import FlowBase, Flowing
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import Refusal, refuse

Outcome = tuple[Literal["out", "tie", "none"], tuple[int, ...]]


class Votes(FlowBase):
    def vote(self, kind: str, voters: tuple[int, ...], targets: tuple[int, ...], *, weighted: bool) -> Flowing:
        """Ask for a vote; returns ("out", (seat,)), ("tie", seats) or ("none", ())."""
        self.emit(ev.VoteCalled(kind, voters, targets))
        lovers = self.s.lovers

        def check(answer: Answer) -> Refusal | None:
            if isinstance(answer, VoteResult):
                named = (answer.out,) if answer.out is not None else answer.tied
                for x in named:
                    if x not in targets:
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
                if voter not in voters:
                    return refuse("vote.not_voter", seat=voter)
                if target not in targets:
                    return refuse("vote.not_target", seat=target)
                if lovers is not None and {voter, target} == set(lovers):
                    return refuse("vote.lovers", a=voter, b=target)
            return None

        answer = yield Prompt(
            kind, frozenset({Ballots, VoteResult}), None, None, targets, 0, 0, False, {"voters": voters}, check
        )
        if isinstance(answer, VoteResult):
            if answer.out is not None:
                return ("out", (answer.out,))
            return ("tie", tuple(sorted(answer.tied))) if answer.tied else ("none", ())
        assert isinstance(answer, Ballots)
        tally: dict[int, float] = {}
        for voter, target in answer.votes:
            tally[target] = tally.get(target, 0.0) + (self.s.vote_weight(voter) if weighted else 1.0)
        curse = self.s.curse
        if kind == "vote.exile" and curse is not None and curse in targets and self.rules.raven_votes:
            tally[curse] = tally.get(curse, 0.0) + self.rules.raven_votes
        self.emit(ev.VotesCounted(kind, tuple(sorted(answer.votes)), tuple(sorted(tally.items()))))
        if not tally:
            return ("none", ())
        top = max(tally.values())
        leaders = tuple(sorted(x for x, v in tally.items() if v == top))
        return ("out", leaders) if len(leaders) == 1 else ("tie", leaders)
