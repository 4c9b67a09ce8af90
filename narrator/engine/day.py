"""The day: dawn (with the sheriff election first on day 1), deaths, speeches, the exile vote."""

from __future__ import annotations

from narrator.engine import events as ev
from narrator.engine.answers import Direction, Duel, YesNo
from narrator.engine.base import Flowing
from narrator.engine.deaths import Deaths
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Camp, Role
from narrator.engine.votes import Votes
from narrator.engine.win import wolves_condition


class Day(Deaths, Votes):
    def day(self, d: int) -> Flowing:
        self.emit(ev.DayBroke(d))
        s = self.s
        exploded = False
        if self.rules.sheriff and not s.election_done and d == 1 + s.election_explosions:
            exploded = yield from self.election(d)
        yield from self.dawn(d)
        if not exploded:
            exploded = yield from self.speeches()
            if not exploded:
                yield from self.exile()
        self.emit(ev.NightComes(d))

    # ---- dawn --------------------------------------------------------------------------------------------

    def dawn(self, d: int) -> Flowing:
        s = self.s
        pending = list(s.pending)
        self.emit(ev.DeathsAnnounced(self.dying_with(pending)))
        if self.rules.wolf_kill_first:
            # 狼刀在先: the wolves' kill alone (and the lover who follows it) decides before anything else.
            by_wolves = {x for x, c in pending if c == "wolves"}
            if s.lovers is not None and by_wolves & set(s.lovers):
                by_wolves |= set(s.lovers)
            why = wolves_condition(s, s.alive - by_wolves) if by_wolves else None
            if why is not None:
                own = frozenset(x for x, _ in pending)
                for seat, cause in sorted(pending):
                    self.die(seat, cause, ev.When("night", s.night), [], own)
                self.end(Camp.WOLVES, why)
        batch = yield from self.resolve(pending, ev.When("night", s.night))
        yield from self.last_words(batch)

    # ---- sheriff election (警长竞选) ------------------------------------------------------------------------

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
        self.emit(ev.SpeechesOrdered(cands, None))
        for c in cands:
            wolf = yield from self.speech(c)
            if wolf is not None:
                yield from self.election_explode(wolf)
                return True
        gone = yield from self.ask_seats("sheriff.withdraw", cands, 0, len(cands))
        self.emit(ev.CandidatesWithdrew(tuple(sorted(gone))))
        left = self.s.candidates
        if len(left) <= 1:
            self.emit(ev.SheriffElected(left[0]) if left else ev.NoSheriff("no_candidate"))
            return False
        voters = tuple(x for x in part if x not in self.s.ran)
        verdict, seats = yield from self.vote("sheriff.vote", voters, left, weighted=False)
        if verdict == "none":
            verdict, seats = "tie", left
        if verdict == "tie":
            self.emit(ev.VoteTied("sheriff.vote", seats))
            self.emit(ev.SpeechesOrdered(seats, None, pk=True))
            for c in seats:
                wolf = yield from self.speech(c)
                if wolf is not None:
                    yield from self.election_explode(wolf)
                    return True
            verdict, seats = yield from self.vote("sheriff.vote", voters, seats, weighted=False)
        if verdict == "out":
            self.emit(ev.SheriffElected(seats[0]))
        else:
            self.emit(ev.NoSheriff("tie"))
        return False

    def election_explode(self, wolf: int) -> Flowing:
        self.emit(ev.SelfExploded(wolf))
        if self.rules.badge_lost_on == "first_explode" or self.s.election_explosions >= 1:
            self.emit(ev.NoSheriff("badge_lost"))
        else:
            self.emit(ev.ElectionPostponed())
        batch = yield from self.resolve([(wolf, "explode")], ev.When("day", self.s.day))
        yield from self.last_words(batch)

    # ---- speeches ----------------------------------------------------------------------------------------

    def speeches(self) -> Flowing:
        """Every living player speaks once; returns True when a wolf exploded (the day ends)."""
        s = self.s
        living = self.living()
        sheriff = s.sheriff if s.sheriff in s.alive else None
        direction = None
        if sheriff is not None:
            answer = yield Prompt("sheriff.order", frozenset({Direction}), None, sheriff)
            assert isinstance(answer, Direction)
            direction = answer.side
            # Seats are numbered clockwise, so a player's left-hand neighbour is the next seat up:
            # 警左 goes up from the sheriff (seat + 1), 警右 goes down (seat - 1). RULES.md: "start left of
            # the last death, clockwise" is the same direction.
            step = 1 if direction == "left" else -1
            n = s.players
            ring = [((sheriff - 1 + step * k) % n) + 1 for k in range(1, n)]
            order = (*tuple(x for x in ring if x in s.alive), sheriff)
        else:
            start = (s.last_death % s.players) + 1 if s.last_death else 1
            order = tuple(sorted(living, key=lambda x: (x - start) % s.players))
        self.emit(ev.SpeechesOrdered(order, direction))
        duel = Role.KNIGHT in self.setup.deck  # "N号决斗M号" may end any day speech (never the election or a PK)
        for seat in order:
            if seat not in s.alive:
                continue
            said = yield from self.speech(seat, duel=duel)
            if isinstance(said, Duel):
                ended = yield from self.duel(said)
                if ended:
                    return True
                continue  # the knight died: the speeches resume with the next speaker
            if said is not None:
                yield from self.explode(said)
                return True
        return False

    def duel(self, duel: Duel) -> Flowing:
        """骑士: a wolf dies and the day ends at once (True); a good player means the knight dies."""
        wolf = self.s.is_wolf(duel.target)  # what the 预言家 would see: 混血儿 shows 好人
        self.emit(ev.KnightDueled(duel.knight, duel.target, wolf))
        loser = duel.target if wolf else duel.knight
        batch = yield from self.resolve([(loser, "duel")], ev.When("day", self.s.day))
        yield from self.last_words(batch)
        return wolf

    def explode(self, wolf: int) -> Flowing:
        self.emit(ev.SelfExploded(wolf))
        batch = yield from self.resolve([(wolf, "explode")], ev.When("day", self.s.day))
        yield from self.last_words(batch)

    # ---- exile (放逐) -------------------------------------------------------------------------------------

    def exile(self) -> Flowing:
        s = self.s
        voters = s.exile_voters()
        targets = self.living()
        verdict, seats = yield from self.vote("vote.exile", voters, targets, weighted=True)
        if verdict == "tie":
            self.emit(ev.VoteTied("vote.exile", seats))
            goat = s.living_seat_of(Role.SCAPEGOAT)
            if goat is not None and s.has_power(Role.SCAPEGOAT):
                yield from self.scapegoat(goat)
                return
            sheriff = s.sheriff if s.sheriff in s.alive else None
            if self.rules.exile_tie == "sheriff_decides" and sheriff is not None:
                chosen = yield from self.ask_one("sheriff.tie", seats, True, actor=sheriff)
                self.emit(ev.SheriffDecidedTie(sheriff, chosen))
                if chosen is None:
                    self.emit(ev.NoExile("sheriff"))
                    return
                yield from self.exiled(chosen)
                return
            if self.rules.exile_tie == "none":
                self.emit(ev.NoExile("tie"))
                return
            self.emit(ev.SpeechesOrdered(seats, None, pk=True))
            for seat in seats:
                wolf = yield from self.speech(seat)
                if wolf is not None:
                    yield from self.explode(wolf)
                    return
            pk_voters = tuple(x for x in s.exile_voters() if x not in seats)
            verdict, seats = yield from self.vote("pk.vote", pk_voters, seats, weighted=True)
            if verdict == "tie" and self.rules.exile_tie == "pk_then_random":
                verdict, seats = "out", (self.rng.choice(seats),)
        if verdict != "out":
            self.emit(ev.NoExile("tie" if verdict == "tie" else "no_votes"))
            return
        yield from self.exiled(seats[0])

    def exiled(self, seat: int) -> Flowing:
        s = self.s
        self.emit(ev.PlayerExiled(seat))
        if s.roles.get(seat) is Role.IDIOT and s.has_power(Role.IDIOT) and not s.idiot_revealed:
            answer = yield Prompt("idiot.reveal", frozenset({YesNo}), Role.IDIOT, seat)
            assert isinstance(answer, YesNo)
            if answer.yes:
                self.emit(ev.IdiotRevealed(seat))
                return
        if s.roles.get(seat) is Role.BLOOD_MOON and not any(s.is_wolf(x) for x in s.alive if x != seat):
            # The last wolf: he stays until the next dawn, names that night's kill, then dies with its deaths.
            self.emit(ev.BloodMoonLingers(seat))
            if self.has_last_words(seat, "exile", ev.When("day", s.day)):
                yield from self.speech(seat, "last_words.end", explode=False)
            return
        batch = yield from self.resolve([(seat, "exile")], ev.When("day", s.day))
        yield from self.last_words(batch)

    def scapegoat(self, goat: int) -> Flowing:
        batch = yield from self.resolve([(goat, "scapegoat")], ev.When("day", self.s.day))
        voters = yield from self.ask_seats("scapegoat.voters", self.living(), 1, len(self.s.alive),
                                           role=Role.SCAPEGOAT, actor=goat)
        self.emit(ev.ScapegoatChoseVoters(goat, tuple(sorted(voters))))
        yield from self.last_words(batch)
