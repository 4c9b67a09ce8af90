"""The same games give the same journals and lines before and after a refactoring (issue 7's check).

tests/fixtures/fingerprint.json holds a digest per game: every scenario file (its records, lines, exit
code and message) and 1,000 seeded random games (every event, every answer with its prompt kind, every
line), game i playing preset i mod 26 with seed i. It was first taken from the game loops as they were
before everything moved onto the Session (main at f889d29, the 97 scenarios of then), and the move was
checked identical against it (commit ff82764). Two changes of issue 7 are projected out, because they are
meant: the GameEnded.termination field with its line (`terminations.*`), and the audience of a refusal's
line (the Session says a day refusal of a public prompt to the table); and GameStarted's rules, so that a
new house-rule switch does not change every digest. Since then the digests are rewritten
whenever a change means to alter the output (the split seer/witch questions, a new scenario …).

When a change means to alter what the judge says or the engine records, rewrite the digests and say so
in the commit: `.venv/bin/python tests/test_fingerprint.py --write`.
"""

from __future__ import annotations

import enum
import hashlib
import json
import random
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest

from narrator.judge.lines import Line
from narrator.judge.presets import make_setup, preset_names
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal
from narrator.sim.scenario import Run, Scenario

HERE = Path(__file__).parent
FIXTURE = HERE / "fixtures" / "fingerprint.json"
RANDOM_GAMES = 1000
PROJECTED = frozenset({"termination", "rules"})
"""Fields left out of the digests: GameEnded.termination (issue 7 added it) and GameStarted.rules (every new
house-rule switch would change every journal; what the rules do shows in the other events)."""


def canon(v: Any) -> Any:
    if isinstance(v, type):  # a class itself: only its name
        return str(v)
    kind = KINDS.get(type(v)) or KINDS.setdefault(type(v), kind_of(v))
    if kind == "plain":
        return v
    if kind == "list":
        return [canon(x) for x in v]
    if kind == "enum":
        return v.value
    if kind == "dict":
        return {str(k): canon(x) for k, x in v.items()}
    if kind == "str":
        return str(v)
    return {"type": type(v).__name__} | {name: canon(getattr(v, name)) for name in kind}


KINDS: dict[type, Any] = {}
"""How canon() writes a value of each type, found once per type (a journal holds some hundred thousand
values of a few dozen types): "plain", "list", "enum", "dict", "str", or a dataclass's field names."""


def kind_of(v: Any) -> Any:
    if isinstance(v, enum.Enum):
        return "enum"
    if type(v).__name__ == "When":  # a value now, a string before: it reads the same ("night1")
        return "str"
    if is_dataclass(v):
        return tuple(f.name for f in fields(v) if f.name not in PROJECTED)
    if isinstance(v, tuple | list):
        return "list"
    if isinstance(v, dict):
        return "dict"
    if isinstance(v, int | float | str | bool | type(None)):
        return "plain"
    return "str"


def line(x: Line) -> list[str]:
    return [x.key, x.text] if x.key.startswith("refusals.") else [x.to, x.key, x.text]


def keep(x: Line) -> bool:
    return not x.key.startswith("terminations.")


def digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def scenario_digest(path: Path) -> str:
    out = Run(Scenario.load(path)).execute()
    why = {x.text for x in out.lines if not keep(x)}
    records = [{k: v for k, v in r.items() if k != "termination"} for r in out.records
               if not ("say" in r and r["say"] in why)]
    records = [{k: v for k, v in r.items() if not (k == "to" and str(r.get("say", "")) in refusals(out.lines))}
               for r in records]
    lines = [line(x) for x in out.lines if keep(x)]
    return digest({"records": records, "lines": lines, "code": out.code, "message": out.message})


def refusals(lines: list[Line]) -> set[str]:
    return {x.text for x in lines if x.key.startswith("refusals.")}


def random_digest(name: str, seed: int) -> str:
    setup = make_setup(name)
    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    session = Session(setup, seed)
    lines: list[list[str]] = []
    while True:
        lines += [line(x) for x in session.take_lines() if keep(x)]
        prompt = session.prompt
        if prompt is None:
            break
        session.submit(host.answer(session.game, prompt))
    game = session.game
    return digest({"journal": canon(game.journal), "answers": canon(game.answers), "lines": lines})


def random_games() -> list[tuple[str, int]]:
    names = preset_names()
    return [(names[i % len(names)], i) for i in range(RANDOM_GAMES)]


def compute() -> dict[str, dict[str, str]]:
    return {
        "scenarios": {p.stem: scenario_digest(p) for p in sorted((HERE / "scenarios").glob("*.yaml"))},
        "random": {f"{name}/{seed}": random_digest(name, seed) for name, seed in random_games()},
    }


def stored() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


def test_scenarios_say_and_record_what_they_did_before() -> None:
    want = stored()["scenarios"]
    got = {p.stem: scenario_digest(p) for p in sorted((HERE / "scenarios").glob("*.yaml"))}
    new = sorted(set(got) - set(want))
    assert not set(want) - set(got), f"scenarios gone: {sorted(set(want) - set(got))}"
    changed = sorted(k for k in want if got[k] != want[k])
    assert not changed, f"these scenarios now say or record something else: {changed} (new, unchecked: {new})"


@pytest.mark.parametrize("part", range(4))
def test_random_games_give_the_same_journals_and_lines(part: int) -> None:
    want = stored()["random"]  # the stored games are the ones checked: a new preset does not reshuffle them
    games = [(key.rpartition("/")[0], int(key.rpartition("/")[2])) for key in sorted(want)][part::4]
    changed = [f"{n}/{s}" for n, s in games if random_digest(n, s) != want[f"{n}/{s}"]]
    assert len(want) == RANDOM_GAMES
    assert not changed, f"{len(changed)} of {len(games)} games differ, first: {changed[:5]}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: tests/test_fingerprint.py --write   (rewrites tests/fixtures/fingerprint.json)")
    FIXTURE.write_text(json.dumps(compute(), ensure_ascii=False, indent=0, sort_keys=True) + "\n", "utf-8")
