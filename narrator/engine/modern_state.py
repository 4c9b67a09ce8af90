"""The modern roles' part of the state fold (docs/rule-book.md), and the questions their rules ask of it.

Kept apart from state.py so the classic fold stays readable: the handlers register into the fold at import
(`state.register`, called below; `narrator/engine/__init__.py` imports this module, so every State has them)
without the state importing the modern roles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from narrator.engine import events as ev
from narrator.engine.roles import LONE_WOLVES, Role
from narrator.engine.state import State, land, register, swap_now

# ---- questions ----------------------------------------------------------------------------------------


def land_all(s: State, *seats: int | None) -> tuple[int | None, ...]:
    """`land` for several seats at once (dawn weighs every action of the night)."""
    swap = None if s.tonight.swap is None else swap_now(s)
    if swap is None:
        return seats
    a, b = swap
    return tuple(b if x == a else a if x == b else x for x in seats)


def lone_wolf(s: State, seat: int) -> bool:
    """A wolf card that never wakes with the pack: 石像鬼, 机械狼, the offline 恶魔."""
    role = s.roles.get(seat)
    return role in LONE_WOLVES or (role is Role.DEMON and s.rules.demon == "offline")


def pack_alive(s: State) -> tuple[int, ...]:
    wolves = s.wolves()
    return tuple([x for x in s.living() if x in wolves and not lone_wolf(s, x)])


def night_immune(s: State, seat: int) -> bool:
    """恶魔 and 恶灵骑士 never die at night."""
    return s.roles.get(seat) in (Role.DEMON, Role.SPIRIT_KNIGHT)


def blocked(s: State, seat: int) -> bool:
    """This seat's power does nothing tonight: feared by the 梦魇, or sealed by a 血月使徒 (good roles)."""
    if s.tonight.feared == seat and s.night > s.day:
        return True
    return s.sealed_night == s.night and s.night > s.day and not s.is_wolf(seat)


def mech_power(s: State) -> Role | None:
    """The card the 机械狼 copied, when it gives him a power (from night 2)."""
    seat = s.mech_learned
    role = s.roles.get(seat) if seat is not None else None
    return role if role in (Role.SEER, Role.PSYCHIC, Role.WITCH, Role.GUARD, Role.HUNTER) else None


# ---- the fold -----------------------------------------------------------------------------------------


def _half_blood(s: State, e: ev.HalfBloodChose) -> None:
    s.half_blood_model = e.seat


def _half_blood_camp(s: State, e: ev.HalfBloodCamp) -> None:
    s.half_blood_camp = e.camp


def _swapped(s: State, e: ev.MagicianSwapped) -> None:
    s.tonight.swap = e.seats
    if e.seats is not None:
        s.swapped_seats = s.swapped_seats | set(e.seats)
        s.last_swap = (s.night, e.seats)


def _feared(s: State, e: ev.NightmareFeared) -> None:
    s.tonight.feared = e.seat
    s.fear_last = e.seat


def _blocked(s: State, e: ev.KillBlocked) -> None:
    s.tonight.kill_blocked = True


def _knife(s: State, e: ev.KnifeInherited) -> None:
    s.knife_told = True


def _dream(s: State, e: ev.DreamChosen) -> None:
    s.tonight.dreamed = e.seat


def _checked(s: State, e: ev.CardChecked) -> None:
    _reflect(s, e.seat, e.role)


def _seer(s: State, e: ev.SeerChecked) -> None:
    _reflect(s, e.seat, Role.SEER)


def _reflect(s: State, named: int, checker: Role) -> None:
    """A 预言家 or 通灵师 whose check lands on the 恶灵骑士 dies at dawn (once, or always, per the switch). The
    check is the seat named moved by tonight's 魔术师 swap, as its result is (`land`), so a check aimed at the
    knight but swapped away is harmless, and one swapped onto him is returned."""
    if checker not in (Role.SEER, Role.PSYCHIC):
        return
    landed = land(s, named)
    if landed is None or s.roles.get(landed) is not Role.SPIRIT_KNIGHT:
        return
    if s.rules.spirit_knight_reflects == "once" and s.reflections:
        return
    seat = s.seat_of(checker)
    if seat is not None:
        s.reflections += 1
        s.tonight.reflected = (*s.tonight.reflected, seat)


def _witch_poison(s: State, e: ev.WitchPoisoned) -> None:
    target = land(s, e.seat)
    spent = s.rules.spirit_knight_reflects == "once" and s.reflections
    if target is not None and s.roles.get(target) is Role.SPIRIT_KNIGHT and not spent:
        witch = s.seat_of(Role.WITCH)
        if witch is not None:
            s.reflections += 1
            s.tonight.reflected = (*s.tonight.reflected, witch)


def _mech_learned(s: State, e: ev.MechWolfLearned) -> None:
    s.mech_learned = e.seat


def _mech_protected(s: State, e: ev.MechWolfProtected) -> None:
    s.tonight.mech_protected = e.seat


def _mech_poisoned(s: State, e: ev.MechWolfPoisoned) -> None:
    if e.seat is not None:
        s.tonight.mech_poisoned = e.seat
        s.mech_poison = False


def _hunted(s: State, e: ev.WitcherHunted) -> None:
    s.tonight.hunted = e.seat


def _exiled(s: State, e: ev.PlayerExiled) -> None:
    s.exiled_day = (s.day, e.seat)


def _revealed(s: State, e: ev.IdiotRevealed) -> None:
    s.exiled_day = None  # the idiot stayed: nobody was exiled


def _dueled(s: State, e: ev.KnightDueled) -> None:
    s.knight_used = True


def _exploded(s: State, e: ev.SelfExploded) -> None:
    if s.roles.get(e.seat) is Role.BLOOD_MOON:
        s.sealed_night = s.day + 1


def _lingers(s: State, e: ev.BloodMoonLingers) -> None:
    s.lingering = e.seat


def _died(s: State, e: ev.PlayerDied) -> None:
    if e.seat == s.lingering:
        s.lingering = None


HANDLERS: dict[type, Callable[[State, Any], None]] = {
    ev.HalfBloodChose: _half_blood,
    ev.HalfBloodCamp: _half_blood_camp,
    ev.MagicianSwapped: _swapped,
    ev.NightmareFeared: _feared,
    ev.KillBlocked: _blocked,
    ev.KnifeInherited: _knife,
    ev.DreamChosen: _dream,
    ev.CardChecked: _checked,
    ev.MechWolfLearned: _mech_learned,
    ev.MechWolfProtected: _mech_protected,
    ev.MechWolfPoisoned: _mech_poisoned,
    ev.WitcherHunted: _hunted,
    ev.KnightDueled: _dueled,
    ev.BloodMoonLingers: _lingers,
}

# Events the classic fold already handles: these run after the classic handler (see state.register).
AFTER: dict[type, Callable[[State, Any], None]] = {
    ev.SeerChecked: _seer,
    ev.WitchPoisoned: _witch_poison,
    ev.PlayerExiled: _exiled,
    ev.IdiotRevealed: _revealed,
    ev.SelfExploded: _exploded,
    ev.PlayerDied: _died,
}

register(HANDLERS, AFTER)
