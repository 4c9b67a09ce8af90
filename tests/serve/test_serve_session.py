"""`narrator serve` by typed text, as a table uses it: power-on → the lobby → a 9-player game to the end →
the recap → 再来一局 → the second game's first night → the power is cut (SIGKILL) → serve again → 继续 → the
game ends → 关机. Both journals equal the same games played by the scenario runner (`simulate`)."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from narrator.play.scripted import host_script
from narrator.play.store import all_games
from narrator.session.journal import FileStore, load
from narrator.sim.scenario import Scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
TEXT = ["--input", "text", "--table-device", "none", "--no-web"]
SEED = 4242


def serve(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config")}
    return subprocess.Popen([sys.executable, "-m", "narrator.cli.main", "serve", *TEXT, *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def scenario(name: str, seed: int) -> Scenario:
    return dataclasses.replace(Scenario.load(SCENARIOS / name), seed=seed)


def answers_in(path: Path) -> int:
    return len(load(FileStore(path)).answers) if path.exists() else -1


def test_two_games_a_power_cut_and_the_recovery(tmp_path: Path) -> None:
    first = host_script(scenario("011_wolf_kill_first_wolves_win.yaml", SEED))
    second = host_script(scenario("014_seer_sees_camp.yaml", SEED + 1))
    night_one = 3  # three answers into the first night: the witch is being asked
    lobby = ["开始新游戏", "九个", "预女猎", "开始"]
    proc = serve(tmp_path, "--seed", str(SEED))
    assert proc.stdin is not None
    proc.stdin.write("\n".join([*lobby, *first.utterances, "再来一局", "开始", *second.utterances[:night_one]]) + "\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while True:
        games = all_games(tmp_path / "data" / "games")
        if len(games) == 2 and answers_in(games[1].journal) == night_one:
            break
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the second game never reached its first night's answers"
        time.sleep(0.02)
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate()
    assert "复盘：狼人阵营胜利。" in out  # the spoken recap in short, after the first game
    assert "started: 9人预女猎, 9 players" in err
    assert "狼人" not in err and "七号" not in err, "the log never holds a card or an answer"
    first_game, second_game = all_games(tmp_path / "data" / "games")
    assert first_game.load().game.journal == first.game.journal

    again = serve(tmp_path)
    out, err = again.communicate("\n".join(["继续", *second.utterances[night_one:], "结束", "关机", "确认"]) + "\n",
                                 timeout=60)
    assert again.returncode == 0, err
    assert "上一局停在第一夜，正在女巫的回合。" in out and "上一局还没结束。继续吗？" in out  # where: the host's
    assert "继续游戏：第一夜，正在女巫的回合。" in out  # as `narrator resume` tells the host
    assert "🔊 继续游戏。" in out and "🔊 上一局停在" not in out and "🔊 继续游戏：" not in out
    assert "关机，对吗？" in out and "法官关机了，再见。" in out
    resumed = second_game.load()
    assert resumed.over and resumed.game.journal == second.game.journal
    assert resumed.winner == second.game.winner


def test_a_game_not_continued_is_kept_as_abandoned(tmp_path: Path) -> None:
    words = host_script(scenario("014_seer_sees_camp.yaml", SEED)).utterances
    proc = serve(tmp_path, "--seed", str(SEED))
    proc.communicate("\n".join(["开始新游戏", "九个", "预女猎", "开始", *words[:2]]) + "\n", timeout=60)
    assert proc.returncode == 3  # the typed input ran out mid-game: saved
    again = serve(tmp_path)
    out, err = again.communicate("不\n", timeout=60)
    assert "上一局还没结束" in out and "好的，上一局不再继续" in out, f"exit {again.returncode}: {err}"
    [saved] = all_games(tmp_path / "data" / "games")
    assert saved.abandoned and not saved.load().over
    env = {**os.environ, "NARRATOR_DATA_DIR": str(tmp_path / "data"), "NARRATOR_CONFIG_DIR": str(tmp_path / "config")}
    listed = subprocess.run([sys.executable, "-m", "narrator.cli.main", "games"], capture_output=True, text=True,
                            env=env, check=True)
    assert "已放弃" in listed.stdout and saved.id in listed.stdout
    third = serve(tmp_path)
    out, _ = third.communicate("", timeout=60)
    assert "上一局还没结束" not in out and "法官准备好了" in out  # never offered again


def test_volume_and_pace_are_kept_in_the_config(tmp_path: Path) -> None:
    import tomllib

    proc = serve(tmp_path)
    out, err = proc.communicate("大声点\n大声点\n慢一点\n小声点\n", timeout=60)
    assert proc.returncode == 3, err  # the typed input ran out at the lobby
    assert "好的，大声一点。" in out and "好的，慢一点。" in out and "好的，小声一点。" in out
    voice = tomllib.loads((tmp_path / "config" / "config.toml").read_text(encoding="utf-8"))["voice"]
    assert (voice["volume"], voice["pace"]) == ("3", "1.2")
    again = serve(tmp_path)
    again.communicate("快一点\n", timeout=60)  # the next power-on starts from what was kept
    voice = tomllib.loads((tmp_path / "config" / "config.toml").read_text(encoding="utf-8"))["voice"]
    assert (voice["volume"], voice["pace"]) == ("3", "1")


def test_another_game_after_a_resumed_one(tmp_path: Path) -> None:
    """再来一局 (and 好了) after a game resumed at power-on: the game's own board and rules are dealt again —
    the lobby never stood at that board (it was chosen before the power cut), and it once died here."""
    words = host_script(scenario("014_seer_sees_camp.yaml", SEED)).utterances
    proc = serve(tmp_path, "--seed", str(SEED))
    proc.communicate("\n".join(["开始新游戏", "九个", "预女猎", "改规则", "不要警长", "好了", "开始", *words[:2]])
                     + "\n", timeout=60)
    assert proc.returncode == 3
    again = serve(tmp_path, "--seed", str(SEED))
    out, err = again.communicate("\n".join(["继续", *words[2:], "好了", "再来一局", "开始"]) + "\n", timeout=60)
    assert again.returncode == 3, err  # the typed input ran out in the next game's first night
    assert "现在可以说：再来一局、换板子、再说一遍复盘、结束。" in out  # 好了 is no answer after a game
    assert "lobby: again → ready" in err and "started: 9人预女猎, 9 players, 1 rule changes" in err


def test_the_lobby_and_the_last_recap_outlive_a_power_cut(tmp_path: Path) -> None:
    """The power is cut while the table chooses its next game: the next power-on takes the lobby up where it
    stood (the board chosen, its question again), and 上一局复盘 says the last game's recap; after 关机 the
    next power-on starts afresh."""
    first = host_script(scenario("011_wolf_kill_first_wolves_win.yaml", SEED))
    proc = serve(tmp_path, "--seed", str(SEED))
    assert proc.stdin is not None
    proc.stdin.write("\n".join(["开始新游戏", "九个", "预女猎", "开始", *first.utterances, "换板子", "十二个",
                                "预女猎白", "改规则", "不要警长"]) + "\n")
    proc.stdin.flush()
    kept = tmp_path / "data" / "lobby.json"
    deadline = time.monotonic() + 60
    while '"rules": ["sheriff.false"]' not in (kept.read_text(encoding="utf-8") if kept.exists() else ""):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the lobby never reached the rule change"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    again = serve(tmp_path)
    out, err = again.communicate("\n".join(["上一局复盘", "现在在干什么", "好了", "关机", "确认"]) + "\n", timeout=60)
    assert again.returncode == 0, err
    said = [x.removeprefix("🔊 ") for x in out.splitlines() if x.startswith("🔊")]
    assert said[0] == "法官回来了，接着刚才的。" and said[1].startswith("请说要改的规则")
    assert said[2].startswith("复盘：狼人阵营胜利。")
    assert "准备开始：十二人，预女猎白。" in said and "改过的规则：没有警长。" in said
    assert any(x.startswith("本局十二人：") for x in said)  # 好了: the deal of the board kept
    third = serve(tmp_path)
    out, _ = third.communicate("", timeout=60)
    assert "法官准备好了" in out and "接着刚才的" not in out  # 关机 was asked for: afresh
