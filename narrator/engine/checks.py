"""Legality checks the seed rules add to night and death prompts (docs/seed-coverage.md D31, D65, D67)."""

from __future__ import annotations

from narrator.engine.answers import Answer, Seats
from narrator.engine.prompts import Check
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.rules import Rules
from narrator.engine.state import State


def refuse_wolf_target(s: State, who: str, answer: Answer) -> Refusal | None:
    """D65 / D67: the white wolf king takes, the wolf beauty charms, only a good player (平民或神民)."""
    seats = answer.seats if isinstance(answer, Seats) else ()
    wolf = next((x for x in seats if s.is_wolf(x)), None)
    if wolf is None:
        return None
    if who == "wolf_king":
        return refuse("wolf_king.not_good", seat=wolf)
    return refuse("wolf_beauty.not_good", seat=wolf)


def lovers_check(s: State, rules: Rules, *, actor: int | None = None, wolf_lover: bool = False) -> Check | None:
    """D31: 恋人之间永远不能互杀 — a lover may not poison his partner, and a wolf lover's pack may not kill the
    other lover (`lovers_kill_each_other: false`). None when nothing is banned tonight."""
    if rules.lovers_kill_each_other or s.lovers is None:
        return None
    a, b = s.lovers
    killers = [x for x in s.lovers if x in s.alive and (s.is_wolf(x) if wolf_lover else x == actor)]
    if not killers:
        return None
    banned = {b if killer == a else a for killer in killers}

    def check(answer: Answer) -> Refusal | None:
        seats = answer.seats if isinstance(answer, Seats) else ()
        hit = next((x for x in seats if x in banned), None)
        return None if hit is None else refuse("lovers.no_kill", a=a, b=b)

    return check
