"""Who has won, checked after every batch of deaths once every pending death skill is resolved."""

from __future__ import annotations

from collections.abc import Set

from narrator.engine.roles import Camp, Role
from narrator.engine.state import State


def wolves_condition(s: State, alive: Set[int]) -> bool:
    """The wolves' condition (屠边 / 屠城 / parity) over `alive`; the 人狼恋 pair must be dead in every mode."""
    lovers = s.lovers_camp()
    if lovers and s.lovers is not None and any(x in alive for x in s.lovers):
        return False
    # One pass over the living (this runs after every batch of deaths).
    is_wolf, roles = s.is_wolf, s.roles
    wolves = 0
    others: list[Role | None] = []  # the cards of the living outside the wolves, the lovers and the piper
    for x in alive:
        if x in lovers:
            continue
        if is_wolf(x):
            wolves += 1
        elif (role := roles.get(x)) is not Role.PIPER:
            others.append(role)
    if not wolves:
        return False
    mode = s.rules.win
    if mode == "parity":
        return wolves >= len(others)
    if mode == "city":
        return not others
    had_gods, had_folk = s.groups_at_start()
    god_cards, folk_cards = s.sides()
    gods = any(r in god_cards for r in others)
    folk = any(r in folk_cards or r is Role.WILD_CHILD for r in others)
    return (had_gods and not gods) or (had_folk and not folk) or not others


def winner(s: State, alive: Set[int] | None = None) -> Camp | None:
    """The winning camp, or None while the game goes on. When one batch meets several camps' conditions,
    the wolves win (`wolf_kill_first`); with the switch off the good side does."""
    alive = s.alive if alive is None else alive
    met: list[Camp] = []
    if wolves_condition(s, alive):
        met.append(Camp.WOLVES)
    lovers = s.lovers_camp()
    lovers_alive = bool(lovers) and any(x in alive for x in lovers if x != s.cupid_seat)
    if lovers_alive and all(x in lovers for x in alive):
        met.append(Camp.LOVERS)
    piper = s.living_seat_of(Role.PIPER)
    if piper is not None and piper in alive and all(x == piper or x in s.charmed for x in alive):
        met.append(Camp.PIPER)
    wolves_alive = any(s.is_wolf(x) for x in alive)
    if not wolves_alive and not lovers_alive:
        met.append(Camp.GOOD)
    if not met:
        return None
    if not s.rules.wolf_kill_first and Camp.GOOD in met:
        return Camp.GOOD
    return met[0]
