"""pytest-benchmark: one complete random 12-player game per round (random deal, random legal answers).

Skipped in the normal suite (it runs with --benchmark-skip); run with
`.venv/bin/python -m pytest tests/bench --benchmark-only`. scripts/bench_engine.py gives games/s and the
machine; docs/benchmarks.md records the figures.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest

from narrator.judge.presets import make_setup
from narrator.sim.autohost import play_random

if TYPE_CHECKING:
    from pytest_benchmark.fixture import BenchmarkFixture


@pytest.mark.parametrize("preset", ["12人预女猎白", "12人白狼王守卫"])
def test_random_12_player_game(benchmark: BenchmarkFixture, preset: str) -> None:
    setup = make_setup(preset)
    seeds = itertools.count()
    game = benchmark(lambda: play_random(setup, next(seeds)))
    assert game.over and game.winner is not None
