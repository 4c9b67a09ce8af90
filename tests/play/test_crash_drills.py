"""Crash drills: a scripted game in a real `narrator play` process, killed with SIGKILL at every prompt and
at random moments (in the middle of journal writes too), then `narrator resume`d with the words the host
would say next. Every finished journal and winner equal the uninterrupted game's."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from play_testkit import SCENARIOS

from narrator.engine.game import Game
from narrator.journal import FileStore, load
from narrator.play.scripted import host_script
from narrator.play.store import all_games
from narrator.sim.scenario import Scenario

pytestmark = pytest.mark.slow
SCENARIO = SCENARIOS / "010_parity_win.yaml"
TEXT = ["--input", "text", "--table-device", "none"]


def narrator(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config")}
    return subprocess.Popen([sys.executable, "-m", "narrator.cli.main", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


def accepted(home: Path) -> int:
    """Answers in the game's journal; -1 before the journal exists."""
    games = all_games(home / "data" / "games")
    if not games:
        return -1
    return len(load(FileStore(games[0].journal)).answers)


def wait_for(home: Path, n: int, proc: subprocess.Popen[str], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while accepted(home) < n:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, f"the game never accepted {n} answers"
        time.sleep(0.02)


def finish(home: Path, words: list[str], args: list[str]) -> Game:
    """Resume with the words after the accepted ones (all of them again if none was accepted)."""
    n = accepted(home)
    rest = words[n:] if n > 0 else ["开始", *words]
    proc = narrator(home, "resume", *TEXT) if n >= 0 else narrator(home, "play", *TEXT, *args)
    _, err = proc.communicate("\n".join(rest) + "\n", timeout=60)
    assert proc.returncode == 0, err
    [saved] = all_games(home / "data" / "games")
    return saved.load().game


def setup_args(scenario: Scenario) -> list[str]:
    return ["--preset", "8人标准局", "--rule", "win=parity", "--seed", str(scenario.seed)]


def test_sigkill_at_every_prompt_then_resume(tmp_path: Path) -> None:
    scenario = Scenario.load(SCENARIO)
    scripted = host_script(scenario)
    words = scripted.utterances
    for k in range(len(words) + 1):
        home = tmp_path / f"k{k}"
        proc = narrator(home, "play", *TEXT, *setup_args(scenario))
        assert proc.stdin is not None
        proc.stdin.write("开始\n" + "".join(w + "\n" for w in words[:k]))
        proc.stdin.flush()
        wait_for(home, k, proc)
        time.sleep(0.05)  # the judge is at the next prompt, waiting for the host
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert accepted(home) == k  # every answer it took is on disk, nothing more
        [saved] = all_games(home / "data" / "games")
        game = saved.load().game if k == len(words) else finish(home, words, setup_args(scenario))
        assert game.journal == scripted.game.journal, f"killed after {k} answers"
        assert game.winner == scripted.game.winner


def test_sigkill_at_random_moments_while_answers_stream_in(tmp_path: Path) -> None:
    """The whole game is piped at once; the kill lands anywhere, often inside a journal write."""
    scenario = Scenario.load(SCENARIO)
    scripted = host_script(scenario)
    words = scripted.utterances
    rng = random.Random(9)
    for trial in range(6):
        home = tmp_path / f"t{trial}"
        proc = narrator(home, "play", *TEXT, *setup_args(scenario))
        assert proc.stdin is not None
        proc.stdin.write("开始\n" + "".join(w + "\n" for w in words))
        proc.stdin.flush()
        wait_for(home, 0, proc)
        time.sleep(rng.uniform(0.0, 0.08))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        games = all_games(home / "data" / "games")
        done = bool(games) and games[0].load().over
        game = games[0].load().game if done else finish(home, words, setup_args(scenario))
        assert game.journal == scripted.game.journal, f"trial {trial}"


def test_a_torn_last_line_is_dropped_and_its_question_asked_again(tmp_path: Path) -> None:
    """What a kill in the middle of an append leaves: half a line. The answer was never confirmed."""
    scenario = Scenario.load(SCENARIO)
    scripted = host_script(scenario)
    words = scripted.utterances
    home = tmp_path / "torn"
    proc = narrator(home, "play", *TEXT, *setup_args(scenario))
    proc.communicate("开始\n" + "".join(w + "\n" for w in words[:4]), timeout=60)
    [saved] = all_games(home / "data" / "games")
    text = saved.journal.read_text(encoding="utf-8")
    saved.journal.write_text(text[: len(text) - 9], encoding="utf-8")  # the 4th answer, cut short
    assert accepted(home) == 3
    assert finish(home, words, setup_args(scenario)).journal == scripted.game.journal
