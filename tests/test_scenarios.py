"""Scenario files are games that must hold, and `narrator simulate` reports how a run ended.

tests/scenarios/*.yaml: each a small real game (set-up, the host's words in order, what must have
happened), run by one parametrised test. tests/scenario_cases/*.yaml: scenarios that must *not* hold, each
naming in `notes` the exit code and the message it must end with ("exit 1: winner: expected …"), so every
expectation key and every exit code is shown able to fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_messages import line_faults  # the message audit's check of a game's lines (tests/ is on the path)
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.common.zh import LANGS, to_hant
from narrator.judge.narrate import Judge
from narrator.judge.script import Script
from narrator.sim.scenario import Run, Scenario, ScenarioError

HERE = Path(__file__).parent
SCENARIOS = sorted((HERE / "scenarios").glob("*.yaml"))
CASES = sorted((HERE / "scenario_cases").glob("*.yaml"))
NAME = re.compile(r"(\d{3}|[A-J]\d+[a-z]?)_[a-z0-9]+(_[a-z0-9]+)*\.yaml")
"""NNN_name.yaml, or a docs/seed-coverage.md row ID for the seed rules (G9_election_offstage_pk.yaml)."""
CJK = re.compile(r"[\u4e00-\u9fff]")


def read(path: Path) -> Any:
    """A scenario file's data, read with libyaml (the same data as yaml.safe_load gives for every file here, ~10×
    less CPU; the product's own reading, Scenario.load, is what test_case_fails_as_its_notes_say runs)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def in_script(data: Any, lang: str) -> Any:
    """A scenario as a 繁體 table writes it: the preset, cards and the host's words converted (OpenCC);
    the expectations stay as written (in 简体), to be matched in the game's script."""
    if lang == "zh-Hans":
        return data
    if isinstance(data, str):
        return to_hant(data)
    if isinstance(data, list):
        return [in_script(x, lang) for x in data]
    if isinstance(data, dict):
        return {in_script(k, lang): v if k == "expect" else in_script(v, lang) for k, v in data.items()}
    return data


def simplified_only() -> set[str]:
    """Characters the 简体 script uses and the 繁體 one never does (请, 号, 闭 …): a 繁體 game saying one
    has leaked a simplified line."""
    read = [(HERE.parent / "narrator" / "data" / f"script.{lang}.yaml").read_text(encoding="utf-8") for lang in LANGS]
    return {ch for ch in set(read[0]) - set(read[1]) if CJK.match(ch) and to_hant(ch) != ch}


SIMPLIFIED_ONLY = simplified_only()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_holds(path: Path, lang: str) -> None:
    """Every scenario holds in both scripts: a 繁體 game is set up, answered and checked in 繁體."""
    data = in_script(read(path), lang)
    out = Run(Scenario.from_dict(data, name=path.stem), Judge(Script(lang))).execute()
    assert out.code == 0, f"{path.name} ({lang}): exit {out.code}: {out.message}"
    assert line_faults(out.lines, lang) == [], path.name  # the message audit (tests/test_messages.py)
    if lang == "zh-Hant":
        leaked = [line.text for line in out.lines if set(line.text) & SIMPLIFIED_ONLY]
        assert not leaked, f"{path.name}: 简体 said in a 繁體 game: {leaked[:3]}"


def test_simplified_only_characters_are_found() -> None:
    assert {"请", "号", "闭", "谁"} <= SIMPLIFIED_ONLY


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 80, f"only {len(SCENARIOS)} scenario files"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_is_named_and_titled(path: Path) -> None:
    assert NAME.fullmatch(path.name), f"{path.name}: name it NNN_short_english_name.yaml (or <row ID>_name.yaml)"
    data = read(path)
    assert CJK.search(str(data.get("title", ""))), f"{path.name}: needs a Chinese `title:` saying what it proves"
    assert data.get("expect"), f"{path.name}: a scenario must expect something"


def test_scenario_numbers_are_unique() -> None:
    numbers = [p.name[:3] for p in SCENARIOS if p.name[:3].isdigit()]
    assert len(numbers) == len(set(numbers)), sorted(n for n in numbers if numbers.count(n) > 1)


# ---- scenarios that must not hold -------------------------------------------------------------------------


def _wanted(path: Path) -> tuple[int, str]:
    notes = str(read(path)["notes"])
    m = re.fullmatch(r"exit (\d): (.+)", notes)
    assert m, f"{path.name}: notes must read 'exit N: <message>'"
    return int(m[1]), m[2]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_case_fails_as_its_notes_say(path: Path) -> None:
    code, message = _wanted(path)
    try:
        out = Run(Scenario.load(path)).execute()
    except ScenarioError as exc:
        got_code, got_message = 2, str(exc)
    else:
        got_code, got_message = out.code, out.message
    assert (got_code, message in got_message) == (code, True), f"exit {got_code}: {got_message}"


def test_every_expectation_key_is_shown_able_to_fail() -> None:
    from narrator.sim.scenario import EXPECT_KEYS

    failing = {key for p in CASES for key in (read(p).get("expect") or {})}
    assert not EXPECT_KEYS - failing, f"no failing case for {sorted(EXPECT_KEYS - failing)}"


# ---- the CLI ----------------------------------------------------------------------------------------------

runner = CliRunner()


def simulate(path: Path, *options: str) -> Any:
    return runner.invoke(app, ["simulate", str(path), *options])


def test_cli_exit_0_when_the_scenario_holds() -> None:
    result = simulate(HERE / "scenarios" / "002_hunter_shot_at_night_no_last_words.yaml")
    assert result.exit_code == 0, result.output
    assert "七号开枪带走了四号" in result.stdout


def test_the_example_in_the_docs_holds_as_written(tmp_path: Path) -> None:
    """docs/scenarios.md opens with a scenario a reader will copy: it must hold, comments and all."""
    text = (HERE.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    example = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.yaml"
    path.write_text(example, encoding="utf-8")
    result = simulate(path)
    assert result.exit_code == 0, result.output


def test_cli_exit_1_on_a_wrong_expectation() -> None:
    result = simulate(CASES[0].parent / "fail_winner.yaml")
    assert result.exit_code == 1, result.output
    assert "winner: expected wolves, got good" in result.stderr


def test_cli_exit_2_on_an_invalid_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: 9人预女猎\nanswers: [[wolves.kill]]\n", encoding="utf-8")
    result = simulate(bad)
    assert result.exit_code == 2, result.output
    assert "invalid scenario" in result.stderr and "[kind, words]" in result.stderr
    broken = tmp_path / "broken.yaml"
    broken.write_text("preset: [unclosed\n", encoding="utf-8")
    assert simulate(broken).exit_code == 2
    assert simulate(tmp_path / "missing.yaml").exit_code == 2


def test_cli_exit_2_on_a_kind_mismatch_names_both_kinds() -> None:
    result = simulate(HERE / "scenario_cases" / "kind_mismatch.yaml")
    assert result.exit_code == 2, result.output
    assert "witch.save" in result.stderr and "wolves.kill" in result.stderr


def test_cli_exit_3_when_answers_run_out() -> None:
    result = simulate(HERE / "scenario_cases" / "ran_out.yaml", "--json")
    assert result.exit_code == 3, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[-1] == {"event": "awaiting", "kind": "witch.save"}


def test_cli_json_records() -> None:
    result = simulate(HERE / "scenarios" / "002_hunter_shot_at_night_no_last_words.yaml", "--json")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(isinstance(r, dict) for r in records)
    said = [r for r in records if "say" in r]
    assert said and all(set(r) == {"say", "to"} and r["to"] in ("all", "host") for r in said)
    assert {"say": "天黑请闭眼。", "to": "all"} in said
    assert any(r["to"] == "host" for r in said)
    died = [r for r in records if r.get("event") == "died"]
    assert {"event": "died", "seat": 4, "cause": "shot", "when": "night2"} in died
    assert {"event": "died", "seat": 7, "cause": "wolves", "when": "night2"} in died
    assert [r["seat"] for r in died] == [2, 1, 7, 4, 8]
    assert records[-1]["event"] == "game_over" and records[-1]["winner"] == "good"
    assert records[-1]["roles"]["7"] == "hunter"
    secret = [r for r in records if r.get("secret")]
    assert secret and all(r["event"] not in ("died", "game_over") for r in secret)
