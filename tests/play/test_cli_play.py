"""`narrator play | resume | games | recap` through typer's CliRunner: options, their errors, and whole
games piped in as text (`--input text --table-device none`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from play_testkit import demo_scenario, simplified_only
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.common.zh import to_hant
from narrator.judge.host_words import ACK
from narrator.play.scripted import host_script
from narrator.play.store import all_games, recoverable

TEXT = ["--input", "text", "--table-device", "none"]


def invoke(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=input)
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def demo_words() -> tuple[list[str], object]:
    scripted = host_script(demo_scenario())
    return ["开始", *scripted.utterances], scripted.game


def demo_kinds() -> list[str]:
    """The prompt kind each of demo_words()'s words answers ("" for 开始; `host.pass`: the host's 过 where a
    step asks him nothing)."""
    return ["", *host_script(demo_scenario()).kinds]


def after_answers(n: int) -> int:
    """How many of demo_words()'s words (开始 first) give the game its first n - 1 answers: the 过s where a
    step asks nothing are no answers."""
    kinds = demo_kinds()
    return [i for i, kind in enumerate(kinds) if kind != ACK][n]


@pytest.mark.parametrize(("args", "says"), [
    (["--preset", "13人神仙局"], "没有叫 13人神仙局 的板子"),
    (["--rule", "no_such_rule=1"], "未知的房规开关 'no_such_rule'"),
    (["--rule", "witch_self_save=sometimes"], "witch_self_save 只能是 never / first_night / always"),
    (["--rule", "sheriff"], "key=value"),
    (["--rule", "speech_seconds=-5"], "房规 speech_seconds 要在0到600之间（0：不限时），不是 -5"),
    (["--rule", "speech_seconds=99999999999999999999"], "要在0到600之间（0：不限时），不是 99999999999999999999"),
    (["--rule", "night_order=5"], "房规 night_order 要写成名字的列表（逗号分隔）"),
    (["--rule", "new_moon=5"], "房规 new_moon 要写成名字的列表（逗号分隔）"),
    (["--rule", "night_order=foo"], "夜晚顺序里有未知的步骤：foo；可用（逗号分隔，按顺序）：thief, cupid"),
    (["--input", "text", "--table-device", "none", "--cache-dir", "/dev/null"], "cannot write the voice cache"),
    (["--input", "voice", "--table-device", "none", "--model", "/nonexistent"], "not a Vosk model folder"),
    (["--roles", "狼人*4,村民*4"], "需要一张预言家牌"),
    (["--roles", "狼人*2,预言家,村民*2"], "玩家人数必须在8到18人之间"),
    (["--roles", "狼人*3,独角兽,预言家,村民*4"], "不认识的身份牌：独角兽"),
    (["--roles", "狼人*3,预言家*2,村民*4"], "预言家只能有一张"),
    (["--roles", "狼人**3"], "看不懂"),
    (["--preset", "12人预女猎白", "--roles", "狼人*4"], "只能选一个"),
    (["--players", "7"], "玩家人数必须在8到18人之间，现在是7人"),
    (["--players", "19"], "玩家人数必须在8到18人之间，现在是19人"),
    (["--roles", "狼人*4,村民*4,预言家,女巫,猎人,白痴", "--players", "0"], "玩家人数必须在8到18人之间，现在是0人"),
    (["--preset", "12人预女猎白", "--players", "10"], "是12人局，不是10人"),
    (["--input", "telepathy"], "unknown input telepathy"),
    (["--input", "text", "--table-device", "no-such-speaker-xyz"], "speaker: no device 'no-such-speaker-xyz'"),
    (["--input", "text", "--table-device", "none", "--host-device", "pulse:no_such_sink"], "no_such_sink"),
    ([*TEXT, "--grammar", "missing.yaml"], "--grammar missing.yaml: cannot read the grammar missing.yaml"),
    ([*TEXT, "--grammar", "nope"], "cannot read the grammar"),
    ([*TEXT, "--read-back", "sometimes"], "--read-back sometimes: choose one of always, irreversible, doubt"),
])
def test_play_refuses_what_cannot_start(home: Path, args: list[str], says: str) -> None:
    code, out = invoke("play", *args)
    assert code == 2, out
    assert says in out and len(out.strip().splitlines()) == 1, out
    assert all_games() == []  # nothing was started


def test_a_config_file_with_a_byte_order_mark_is_read(home: Path) -> None:
    """Windows editors (Notepad) save UTF-8 with a BOM: the config is read as if it had none."""
    from narrator.play.config import Config

    path = home / "config" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xef\xbb\xbf" + b'[audio]\ntable = "none"\n')
    assert Config.load(path).audio.table == "none"


def test_voice_input_without_the_listening_model_says_the_fix(home: Path) -> None:
    code, out = invoke("play", "--input", "voice", "--table-device", "none", "--mic", "default")
    assert code == 2
    assert "--input text" in out or "narrator model install" in out


def test_a_piped_game_plays_to_the_recap_and_equals_simulate(home: Path) -> None:
    words, game = demo_words()
    code, out = invoke("play", *TEXT, "--seed", "2026", input="\n".join(words) + "\n")
    assert code == 0, out
    assert "本局十二人：四狼人，四村民，预言家，女巫，猎人，白痴。请洗牌发牌，准备好了说开始。" in out
    assert "好人阵营胜利" in out
    [saved] = all_games()
    session = saved.load()
    assert session.over and session.winner == game.winner  # type: ignore[attr-defined]
    assert session.game.journal == game.journal  # type: ignore[attr-defined]
    assert session.answers == game.answers  # type: ignore[attr-defined]
    page = saved.folder / "game.recap.html"
    assert page.exists() and "<svg" in page.read_text(encoding="utf-8")
    assert "票型" in (saved.folder / "game.recap.md").read_text(encoding="utf-8")


def test_input_that_ends_early_is_saved_and_resumes_where_it_stopped(home: Path) -> None:
    words, game = demo_words()
    cut = after_answers(41)  # into day 2's speeches
    code, out = invoke("play", *TEXT, "--seed", "2026", input="\n".join(words[:cut]) + "\n")
    assert code == 3
    [saved] = all_games()
    assert f"narrator resume {saved.id}" in out
    code, listing = invoke("games")
    assert code == 0 and "12人预女猎白" in listing and "第二天白天" in listing
    code, out = invoke("resume", *TEXT, input="\n".join(words[cut:]) + "\n")
    assert code == 0, out
    assert "继续游戏：第二天白天，正在十二号发言。" in out
    assert saved.load().game.journal == game.journal  # type: ignore[attr-defined]
    code, listing = invoke("games")
    assert "已结束" in listing and "好人阵营" in listing
    code, out = invoke("resume", saved.id, *TEXT)
    assert code == 2 and "已经结束" in out


def test_undo_repeat_and_refusals_in_text(home: Path) -> None:
    """A wrong answer taken back with 撤销 leaves the game as if it had never been said."""
    words, game = demo_words()
    wolves_kill = words.index("七号")  # night 1, the wolves' victim
    noisy = [*words[:wolves_kill], "十三号", "八号", "撤销", "重复", *words[wolves_kill:]]
    code, out = invoke("play", *TEXT, "--seed", "2026", input="\n".join(noisy) + "\n")
    assert code == 0, out
    assert "本局只有十二名玩家，没有十三号。" in out
    [saved] = all_games()
    assert saved.load().game.journal == game.journal  # type: ignore[attr-defined]


def test_repeat_before_the_start_says_the_cards_again_and_nothing_else_starts_the_game(home: Path) -> None:
    """重复 while the cards are dealt says the cards line again; 撤销 there (nothing to take back) is not 开始."""
    words, game = demo_words()
    code, out = invoke("play", *TEXT, "--seed", "2026", input="\n".join(["重复", "撤销", *words]) + "\n")
    assert code == 0, out
    cards = [line for line in out.splitlines() if "本局十二人：四狼人，四村民，预言家，女巫，猎人，白痴。" in line]
    assert len(cards) == 2 and all(line.startswith("🔊") for line in cards), cards
    assert "准备好了请说开始。" in out  # 撤销 is no start word
    [saved] = all_games()
    assert saved.load().game.journal == game.journal  # type: ignore[attr-defined]


def test_rules_and_natural_host_words_at_every_prompt(home: Path) -> None:
    """规则 … is answered where it is asked — to the table before the start and by day, to the host alone at
    night — and changes nothing; 没有人退水 is an answer, 五号退水 during the speeches gets the hint."""
    words, game = demo_words()
    kill, withdraw = words.index("七号"), words.index("没有")
    first_speech = next(i for i, kind in enumerate(demo_kinds()) if kind == "speech.end")
    assert words[first_speech - 1] == "三号 五号 八号"  # the election's first speech
    noisy = ["规则 女巫", *words[:kill], "规则 女巫", *words[kill:first_speech], "五号退水",
             *words[first_speech:withdraw], "规则 警长", "没有人退水", *words[withdraw + 1:]]
    code, out = invoke("play", *TEXT, "--seed", "2026", input="\n".join(noisy) + "\n")
    assert code == 0, out
    witch = "女巫有一瓶解药和一瓶毒药，每种整局只能用一次"
    said = [line for line in out.splitlines() if witch in line]
    assert len(said) == 2 and said[0].startswith("🔊") and "🎧" in said[1], said  # before the start; night 1
    assert any(line.startswith("🔊 警长发言最后") for line in out.splitlines()), out  # by day, aloud
    assert "退水要等竞选发言结束以后：那时法官会问有没有人退水。" in out
    [saved] = all_games()
    assert saved.load().game.journal == game.journal  # type: ignore[attr-defined]


def test_a_traditional_game_is_traditional_on_the_console_and_in_the_recap(home: Path) -> None:
    """--lang zh-Hant: every line printed (the judge's, the host's console, the recap, the messages) and the
    saved recap pages hold no 简体-only character; the host types in 繁體 too. A game stopped half-way says
    so in 繁體."""
    words, game = demo_words()
    typed = [to_hant(w) for w in words]
    code, out = invoke("play", *TEXT, "--seed", "2026", "--lang", "zh-Hant", input="\n".join(typed) + "\n")
    assert code == 0, out
    assert "六號" in out and "復盤已保存" in out
    [saved] = all_games()
    assert saved.load().game.journal == game.journal  # type: ignore[attr-defined]
    for text in (out, (saved.folder / "game.recap.md").read_text(encoding="utf-8"),
                 (saved.folder / "game.recap.html").read_text(encoding="utf-8")):
        assert simplified_only(text) == [], [line for line in text.splitlines() if simplified_only(line)][:5]
    code, out = invoke("play", *TEXT, "--seed", "2026", "--lang", "zh-Hant", input="\n".join(typed[:5]) + "\n")
    assert code == 3 and "輸入結束了，遊戲已保存" in out and simplified_only(out) == []


def test_recap_and_games_commands(home: Path) -> None:
    code, out = invoke("games")
    assert code == 0 and "还没有保存的游戏" in out
    code, out = invoke("recap")
    assert code == 2 and "还没有保存的游戏" in out
    words, _ = demo_words()
    invoke("play", *TEXT, "--seed", "2026", input="\n".join(words) + "\n")
    [saved] = all_games()
    (saved.folder / "game.recap.html").unlink()
    code, out = invoke("recap", saved.id[:8], "-o", str(home / "copy.html"))
    assert code == 0, out
    assert "第一天 警长投票：三号当选警长" in out and "十一号 │ 狼人" in out
    assert (home / "copy.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not (saved.folder / "game.recap.html").exists()  # recap only reads: the writer made the pages
    code, out = invoke("recap", saved.id, "-o", str(home / "copy.md"))
    assert code == 0 and "票型" in (home / "copy.md").read_text(encoding="utf-8")
    code, out = invoke("recap", "nope")
    assert code == 2 and "没有叫 nope 的游戏" in out


def test_a_damaged_meta_file_is_read_as_far_as_it_goes(home: Path) -> None:
    """meta.json edited by hand: each value of the wrong type is left out (the game is listed and its recap
    written without it), never a traceback."""
    words, _ = demo_words()
    invoke("play", *TEXT, "--seed", "2026", input="\n".join(words) + "\n")
    [saved] = all_games()
    saved.meta_path.write_text(json.dumps({"started": 5, "preset": ["预女猎白"], "options": "x", "lang": None}))
    assert saved.meta() == {} and saved.options() == {}
    code, out = invoke("games")
    assert code == 0 and saved.id in out, out
    code, out = invoke("recap", saved.id, "-o", str(home / "copy.md"))
    assert code == 0 and "票型" in (home / "copy.md").read_text(encoding="utf-8"), out


def test_resume_refuses_broken_journals_with_the_reason(home: Path) -> None:
    code, out = invoke("resume")
    assert code == 2 and "没有可以继续的游戏" in out
    words, _ = demo_words()
    invoke("play", *TEXT, "--seed", "2026", input="\n".join(words[:20]) + "\n")
    [saved] = all_games()
    rows = saved.journal.read_text(encoding="utf-8").splitlines()
    header = json.loads(rows[0])
    saved.journal.write_text("\n".join([json.dumps({**header, "narrator_journal": 99}), *rows[1:]]) + "\n")
    code, out = invoke("resume", saved.id, *TEXT)
    assert code == 2 and "journal format 99 is newer than this narrator reads" in out
    saved.journal.write_text("\n".join([rows[0], rows[1], "{not json", *rows[2:]]) + "\n")
    code, out = invoke("resume", saved.id, *TEXT)
    assert code == 2 and "line 3" in out


def test_a_game_stopped_at_its_last_pass_resumes_to_its_end_and_recap(home: Path) -> None:
    """The demo's last word is the 过 after the winning shot (the winner is decided, the table has not heard
    the end): stopped there, `resume` says 继续游戏, the end and the cards, and writes the recap — before
    issue 29 it said "已经结束" and the table never heard the end."""
    words, game = demo_words()
    assert demo_kinds()[-1] == ACK
    code, out = invoke("play", *TEXT, "--seed", "2026", input="\n".join(words[:-1]) + "\n")
    assert code == 3 and "游戏结束" not in out
    [saved] = all_games()
    assert not saved.load().over and not (saved.folder / "game.recap.html").exists()
    code, listing = invoke("games")
    assert "已结束" not in listing
    found = recoverable()  # `serve` offers it at power-on, and goes on through the same play_on
    assert found is not None and found[0].id == saved.id
    code, out = invoke("resume", *TEXT, input="过\n")
    assert code == 0, out
    table = [line[2:] for line in out.splitlines() if line.startswith("🔊 ")]
    assert table[0] == "继续游戏。" and any(line.startswith("游戏结束") for line in table)
    assert (saved.folder / "game.recap.html").exists() and (saved.folder / "game.recap.md").exists()
    assert saved.load().over and saved.load().game.journal == game.journal  # type: ignore[attr-defined]
    code, out = invoke("resume", saved.id, *TEXT)
    assert code == 2 and "已经结束" in out


def test_recap_only_reads_a_game(home: Path) -> None:
    """`recap` prints; it writes nothing in the data folder — not for a game being played (stopped half-way),
    not for a finished one, and a read-only folder is no error (issue 29: it rewrote the pages on every call
    and exited 2 on a read-only folder)."""
    words, _ = demo_words()
    invoke("play", *TEXT, "--seed", "2026", input="\n".join(words[:30]) + "\n")
    [saved] = all_games()

    def files() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in saved.folder.iterdir()}

    before = files()
    saved.folder.chmod(0o555)
    try:
        code, out = invoke("recap", saved.id)
    finally:
        saved.folder.chmod(0o755)
    assert code == 0 and "游戏还没有结束" in out, out
    assert files() == before
