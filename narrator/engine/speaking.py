"""The day's speaking order (发言顺序), from the sheriff's choice or, without one, from the night's dead.

Seats are numbered clockwise, so a player's left-hand neighbour is the next seat up. Seed switches
(docs/seed-coverage.md F8/F9): `sheriff_order: dead_side` — with one death the sheriff picks 死左 / 死右, the side
of the dead to start from (two or more deaths, or none: 警左 / 警右 as usual); `no_sheriff_order:
smaller_dead` — without a sheriff and with two or more deaths, start next to the smaller seat of the dead,
in the direction opposite to the last round's (clockwise when there was none).
"""

from __future__ import annotations

from narrator.engine.rules import Rules
from narrator.engine.state import State


def ring(n: int, start: int, clockwise: bool) -> list[int]:
    """Every seat of an n-seat table after `start`, going round (start itself last)."""
    step = 1 if clockwise else -1
    return [((start - 1 + step * k) % n) + 1 for k in range(1, n + 1)]


def speaking_order(
    s: State, rules: Rules, sheriff: int | None, direction: str | None, dead: int | None
) -> tuple[tuple[int, ...], bool]:
    """The living players in speaking order, and whether it goes clockwise (up the seat numbers)."""
    n = s.players
    if sheriff is not None:
        clockwise = direction == "left"
        around = dead if dead is not None else sheriff  # 死左/死右 count from the dead, 警左/警右 from him
        order = [x for x in ring(n, around, clockwise) if x in s.alive and x != sheriff]
        return (*order, sheriff), clockwise
    if rules.no_sheriff_order == "smaller_dead" and len(s.dawn_dead) >= 2:
        clockwise = not s.last_clockwise if s.last_clockwise is not None else True
        return tuple([x for x in ring(n, min(s.dawn_dead), clockwise) if x in s.alive]), clockwise
    start = s.last_death if s.last_death else n  # seat 1 first when nobody has died
    return tuple([x for x in ring(n, start, True) if x in s.alive]), True
