"""The modern roles' night steps (docs/rule-book.md): 混血儿, 魔术师, 梦魇, 摄梦人, 恶魔, 机械狼, 通灵师, 石像鬼,
守墓人, 猎魔人 and the 狼王's status. Each step is called whether its player is alive, dead or powerless;
a feared or sealed player's step asks nothing (the night loop tells the host why)."""

from __future__ import annotations

from collections.abc import Callable

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Seats
from narrator.engine.base import Flowing
from narrator.engine.cards import SLUG
from narrator.engine.dawn import Dawn
from narrator.engine.modern_state import lone_wolf, mech_power
from narrator.engine.prompts import Check
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.roles import GODS, Camp, Role
from narrator.engine.state import land


class ModernSteps(Dawn):
    # ---- night 1 --------------------------------------------------------------------------------------

    def step_half_blood(self, n: int) -> Flowing:
        yield from self.identify(Role.HALF_BLOOD)
        half = self.acting(Role.HALF_BLOOD)
        if half is None:
            return
        model = yield from self.ask_one("half_blood.model", self.living(but=half), False,
                                        role=Role.HALF_BLOOD, actor=half, secret=True)
        self.emit(ev.HalfBloodChose(model))

    def half_blood_camp(self) -> None:
        """End of night 1: every card is known, so the 混血儿's camp is fixed (the model's, as it stands)."""
        s = self.s
        half, model = s.seat_of(Role.HALF_BLOOD), s.half_blood_model
        if half is None or model is None:
            return
        if s.is_wolf(model):
            camp = Camp.WOLVES
        elif model in s.lovers_camp():
            camp = Camp.LOVERS
        elif s.roles.get(model) is Role.PIPER:
            camp = Camp.PIPER
        else:
            camp = Camp.GOOD
        self.emit(ev.HalfBloodCamp(half, model, camp))

    # ---- every night ----------------------------------------------------------------------------------

    def step_magician(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.MAGICIAN)
        magician = self.acting(Role.MAGICIAN)
        if magician is None:
            return
        s, limit = self.s, self.rules.magician_swap_limit
        last = s.last_swap[1] if s.last_swap is not None and s.last_swap[0] == n - 1 else None
        used = s.swapped_seats

        def check(answer: Answer) -> Refusal | None:
            assert isinstance(answer, Seats)
            seats = answer.seats
            if len(seats) == 1:
                return refuse("magician.two_seats")
            for x in seats:
                if limit == "once_per_game" and x in used:
                    return refuse("magician.seat_used", seat=x)
                if limit == "not_consecutive" and last is not None and x in last:
                    return refuse("magician.not_consecutive", seat=x)
            if limit == "not_same_pair" and last is not None and tuple(sorted(seats)) == last:
                return refuse("magician.same_pair")
            return None

        seats = yield from self.ask_seats("magician.swap", self.living(), 0, 2, role=Role.MAGICIAN,
                                          actor=magician, check=check, secret=True)
        a, b = sorted(seats) if seats else (0, 0)
        self.emit(ev.MagicianSwapped((a, b) if seats else None))

    def step_nightmare(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.NIGHTMARE)
        nightmare = self.acting(Role.NIGHTMARE)
        if nightmare is None:
            return
        s, last = self.s, self.s.fear_last

        def check(answer: Answer) -> Refusal | None:
            assert isinstance(answer, Seats)
            for x in answer.seats:
                if x == last:
                    return refuse("nightmare.not_twice", seat=x)
                if n > 1 and s.is_wolf(x) and not lone_wolf(s, x):
                    return refuse("nightmare.not_wolf", seat=x)
            return None

        seat = yield from self.ask_one("nightmare.fear", self.living(but=nightmare), True, role=Role.NIGHTMARE,
                                       actor=nightmare, check=check, secret=True)
        self.emit(ev.NightmareFeared(seat))

    def step_dreamcatcher(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.DREAMCATCHER)
        catcher = self.acting(Role.DREAMCATCHER)
        if catcher is None:
            return
        seat = yield from self.ask_one("dreamcatcher.dream", self.living(but=catcher),
                                       not self.rules.dreamcatcher_must_choose, role=Role.DREAMCATCHER,
                                       actor=catcher, secret=True)
        self.emit(ev.DreamChosen(seat))

    def step_demon(self, n: int) -> Flowing:
        s = self.s
        offline = self.rules.demon == "offline"
        if n == 1 and offline:
            yield from self.identify(Role.DEMON)
        demon = self.acting(Role.DEMON)
        if offline:
            if n == 1 and demon is not None:
                self.emit(self.briefing(demon))
            return
        # pandakill: he knows the pack, so he checks a seat outside it
        seats = () if demon is None else tuple(
            x for x in self.living(but=demon) if not (s.is_wolf(x) and not lone_wolf(s, x)))
        if demon is not None and seats:
            target = yield from self.ask_one("demon.check", seats, False, role=Role.DEMON, actor=demon,
                                             secret=True)
            landed = land(s, target)
            assert landed is not None
            role = s.roles.get(landed)
            self.emit(ev.DemonChecked(target, None if role is None else role in GODS))
        self.emit(ev.StepAsked("demon", "result", n))  # 他是不是神，是这个: after the choice, every night

    def briefing(self, demon: int) -> ev.DemonBriefed:
        s = self.s
        groups: dict[str, list[int]] = {"wolves": [], "gods": [], "folk": [], "unknown": []}
        for x in range(1, s.players + 1):
            if x == demon:
                continue
            role = s.roles.get(x)
            key = "unknown" if role is None else "wolves" if s.is_wolf(x) else "gods" if role in GODS else "folk"
            groups[key].append(x)
        return ev.DemonBriefed(*(tuple(groups[k]) for k in ("wolves", "gods", "folk", "unknown")))

    def step_mech_wolf(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.MECH_WOLF)
        mech = self.acting(Role.MECH_WOLF)
        s = self.s
        if n == 1:
            if mech is not None:
                seat = yield from self.ask_one("mech_wolf.learn", self.living(but=mech), True,
                                               role=Role.MECH_WOLF, actor=mech, secret=True)
                landed = land(s, seat)
                self.emit(ev.MechWolfLearned(landed))
                if seat is not None and landed is not None:
                    self.emit(ev.CardChecked(Role.MECH_WOLF, seat, self.exact_card(landed)))
            self.emit(ev.StepAsked("mech_wolf", "result", n))  # 他的身份是这个, after the choice
            return
        if mech is None:
            return
        power = mech_power(s)
        info = {"power": power}
        if power in (Role.SEER, Role.PSYCHIC):
            target = yield from self.ask_one("mech_wolf.use", self.living(but=mech), False, role=Role.MECH_WOLF,
                                             actor=mech, secret=True, info=info)
            landed = land(s, target)
            assert landed is not None
            result = self.seer_result(landed) if power is Role.SEER else self.exact_card(landed)
            self.emit(ev.CardChecked(Role.MECH_WOLF, target, result))
        elif power is Role.WITCH and s.mech_poison:
            target = yield from self.ask_one("mech_wolf.use", self.living(), True, role=Role.MECH_WOLF,
                                             actor=mech, secret=True, info=info)
            self.emit(ev.MechWolfPoisoned(target))
        elif power is Role.GUARD:
            last = s.mech_guard_last
            check = not_again(last, refuse("guard.not_twice", seat=last))
            target = yield from self.ask_one("mech_wolf.use", self.living(), True, role=Role.MECH_WOLF,
                                             actor=mech, check=check, secret=True, info=info)
            self.emit(ev.MechWolfProtected(target))
        elif power is Role.HUNTER:
            if self.rules.tell_shoot_status:
                self.emit(ev.KingShootStatusTold(Role.MECH_WOLF, mech, self.king_could_shoot(mech)))
        else:
            self.emit(ev.PowerNone(mech))

    def step_psychic(self, n: int) -> Flowing:
        yield from self.card_check(n, Role.PSYCHIC, self.psychic_result)

    def psychic_result(self, seat: int) -> str | None:
        s = self.s
        if s.roles.get(seat) is Role.MECH_WOLF and self.rules.mech_wolf_psychic_sees == "learned":
            learned = s.roles.get(s.mech_learned) if s.mech_learned is not None else None
            if learned is not None:
                return learned.value
        return self.exact_card(seat)

    def step_gargoyle(self, n: int) -> Flowing:
        yield from self.card_check(n, Role.GARGOYLE, self.exact_card)

    def card_check(self, n: int, role: Role, result: Callable[[int], str | None]) -> Flowing:
        """The 通灵师's and the 石像鬼's step: one living seat, not himself; the host hears the exact card.
        Then 他的身份是这个 (StepAsked "result"), every night, alive or not."""
        if n == 1:
            yield from self.identify(role)
        checker = self.acting(role)
        if checker is not None:
            target = yield from self.ask_one(SLUG[role] + ".check", self.living(but=checker), False, role=role,
                                             actor=checker, secret=True)
            landed = land(self.s, target)
            assert landed is not None
            self.emit(ev.CardChecked(role, target, result(landed)))
        self.emit(ev.StepAsked(SLUG[role], "result", n))

    def step_gravekeeper(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.GRAVEKEEPER)
            return
        if self.acting(Role.GRAVEKEEPER) is None:
            return
        s = self.s
        if s.exiled_day is not None and s.exiled_day[0] == n - 1:
            seat = s.exiled_day[1]
            self.emit(ev.GravekeeperTold(seat, s.is_wolf(seat)))
        else:
            self.emit(ev.GravekeeperTold(None))

    def step_witcher(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.WITCHER)
            return
        witcher = self.acting(Role.WITCHER)
        if witcher is None:
            return
        target = yield from self.ask_one("witcher.hunt", self.living(but=witcher), True, role=Role.WITCHER,
                                         actor=witcher, secret=True)
        landed = land(self.s, target)
        self.emit(ev.WitcherHunted(landed, landed is not None and self.s.is_wolf(landed)))

    def step_black_wolf_king(self, n: int) -> Flowing:
        yield from ()
        king = self.s.living_seat_of(Role.BLACK_WOLF_KING)
        if king is None or not self.rules.tell_shoot_status:
            return
        self.emit(ev.KingShootStatusTold(Role.BLACK_WOLF_KING, king, self.king_could_shoot(king)))


def not_again(last: int | None, refusal: Refusal) -> Check:
    def check(answer: Answer) -> Refusal | None:
        seats = answer.seats if isinstance(answer, Seats) else ()
        return refusal if last is not None and last in seats else None

    return check
