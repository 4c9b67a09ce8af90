"""Games shared by the `narrator play` tests: the demo and the scenario files."""

from __future__ import annotations

import subprocess
from importlib import resources
from pathlib import Path

import yaml

from narrator.sim.scenario import Scenario
from narrator.zh import to_hans, to_hant

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def demo_scenario() -> Scenario:
    text = resources.files("narrator.data").joinpath("demo.yaml").read_text(encoding="utf-8")
    return Scenario.from_dict(yaml.safe_load(text), name="demo")


def simplified_only(text: str) -> list[str]:
    """The characters of `text` a 繁體 reader would not write: simplified forms whose traditional form differs
    (号, 复), not traditional characters that have a simplified form (癡)."""
    return sorted({ch for ch in text if "\u4e00" <= ch <= "\u9fff" and to_hant(ch) != ch and to_hans(ch) == ch})


def ctrl_c_twice(proc: subprocess.Popen[str], before_s: float, between_s: float,
                 timeout_s: float) -> tuple[str, str]:
    """Ctrl-C after `before_s`, again `between_s` later (pause, then save and quit); the process's stdout and
    stderr."""
    import signal
    import time

    time.sleep(before_s)
    proc.send_signal(signal.SIGINT)
    time.sleep(between_s)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=timeout_s)
    return out, err
