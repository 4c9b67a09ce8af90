"""Fixtures of the `narrator play` tests: games from the scenario files, a private data/config folder."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
import yaml

from narrator.sim.scenario import Scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def demo_scenario() -> Scenario:
    text = resources.files("narrator.data").joinpath("demo.yaml").read_text(encoding="utf-8")
    return Scenario.from_dict(yaml.safe_load(text), name="demo")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data folder and config folder for one test."""
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path
