"""`narrator serve` by voice alone through the room (roomkit.Room, no echo cancellation): the session of
tests/serve/test_serve_session.py with no typed input (standard input is closed). The real `serve --input
voice --model ko --grammar ko` process (espeak-ng judge, the real microphone adapter and Vosk decoder) and a
scripted Korean host in the room (roomgame.py: he speaks once the judge's line has been played, answers every
read-back, ends each speech with 法官，过).

What runs: power-on → 开始新游戏 → 关机 → 确认; and a game cut off in its first night → 继续 (the game goes
on) → SIGKILL → power-on → 不 (kept as abandoned) → 关机 → 确认. The whole session of issue 28 — the ready
line → 开始新游戏 → 十二个 (read back: "十二个人，对吗？" → 确认; a count read wrong is corrected by saying the
right one) → 狼王守卫 (a modern board) → 改规则 → 不要警长 (one rule changed) → 开始 → a whole game (SESSION_GAME)
→ the recap → 再来一局 → 开始 → the second game's first night → SIGKILL → serve again → 继续 → that game to
its end → 结束 → 关机 → 确认, by voice alone, both journals equal to the same games under `simulate` — runs
only with NARRATOR_ROOM_GAME=1 (NOT_YET says why; docs/benchmarks.md how often it gets through)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from roomgame import (
    ASKED_S,
    HEARD_S,
    READ_BACK,
    GameRun,
    Listening,
    answers_in,
    game_progress,
    judge_started,
    live,
    passes_taken,
    play_steps,
    say,
)
from roomkit import Room

from narrator.judge.presets import make_setup
from narrator.listen.grammar import load_pack
from narrator.play.scripted import Scripted, host_script
from narrator.play.store import all_games, save_game
from narrator.session.session import Session
from narrator.sim.scenario import Run, Scenario

pytestmark = pytest.mark.slow

SEED = 4242
GAME = {
    "title": "好人胜：首夜女巫毒一狼，白天放逐一狼，次夜猎人带走最后一狼",
    "preset": "9人预女猎",
    "seats": ["狼人", "村民", "预言家", "狼人", "女巫", "村民", "猎人", "狼人", "村民"],
    "answers": [["wolves.kill", "二号"], ["witch.save", "不救"], ["witch.poison", "一号"], ["seer.check", "五号"],
                ["sheriff.run", "没有"], ["vote.exile", "四号出局"], ["wolves.kill", "七号"], ["witch.save", "不救"],
                ["seer.check", "八号"], ["hunter.shoot", "八号"]],
}
"""A short game (two nights, one day) in words the Korean host can say: the lobby's 9人预女猎, its own rules."""
SESSION_GAME = {
    "title": "狼人胜（屠边）：首夜刀三号、毒五号，白天放逐十号，次夜刀十一号",
    "preset": "12人狼王守卫",
    "rules": {"sheriff": False},
    "seats": ["狼王", "守卫", "村民", "狼人", "村民", "狼人", "女巫", "预言家", "猎人", "村民", "村民", "狼人"],
    "answers": [["guard.protect", "十二号"], ["wolves.kill", "三号"], ["witch.save", "不救"],
                ["witch.poison", "五号"], ["seer.check", "一号"], ["vote.exile", "十号出局"], ["guard.protect", "四号"],
                ["wolves.kill", "十一号"], ["witch.save", "不救"], ["seer.check", "四号"]],
}
"""The whole session's game: 12人狼王守卫 (a modern board) without a sheriff (the one rule changed in the lobby),
two nights and a day. The seats are placed so that the answers of several seats (the wolves' identification)
name the seats the stand-in reads best (一号 四号 六号 十二号: docs/benchmarks.md, the stand-in's words through
the room); the ones it reads worst (二号 七号 八号 九号) are one-seat identifications, which converge one seat
at a time."""
NIGHT_ONE = 3
"""The second game's answers before the power cut: into the first night (the guard's and the wolves'
identifications and the guard's protection taken; the 狼王's identification is being asked)."""
PACK = load_pack("ko")
NOT_YET = ("NARRATOR_ROOM_GAME=1: an opt-in benchmark — two 12-player games by voice through the room take half an "
           "hour or more (passed end to end in 29 min at load 10–16, 0 wrong answers taken: docs/benchmarks.md)")
TRIES = 6
LOBBY_QUIET_S = 1.2
"""s of the judge's silence before the host answers the lobby."""
"""Times the host says a lobby answer before the test gives up."""


def game(seed: int, data: Mapping[str, object] = GAME) -> Scenario:
    return Scenario.from_dict({**data, "seed": seed}, name=f"room-serve-{seed}")


def lobby(run: GameRun, ears: Listening, words: str, then: str) -> None:
    """Say the lobby answer `words` until the judge says what comes after it (`then`). A read-back of what he
    said gets 确认; one of something else gets his words again — the correction (the lobby reads back the
    new reading in its turn); a choice he did not make, taken all the same, fails the test."""
    for _ in range(TRIES):
        judge_started(run, run.printed[-1][0])  # the last line printed has started playing
        ears.wait_quiet(LOBBY_QUIET_S, timeout_s=120)
        seen = len(run.printed)

        def taken(seen: int = seen) -> bool:
            return any(then in line for _, line in run.printed[seen:])

        say(run, "lobby", words, PACK)
        deadline = time.monotonic() + HEARD_S
        while not taken() and time.monotonic() < deadline:
            asked = [(t, line) for t, line in run.printed[seen:] if READ_BACK in line]
            if asked:
                seen = len(run.printed)
                judge_started(run, asked[-1][0])
                ears.wait_quiet(LOBBY_QUIET_S, timeout_s=60)
                run.read_backs += 1
                right = words in asked[-1][1] or (words in READ_BACK_SAID and READ_BACK_SAID[words] in asked[-1][1])
                say(run, "repair" if right else "correction", "确认" if right else words, PACK)
                deadline = time.monotonic() + HEARD_S
            time.sleep(0.1)
        if taken():
            return
    raise AssertionError(f"the lobby never took {words!r}")


def corrections(run: GameRun) -> int:
    """The lobby's read-backs of something else, answered by saying the right words again."""
    return sum(1 for said in run.host_log if said.startswith("host [correction]"))


READ_BACK_SAID = {"不": "不继续", "再来一局": "再来一局", "不要警长": "没有警长"}
"""What the lobby's read-back of the host's words says where it is not the words themselves."""


def heard(run: GameRun, text: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not any(text in line for _, line in run.printed):
        assert time.monotonic() < deadline, f"the judge never said {text!r}"
        time.sleep(0.1)


def a_game(run: GameRun, ears: Listening, done: threading.Event, script: Scripted, index: int,
           upto: int | None = None) -> None:
    """`script`'s steps from the lobby's 开始 (the `index`-th game of the data folder), up to `upto` answers."""
    steps = [("start", "开始"), *zip(script.kinds, script.utterances, strict=True)][:None if upto is None else upto + 1]
    play_steps(run, ears, done, steps, game_progress(run, index, since=len(run.printed)), passes=True,
               asked_s=ASKED_S)


def serve(room: Room, tmp: Path, scenario: Scenario, host: Callable[[GameRun, Listening, threading.Event], None],
          *args: str, timeout_s: float = 900, earpiece: bool = True) -> GameRun:
    """`narrator serve` by voice in the room; `earpiece=False`: the host's lines on the console (printed), where
    the scripted host reads the read-backs of the night's secret steps."""
    run = GameRun(scenario, host_script(scenario), Run(scenario).execute(), tmp / "data")
    return live(run, room, tmp, ["serve", "--no-web", *args], pace=0.1, host=host, timeout_s=timeout_s,
                earpiece=earpiece)


def ended(run: GameRun, code: int) -> None:
    """The host got through his words, and serve ended with `code` (0: 关机; -9: the power cut, SIGKILL)."""
    assert run.failure is None, f"{run.failure}{run.context()}"
    assert run.returncode == code, run.context()


@pytest.mark.parametrize("room", [None], indirect=True)
def test_power_on_the_lobby_and_shutdown_by_voice(room: Room, tmp_path: Path) -> None:
    """What the Korean stand-in reads in the room today: the ready line → 开始新游戏 → 关机 → its read-back →
    确认. In a room without echo cancellation the lobby's ear must be deaf to the judge's own lines."""

    def host(run: GameRun, ears: Listening, done: threading.Event) -> None:
        heard(run, "法官准备好了")
        lobby(run, ears, "开始新游戏", "几个人玩")
        lobby(run, ears, "关机", "再见")

    run = serve(room, tmp_path, game(SEED), host)
    ended(run, 0)
    print(f"power-on to 关机 took {run.seconds:.0f} s by voice")
    said = [line for _, line in run.printed if line.startswith("🔊")]
    assert said == ["🔊 法官准备好了。要开始，请说：法官，开始新游戏。", "🔊 几个人玩？", "🔊 关机，对吗？",
                    "🔊 法官关机了，再见。"], run.context()  # nothing the judge said was taken for an answer
    assert "lobby: new_game → players" in run.stderr and "lobby action: shutdown" in run.stderr
    assert all_games(tmp_path / "data" / "games") == []


@pytest.mark.parametrize("room", [None], indirect=True)
def test_a_game_cut_off_is_continued_then_dropped_by_voice(room: Room, tmp_path: Path) -> None:
    """The recovery by voice: a 9人预女猎 game cut off in its first night (saved before its first answer, as
    the lobby's 开始 leaves it) → power-on: 上一局还没结束…继续吗？ → 继续 → the table hears 继续游戏 (where it
    is: the earpiece) and its question again → the power is cut (SIGKILL) → power-on → 不 (kept as abandoned) →
    关机 → 确认."""
    session = Session(make_setup(str(GAME["preset"])), SEED, lang="zh-Hans")
    save_game(session, str(GAME["preset"]), {}, tmp_path / "data" / "games")
    session.close()

    def go_on(run: GameRun, ears: Listening, done: threading.Event) -> None:
        heard(run, "上一局还没结束")
        lobby(run, ears, "继续", "继续游戏")
        heard(run, "你们今晚要杀谁")  # the first night goes on: the wolves are asked (their seats, in the earpiece)
        run.cut_power_when_done = True

    started = time.monotonic()
    run = serve(room, tmp_path, game(SEED), go_on)
    ended(run, -9)  # SIGKILL

    def drop_and_shut_down(run: GameRun, ears: Listening, done: threading.Event) -> None:
        heard(run, "上一局还没结束")
        lobby(run, ears, "不", "不再继续")
        lobby(run, ears, "关机", "再见")

    last = serve(room, tmp_path, game(SEED), drop_and_shut_down)
    ended(last, 0)
    print(f"continued, cut off, dropped and shut down in {time.monotonic() - started:.0f} s by voice")
    table = "".join(line for _, line in run.printed)  # the table's lines (the host's go to his earpiece)
    assert "🔊 继续游戏。" in table and "第一夜" not in table  # where it stopped is the host's (issue 29)
    assert "lobby action: resume" in run.stderr and "lobby action: abandon" in last.stderr
    [kept] = all_games(tmp_path / "data" / "games")
    assert kept.abandoned and not kept.load().over and answers_in(run.data) == []


@pytest.mark.skipif(os.environ.get("NARRATOR_ROOM_GAME") != "1", reason=NOT_YET)
@pytest.mark.timeout(2 * 3600)  # two serve runs of up to an hour each; pyproject's 30 min is less than one session
@pytest.mark.parametrize("room", [None], indirect=True)
def test_the_whole_session_by_voice_through_the_room(room: Room, tmp_path: Path) -> None:
    first, second = game(SEED, SESSION_GAME), game(SEED + 1, SESSION_GAME)
    board = "狼王守卫"
    started = time.monotonic()
    marks: list[tuple[str, float]] = []

    def mark(what: str) -> None:
        marks.append((what, time.monotonic() - started))

    def before_the_cut(run: GameRun, ears: Listening, done: threading.Event) -> None:
        heard(run, "法官准备好了")
        lobby(run, ears, "开始新游戏", "几个人玩")
        lobby(run, ears, "十二个", "十二人可以玩")
        lobby(run, ears, board, "要改规则")
        lobby(run, ears, "改规则", "请说要改的规则")
        lobby(run, ears, "不要警长", "记下了：没有警长")
        mark("lobby")
        a_game(run, ears, done, run.scripted, 0)
        heard(run, "复盘", timeout_s=ASKED_S)  # after the last answer: the steps left, each with its fair wait
        mark("first game")
        lobby(run, ears, "再来一局", "要改规则")
        a_game(run, ears, done, host_script(second), 1, upto=NIGHT_ONE)
        mark("second game, first night")
        run.cut_power_when_done = True

    run = serve(room, tmp_path, first, before_the_cut, "--seed", str(SEED), timeout_s=3600, earpiece=False)
    print(f"marks: {marks}; read-backs {run.read_backs}, lobby corrections {corrections(run)}; tries {run.tries}")
    ended(run, -9)
    games = all_games(tmp_path / "data" / "games")
    assert len(games) == 2, run.context()
    played = games[0].load()
    assert games[0].meta()["preset"] == SESSION_GAME["preset"], run.context()  # the board chosen by voice
    assert not played.setup.rules.sheriff, run.context()  # the rule changed by voice
    assert played.game.journal == run.scripted.game.journal, run.context()
    assert len(answers_in(run.data, 1)) == NIGHT_ONE, run.context()

    def after_the_cut(run: GameRun, ears: Listening, done: threading.Event) -> None:
        heard(run, "上一局还没结束")
        lobby(run, ears, "继续", "继续游戏")
        script = run.scripted
        steps = list(zip(script.kinds, script.utterances, strict=True))
        # the steps done since the cut: its answers, and each 过 taken where a step asked nothing (not journaled)
        play_steps(run, ears, done, steps[NIGHT_ONE:], lambda: len(answers_in(run.data, 1)) - NIGHT_ONE
                   + passes_taken([line for _, line in run.printed]), passes=True, asked_s=ASKED_S)
        heard(run, "复盘", timeout_s=ASKED_S)  # after the last answer: the steps left, each with its fair wait
        mark("second game")
        lobby(run, ears, "结束", "这次就到这里")
        lobby(run, ears, "关机", "再见")

    again = serve(room, tmp_path, second, after_the_cut, timeout_s=3600, earpiece=False)
    print(f"marks: {marks}; read-backs {again.read_backs}, lobby corrections {corrections(again)}; "
          f"tries {again.tries}")
    ended(again, 0)
    print(f"the session took {time.monotonic() - started:.0f} s by voice")
    resumed = all_games(tmp_path / "data" / "games")[1].load()
    assert resumed.over and resumed.game.journal == again.scripted.game.journal, again.context()
