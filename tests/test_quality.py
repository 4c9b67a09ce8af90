"""The code stays clean: ruff over everything, mypy (strict on the engine) over the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "narrator", "tests", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = run("mypy", "narrator")
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_is_pure() -> None:
    """narrator/engine imports no audio, files, clock, network or global random."""
    banned = ("import os", "import time", "import socket", "sounddevice", "open(", "from random import",
              "random.random(", "random.choice(", "datetime", "pathlib", "import yaml")
    for path in (ROOT / "narrator" / "engine").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for word in banned:
            assert word not in text, f"{path.name} uses {word!r}"
