"""When things go wrong mid-game: Ctrl-C pauses and asks, a second Ctrl-C saves and exits with the resume
command; a speaker that disappears keeps the game going (the host is told, lines are printed, the loop
carries on and uses the device again once it is back)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from play_testkit import SCENARIOS, ctrl_c_twice, demo_scenario, words_after, words_to

from narrator.judge.lines import Line
from narrator.play.ears import Heard, InputEnded
from narrator.play.loop import Live, QuietView
from narrator.play.mouth import DeviceLost
from narrator.play.scripted import host_script
from narrator.play.store import all_games
from narrator.session.journal import FileStore, load
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

TEXT = ["--input", "text", "--table-device", "none"]


def start(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config")}
    return subprocess.Popen([sys.executable, "-m", "narrator.cli.main", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def answers(home: Path) -> int:
    games = all_games(home / "data" / "games")
    return len(load(FileStore(games[0].journal)).answers) if games else -1


def until(home: Path, n: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while answers(home) < n:
        assert time.monotonic() < deadline
        time.sleep(0.02)


@pytest.mark.slow
def test_ctrl_c_pauses_then_continue_and_a_second_ctrl_c_saves_and_exits(tmp_path: Path) -> None:
    scenario = Scenario.load(SCENARIOS / "010_parity_win.yaml")
    scripted = host_script(scenario)
    words = scripted.utterances
    three, six = len(words_to(scripted, 3)), len(words_to(scripted, 6))  # the host's 过s included
    args = ["play", *TEXT, "--preset", "8人标准局", "--rule", "win=parity", "--seed", str(scenario.seed)]
    proc = start(tmp_path, *args)
    assert proc.stdin is not None
    proc.stdin.write("开始\n" + "".join(w + "\n" for w in words[:three]))
    proc.stdin.flush()
    until(tmp_path, 3)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)  # paused: what the host types now is not an answer …
    time.sleep(0.5)
    proc.stdin.write("继续\n")  # … until 继续
    proc.stdin.flush()
    proc.stdin.write("".join(w + "\n" for w in words[three:six]))
    proc.stdin.flush()
    until(tmp_path, 6)
    out, _ = ctrl_c_twice(proc, 0.3, 0.3, 20)
    assert proc.returncode == 130, out
    assert "已暂停" in out and "再按一次 Ctrl-C 保存并退出" in out and "Traceback" not in out
    [saved] = all_games(tmp_path / "data" / "games")
    assert f"narrator resume {saved.id}" in out
    assert answers(tmp_path) == 6
    resumed = start(tmp_path, "resume", *TEXT)
    rest = words_after(scripted, saved.journal.read_bytes())
    out, _ = resumed.communicate("".join(w + "\n" for w in rest), timeout=30)
    assert resumed.returncode == 0, out
    assert saved.load().game.journal == scripted.game.journal


class ScriptedEar:
    def __init__(self, words: list[str]) -> None:
        self.words = list(words)

    def listen(self, prompt: object, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if not self.words:
            raise InputEnded()
        return Heard(self.words.pop(0))

    def follow(self, playing: object) -> None: ...
    def close(self) -> None: ...
    def ended(self) -> bool:
        return False  # the words running out end the input (InputEnded)

    def microphones(self) -> list[object]:
        return []

    def check_words(self, prompts: object, max_seat: int) -> None: ...
    def set_mode(self, mode: str) -> None: ...


class FlakySpeaker:
    """A table speaker that is unplugged after `fail_after` lines and back after `down_for` reopen tries."""

    playing = None

    def __init__(self, fail_after: int, down_for: int) -> None:
        self.fail_after, self.down_for = fail_after, down_for
        self.played: list[str] = []
        self.printed: list[str] = []
        self.tries = 0
        self.up = True
        self.unplugged = False

    conductor = None
    has_earpiece = False

    def show(self, line: Line) -> None:
        self.printed.append(line.text)

    def set_volume(self, gain: float) -> None: ...

    def cue_host(self, cue: str) -> bool:
        return False

    def rest(self) -> bool:
        return False

    def say(self, line: Line) -> None:
        if not self.unplugged and len(self.played) == self.fail_after:
            self.up, self.unplugged = False, True
        if not self.up:
            raise DeviceLost("table", "the device is gone")
        self.played.append(line.text)

    def heard(self) -> None:
        if not self.up:
            raise DeviceLost("table", "the device is gone")

    def reopen(self) -> bool:
        self.tries += 1
        self.up = self.tries > self.down_for
        return self.up

    def close(self) -> None: ...


class Alerts(QuietView):
    def __init__(self) -> None:
        self.alerts: list[str] = []

    def alert(self, text: str) -> None:
        self.alerts.append(text)


def test_a_lost_speaker_keeps_the_game_and_comes_back() -> None:
    scripted = host_script(demo_scenario())
    session = Session(scripted.game.setup, scripted.game.seed)
    speaker, view = FlakySpeaker(fail_after=12, down_for=3), Alerts()
    clock = [0.0]

    def sleep(s: float) -> None:
        clock[0] += s

    live = Live(session, speaker, ScriptedEar(["开始", *scripted.utterances]), view=view, retry_s=0.0,
                sleep=sleep, now=lambda: clock[0])
    assert live.run().code == 0
    assert session.game.journal == scripted.game.journal  # nothing lost, nothing repeated
    assert any("桌上的音箱断开了" in a for a in view.alerts)
    assert any("桌上的音箱回来了" in a for a in view.alerts)
    assert speaker.tries == 4 and len(speaker.played) > 100  # it played again once it was back


@pytest.mark.slow
def test_a_second_ctrl_c_while_a_line_plays_saves_and_exits(pulse: object, tmp_path: Path) -> None:
    """The night's lines are playing on the table speaker when the host presses Ctrl-C twice: the game is
    saved and ends with the resume command — not a "lost speaker"."""
    proc = start(tmp_path, "play", "--input", "text", "--table-device", "pulse:room", "--backend", "espeak",
                 "--preset", "12人预女猎白", "--seed", "3", "--cache-dir", str(tmp_path / "cache"))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("开始\n")
    proc.stdin.flush()
    shown: list[str] = []
    reader = threading.Thread(target=lambda: shown.extend(proc.stdout or []), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any("天黑" in line for line in shown):  # the night's first line is being played
        assert time.monotonic() < deadline and proc.poll() is None, "".join(shown)
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()  # it did not exit: never leave it running
    reader.join(timeout=10)
    out = "".join(shown)
    assert proc.returncode == 130, out
    assert "断开" not in out and "Traceback" not in out
    [saved] = all_games(tmp_path / "data" / "games")
    assert f"narrator resume {saved.id}" in out
