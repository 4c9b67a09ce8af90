"""What a set-up's deck needs from the flow, worked out once per set-up rather than at every step.

A game asks the same questions of its deck again and again (is there a 魔术师 whose swap moves the night's
actions? can anyone be feared or sealed? which steps are called after night 1?). The answers depend on the
set-up alone, so `plan(setup)` computes them once and keeps them for every game of that set-up: the flow
then skips the bookkeeping of roles that are not in the deck.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from narrator.engine.roles import Role
from narrator.engine.rules import FIRST_NIGHT_ONLY, Setup


@dataclass(frozen=True, slots=True)
class Plan:
    steps: tuple[str, ...]
    """The night steps this deck calls, in order (Setup.steps())."""
    first_night: tuple[str, ...]
    """The steps called on night 1: all of them."""
    later_nights: tuple[str, ...]
    """The steps called from night 2: not the night-1-only ones, nor the hunter's unless his status is told."""
    seats: tuple[int, ...]
    """Every seat of the table, 1 … players."""
    lone_wolves: bool
    """A wolf that never wakes with the pack may inherit the knife: 石像鬼, 机械狼, the offline 恶魔."""
    dreamcatcher: bool
    """摄梦人: his sleepwalker follows him in death."""
    blockers: bool
    """Someone can make a step ask nothing: the 梦魇's fear, a 血月使徒's seal."""
    no_self_knife: bool
    """A wolf card the pack may not pick at night is in the deck (狼美人, the pandakill 恶魔, 恶灵骑士)."""
    knight: bool
    """骑士: any day speech may end in a duel."""


def plan(setup: Setup) -> Plan:
    """The set-up's plan: looked up by identity first (every game of a benchmark or a property run shares its
    Setup, and hashing one hashes every house rule), then by value."""
    known = _BY_ID.get(id(setup))
    if known is not None and known[0] is setup:
        return known[1]
    if len(_BY_ID) >= 64:
        _BY_ID.clear()
    made = _plan(setup)
    _BY_ID[id(setup)] = (setup, made)  # the set-up is held, so its id is not reused while it is here
    return made


_BY_ID: dict[int, tuple[Setup, Plan]] = {}


@lru_cache(maxsize=64)
def _plan(setup: Setup) -> Plan:
    deck, rules = setup.deck, setup.rules
    steps = setup.steps()
    later = tuple(s for s in steps if s not in FIRST_NIGHT_ONLY and (s != "hunter" or rules.tell_shoot_status))
    demon = Role.DEMON in deck
    return Plan(
        steps=steps,
        first_night=steps,
        later_nights=later,
        seats=tuple(range(1, setup.players + 1)),
        lone_wolves=Role.GARGOYLE in deck or Role.MECH_WOLF in deck or (demon and rules.demon == "offline"),
        dreamcatcher=Role.DREAMCATCHER in deck,
        blockers=Role.NIGHTMARE in deck or Role.BLOOD_MOON in deck,
        no_self_knife=Role.WOLF_BEAUTY in deck or Role.SPIRIT_KNIGHT in deck or (demon and rules.demon == "pandakill"),
        knight=Role.KNIGHT in deck,
    )
