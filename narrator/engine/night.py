"""The night: every step of the night order, called even when its player is dead or absent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Cards, Seats, TakeCard, YesNo
from narrator.engine.base import Flowing
from narrator.engine.checks import lovers_check, refuse_wolf_target
from narrator.engine.modern import ModernSteps
from narrator.engine.modern_state import lone_wolf, pack_alive
from narrator.engine.new_moon import NewMoon
from narrator.engine.prompts import Check, Prompt
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.roles import NO_EXPLODE, WOLF_CARDS, Role, pack_cards
from narrator.engine.rules import STEP_CARD
from narrator.engine.state import land


class Night(ModernSteps, NewMoon):
    def night(self, n: int) -> Flowing:
        self.emit(ev.NightFell(n))
        if self.s.ally_due:
            yield from self.wolves_ally(n)
        plan = self.plan
        for step in plan.first_night if n == 1 else plan.later_nights:
            if n > 1 and not self.rules.call_dead_roles and not self.step_has_living_player(step):
                continue  # the house accepts that silence tells the table this role is gone
            self.emit(ev.StepOpened(step, n))
            handler = STEPS[step]
            if handler is not None:
                yield from handler(self, n)
            elif n == 1:
                yield from self.identify(STEP_CARD[step])
            if plan.blockers and (self.s.tonight.feared is not None or self.s.sealed_night == n):
                self.tell_blocked(step)  # after the step's identification, so the card is known
            self.emit(ev.StepClosed(step, n))
        if n == 1:
            rest = tuple(x for x in range(1, self.s.players + 1) if x not in self.s.roles)
            self.emit(ev.VillagersIdentified(rest))
            self.half_blood_camp()
        self.resolve_night()

    def tell_blocked(self, step: str) -> None:
        """The host hears why a feared (梦魇) or sealed (血月使徒) player's step asks nothing tonight."""
        s = self.s
        if step in ("wolves", "lovers", "charmed", "thief"):
            return
        seat = s.living_seat_of(STEP_CARD[step])
        if seat is None:
            return
        if s.tonight.feared == seat:
            self.emit(ev.FearTold(seat))
        elif s.sealed_night == s.night and not s.is_wolf(seat) and s.has_power(STEP_CARD[step]):
            self.emit(ev.SealTold(STEP_CARD[step]))

    def resolve_night(self) -> None:
        """Dawn: who dies of the wolves' kill and the poison (the lovers follow when announced)."""
        deaths, elder_survived = self.night_deaths()
        self.emit(ev.NightResolved(tuple(sorted(deaths.items())), elder_survived))

    def step_has_living_player(self, step: str) -> bool:
        if step == "wolves":
            return not self.s.wolves().isdisjoint(self.s.alive)
        if step == "charmed":
            step = "piper"
        role = STEP_CARD[step]
        return self.s.living_seat_of(role) is not None

    # ---- night-1 steps --------------------------------------------------------------------------------

    def step_thief(self, n: int) -> Flowing:
        deck = Counter(self.setup.deck)

        def check_cards(answer: Answer) -> Refusal | None:
            assert isinstance(answer, Cards)
            if len(answer.roles) != 2:
                return refuse("thief.two_cards")
            if Counter(answer.roles) - deck:
                return refuse("thief.cards_not_in_deck")
            if self.rules.thief_pair == "no_wolf_pairs":  # A12: the judge never leaves 盗贼+狼 or 狼+狼 face down
                wolves = sum(1 for c in answer.roles if c in WOLF_CARDS)
                if wolves == 2 or (wolves == 1 and Role.THIEF in answer.roles):
                    return refuse("thief.reshuffle")
            return None

        cards = yield Prompt("thief.cards", frozenset({Cards}), Role.THIEF, None, (), 0, 0, True, {}, check_cards)
        assert isinstance(cards, Cards)
        pair = (cards.roles[0], cards.roles[1])
        self.emit(ev.ThiefCardsNamed(pair))
        yield from self.identify(Role.THIEF)
        thief = self.s.living_seat_of(Role.THIEF)
        if thief is None:
            return
        wolves = [c for c in pair if c in WOLF_CARDS]
        forced = len(wolves) == 2 if self.rules.thief_must_take_wolf == "both" else bool(wolves)

        def check_take(answer: Answer) -> Refusal | None:
            assert isinstance(answer, TakeCard)
            if answer.role is not None and answer.role not in pair:
                return refuse("thief.card_not_there", role=answer.role)
            if forced and answer.role not in WOLF_CARDS:
                return refuse("thief.must_take_wolf")
            if answer.role is None and not self.rules.thief_may_keep:
                return refuse("thief.must_take")  # D41: 盗贼必须在这两张牌中选择一个身份
            return None

        take = yield Prompt(
            "thief.choose", frozenset({TakeCard}), Role.THIEF, thief, (), 0, 0, True,
            {"cards": pair}, check_take,
        )
        assert isinstance(take, TakeCard)
        self.emit(ev.ThiefTookCard(thief, take.role))

    def step_cupid(self, n: int) -> Flowing:
        yield from self.identify(Role.CUPID)
        cupid = self.acting(Role.CUPID)
        if cupid is None:
            return
        pair = yield from self.ask_seats("cupid.link", self.living(), 2, 2, role=Role.CUPID, actor=cupid, secret=True)
        self.emit(ev.LoversLinked((min(pair), max(pair))))

    def step_lovers(self, n: int) -> Flowing:
        yield from ()  # the lovers see each other; nothing to ask

    def step_charmed(self, n: int) -> Flowing:
        yield from ()  # the charmed see each other; nothing to ask

    def step_wild_child(self, n: int) -> Flowing:
        yield from self.identify(Role.WILD_CHILD)
        child = self.acting(Role.WILD_CHILD)
        if child is None:
            return
        model = yield from self.ask_one("wild_child.model", self.living(but=child), False,
                                        role=Role.WILD_CHILD, actor=child, secret=True)
        self.emit(ev.ModelChosen(model))

    # ---- every night ----------------------------------------------------------------------------------

    def step_guard(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.GUARD)
        guard = self.acting(Role.GUARD)
        if guard is None:
            return
        check = not_twice(self.s.guard_last, refuse("guard.not_twice", seat=self.s.guard_last))
        seat = yield from self.ask_one("guard.protect", self.living(), True, role=Role.GUARD, actor=guard,
                                       check=check, secret=True)
        self.emit(ev.GuardProtected(seat))

    def step_wolves(self, n: int) -> Flowing:
        s = self.s
        if n == 1:
            for role in pack_cards(self.setup.deck, self.rules.demon):
                yield from self.identify(role)
        if s.wolves().isdisjoint(s.alive):
            return
        feared = s.tonight.feared
        if self.plan.lone_wolves or feared is not None:
            wolf_seats = s.wolves()
            wolves = tuple([x for x in s.living() if x in wolf_seats])
            pack = pack_alive(s)
            if not pack and not s.knife_told:
                self.emit(ev.KnifeInherited(wolves))  # 石像鬼 / 机械狼 / the offline 恶魔 now hold the knife
            if feared is not None and (feared in pack or (not pack and wolves == (feared,))):
                self.emit(ev.KillBlocked())  # night 1: the 梦魇 feared a wolf he did not know yet
                return

        lovers = lovers_check(self.s, self.rules, wolf_lover=True)
        check = self.no_self_knife(lovers) if self.plan.no_self_knife else lovers
        victim = yield from self.ask_one("wolves.kill", self.living(), True, role=Role.WEREWOLF, secret=True,
                                         check=check)
        self.emit(ev.WolvesChoseVictim(victim))

    def no_self_knife(self, lovers: Check | None) -> Check:
        """The wolves' kill check in a deck with a card the pack may not pick, then the lovers' ban."""
        s = self.s

        def check(answer: Answer) -> Refusal | None:
            assert isinstance(answer, Seats)
            for x in answer.seats:
                role = s.roles.get(x)
                if role in NO_EXPLODE and not lone_wolf(s, x):  # 狼美人, pandakill 恶魔, 恶灵骑士
                    return refuse("wolves.no_self_knife", role=role)
            return lovers(answer) if lovers is not None else None

        return check

    def step_wolf_beauty(self, n: int) -> Flowing:
        if n == 1:  # identified in the wolves' step (PACK_IDENTIFIED); here only if a custom order calls her first
            yield from self.identify(Role.WOLF_BEAUTY)
        beauty = self.acting(Role.WOLF_BEAUTY)
        if beauty is None:
            return
        check = None if self.rules.wolf_beauty_charms == "anyone" else partial(refuse_wolf_target, self.s, "beauty")
        seat = yield from self.ask_one("wolf_beauty.charm", self.living(but=beauty), True,
                                       role=Role.WOLF_BEAUTY, actor=beauty, secret=True, check=check)
        self.emit(ev.WolfBeautyCharmed(seat))

    def step_witch(self, n: int) -> Flowing:
        """The antidote question, then the poison question: both said every night (StepOpened's ask, then
        StepAsked "poison"), whether the witch is alive and whatever she has left."""
        if n == 1:
            yield from self.identify(Role.WITCH)
        witch = self.acting(Role.WITCH)
        saved = False
        if witch is not None and self.s.antidote:
            victim = self.s.tonight.victim
            if self.rules.magician_witch_sees == "swapped":
                victim = land(self.s, victim)
            self.emit(ev.WitchToldVictim(victim))
            if victim is not None:
                rule = self.rules.witch_self_save
                if rule == "unless_guard":  # seed 002: a buried thief card counts as held
                    rule = "never" if Role.GUARD in self.setup.deck else "always"
                self_save_ok = rule == "always" or (rule == "first_night" and n == 1)

                caught_girl = self.s.roles.get(victim) is Role.LITTLE_GIRL and not self.rules.little_girl_savable

                def check(answer: Answer) -> Refusal | None:
                    if isinstance(answer, YesNo) and answer.yes and victim == witch and not self_save_ok:
                        if self.rules.witch_self_save == "unless_guard":
                            return refuse("witch.no_self_save_guard")
                        if rule == "never":
                            return refuse("witch.no_self_save")
                        return refuse("witch.self_save_first_night")
                    if isinstance(answer, YesNo) and answer.yes and caught_girl:
                        return refuse("witch.little_girl")  # D37: 小女孩被发现，立即死亡
                    return None

                saved = yield from self.ask_yes("witch.save", role=Role.WITCH, actor=witch, check=check,
                                                info={"victim": victim})
                self.emit(ev.WitchSaved(victim) if saved else ev.WitchDeclined("antidote"))
        self.emit(ev.StepAsked("witch", "poison", n))
        if witch is not None and self.s.poison and not (saved and self.rules.witch_one_potion_per_night):
            target = yield from self.ask_one("witch.poison", self.living(), True, role=Role.WITCH, actor=witch,
                                             secret=True, check=lovers_check(self.s, self.rules, actor=witch))
            self.emit(ev.WitchPoisoned(target) if target is not None else ev.WitchDeclined("poison"))

    def step_seer(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.SEER)
        seer = self.acting(Role.SEER)
        if seer is not None:
            target = yield from self.ask_one("seer.check", self.living(but=seer), False, role=Role.SEER,
                                             actor=seer, secret=True)
            landed = land(self.s, target)  # the 魔术师's swap: the seer gets the other seat's result
            assert landed is not None
            self.emit(ev.SeerChecked(target, self.seer_result(landed)))
        self.emit(ev.StepAsked("seer", "result", n))  # 他的身份是这个: after the host answered, every night

    def step_raven(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.RAVEN)
        raven = self.acting(Role.RAVEN)
        if raven is None:
            return
        check = not_twice(self.s.raven_last, refuse("raven.not_twice", seat=self.s.raven_last))
        seat = yield from self.ask_one("raven.curse", self.living(), True, role=Role.RAVEN, actor=raven,
                                       check=check, secret=True)
        self.emit(ev.RavenCursed(seat))

    def step_piper(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.PIPER)
        piper = self.acting(Role.PIPER)
        if piper is None:
            return
        free = tuple(x for x in self.living(but=piper) if x not in self.s.charmed)
        if not free:
            return
        k = min(2, len(free))
        seats = yield from self.ask_seats("piper.charm", free, k, k, role=Role.PIPER, actor=piper, secret=True)
        self.emit(ev.PiperCharmed(tuple(sorted(seats))))

    def step_hunter(self, n: int) -> Flowing:
        if n == 1:
            yield from self.identify(Role.HUNTER)
        hunter = self.s.living_seat_of(Role.HUNTER)
        if hunter is None or not self.rules.tell_shoot_status:
            return
        self.emit(ev.ShootStatusTold(hunter, self.could_shoot_tonight(hunter)))


def not_twice(last: int | None, refusal: Refusal) -> Check:
    """Refuses last night's choice again (守卫, 乌鸦: never the same player two nights running)."""

    def check(answer: Answer) -> Refusal | None:
        seats = answer.seats if isinstance(answer, Seats) else ()
        return refusal if last is not None and last in seats else None

    return check


STEPS: dict[str, Callable[[Night, int], Flowing] | None] = {s: getattr(Night, "step_" + s, None) for s in STEP_CARD}
"""Each night step's handler (None: the step only identifies its card on night 1)."""
