"""The suite's own parallel run (`./dev test`: `pytest -n auto --dist loadgroup`): tests that share a
module's set-up run on one worker, so the set-up is made once. A small suite with this conftest is run on
two workers; its set-up writes one line each time it is made."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SUITE = '''
import os
import pytest


@pytest.fixture(scope="module")
def built():
    with open(os.environ["MADE"], "a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "-") + "\\n")
    return 1


@pytest.mark.parametrize("n", range(8))
def test_reads_the_set_up(built, n):
    assert built == 1


@pytest.mark.parametrize("n", range(8))
def test_alone(n):
    pass
'''


def test_a_shared_set_up_is_made_once_on_two_workers(tmp_path: Path) -> None:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_shared.py").write_text(SUITE, encoding="utf-8")
    made = tmp_path / "made.txt"
    run = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", "-p",
                          "no:cacheprovider", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "MADE": str(made)}, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "16 passed" in run.stdout, run.stdout[-1000:]
    assert len(made.read_text().splitlines()) == 1, "the module's set-up was made on each worker"
