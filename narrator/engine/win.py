"""Who has won and why, checked after every batch of deaths once every pending death skill is resolved."""

from __future__ import annotations

from collections.abc import Iterable, Set

from narrator.engine.events import Cause, Termination
from narrator.engine.roles import Camp, Role
from narrator.engine.state import State


def wolves_condition(s: State, alive: Set[int]) -> Termination | None:
    """Why the wolves have won over `alive` (屠边 / 屠城 / parity), or None; the 人狼恋 pair must be dead in
    every mode."""
    return _wolves_won(s, alive, s.lovers_camp() if s.lovers is not None else NOBODY)


NOBODY: frozenset[int] = frozenset()


def _wolves_won(s: State, alive: Set[int], lovers: frozenset[int]) -> Termination | None:
    if lovers and s.lovers is not None and any(x in alive for x in s.lovers):
        return None
    wolf_seats, roles = s.wolves(), s.roles  # this runs after every batch of deaths: set operations
    living = alive - lovers if lovers else alive
    wolves = len(wolf_seats.intersection(living))
    # the cards of the living outside the wolves, the lovers and the piper
    others = [role for role in map(roles.get, living - wolf_seats) if role is not Role.PIPER]
    if not others:
        return "good_dead"
    mode = s.rules.win
    if mode == "parity":
        return "parity" if wolves >= len(others) else None
    if mode == "city":
        return None
    had_gods, had_folk = s.groups_at_start()
    god_cards, folk_cards = s.sides()  # D27: the idiot counts as 神 or 民 by the house rule
    if had_gods and god_cards.isdisjoint(others):
        return "gods_dead"
    half = s.rules.half_blood_counts_as == "folk"  # 混血儿 counts as 民 while alive
    folk_left = not folk_cards.isdisjoint(others) or Role.WILD_CHILD in others or (half and Role.HALF_BLOOD in others)
    if had_folk and not folk_left:
        return "villagers_dead"
    return None


def outcome(
    s: State, alive: Set[int] | None = None, fallen: Iterable[tuple[int, Cause]] = ()
) -> tuple[Camp, Termination] | None:
    """The winning camp and why, or None while the game goes on, after the batch of deaths `fallen` ((seat,
    cause) pairs). When one batch meets several camps' conditions, the wolves win (`wolf_kill_first`); with
    the switch off the good side does."""
    alive = s.alive if alive is None else alive
    met: list[tuple[Camp, Termination]] = []
    lovers = s.lovers_camp() if s.lovers is not None else NOBODY
    wolf_seats = s.wolves()
    wolves_alive = not wolf_seats.isdisjoint(alive)
    # The wolves' camp may win on the batch that killed its last wolf: that batch may also have killed the
    # last god (the last wolf, a 白狼王, explodes and takes him), and then both camps' conditions are met.
    # A camp that had no wolf left before the batch (a wolf lover of the 人狼恋 is not in it) wins nothing.
    in_game = wolves_alive or any(x in wolf_seats and x not in lovers for x, _ in fallen)
    wolves = _wolves_won(s, alive, lovers) if in_game else None
    if wolves is not None:
        met.append((Camp.WOLVES, wolves))
    lovers_alive = bool(lovers) and any(x in alive for x in lovers if x != s.cupid_seat)
    if lovers_alive and all(x in lovers for x in alive):
        met.append((Camp.LOVERS, "lovers"))
    piper = s.living_seat_of(Role.PIPER)
    if piper is not None and piper in alive and all(x == piper or x in s.charmed for x in alive):
        met.append((Camp.PIPER, "piper"))
    good: tuple[Camp, Termination] | None = None
    if not wolves_alive and not lovers_alive:
        good = (Camp.GOOD, "wolves_dead")
    if good is not None:
        met.append(good)
    if not met:
        return None
    if not s.rules.wolf_kill_first and good is not None:
        return good
    return met[0]


def winner(s: State, alive: Set[int] | None = None) -> Camp | None:
    """The winning camp, or None while the game goes on (see `outcome`)."""
    won = outcome(s, alive)
    return None if won is None else won[0]
