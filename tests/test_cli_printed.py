"""The printed game is readable: a legend of the marks, a header for each night and day, both channels, and the
host's own words in their place, so a newcomer can follow who decided what."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from narrator.cli.main import app

SCENARIO = Path(__file__).parent / "scenarios" / "001_witch_saves_first_night.yaml"


def printed(*args: str, held: bool = True) -> list[str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0 or not held, result.output
    return [line for line in result.stdout.splitlines() if line.strip()]


def index(lines: list[str], text: str, start: int = 0) -> int:
    return next(i for i in range(start, len(lines)) if text in lines[i])


def test_the_legend_comes_first_and_explains_every_mark() -> None:
    lines = printed("simulate", str(SCENARIO))
    assert lines[0].startswith("图例：")
    for mark in ("🔊", "🎧", "🗣", "（按发牌）"):
        assert mark in lines[0]
        assert any(mark in line for line in lines[1:]), f"{mark} is explained and used"


def test_each_night_and_day_has_its_header_before_its_first_line() -> None:
    lines = printed("simulate", str(SCENARIO))
    night1, day1, night2 = index(lines, "── 第一夜 ──"), index(lines, "── 第一天 ──"), index(lines, "── 第二夜 ──")
    assert night1 < day1 < night2
    assert "天黑请闭眼" in lines[night1 + 1] and "天亮了" in lines[day1 + 1] and "天黑请闭眼" in lines[night2 + 1]
    assert any("欢迎" in line for line in lines[:night1]), "the welcome comes before the first night"


def test_the_hosts_words_follow_the_question_and_come_before_what_they_decided() -> None:
    lines = printed("simulate", str(SCENARIO))
    asked = index(lines, "狼人刀了谁")
    assert lines[asked + 1].strip() == "🗣 主持人：七号"
    assert "狼人今晚刀了七号" in lines[asked + 2]
    saved = index(lines, "🗣 主持人：救")
    assert "女巫用解药救了七号" in lines[saved + 1]
    said = [line.strip().removeprefix("🗣 主持人：") for line in lines if "🗣" in line and "（按发牌）" not in line]
    answers = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))["answers"]
    assert said == [str(words) for _, words in answers], "every answer of the file, in order, in its words"


def test_host_lines_are_marked_apart_from_the_hosts_own_words() -> None:
    lines = printed("simulate", str(SCENARIO))
    assert all(not line.strip().startswith("🎧 主持人：") for line in lines), "🎧 is the judge, not the host"
    assert any(line.startswith("  🎧 请告诉我狼人的座位号") for line in lines)


def test_traditional_and_the_demo_print_the_same_way() -> None:
    hant = printed("simulate", str(SCENARIO), "--lang", "zh-Hant", held=False)  # the printing, not `says`
    assert hant[0].startswith("圖例：") and any("── 第一夜 ──" in x for x in hant)
    assert any(x.strip() == "🗣 主持人：七號" for x in hant), "the host's words, in the game's script"
    assert not any("号" in x for x in hant), "nothing on a 繁體 page is printed in 简体"
    demo = printed("demo", "--no-audio")
    assert demo[0].startswith("图例：") and any("── 第二天 ──" in x for x in demo)


def test_the_end_of_the_game_and_the_cards_have_their_own_headers() -> None:
    lines = printed("demo", "--no-audio")
    end, reveal = index(lines, "── 终局 ──"), index(lines, "── 亮牌 ──")
    last_day = max(i for i, line in enumerate(lines) if "── 第" in line and "天 ──" in line)
    assert last_day < end < reveal
    assert "游戏结束" in lines[end + 1]
    assert lines[reveal + 1:] and all(line.startswith("🔊") and "是" in line for line in lines[reveal + 1:reveal + 13])
    assert len([line for line in lines if "── 亮牌 ──" in line]) == 1


def test_votes_are_counted_as_a_table_says_them() -> None:
    """The sheriff's vote is one and a half: 八票半, never 八点五票."""
    text = "\n".join(printed("demo", "--no-audio"))
    assert "八票半" in text and "点五" not in text
