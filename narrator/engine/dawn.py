"""Dawn: who the night's actions kill (docs/rule-book.md "How deaths interact"), and who could shoot.

Computed, not emitted: the hunter's and the 狼王's shoot status are told from it before dawn. Causes, in the
order they override each other on one seat: the wolves' kill (after guard, antidote, 同守同救, dream, swap),
poison (witch, 机械狼), the 猎魔人's hunt, the 恶灵骑士's reflection, 梦死 and the dream link. Love and charm
follow when the deaths are resolved (deaths.py).
"""

from __future__ import annotations

from narrator.engine.cards import CardsFlow
from narrator.engine.events import Cause
from narrator.engine.modern_state import land_all, night_immune
from narrator.engine.roles import Role
from narrator.engine.rules import Rules
from narrator.engine.state import State, land

VILLAGE_KILLS = frozenset({"poison", "shot", "exile"})

HUNTER_CAUSES = {
    "wolves_or_exile": frozenset({"wolves", "exile", "taken", "king_shot"}),
    "any_death": frozenset({"wolves", "exile", "taken", "king_shot", "shot", "scapegoat", "charm", "elder"}),
    "wolves_exile_shot": frozenset({"wolves", "exile", "taken", "king_shot", "shot"}),
}
KING_CAUSES = {
    "wolves_exile_shot": frozenset({"wolves", "exile", "shot", "taken", "king_shot"}),
    "wolves_or_exile": frozenset({"wolves", "exile"}),
}


def chained(s: State, rules: Rules, dreamcatcher: bool, first: list[tuple[int, Cause]]) -> tuple[int, ...]:
    """Every seat the deaths `first` take with them at once (a lover; the 摄梦人's sleepwalker; a revealed idiot
    following the elder), `first` included, in seat order: the one chain the dawn announces and the night's
    shot status follows (a hunter whose dream holder dies of love dies of the dream: he cannot shoot)."""
    dead = {x for x, _ in first}
    idiot = s.living_seat_of(Role.IDIOT)
    for seat, cause in first:
        elder_killed = s.roles.get(seat) is Role.ELDER and cause in VILLAGE_KILLS and not s.powers_lost
        if elder_killed and rules.elder_takes_idiot and s.idiot_revealed and idiot is not None:
            dead.add(idiot)
    for _ in range(2):  # a lover and the 摄梦人's sleepwalker may follow each other
        if s.lovers is not None and dead & set(s.lovers):
            dead |= {x for x in s.lovers if not night_immune(s, x)}
        if not dreamcatcher:
            continue
        catcher, sleepwalker = s.seat_of(Role.DREAMCATCHER), land(s, s.tonight.dreamed)
        if catcher in dead and sleepwalker is not None and not night_immune(s, sleepwalker):
            dead.add(sleepwalker)
    dead.discard(s.lingering or 0)  # the exiled 血月使徒 was announced when he was exiled
    return tuple(sorted(dead & s.alive))


class Dawn(CardsFlow):
    def night_deaths(self) -> tuple[dict[int, Cause], bool]:
        """Who the night's actions kill, and whether the elder spent his extra life."""
        s, t = self.s, self.s.tonight
        deaths: dict[int, Cause] = {}
        elder_survived = False
        dreamed, victim, protected, mech_protected, poisoned, mech_poisoned = land_all(
            s, t.dreamed, t.victim, t.protected, t.mech_protected, t.poisoned, t.mech_poisoned)
        if victim is not None:
            role = s.roles.get(victim)
            guarded = victim in (protected, mech_protected) and (
                role is not Role.LITTLE_GIRL or self.rules.guard_protects_little_girl
            )
            # the antidote saves whoever the named kill landed on; D37: a caught little girl dies at once
            # (立即死亡): the antidote, used or not, cannot save her unless the house says so.
            saved = t.saved is not None and (role is not Role.LITTLE_GIRL or self.rules.little_girl_savable)
            # 同守同救: protected and saved the same night dies unless the house says otherwise.
            dies = self.rules.guard_and_save == "dies" if guarded and saved else not (guarded or saved)
            if dies and (victim == dreamed or night_immune(s, victim)):
                dies = False  # the sleepwalker survives the kill and 同守同救; 恶魔 and 恶灵骑士 never die at night
            if dies and role is Role.ELDER and s.elder_lives > 1:
                dies, elder_survived = False, True
            elif saved and not dies and role is Role.ELDER and s.elder_lives > 1:
                elder_survived = True  # an antidote used on the elder leaves him one life (docs/rule-book.md, 长老)
            if dies:
                deaths[victim] = "wolves"
        for target in (poisoned, mech_poisoned):
            if target is None or target == dreamed or night_immune(s, target):
                continue
            if s.roles.get(target) is Role.WITCHER:
                continue  # the poison has no effect on the 猎魔人
            deaths[target] = "poison"  # a poisoned hunter cannot shoot, even if the wolves bit him too
        if t.hunted is not None:  # already landed
            witcher = s.seat_of(Role.WITCHER)
            if s.is_wolf(t.hunted):
                if not night_immune(s, t.hunted):
                    deaths[t.hunted] = "hunt"
            elif witcher is not None:
                deaths[witcher] = "hunt"
        for seat in t.reflected:
            deaths[seat] = "reflect"
        if dreamed is not None and dreamed in s.alive and not night_immune(s, dreamed):
            catcher = s.seat_of(Role.DREAMCATCHER)
            if dreamed == s.dream_prev or (catcher is not None and catcher in deaths):
                deaths[dreamed] = "dream"  # 梦死, or the 摄梦人 died tonight
        if s.lingering is not None:
            deaths[s.lingering] = "lingered"
        return deaths, elder_survived

    # ---- shoot status ---------------------------------------------------------------------------------

    def _silenced_tonight(self, seat: int, deaths: dict[int, Cause]) -> bool:
        """Whether a shooter dying tonight could not shoot whatever kills him: feared, or dying of a death that
        follows another (love, the dream)."""
        s = self.s
        if self.rules.fear_blocks_shot and s.tonight.feared == seat:
            return True
        # dying of what another death brings (love, the dream — chained as the dawn chains them)
        return seat not in deaths and seat in chained(s, self.rules, self.plan.dreamcatcher, list(deaths.items()))

    def could_shoot_tonight(self, hunter: int) -> bool:
        """Whether the hunter could shoot if he died tonight: not when poisoned, dreamed to death, hunted or
        reflected, not when his lover dies tonight (he would die of love), not when the elder is poisoned
        (the village loses its powers), not when feared or sealed."""
        s = self.s
        if not s.has_power(Role.HUNTER) or s.sealed_night == s.night:
            return False
        deaths, _ = self.night_deaths()
        if deaths.get(hunter) in ("poison", "dream", "hunt", "reflect") or self._silenced_tonight(hunter, deaths):
            return False
        return not any(s.roles.get(x) is Role.ELDER and c == "poison" for x, c in deaths.items())

    def king_could_shoot(self, seat: int) -> bool:
        """The same for the 狼王 (and a 机械狼 with the hunter's gun)."""
        deaths, _ = self.night_deaths()
        cause = deaths.get(seat)
        if self.s.roles.get(seat) is Role.MECH_WOLF:
            allowed = HUNTER_CAUSES[self.rules.hunter_shoots_on]
        else:
            allowed = KING_CAUSES[self.rules.black_wolf_king_shoots_on]
        if cause is not None and cause not in allowed:
            return False
        return not self._silenced_tonight(seat, deaths)
