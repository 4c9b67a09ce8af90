"""The day: dawn (with the sheriff election first on day 1), deaths, speeches, the exile vote."""

from __future__ import annotations

from narrator.engine import events as ev
from narrator.engine.answers import Direction, Duel, YesNo
from narrator.engine.base import Flowing
from narrator.engine.election import Election
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Camp, Role
from narrator.engine.speaking import speaking_order
from narrator.engine.win import wolves_condition


class Day(Election):
    def day(self, d: int) -> Flowing:
        self.emit(ev.DayBroke(d))
        s = self.s
        if self.new_moon_deck:  # 新月: one event card each morning, while the deck lasts
            self.emit(ev.NewMoonCardTurned(d, self.new_moon_deck.pop(0)))
        exploded = False
        # Day 1, or the day after an election a wolf exploded in (单爆); with `election_at: after_speeches` also the
        # day after one that ended in an explosion before the election was reached.
        due = self.rules.sheriff and not s.election_done and d >= 1 + s.election_explosions
        if due and self.rules.election_at == "before_deaths":
            exploded = yield from self.election(d)
        exploded = (yield from self.dawn(d)) or exploded
        if not exploded:
            exploded = yield from self.speeches()
            if not exploded and due and self.rules.election_at == "after_speeches":
                exploded = yield from self.election(d)  # G2: elected once everyone has spoken on day 1
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
        exploded: bool = yield from self.last_words(batch)
        return exploded

    # ---- speeches ----------------------------------------------------------------------------------------

    def speeches(self) -> Flowing:
        """Every living player speaks once; returns True when a wolf exploded (the day ends)."""
        s = self.s
        sheriff = s.sheriff if s.sheriff in s.alive else None
        direction = None
        dead: int | None = None
        if sheriff is not None:
            if self.rules.sheriff_order == "dead_side" and len(s.dawn_dead) == 1:
                dead = s.dawn_dead[0]  # F8: one death, the sheriff picks 死左 / 死右
            answer = yield Prompt("sheriff.order", frozenset({Direction}), None, sheriff, (), 0, 0, False,
                                  {"dead": dead} if dead is not None else {})
            assert isinstance(answer, Direction)
            direction = answer.side
        order, clockwise = speaking_order(s, self.rules, sheriff, direction, dead)
        self.emit(ev.SpeechesOrdered(order, direction, clockwise=clockwise, dead=dead))
        duel = self.plan.knight  # "N号决斗M号" may end any day speech (never the election or a PK)
        exploded: bool = yield from self.day_speeches(order, duel=duel)
        return exploded

    def duel(self, duel: Duel) -> Flowing:
        """骑士: a wolf dies and the day ends at once (True); a good player means the knight dies."""
        wolf = self.s.is_wolf(duel.target)  # what the 预言家 would see: 混血儿 shows 好人
        self.emit(ev.KnightDueled(duel.knight, duel.target, wolf))
        loser = duel.target if wolf else duel.knight
        batch = yield from self.resolve([(loser, "duel")], ev.When("day", self.s.day))
        yield from self.last_words(batch)
        return wolf

    # ---- exile (放逐) -------------------------------------------------------------------------------------

    def exile(self) -> Flowing:
        s = self.s
        voters = s.exile_voters()
        targets = self.living()
        verdict, seats = yield from self.vote("vote.exile", voters, targets, weighted=True)
        if verdict == "explode":
            yield from self.explode(seats[0])
            return
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
            verdict, seats = yield from self.pk(seats)
            if verdict == "explode":
                return
        if verdict != "out":
            self.emit(ev.NoExile("tie" if verdict == "tie" else "no_votes"))
            return
        yield from self.exiled(seats[0])

    def pk(self, tied: tuple[int, ...]) -> Flowing:
        """PK: the tied speak, the others vote only for them; then what `exile_tie` does on a second tie
        (nobody out, a random pick, 场外PK and a third vote, or PK again until someone is out)."""
        s, rule = self.s, self.rules.exile_tie
        first = True
        while True:
            if not first:
                self.emit(ev.VoteTied("pk.vote", tied))
            first = False
            self.emit(ev.SpeechesOrdered(tied, None, pk=True))
            if (yield from self.day_speeches(tied)):
                return ("explode", ())
            pk_voters = tuple(x for x in s.exile_voters() if x not in tied)
            if rule == "pk_until_out" and not pk_voters:
                pk_voters = s.exile_voters()  # nobody off the stage can vote: everyone votes again
            verdict, seats = yield from self.vote("pk.vote", pk_voters, tied, weighted=True)
            if verdict == "explode":
                yield from self.explode(seats[0])
                return ("explode", ())
            if verdict != "tie" or rule not in ("pk_until_out",):
                break
            tied = seats
        if verdict == "tie" and rule == "pk_then_random":
            return ("out", (self.rng.choice(seats),))
        if verdict == "tie" and rule == "pk_then_offstage":
            self.emit(ev.VoteTied("pk.vote", seats))
            speakers = tuple(x for x in self.living() if x not in seats)
            self.emit(ev.OffstagePkOpened(seats, speakers))
            if (yield from self.day_speeches(speakers)):
                return ("explode", ())
            verdict, seats = yield from self.vote("pk.vote", pk_voters, seats, weighted=True)
            if verdict == "explode":
                yield from self.explode(seats[0])
                return ("explode", ())
        return (verdict, seats)

    def day_speeches(self, order: tuple[int, ...], duel: bool = False) -> Flowing:
        """Speeches by day (the round, PK, 场外PK); True when a wolf exploded in one or a knight's duel found a
        wolf (the day ends). `duel`: a speech may end in the knight's duel (the day's round only)."""
        for seat in order:
            if seat not in self.s.alive:
                continue
            said = yield from self.speech(seat, duel=duel)
            if isinstance(said, Duel):
                if (yield from self.duel(said)):
                    return True
                continue  # the knight died: the speeches resume with the next speaker
            if said is not None:
                yield from self.explode(said)
                return True
        return False

    def exiled(self, seat: int) -> Flowing:
        s = self.s
        self.emit(ev.PlayerExiled(seat))
        if s.roles.get(seat) is Role.IDIOT and s.has_power(Role.IDIOT) and not s.idiot_revealed:
            answer = yield Prompt("idiot.reveal", frozenset({YesNo}), Role.IDIOT, seat, secret=True)
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
