"""Games shared by the `narrator play` tests: the demo and the scenario files."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml

from narrator.sim.scenario import Scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def demo_scenario() -> Scenario:
    text = resources.files("narrator.data").joinpath("demo.yaml").read_text(encoding="utf-8")
    return Scenario.from_dict(yaml.safe_load(text), name="demo")
