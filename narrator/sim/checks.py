"""A scenario's expectations checked against a finished (or waiting) game: what happened and what was said.

Texts are matched in the game's script (`lang`), whichever script they are written in (narrator/common/zh.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from narrator.common.zh import holds
from narrator.engine import events as ev
from narrator.engine.game import Game
from narrator.judge.lines import Line


def check_expectations(expect: dict[str, Any], game: Game, lines: list[Line], lang: str = "zh-Hans") -> Iterator[str]:
    """Every expectation that does not hold. Texts are matched in the game's script `lang`, whichever script
    they are written in (a 简体 expectation holds in a 繁體 game that says it in 繁體)."""
    s = game.state
    if "winner" in expect:
        got = s.winner.value if s.winner else None
        if got != expect["winner"]:
            yield f"winner: expected {expect['winner']}, got {got}"
    if "deaths" in expect:
        by_when: dict[str, list[int]] = {}
        for seat, (_, when) in s.deaths.items():
            by_when.setdefault(str(when), []).append(seat)
        for when, seats in (expect["deaths"] or {}).items():
            got_seats = sorted(by_when.get(str(when), []))
            if got_seats != sorted(seats or []):
                yield f"deaths {when}: expected {sorted(seats or [])}, got {got_seats}"
    if "steps" in expect:
        called: dict[str, list[str]] = {}
        for event in game.journal:
            if isinstance(event, ev.StepOpened):
                called.setdefault(f"night{event.night}", []).append(event.step)
        for when, steps in (expect["steps"] or {}).items():
            if called.get(str(when), []) != list(steps or []):
                yield f"steps {when}: expected {list(steps or [])}, got {called.get(str(when), [])}"
    if "alive" in expect and sorted(s.alive) != sorted(expect["alive"]):
        yield f"alive: expected {sorted(expect['alive'])}, got {sorted(s.alive)}"
    if "sheriff" in expect and s.sheriff != expect["sheriff"]:
        yield f"sheriff: expected {expect['sheriff']}, got {s.sheriff}"
    public = [x.text for x in lines if x.to == "all"]
    private = [x.text for x in lines if x.to == "host"]
    for text in expect.get("says") or []:
        if not any(holds(t, text, lang) for t in public):
            yield f"the judge never said {text!r} to the table"
    at = 0
    for text in expect.get("says_in_order") or []:
        found = next((i for i in range(at, len(public)) if holds(public[i], text, lang)), None)
        if found is None:
            yield f"the judge did not say {text!r} after the lines before it in says_in_order"
            break
        at = found + 1
    for text in expect.get("never_says") or []:
        if any(holds(t, text, lang) for t in public):
            yield f"the judge said {text!r} to the table"
    for text in expect.get("lines_to_host") or []:
        if not any(holds(t, text, lang) for t in private):
            yield f"the host never heard {text!r}"
    for text in expect.get("never_to_host") or []:
        if any(holds(t, text, lang) for t in private):
            yield f"the host heard {text!r}"
