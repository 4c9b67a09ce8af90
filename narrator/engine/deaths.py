"""Deaths: chains (殉情, the wolf beauty's charm, the elder), death skills in seat order, the win check."""

from __future__ import annotations

from functools import partial

from narrator.engine import events as ev
from narrator.engine.base import FlowBase, Flowing, GameOver
from narrator.engine.checks import refuse_wolf_target
from narrator.engine.dawn import HUNTER_CAUSES, KING_CAUSES, VILLAGE_KILLS, chained
from narrator.engine.events import Cause, Termination, When
from narrator.engine.modern_state import mech_power, night_immune
from narrator.engine.roles import Camp, Role
from narrator.engine.state import land
from narrator.engine.win import outcome


class Deaths(FlowBase):
    def die(
        self, seat: int, cause: Cause, when: When, batch: list[tuple[int, Cause]], own: frozenset[int] = frozenset()
    ) -> None:
        """One death and whatever dies with it at once (no skill is asked here). Seats in `own` die in this
        same batch of their own cause (a bitten hunter whose lover is poisoned dies of the bite, not of love),
        so no chain takes them first."""
        if seat not in self.s.alive:
            return
        self.emit(ev.PlayerDied(seat, cause, when))
        batch.append((seat, cause))
        s = self.s
        role = s.roles.get(seat)
        at_night = when.night
        elder_killed = role is Role.ELDER and cause in VILLAGE_KILLS and not s.powers_lost
        if elder_killed:  # at the moment he dies: nothing that follows his death uses a good power
            self.emit(ev.VillagePowersLost(seat))
        if s.lovers is not None and seat in s.lovers:
            other = s.lovers[1] if s.lovers[0] == seat else s.lovers[0]
            if other not in own and not (at_night and night_immune(s, other)):
                self.die(other, "lover", when, batch, own)
        sleepwalker = land(s, s.tonight.dreamed) if role is Role.DREAMCATCHER else None
        if (sleepwalker is not None and sleepwalker not in own
                and (at_night or self.rules.dream_link_by_day) and not (at_night and night_immune(s, sleepwalker))):
            self.die(sleepwalker, "dream", when, batch, own)
        if seat == s.model and not s.wild_turned and s.has_power(Role.WILD_CHILD):
            # Turning is the wild child's power: once the village lost its powers — the elder, his model,
            # killed by the village included — he stays good.
            child = s.living_seat_of(Role.WILD_CHILD)
            if child is not None:
                self.emit(ev.WildChildTurned(child))
        charmed = s.beauty_charm
        silenced = cause == "duel" and self.rules.knight_duel_silences  # a dueled 狼美人 takes nobody
        if (role is Role.WOLF_BEAUTY and when.day and charmed is not None and charmed not in own
                and not silenced):
            self.die(charmed, "charm", when, batch, own)
        if elder_killed:
            idiot = s.living_seat_of(Role.IDIOT)
            if self.rules.elder_takes_idiot and s.idiot_revealed and idiot is not None and idiot not in own:
                self.die(idiot, "elder", when, batch, own)

    def dying_with(self, first: list[tuple[int, Cause]]) -> tuple[int, ...]:
        """Every seat `first` takes with it at once (a lover; a revealed idiot following the elder), in seat
        order: the night's dead are announced together at dawn, the chained ones included (`dawn.chained`,
        which the night's shot status follows too)."""
        return chained(self.s, self.rules, self.plan.dreamcatcher, first)

    def resolve(self, first: list[tuple[int, Cause]], when: When) -> Flowing:
        """Kill `first`, then ask every death skill in seat order (shots may add deaths, asked in turn),
        then check for a winner. Returns the batch: every (seat, cause) that died, in order of death."""
        batch: list[tuple[int, Cause]] = []
        own = frozenset([x for x, _ in first])
        for seat, cause in sorted(first):
            self.die(seat, cause, when, batch, own)
        done: set[int] = set()
        at_once = self.rules.end_at_once
        while True:
            if at_once:
                self.check_win(batch)  # the game ends at once: pending shots and badge passes are skipped
            todo = [death for death in batch if death[0] not in done]  # a seat dies once: one cause each
            if not todo:
                break
            seat, cause = min(todo)
            done.add(seat)
            # A shot or a take kills at the same time as the one who fires it: a hunter bitten in the night
            # takes his target in the night too (no last words after night 1).
            yield from self.death_skills(seat, cause, self.s.deaths[seat][1], batch)
        self.check_win(batch)
        return batch

    def death_skills(self, seat: int, cause: Cause, when: When, batch: list[tuple[int, Cause]]) -> Flowing:
        s = self.s
        role = s.roles.get(seat)
        if cause != "explode":  # a self-explosion is public; a white wolf king's take is called by name
            self.emit(ev.SkillCalled(seat))
        if (role is Role.HUNTER and s.has_power(Role.HUNTER) and cause in HUNTER_CAUSES[self.rules.hunter_shoots_on]
                and not self.shot_blocked(seat, when)):
            target = yield from self.ask_one("hunter.shoot", self.living(), True, role=Role.HUNTER, actor=seat,
                                             secret=True)
            self.emit(ev.HunterShot(seat, target))
            if target is not None:
                self.die(target, "shot", when, batch)
        if self.can_fire(seat, role, cause, when):
            kind = "mech_wolf.shoot" if role is Role.MECH_WOLF else "black_wolf_king.shoot"
            assert role is not None
            target = yield from self.ask_one(kind, self.living(), True, role=role, actor=seat, secret=True)
            self.emit(ev.KingShot(role, seat, target))
            if target is not None:
                self.die(target, "king_shot", when, batch)
        if role is Role.WHITE_WOLF_KING and cause == "explode":
            check = None if self.rules.wolf_king_takes == "anyone" else partial(refuse_wolf_target, s, "wolf_king")
            target = yield from self.ask_one("wolf_king.take", self.living(), True, role=role, actor=seat,
                                             check=check, secret=True)
            self.emit(ev.WolfKingTook(seat, target))
            if target is not None:
                self.die(target, "taken", when, batch)
        if seat == s.sheriff:
            if cause == "explode" and self.rules.badge_on_explode == "lost":
                self.emit(ev.BadgePassed(seat, None))  # the house rule: a sheriff who explodes takes the badge
            else:
                heir = yield from self.ask_one("badge.pass", self.living(), True, actor=seat)
                self.emit(ev.BadgePassed(seat, heir))

    def shot_blocked(self, seat: int, when: When) -> bool:
        """A shooter dying on a night he was feared (`fear_blocks_shot`), or a good one on a night a
        血月使徒's explosion sealed, cannot shoot."""
        s = self.s
        tonight = when == When("night", s.night)
        if tonight and self.rules.fear_blocks_shot and s.tonight.feared == seat:
            return True
        return tonight and s.sealed_night == s.night and not s.is_wolf(seat)

    def can_fire(self, seat: int, role: Role | None, cause: Cause, when: When) -> bool:
        """The 狼王's shot (and a 机械狼 that copied the hunter: the hunter's rules, never on night 1)."""
        if role is Role.BLACK_WOLF_KING:
            allowed = KING_CAUSES[self.rules.black_wolf_king_shoots_on]
        elif role is Role.MECH_WOLF and mech_power(self.s) is Role.HUNTER and when != When("night", 1):
            allowed = HUNTER_CAUSES[self.rules.hunter_shoots_on]
        else:
            return False
        if cause == "duel":
            return not self.rules.knight_duel_silences
        return cause in allowed and not self.shot_blocked(seat, when)

    def check_win(self, batch: list[tuple[int, Cause]]) -> None:
        """The win check after `batch`, the deaths resolved so far (see win.outcome)."""
        won = outcome(self.s, fallen=batch)
        if won is not None:
            self.end(*won)

    def end(self, camp: Camp, termination: Termination) -> None:
        self.emit(ev.GameEnded(camp, tuple(sorted(self.s.roles.items())), termination))
        raise GameOver

    def has_last_words(self, seat: int, cause: str, when: When) -> bool:
        rule = self.rules.last_words
        if cause == "lingered" or rule == "never":
            return False
        if cause == "explode":
            return self.rules.explode_last_words  # I3: 自爆可以留遗言（指刀）
        if cause == "duel" and self.s.is_wolf(seat):
            return self.rules.duel_wolf_last_words
        if when.night:
            return rule == "always" or when.n == 1
        days = self.rules.exile_last_words_days
        # F11: 仅前N个白天，投票中被处决玩家有遗言
        return not (cause == "exile" and days and when.n > days)

    def last_words(self, batch: list[tuple[int, Cause]]) -> Flowing:
        """Every last word the batch leaves; True when a wolf exploded during one (`self_explode_until:
        vote_end` allows it by day): the day then ends."""
        by_day = self.s.day >= self.s.night
        explode = by_day and self.rules.self_explode_until == "vote_end"
        for seat, cause in sorted(batch):
            when = self.s.deaths[seat][1]
            if self.has_last_words(seat, cause, when):
                wolf = yield from self.speech(seat, "last_words.end", explode=explode)
                if wolf is not None:
                    yield from self.explode(wolf)
                    return True
        return False

    def explode(self, wolf: int) -> Flowing:
        self.emit(ev.SelfExploded(wolf))
        batch = yield from self.resolve([(wolf, "explode")], ev.When("day", self.s.day))
        yield from self.last_words(batch)

