"""Pacing classes as data and seeded draws."""

from __future__ import annotations

import inspect
from importlib import resources
from pathlib import Path

import pytest
import yaml

from narrator.audio.pacing import Pacer, PacingError, load_host_words, load_pacing


def test_packaged_table_loads_with_the_documented_classes() -> None:
    table = load_pacing()
    assert table["eyes_open"].dist == "uniform"
    assert (table["eyes_open"].low_s, table["eyes_open"].high_s) == (3.0, 5.0)
    for name in ("eyes_open", "eyes_close", "action", "question", "short", "long", "between_speakers",
                 "countdown", "none"):
        assert name in table


def test_every_pause_in_the_judges_scripts_has_a_class() -> None:
    table = load_pacing()
    data = resources.files("narrator").joinpath("data")
    scripts = [p for p in data.iterdir() if p.name.startswith("script.") and p.name.endswith(".yaml")]
    used: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("pause"), str):
                used.add(node["pause"])
            for v in node.values():
                walk(v)

    for path in scripts:
        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    used.add("short")  # Line.pause's default
    assert used <= set(table), f"pacing classes missing from pacing.yaml: {sorted(used - set(table))}"


def test_draws_stay_in_range_and_fill_it() -> None:
    pacer = Pacer(seed=1)
    draws = [pacer.draw("eyes_open") for _ in range(4000)]
    assert min(draws) >= 3.0 and max(draws) <= 5.0
    assert 3.9 < sum(draws) / len(draws) < 4.1
    # Uniform: each half-second slice holds about a quarter of the draws.
    for lo in (3.0, 3.5, 4.0, 4.5):
        share = sum(lo <= d < lo + 0.5 for d in draws) / len(draws)
        assert 0.22 < share < 0.28
    assert Pacer(seed=2).draw("none") == 0.0
    tri = [Pacer(seed=s).draw("countdown") for s in range(500)]
    spec = load_pacing()["countdown"]
    assert spec.low_s <= min(tri) and max(tri) <= spec.high_s
    assert sum(tri) / len(tri) == pytest.approx(spec.mean_s, abs=0.15)


def test_same_seed_same_pauses_different_seed_different_pauses() -> None:
    names = ["eyes_open", "action", "eyes_close"] * 5

    def run(seed: int) -> list[float]:
        pacer = Pacer(seed=seed)
        return [pacer.draw(n) for n in names]

    assert run(42) == run(42)
    assert run(42) != run(43)
    assert len(set(run(42))) == len(names)  # not one value repeated


def test_the_pacer_cannot_be_told_who_is_alive() -> None:
    # A dead seer's step is the same lines with the same pacing classes as a live one, so the pauses are
    # identical draw for draw: there is no argument through which liveness could leak in.
    assert list(inspect.signature(Pacer.draw).parameters) == ["self", "name"]
    assert list(inspect.signature(Pacer).parameters) == ["seed", "table"]
    step = ["eyes_open", "action", "eyes_close"]
    live, dead = Pacer(seed=9), Pacer(seed=9)
    assert [live.draw(n) for n in step] == [dead.draw(n) for n in step]


def test_unknown_class_names_the_known_ones() -> None:
    with pytest.raises(PacingError, match=r"unknown pacing class 'sleepy'.*eyes_open"):
        Pacer(seed=0).draw("sleepy")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("classes: {a: {dist: uniform, low: 5, high: 3}}", "low <= mode <= high"),
        ("classes: {a: {dist: gaussian, low: 1, high: 3}}", "unknown dist"),
        ("classes: {a: {dist: uniform, low: 1}}", "bad or missing field"),
        ("classes: {a: {dist: fixed, s: -1}}", "low <= mode <= high"),
        ("classes: {}", "non-empty"),
        ("pauses: {}", "non-empty"),
    ],
)
def test_malformed_tables_are_refused(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "pacing.yaml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(PacingError, match=message):
        load_pacing(path)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("classes: {a: {dist: fixed, s: 1}}", "needs a 'host_words:' mapping"),
        ("classes: {a: {dist: fixed, s: 1}}\nhost_words: {word_s: 9, floor_s: 4, step_s: 2}", "bad or missing field"),
        ("classes: {a: {dist: fixed, s: 1}}\nhost_words: {word_s: 9, floor_s: 30, step_s: 2, bound_s: 20}",
         "floor_s <= bound_s"),
        ("classes: {a: {dist: fixed, s: 1}}\nhost_words: {word_s: 9, floor_s: 4, step_s: 0, bound_s: 20}",
         "step_s > 0"),
    ],
)
def test_malformed_host_words_are_refused(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "pacing.yaml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(PacingError, match=message):
        load_host_words(path)

