"""The suite's own parallel run (`./dev test`: `pytest -n <2 per core> --dist loadgroup`): tests that share a
module's set-up run on one worker, so the set-up is made once; the real-time tests run only on the workers at
normal priority, the others also on the niced ones. Small suites with this conftest are run on several
workers; their set-ups and tests write a line each time they are made or run."""

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


def run_suite(tmp_path: Path, suite: str, workers: int, passed: int, cpus: set[int] | None = None) -> None:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_suite.py").write_text(suite, encoding="utf-8")
    # Only xdist and this conftest schedule; the suite's other plugins (hypothesis, benchmark, timeout) only cost
    # each of the 3-5 processes a second of start-up (pytest rewrites their packages' asserts on import).
    run = subprocess.run([sys.executable, "-m", "pytest", "-n", str(workers), "--dist", "loadgroup", "-q",
                          *(arg for plugin in ("cacheprovider", "hypothesispytest", "benchmark", "timeout")
                            for arg in ("-p", f"no:{plugin}")),
                          "-W", "ignore::pytest.PytestUnknownMarkWarning", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
                         env={**{k: v for k, v in os.environ.items() if k != "NARRATOR_REALTIME_WORKERS"},
                              "MADE": str(tmp_path / "made.txt"), "RAN": str(tmp_path / "ran.txt")},
                         preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus))
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert f"{passed} passed" in run.stdout, run.stdout[-1000:]


def test_a_shared_set_up_is_made_once_on_two_workers(tmp_path: Path) -> None:
    run_suite(tmp_path, SUITE, 2, 16)
    assert len((tmp_path / "made.txt").read_text().splitlines()) == 1, "the module's set-up was made on each worker"


REALTIME_SUITE = '''
import os
import time
import pytest


@pytest.fixture(scope="session")
def pulse():  # stands for the sound server: a test using it plays in real time
    return "server"


@pytest.fixture
def room(pulse):
    return pulse


@pytest.fixture(scope="module")
def built():
    with open(os.environ["MADE"], "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
    return 1


@pytest.fixture(autouse=True)
def ran(request):
    time.sleep(0.05)
    real = request.node.get_closest_marker("realtime") is not None
    with open(os.environ["RAN"], "a") as f:
        f.write(f"{os.environ['PYTEST_XDIST_WORKER']} {os.getpriority(os.PRIO_PROCESS, 0)} {int(real)} "
                f"{request.node.name}\\n")


@pytest.mark.parametrize("n", range(24))
def test_computes(n):  # collected first, run after the real-time tests on the workers at normal priority
    pass


@pytest.mark.parametrize("n", range(4))
def test_plays(pulse, n):
    pass


@pytest.mark.parametrize("n", range(4))
def test_in_a_room(room, n):
    pass


@pytest.mark.realtime
def test_times_itself():
    pass


@pytest.mark.parametrize("n", range(3))
def test_a_room_with_the_set_up(built, room, n):
    pass


def test_reads_the_set_up_only(built):
    pass


@pytest.mark.slow
@pytest.mark.parametrize("n", range(3))
def test_a_short_game_in_a_room(room, n):
    pass


@pytest.mark.slow
@pytest.mark.lasts(300)
def test_a_long_game_in_a_room(room):  # collected after the other slow ones, handed out first
    pass

'''


def test_real_time_tests_run_first_and_only_on_workers_at_normal_priority(tmp_path: Path) -> None:
    """Two CPUs (one if there is only one), twice as many workers: the ones beyond one per CPU run niced; the
    longest (`lasts`) first."""
    cpus = set(sorted(os.sched_getaffinity(0))[:2])
    run_suite(tmp_path, REALTIME_SUITE, 2 * len(cpus), 41, cpus)
    ran = [line.split() for line in (tmp_path / "ran.txt").read_text().splitlines()]
    normal = os.getpriority(os.PRIO_PROCESS, 0)
    nice = {worker: int(prio) for worker, prio, _, _ in ran}
    realtime = {name for _, _, real, name in ran if real == "1"}
    assert len(realtime) == 4 + 4 + 1 + 3 + 3 + 1, "a test using `pulse`, directly or not, or marked, is real-time"
    assert {nice[worker] for worker, _, _, name in ran if name in realtime} == {normal}, "a real-time test niced"
    assert {prio for worker, prio in nice.items() if int(worker[2:]) >= len(cpus)} == {19}, "no niced worker ran"
    [long] = [worker for worker, _, _, name in ran if name == "test_a_long_game_in_a_room"]
    assert next(name for worker, _, _, name in ran if worker == long) == "test_a_long_game_in_a_room", "not first"
    group = {worker for worker, _, _, name in ran if "set_up" in name}
    assert len(group) == 1 and nice[group.pop()] == normal, "the group holding a real-time test was split or niced"
    assert len((tmp_path / "made.txt").read_text().splitlines()) == 1
    for worker in {w for w, prio in nice.items() if prio == normal}:  # the real-time units before any other
        kinds = ["set_up" in name or name in realtime for w, _, _, name in ran if w == worker]
        assert kinds == sorted(kinds, reverse=True), f"{worker} computed before a real-time test: {kinds}"
