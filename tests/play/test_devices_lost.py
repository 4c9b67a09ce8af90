"""A microphone or the table's speaker disappears in the middle of a real game, on a sound server of its own:
the PulseAudio module behind the device is unloaded (`pactl unload-module`) while `narrator play` waits for
the host. The game is kept, the host is told, the host's typed words go on answering, and once the module is
loaded again the device works again. Each server has only the device under test, so PulseAudio cannot
quietly move the stream to another one (it does when there is one: that is not a lost device)."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from play_testkit import demo_scenario, words_after, words_to

from narrator.play.scripted import host_script
from narrator.play.store import all_games
from narrator.session.journal import FileStore, JournalError, load

pytestmark = [pytest.mark.slow, pytest.mark.realtime]  # a PulseAudio server of its own, not `pulse`
SCRIPTED = host_script(demo_scenario())
UNITS = [["开始", *words_to(SCRIPTED, 0)],
         *(words_to(SCRIPTED, k + 1)[len(words_to(SCRIPTED, k)):] for k in range(len(SCRIPTED.game.answers)))]
"""What the host types, answer by answer (开始 first): each answer's word with the 过s after it, where a step
asked him nothing, up to the next answer's question."""


class SoundServer:
    """A private PulseAudio daemon (no default modules: only what the test loads)."""

    def __init__(self) -> None:
        self.runtime = Path(tempfile.mkdtemp(prefix="pa-lost-", dir="/tmp"))  # short: it holds a socket
        self.env = {**os.environ, "PULSE_RUNTIME_PATH": str(self.runtime)}
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
             "--load=module-native-protocol-unix"], env=self.env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while self.pactl("info").returncode != 0:
            assert self.process.poll() is None and time.monotonic() < deadline, "PulseAudio did not start"
            time.sleep(0.1)

    def pactl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pactl", *args], capture_output=True, text=True, env=self.env, timeout=10,
                              check=False)

    def load(self, *args: str) -> str:
        done = self.pactl("load-module", *args)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def unload(self, module: str) -> None:
        assert self.pactl("unload-module", module).returncode == 0

    def record(self, source: str, seconds: float) -> np.ndarray:
        """`seconds` of `source` (float samples at 24 kHz)."""
        rec = subprocess.Popen(["parec", "-d", source, "--rate=24000", "--channels=1", "--format=float32le"],
                               stdout=subprocess.PIPE, env=self.env)
        time.sleep(seconds)
        rec.terminate()
        out, _ = rec.communicate(timeout=10)
        return np.frombuffer(out, dtype="<f4")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.runtime, ignore_errors=True)


@pytest.fixture
def games() -> Iterator[list[LiveGame]]:
    """The games a test starts; killed at its end whatever happened."""
    started: list[LiveGame] = []
    yield started
    for game in started:
        if game.proc.poll() is None:
            game.proc.kill()
            game.proc.wait(timeout=10)


@pytest.fixture
def server() -> Iterator[SoundServer]:
    if shutil.which("pulseaudio") is None:
        pytest.fail("pulseaudio not found: install the Debian packages (./dev)")
    s = SoundServer()
    yield s
    s.stop()


class LiveGame:
    """`narrator play` in a process of its own; the host types one word at a time; its console is read."""

    def __init__(self, home: Path, env: dict[str, str], *args: str) -> None:
        env = {**env, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config"),
               "PYTHONUNBUFFERED": "1"}
        self.home = home
        self.proc = subprocess.Popen([sys.executable, "-m", "narrator.cli.main", "play", "--seed",
                                      str(SCRIPTED.game.seed), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.console: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.typed = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)

    def pump(self) -> None:
        while not self._lines.empty():
            self.console.append(self._lines.get())

    def wait_for(self, text: str, timeout: float = 60, since: int = 0) -> None:
        """Until the console shows `text` (in its lines from `since` on): the console is read as it comes, after
        the journal has the answers."""
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.console[since:]):
            assert time.monotonic() < deadline, f"{text!r} never shown:\n" + "".join(self.console[-40:])
            try:
                self.console.append(self._lines.get(timeout=0.2))
            except queue.Empty:
                assert self.proc.poll() is None or not self._lines.empty(), "".join(self.console[-40:])

    def type(self, n: int) -> None:
        """The host's next `n` words, each once the judge is listening; returns when the last was accepted."""
        assert self.proc.stdin is not None
        for words in (w for unit in UNITS[self.typed:self.typed + n] for w in unit):
            self.proc.stdin.write(words + "\n")
            self.proc.stdin.flush()
        self.typed += n
        deadline = time.monotonic() + 120
        while self.accepted() < self.typed - 1:  # "开始" is not an answer
            assert self.proc.poll() is None, "".join(self.console[-40:])
            assert time.monotonic() < deadline, f"only {self.accepted()} answers accepted"
            self.pump()
            time.sleep(0.1)

    def accepted(self) -> int:
        """Answers in the game's journal (a line being written as we read is not counted yet)."""
        games = all_games(self.home / "data" / "games")
        if not games:
            return 0
        try:
            return len(load(FileStore(games[0].journal)).answers)
        except JournalError:
            return 0

    def finish(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(w + "\n" for unit in UNITS[self.typed:] for w in unit))
        self.proc.stdin.close()
        code = self.proc.wait(timeout=120)
        time.sleep(0.2)
        self.pump()
        return code

    def kill_and_resume(self, *args: str) -> int:
        """SIGKILL now, then `narrator resume` with the words after the accepted ones."""
        self.proc.kill()
        self.proc.wait(timeout=10)
        env = {**os.environ, "NARRATOR_DATA_DIR": str(self.home / "data"),
               "NARRATOR_CONFIG_DIR": str(self.home / "config")}
        games = all_games(self.home / "data" / "games")
        rest = words_after(SCRIPTED, games[0].journal.read_bytes())
        done = subprocess.run([sys.executable, "-m", "narrator.cli.main", "resume", *args],
                              input="".join(w + "\n" for w in rest), capture_output=True, text=True, env=env,
                              timeout=120, check=False)
        return done.returncode


def test_the_microphone_unplugged_mid_game_keeps_the_game_and_the_typed_words_go_on(
        server: SoundServer, games: list[LiveGame], tmp_path: Path) -> None:
    mic = server.load("module-null-source", "source_name=mic")
    game = LiveGame(tmp_path, server.env, "--input", "voice,text", "--model", "ko", "--grammar", "ko",
                    "--mic", "pulse:mic", "--table-device", "none")
    games.append(game)
    game.type(6)  # the cards dealt, the wolves seen, their kill …
    server.unload(mic)  # the microphone is pulled out while the judge waits for the host
    game.wait_for("麦克风断开了", timeout=15)
    game.type(10)  # the typed words answer meanwhile: nothing refused, nothing lost
    mic = server.load("module-null-source", "source_name=mic")
    game.wait_for("麦克风回来了", timeout=15)
    assert game.finish() == 0, "".join(game.console[-40:])
    [saved] = all_games(tmp_path / "data" / "games")
    assert saved.load().game.journal == SCRIPTED.game.journal
    console = "".join(game.console)
    assert console.count("麦克风断开了") == 1 and console.count("麦克风回来了") == 1
    assert "狼人阵营胜利" in console or "好人阵营胜利" in console


def loud_s(x: np.ndarray) -> float:
    """s of `x` above -45 dBFS, in 20 ms blocks."""
    n = len(x) // 480 * 480
    rms = np.sqrt((x[:n].reshape(-1, 480) ** 2).mean(axis=1) + 1e-12)
    return float((20 * np.log10(rms) > -45).sum() * 480 / 24000)


def test_the_table_speaker_gone_mid_game_prints_the_lines_and_plays_again_once_it_is_back(
        server: SoundServer, games: list[LiveGame], tmp_path: Path) -> None:
    room = server.load("module-null-sink", "sink_name=room")
    game = LiveGame(tmp_path, server.env, "--input", "text", "--table-device", "pulse:room", "--backend", "espeak",
                    "--rate=+150%", "--pace", "0.05", "--cache-dir", str(tmp_path / "cache"))
    games.append(game)
    game.type(3)
    assert loud_s(server.record("room.monitor", 2.0)) > 0.3  # the table hears the night
    server.unload(room)  # the speaker's cable is pulled
    game.type(4)
    game.wait_for("桌上的音箱断开了", timeout=30)
    shown = len(game.console)
    game.type(3)  # the host reads the printed lines out and answers on
    game.wait_for("🔊 ", timeout=30, since=shown)  # the table's lines are printed instead
    room = server.load("module-null-sink", "sink_name=room")
    time.sleep(2.5)  # the loop tries the device again every 2 s
    game.type(2)
    game.wait_for("桌上的音箱回来了", timeout=30)
    assert loud_s(server.record("room.monitor", 2.0)) > 0.3  # and the table hears the judge again
    # Nothing was lost on the way: the rest of the game (printed, to keep the test short) ends as simulated.
    assert game.kill_and_resume("--input", "text", "--table-device", "none") == 0
    [saved] = all_games(tmp_path / "data" / "games")
    assert saved.load().game.journal == SCRIPTED.game.journal
