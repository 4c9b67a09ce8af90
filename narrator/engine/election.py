"""The sheriff election (警长竞选): hands, speeches, withdrawals, up to three votes.

Seed switches (docs/seed-coverage.md G/F rows): `election_at` (before the dawn announcement, or after day 1's
speeches), `election_voters` (警下 only, or everyone), `election_speech_from` (the lowest or the highest
seat first), `election_offstage_pk` (after a second tie the players off stage speak and a third vote decides).
"""

from __future__ import annotations

from narrator.engine import events as ev
from narrator.engine.base import Flowing
from narrator.engine.deaths import Deaths
from narrator.engine.votes import Votes


class Election(Deaths, Votes):
    def election(self, d: int) -> Flowing:
        """Returns True when a wolf exploded during it (the day then ends after the dawn announcement)."""
        self.emit(ev.ElectionOpened(d))
        part = self.living()
        raised = yield from self.ask_seats("sheriff.run", part, 0, len(part))
        cands = tuple(sorted(raised))
        self.emit(ev.CandidatesRaised(cands))
        if not cands:
            self.emit(ev.NoSheriff("no_candidate"))
            return False
        if len(cands) == len(part):
            self.emit(ev.NoSheriff("all_candidates"))
            return False
        if len(cands) == 1:
            self.emit(ev.SheriffElected(cands[0]))
            return False
        order = cands if self.rules.election_speech_from == "lowest" else tuple(reversed(cands))
        self.emit(ev.SpeechesOrdered(order, None))
        if (yield from self.election_speeches(order)):
            return True
        gone = yield from self.ask_seats("sheriff.withdraw", cands, 0, len(cands))
        self.emit(ev.CandidatesWithdrew(tuple(sorted(gone))))
        left = self.s.candidates
        if len(left) <= 1:
            self.emit(ev.SheriffElected(left[0]) if left else ev.NoSheriff("no_candidate"))
            return False
        voters = part if self.rules.election_voters == "everyone" else tuple(x for x in part if x not in self.s.ran)
        rounds = 3 if self.rules.election_offstage_pk else 2
        targets = left
        verdict, seats = yield from self.vote("sheriff.vote", voters, targets, weighted=False)
        for round_ in range(2, rounds + 1):
            if verdict == "none":  # nobody voted: every candidate of that vote is still level
                verdict, seats = "tie", targets
            if verdict != "tie":
                break
            self.emit(ev.VoteTied("sheriff.vote", seats))
            if round_ == 2:
                self.emit(ev.SpeechesOrdered(seats, None, pk=True))
                speakers = seats
            else:  # 场外PK: everyone off the PK stage speaks (警下 first, withdrawn candidates in turn)
                speakers = tuple(x for x in part if x not in seats and x in self.s.alive)
                self.emit(ev.OffstagePkOpened(seats, speakers))
            if (yield from self.election_speeches(speakers)):
                return True
            targets = seats
            verdict, seats = yield from self.vote("sheriff.vote", voters, targets, weighted=False)
        if verdict == "explode":
            yield from self.election_explode(seats[0])
            return True
        if verdict == "out":
            self.emit(ev.SheriffElected(seats[0]))
        else:
            self.emit(ev.NoSheriff("tie"))
        return False

    def election_speeches(self, order: tuple[int, ...]) -> Flowing:
        """Speeches in the election; True when a wolf exploded in one (the election is over)."""
        for c in order:
            wolf = yield from self.speech(c)
            if wolf is not None:
                yield from self.election_explode(wolf)
                return True
        return False

    def election_explode(self, wolf: int) -> Flowing:
        self.emit(ev.SelfExploded(wolf))
        if self.rules.badge_lost_on == "first_explode" or self.s.election_explosions >= 1:
            self.emit(ev.NoSheriff("badge_lost"))
        else:
            self.emit(ev.ElectionPostponed())
        batch = yield from self.resolve([(wolf, "explode")], ev.When("day", self.s.day))
        yield from self.last_words(batch)
