"""One writer per game, readers that never write, and faults that stop rather than crash — each with a real
`narrator` process playing a scripted game (text input, lines printed):

* a second writer of a game is refused in one line naming the holder's process id;
* `games` and `recap` run in a loop while games are played: every journal ends byte-identical to the
  uninterrupted game's (issue 19: `Session.resume` used to cut back a file another process was appending to);
* a full and a read-only data folder (a small tmpfs) mid-game: the host is told, the answer is not taken,
  no half line or temporary file stays, and once the disk can be written the game goes on to the same end;
* SIGTERM and SIGHUP mid-game save, say so with the resume command, exit 143 / 129; resumed, the same game;
* Ctrl-C works at the 开始 prompt; a game is saved only once it has started; `resume` without an id names
  every newer game it skipped and why."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from play_testkit import SCENARIOS, answer_words, ctrl_c_twice, words_after, words_to

from narrator.play.scripted import host_script
from narrator.play.store import all_games
from narrator.session.journal import JournalError
from narrator.sim.scenario import Scenario

pytestmark = pytest.mark.slow
SCENARIO = Scenario.load(SCENARIOS / "010_parity_win.yaml")
SCRIPTED = host_script(SCENARIO)
WORDS = SCRIPTED.utterances
TEXT = ["--input", "text", "--table-device", "none"]
SETUP = ["--preset", "8人标准局", "--rule", "win=parity", "--seed", str(SCENARIO.seed)]


def narrator(data: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(data), "NARRATOR_CONFIG_DIR": str(data.parent / "config")}
    return subprocess.Popen([sys.executable, "-m", "narrator.cli.main", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def journal(data: Path) -> bytes:
    games = all_games(data / "games")
    return games[-1].journal.read_bytes() if games else b""


def wait_until(proc: subprocess.Popen[str], ready: object, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not ready():  # type: ignore[operator]
        assert proc.poll() is None, f"{what}: the game stopped ({proc.returncode})"
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def marked(data: Path, k: int) -> bool:
    """The question for answer k has been heard (its said mark is written)."""
    return f'{{"said": {k},'.encode() in journal(data)


def say(proc: subprocess.Popen[str], *words: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write("".join(w + "\n" for w in words))
    proc.stdin.flush()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The uninterrupted game's journal."""
    data = tmp_path_factory.mktemp("ref") / "data"
    proc = narrator(data, "play", *TEXT, *SETUP)
    _, err = proc.communicate("开始\n" + "".join(w + "\n" for w in WORDS), timeout=60)
    assert proc.returncode == 0, err
    return journal(data)  # the journal holds no clock: the same words give the same bytes


def test_a_second_writer_is_refused_naming_the_holder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = narrator(data, "play", *TEXT, *SETUP)
    say(first, "开始", *words_to(SCRIPTED, 3))
    wait_until(first, lambda: marked(data, 3), "three answers")
    [saved] = all_games(data / "games")
    second = narrator(data, "resume", saved.id, *TEXT)
    _, err = second.communicate("", timeout=60)
    assert second.returncode == 2
    assert err.count("\n") == 1 and f"pid {first.pid}" in err, err
    before = journal(data)
    say(first, *WORDS[len(words_to(SCRIPTED, 3)):])
    _, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert journal(data).startswith(before)  # the refused writer wrote nothing


def test_games_and_recap_in_a_loop_lose_nothing_over_20_games(tmp_path: Path, reference: bytes) -> None:
    """Readers run all the time (the listing's own code, `SavedGame.load`, in a thread; real `games` /
    `recap` processes over the first games) while 20 games are played; every journal ends identical to the
    reference."""
    data = tmp_path / "data"
    stop = threading.Event()
    reads = [0]
    failures: list[str] = []

    def listing() -> None:
        while not stop.is_set():
            for saved in all_games(data / "games"):
                with contextlib.suppress(JournalError):  # a game not yet written whole reads as damaged
                    saved.load()
                reads[0] += 1
            stop.wait(0.005)  # often, but leaving the games a core to play on

    def processes() -> None:  # real `games` / `recap` processes, over the first games (they cost a core)
        while not stop.is_set() and len(all_games(data / "games")) < 4:
            for command in ("games", "recap"):
                proc = narrator(data, command)
                _, err = proc.communicate(timeout=60)
                if proc.returncode not in (0, 2):
                    failures.append(err)

    threads = [threading.Thread(target=listing), threading.Thread(target=processes)]
    for t in threads:
        t.start()
    try:
        for _ in range(20):
            proc = narrator(data, "play", *TEXT, *SETUP)
            _, err = proc.communicate("开始\n" + "".join(w + "\n" for w in WORDS), timeout=60)
            assert proc.returncode == 0, err
    finally:
        stop.set()
        for t in threads:
            t.join()
    games = all_games(data / "games")
    assert len(games) == 20 and reads[0] > 100 and not failures
    lost = [g.id for g in games if g.journal.read_bytes() != reference]
    assert lost == []


@contextlib.contextmanager
def small_disk(path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs at `path` (skips where mounting is not allowed)."""
    path.mkdir(parents=True)
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(path)], capture_output=True)
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mount.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 4096)
    return filler


def test_a_full_disk_at_the_start_waits_and_leaves_no_temporary_file(tmp_path: Path, reference: bytes) -> None:
    """The disk fills up before 开始: the game cannot be saved; the host is told, nothing half-written stays
    (no meta.tmp, no journal.jsonl.new, no empty folder), and once there is room the game starts and ends
    as it would have. (A full disk under a running journal refuses an append only when it needs a new
    block; tests/test_journal.py cuts a write off mid-line to check that no half line stays.)"""
    with small_disk(tmp_path / "disk") as disk:
        data = disk / "data"
        proc = narrator(data, "play", *TEXT, *SETUP)
        wait_until(proc, lambda: (data / "games").is_dir(), "the games folder")
        filler = fill(disk)
        say(proc, "开始")
        time.sleep(1.5)  # the game tried, told the host, and waits
        assert proc.poll() is None
        assert list((data / "games").iterdir()) == []
        filler.unlink()
        say(proc, *WORDS)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert "存不了游戏" in out and "又能保存了" in out and "No space left" in out
        assert journal(data) == reference


def test_a_full_disk_mid_game_waits_and_takes_the_answer_again(tmp_path: Path, reference: bytes) -> None:
    """The disk is full but for the three blocks a new game needs (meta, lock, the journal's first block):
    the journal fills its first block at answer 13 (the reference journal crosses 4,096 bytes there). That
    answer is refused by the disk: the host is told, the journal keeps no part of it, the game waits; once
    there is room the question is asked again and the game ends as it would have."""
    crossing = next(i for i, line in enumerate(reference.split(b"\n"))
                    if len(b"\n".join(reference.split(b"\n")[: i + 1])) + 1 > 4096)
    assert reference.split(b"\n")[crossing].startswith(b'{"n": 13,')
    with small_disk(tmp_path / "disk") as disk:
        data = disk / "data"
        proc = narrator(data, "play", *TEXT, *SETUP)
        wait_until(proc, lambda: (data / "games").is_dir(), "the games folder")
        filler = fill(disk)
        os.truncate(filler, filler.stat().st_size - 3 * 4096)
        first = words_to(SCRIPTED, 13)  # the host's 过s where a step asks nothing included
        say(proc, "开始", *first)
        wait_until(proc, lambda: marked(data, 13), "thirteen answers")
        before = journal(data)
        say(proc, answer_words(SCRIPTED)[13])
        time.sleep(1.5)  # the game tried, told the host, and waits
        assert proc.poll() is None
        assert journal(data) == before  # not acknowledged, and no half line
        filler.unlink()
        say(proc, *WORDS[len(first):])  # the question is asked again: the answer again, then the rest
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert "存不了游戏" in out and "又能保存了" in out and "No space left" in out
        assert journal(data) == reference
        [saved] = all_games(data / "games")
        assert sorted(p.name for p in saved.folder.iterdir()) == [
            "game.recap.html", "game.recap.md", "journal.jsonl", "lock", "meta.json"]


def test_a_read_only_data_folder_is_one_line_and_exit_2_and_readers_still_read(tmp_path: Path) -> None:
    """(A folder turning read-only under a running game cannot be made on Linux while the journal is open
    for writing — the remount is refused as busy — so the read-only folder is tried between processes.)"""
    with small_disk(tmp_path / "disk") as disk:
        data = disk / "data"
        proc = narrator(data, "play", *TEXT, *SETUP)
        proc.communicate("开始\n" + "".join(w + "\n" for w in words_to(SCRIPTED, 3)), timeout=60)
        assert proc.returncode == 3
        [saved] = all_games(data / "games")
        files = sorted(p.name for p in saved.folder.iterdir())
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        for command in (["play", *TEXT, *SETUP], ["resume", *TEXT]):
            proc = narrator(data, *command)
            out, err = proc.communicate("开始\n", timeout=60)
            assert proc.returncode == 2 and err.count("\n") == 1, (command, out, err)
            assert str(data) in err and "Traceback" not in out + err
        for command in (["games"], ["recap"]):  # readers only read (issue 29: recap exited 2 here)
            proc = narrator(data, *command)
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0 and "Traceback" not in out + err, (command, out, err)
        assert saved.id in narrator(data, "games").communicate(timeout=60)[0]
        assert sorted(p.name for p in saved.folder.iterdir()) == files


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_save_and_the_resumed_game_is_the_same(tmp_path: Path, signum: int, code: int) -> None:
    data = tmp_path / "data"
    proc = narrator(data, "play", *TEXT, *SETUP)
    say(proc, "开始", *words_to(SCRIPTED, 8))
    wait_until(proc, lambda: marked(data, 8), "eight answers")
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    [saved] = all_games(data / "games")
    assert f"narrator resume {saved.id}" in out and "Traceback" not in err
    again = narrator(data, "resume", *TEXT)
    out, err = again.communicate("".join(w + "\n" for w in words_after(SCRIPTED, saved.journal.read_bytes())),
                                 timeout=60)
    assert again.returncode == 0, err
    assert saved.load().game.journal == SCRIPTED.game.journal


def test_ctrl_c_twice_at_the_start_word_quits_and_nothing_is_saved(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc = narrator(data, "play", *TEXT, *SETUP)
    assert proc.stdout is not None
    assert "开始" in proc.stdout.readline()  # the deal line is said; the judge waits for 开始
    out, err = ctrl_c_twice(proc, 0.3, 0.8, 30)
    assert proc.returncode == 130, err
    assert "没有保存" in out and all_games(data / "games") == []


def test_resume_without_an_id_names_the_games_it_skips(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for answers in (3, 0, 2):  # the oldest has answers; a newer one has none; the newest is damaged
        proc = narrator(data, "play", *TEXT, *SETUP)
        proc.communicate("开始\n" + "".join(w + "\n" for w in words_to(SCRIPTED, answers)), timeout=60)
        time.sleep(1.05)  # a new second: a new folder name
    oldest, empty, damaged = all_games(data / "games")
    damaged.journal.write_bytes(damaged.journal.read_bytes().replace(b'"seats": [', b'"seats": [1, ', 1))
    proc = narrator(data, "resume", *TEXT)
    _, err = proc.communicate("", timeout=60)
    assert proc.returncode == 3, err
    assert f"跳过 {damaged.id}：无法读取" in err and "checksum" in err
    assert f"跳过 {empty.id}：还没有回答" in err and f"继续最近的一局：{oldest.id}" in err
