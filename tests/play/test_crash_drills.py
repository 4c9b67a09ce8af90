"""Crash drills: a scripted game in a real `narrator play` process, killed with SIGKILL between two answers,
then `narrator resume`d with the words the host would say next. What the TABLE HEARD (every 🔊 line of
both processes, the resume's neutral "继续游戏。" aside) must be the uninterrupted game's lines, none lost, and
repeated only from the journal's last said mark on; the finished journal and winner must equal it too.

The kills are chosen for coverage, not count: one after 开始 before the first answer, and one between every
pair of answer kinds that follow each other in the game (wolves.kill → seer.identify, speech.end →
vote.exile …): half of them once the question was heard and marked, half racing the answer's write (the
kill lands between the answer and its lines, in the middle of them, or before their mark). Six more land at
random moments while the whole game streams in. Every other moment between two answers (each possible cut
of the journal) is drilled in-process in tests/test_journal.py."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from play_testkit import SCENARIOS, answer_words, words_after, words_to

from narrator.engine.game import Game
from narrator.engine.prompts import Prompt
from narrator.play.scripted import Scripted, host_script
from narrator.play.store import all_games
from narrator.session.journal import FileStore, load
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

pytestmark = pytest.mark.slow
SCENARIO = SCENARIOS / "010_parity_win.yaml"
TEXT = ["--input", "text", "--table-device", "none"]
RESUMED = "继续游戏。"


def narrator(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config")}
    return subprocess.Popen([sys.executable, "-m", "narrator.cli.main", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def table(out: str) -> list[str]:
    """The lines the table heard (printed with 🔊 under --table-device none), the resume's "继续游戏。" aside
    (where the game stands is the host's: tests/play/test_fair_resume.py)."""
    return [line[2:] for line in out.splitlines() if line.startswith("🔊 ") and line[2:] != RESUMED]


def journal_lines(home: Path) -> list[bytes]:
    games = all_games(home / "data" / "games")
    return games[0].journal.read_bytes().split(b"\n")[:-1] if games else []


def wait_for(proc: subprocess.Popen[str], home: Path, done: bytes, timeout: float = 30) -> None:
    """Until a whole line of the journal starts with `done` (polled every 2 ms: a racing kill)."""
    deadline = time.monotonic() + timeout
    while True:
        if any(line.startswith(done) for line in journal_lines(home)):
            return
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, f"the game never wrote {done!r}"
        time.sleep(0.002)


class Reference:
    """The uninterrupted game: its table lines, and where in them each answer's question ends."""

    def __init__(self, scripted: Scripted, out: str) -> None:
        self.scripted, self.lines = scripted, table(out)
        session = Session(scripted.game.setup, scripted.game.seed)
        self.before: list[int] = []  # table lines heard before question k starts (the deal line included)
        self.after: list[int] = []  # … once question k is said
        heard = 1
        for _, answer in scripted.game.answers:
            for what, lines in session.take():
                said = sum(1 for line in lines if line.to == "all")
                if isinstance(what, Prompt):
                    self.before.append(heard)
                heard += said
            self.after.append(heard)
            session.submit(answer)
        assert heard + sum(1 for line in session.take_lines() if line.to == "all") == len(self.lines)

    def resume_from(self, heard: tuple[int, bool], answers: int) -> int:
        """The table line a resume starts saying from, given the journal's heard mark: the question it
        stopped at is asked again; after a later answer, the lines after the marked question follow."""
        n, question_heard = heard
        if n < 0:  # nothing heard: the opening again (after the deal line)
            return 1
        if n == len(self.before):  # the end's mark, after the last answer: the whole game was heard
            return len(self.lines)
        if not question_heard or n == answers:
            return self.before[n]
        return self.after[n]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    scenario = Scenario.load(SCENARIO)
    scripted = host_script(scenario)
    assert len(answer_words(scripted)) == len(scripted.game.answers)  # no refused words: answer k is word k
    home = tmp_path_factory.mktemp("reference")
    proc = narrator(home, "play", *TEXT, *setup_args(scenario))
    out, err = proc.communicate("开始\n" + "".join(w + "\n" for w in scripted.utterances), timeout=60)
    assert proc.returncode == 0, err
    return Reference(scripted, out)


def setup_args(scenario: Scenario) -> list[str]:
    return ["--preset", "8人标准局", "--rule", "win=parity", "--seed", str(scenario.seed)]


def killed_then_resumed(home: Path, ref: Reference, proc: subprocess.Popen[str]) -> Game:
    """SIGKILL now; then resume with the words after the accepted ones, and check what the table heard."""
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate()
    before = table(out)
    words = ref.scripted.utterances
    assert before == ref.lines[: len(before)]  # the killed game said the game's lines, in order
    if not journal_lines(home):  # killed before 开始 was heard: nothing saved, the game starts anew
        proc = narrator(home, "play", *TEXT, *setup_args(Scenario.load(SCENARIO)))
        out, err = proc.communicate("开始\n" + "".join(w + "\n" for w in words), timeout=60)
        assert proc.returncode == 0, err
        assert table(out) == ref.lines
        return all_games(home / "data" / "games")[0].load().game
    [saved] = all_games(home / "data" / "games")
    loaded = load(FileStore(saved.journal, writable=False))
    n = len(loaded.answers)
    assert loaded.heard is not None
    start = ref.resume_from(loaded.heard, n)
    assert start <= len(before), "the journal marks lines heard that never left the speaker"
    if n == len(ref.scripted.game.answers):
        return saved.load().game
    proc = narrator(home, "resume", saved.id, *TEXT)  # by id: without one, a game with no answer is skipped
    rest = words_after(ref.scripted, saved.journal.read_bytes())
    out, err = proc.communicate("".join(w + "\n" for w in rest), timeout=60)
    assert proc.returncode == 0, err
    assert table(out) == ref.lines[start:], f"killed after {n} answers, heard {loaded.heard}"
    return saved.load().game


def moments(ref: Reference) -> list[int]:
    """0 (after 开始, before the first answer), then the first k between each new pair of answer kinds."""
    kinds = [kind for kind, _ in ref.scripted.game.answers]
    pairs: dict[tuple[str, str], int] = {}
    for k in range(1, len(kinds)):
        pairs.setdefault((kinds[k - 1], kinds[k]), k)
    return [0, *pairs.values()]


def test_sigkill_between_every_pair_of_answer_kinds_then_resume(tmp_path: Path, reference: Reference) -> None:
    scenario = Scenario.load(SCENARIO)
    for i, k in enumerate(moments(reference)):
        home = tmp_path / f"k{k}"
        proc = narrator(home, "play", *TEXT, *setup_args(scenario))
        assert proc.stdin is not None
        proc.stdin.write("开始\n" + "".join(w + "\n" for w in words_to(reference.scripted, k)))
        proc.stdin.flush()
        if i % 2 == 0 or k == 0:  # the question is heard and marked: the judge waits for the host
            wait_for(proc, home, b'{"said": %d,' % k)
        else:  # racing: answer k-1 is just written; its lines may be anywhere on the way out
            wait_for(proc, home, b'{"n": %d,' % (k - 1))
        game = killed_then_resumed(home, reference, proc)
        assert game.journal == reference.scripted.game.journal, f"killed after {k} answers"
        assert game.winner == reference.scripted.game.winner


def test_sigkill_at_random_moments_while_answers_stream_in(tmp_path: Path, reference: Reference) -> None:
    """The whole game is piped at once; the kill lands anywhere, often inside a journal write."""
    scenario = Scenario.load(SCENARIO)
    words = reference.scripted.utterances
    rng = random.Random(9)
    for trial in range(6):
        home = tmp_path / f"t{trial}"
        proc = narrator(home, "play", *TEXT, *setup_args(scenario))
        assert proc.stdin is not None
        proc.stdin.write("开始\n" + "".join(w + "\n" for w in words))
        proc.stdin.flush()
        wait_for(proc, home, b"{")
        time.sleep(rng.uniform(0.0, 0.08))
        game = killed_then_resumed(home, reference, proc)
        assert game.journal == reference.scripted.game.journal, f"trial {trial}"


def test_a_torn_last_line_is_dropped_and_its_question_asked_again(tmp_path: Path, reference: Reference) -> None:
    """What a kill in the middle of an append leaves: half a line. The answer was never confirmed."""
    scenario = Scenario.load(SCENARIO)
    home = tmp_path / "torn"
    proc = narrator(home, "play", *TEXT, *setup_args(scenario))
    proc.communicate("开始\n" + "".join(w + "\n" for w in words_to(reference.scripted, 4)), timeout=60)
    [saved] = all_games(home / "data" / "games")
    lines = saved.journal.read_bytes().split(b"\n")[:-1]
    answer = next(i for i in reversed(range(len(lines))) if lines[i].startswith(b'{"n": 3,'))
    saved.journal.write_bytes(b"".join(x + b"\n" for x in lines[:answer]) + lines[answer][:-9])
    resumed = narrator(home, "resume", *TEXT)
    out, err = resumed.communicate("".join(w + "\n" for w in words_after(reference.scripted,
                                                                             saved.journal.read_bytes())), timeout=60)
    assert resumed.returncode == 0, err
    assert "cut short" in err
    assert table(out) == reference.lines[reference.before[3]:]
    assert saved.load().game.journal == reference.scripted.game.journal
