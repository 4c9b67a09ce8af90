"""What a scenario's `answers` and `expect` may hold, checked when the file is loaded (exit 2), so that a
typo (`winner: goodies`, `awaiting: wolf.kill`, `deaths: {night1: 7}`) is named at once with what to write
instead, instead of failing later as a wrong expectation or a crash.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Iterator

PHASE = re.compile(r"^(night|day)[1-9]\d*$")
NIGHT = re.compile(r"^night[1-9]\d*$")
TEXT_KEYS = ("says", "says_in_order", "never_says", "lines_to_host", "never_to_host")


@functools.cache
def prompt_kinds() -> frozenset[str]:
    """Every prompt kind the engine can ask: the script's `prompts:` keys (tests/voice/test_catalogue.py
    keeps them equal to what the engine asks), `identify` standing for `<role>.identify`."""
    from narrator.engine.roles import Role
    from narrator.judge.script import Script

    kinds = {k.removesuffix(".countdown") for k in Script("zh-Hans").keys("prompts")} - {"identify"}  # vote_call
    # `rules` is no prompt: a rules question the runner lets the judge answer at any prompt (issue 11, J1).
    return frozenset(kinds | {f"{role.value}.identify" for role in Role} | {"rules"})


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def kind_problem(kind: str) -> str | None:
    """None for a known prompt kind; else what is wrong with it."""
    if kind in prompt_kinds():
        return None
    return f"{kind!r} is not a prompt kind{_suggest(kind, prompt_kinds())}; docs/scenarios.md lists them"


def answer_problems(kinds: Iterable[str]) -> Iterator[str]:
    """Each answer whose kind the engine never asks, named by its number in the file (from 1)."""
    for number, kind in enumerate(kinds, start=1):
        why = kind_problem(kind)
        if why:
            yield f"answer {number}: {why}"


def _seat_problem(where: str, value: object, players: int, allow_null: bool = False) -> str | None:
    if value is None and allow_null:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        null = " or null" if allow_null else ""
        return f"{where} must be a seat number{null}, not {value!r}"
    if not 1 <= value <= players:
        return f"{where}: seat {value} is not at this table (seats 1 to {players})"
    return None


def _seats_problem(where: str, value: object, players: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, list):
        example = f"[{value}]" if isinstance(value, int) else "[3, 7]"
        return f"{where} must be a list of seats like {example}, not {value!r}"
    for seat in value:
        why = _seat_problem(where, seat, players)
        if why:
            return why
    return None


def expect_problems(expect: dict[str, object], players: int) -> Iterator[str]:
    """What is wrong in `expect` (keys are checked by the loader): types, camps, kinds, phases, seats."""
    from narrator.engine.roles import Camp

    if "winner" in expect and expect["winner"] is not None:
        camps = [c.value for c in Camp]
        if expect["winner"] not in camps:
            yield (f"expect.winner: {expect['winner']!r} is not a camp{_suggest(str(expect['winner']), camps)}; "
                   f"write one of {', '.join(camps)}, or null")  # fmt: skip
    for key, pattern, example in (("deaths", PHASE, "night1: [7], day1: []"), ("steps", NIGHT, "night2: [wolves]")):
        if key not in expect or expect[key] is None:
            continue
        value = expect[key]
        if not isinstance(value, dict):
            yield f"expect.{key} must map phases to lists, like {{{example}}}, not {value!r}"
            continue
        for when, items in value.items():
            if not pattern.match(str(when)):
                phases = "night1, day1, night2 …" if key == "deaths" else "night1, night2 …"
                yield f"expect.{key}: {when!r} is not a phase; write {phases}"
            elif key == "deaths":
                why = _seats_problem(f"expect.deaths.{when}", items, players)
                if why:
                    yield why
            elif items is not None and not (isinstance(items, list) and all(isinstance(s, str) for s in items)):
                yield f"expect.steps.{when} must be a list of step names like [wolves, witch], not {items!r}"
    if "alive" in expect:
        why = _seats_problem("expect.alive", expect["alive"], players)
        if why:
            yield why
    if "sheriff" in expect:
        why = _seat_problem("expect.sheriff", expect["sheriff"], players, allow_null=True)
        if why:
            yield why
    for key in TEXT_KEYS:
        value = expect.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(t, str) for t in value)):
            shown = f"[{value}]" if isinstance(value, str) else "[天亮了]"
            yield f"expect.{key} must be a list of texts like {shown}, not {value!r}"
    if expect.get("awaiting") is not None:
        why = kind_problem(str(expect["awaiting"]))
        if why:
            yield f"expect.awaiting: {why}"
