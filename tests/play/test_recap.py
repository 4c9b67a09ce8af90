"""The recap a host reads after the game: the story in the order it happened, every death in words, the
votes with who abstained, ran, withdrew or voted for himself, the sheriff marked, seats said as the judge
says them, and the game's script throughout. Games are the scenario files and the demo, played for real."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from play_testkit import SCENARIOS, demo_scenario, simplified_only
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.engine.game import Game
from narrator.judge.presets import make_setup
from narrator.play.recap import Recap, build_recap
from narrator.play.recap_page import html, markdown, print_recap, vote_svg, votes_text
from narrator.play.scripted import host_script
from narrator.session.session import Session
from narrator.sim.scenario import Run, Scenario


def played(name: str, lang: str | None = None) -> Game:
    scenario = Scenario.load(SCENARIOS / name)
    run = Run(scenario)
    out = run.execute()
    assert out.code == 0, out.message
    assert run.session is not None
    return run.session.game


def recap_of(name: str, lang: str = "zh-Hans") -> Recap:
    return build_recap(played(name).journal, lang)


def story(recap: Recap) -> dict[str, list[str]]:
    return dict(recap.story)


def test_the_story_is_told_night_day_night_with_every_death_in_words() -> None:
    recap = recap_of("004_guard_and_save_same_player_dies.yaml")
    assert [name for name, _ in recap.story] == ["第一夜", "第一天", "第二夜", "第二天"]
    assert "同守同救：六号被守护又被救，仍然出局" in story(recap)["第一夜"]
    deaths = [(d.seat, d.when, d.text) for d in recap.deaths]
    assert deaths[0] == (6, "night1", "被狼人刀，同守同救仍然出局")
    # The hunter killed in night 2 shoots at dawn: the shot and its death are the day's, in both places.
    assert "七号开枪带走八号" in story(recap)["第二天"]
    assert (8, "day2", "被猎人带走") in deaths
    assert all(d.text and not d.text.isascii() for d in recap.deaths)


def test_a_wolf_exploding_in_the_election_dies_after_the_nights_dead() -> None:
    recap = recap_of("044_explode_in_election_postponed_then_badge_lost.yaml")
    assert [(d.seat, d.when) for d in recap.deaths] == [(2, "night1"), (1, "day1"), (6, "night2"), (4, "day2")]
    assert story(recap)["第一天"][:2] == ["竞选警长：一号、三号、五号上警", "一号自爆"]


def test_the_idiots_vote_is_not_headed_exiled_when_he_stays() -> None:
    recap = recap_of("030_idiot_reveals_then_cannot_vote.yaml")
    first = recap.votes[0]
    assert first.outcome == "十号翻牌是白痴，留在场上"
    assert "十号被放逐" not in markdown(recap) and "十号被放逐" not in html(recap)
    assert all(d.seat != 10 or d.when == "night3" for d in recap.deaths)


def test_withdrawals_candidates_and_abstentions_are_in_the_vote_pictures() -> None:
    recap = recap_of("065_election_tie_pk_then_elected.yaml")
    sheriff_vote = recap.votes[0]
    rows = votes_text(recap, sheriff_vote)
    assert "上警：三号、五号" in rows and "退水：七号" in rows
    svg = vote_svg(recap, sheriff_vote)
    assert svg.count('class="candidate"') == 2 and ">退水<" in svg
    exile = recap.votes[-1]
    assert exile.sheriff == 3 and svg.count('class="sheriff"') == 0
    assert vote_svg(recap, exile).count('class="sheriff"') == 1
    # Everyone alive voted (two, dead in night 1, was no voter): no one abstained.
    assert exile.abstained == () and not any(row.startswith("弃票") for row in votes_text(recap, exile))


def demo_with_a_self_vote() -> tuple[Session, Recap]:
    """The demo, but on day 1 eleven votes for himself."""
    scripted = host_script(demo_scenario())
    words = list(scripted.utterances)
    at = words.index("2 3 5 6 7 9 10 12 投 1号，4 8 11 投 3号")
    words[at] = "2 3 5 6 7 9 10 12 投 1号，4 8 投 3号，11 投 11号"
    session = Session(scripted.game.setup, scripted.game.seed)
    session.acks = True  # the words hold the host's 过 where a step asks him nothing, as the live loop asks it
    for said in words:
        session.take_lines()
        assert not hasattr(session.submit(said), "line"), said
    session.take_lines()  # the game's last lines: then it is over
    return session, build_recap(session.game.journal)


def test_self_votes_abstentions_and_mutual_votes_are_drawn_apart() -> None:
    session, recap = demo_with_a_self_vote()
    assert session.over
    day1 = recap.votes[1]
    assert day1.self_votes == (11,) and day1.abstained == (1,)
    rows = votes_text(recap, day1)
    assert "四号、八号 → 三号（两票）" in rows and "十一号（自投） → 十一号（一票）" in rows and "弃票：一号" in rows
    assert 'class="self-vote"' in vote_svg(recap, day1)
    # Day 3: seven and eleven voted for each other; the two arrows do not lie on one line.
    day3 = recap.votes[-1]
    assert (7, 11) in day3.ballots and (11, 7) in day3.ballots
    lines = re.findall(r'<line class="ballot" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"',
                       vote_svg(recap, day3))
    segments = {tuple(float(v) for v in m) for m in lines}
    there = [s for s in segments if _near(s[:2], s[2:], recap, 7, 11)]
    back = [s for s in segments if _near(s[:2], s[2:], recap, 11, 7)]
    assert len(there) == 1 and len(back) == 1
    assert _distance_between(there[0], back[0]) > 5  # side by side


def _near(a: tuple[float, ...], b: tuple[float, ...], recap: Recap, voter: int, target: int) -> bool:
    import math

    n, size = recap.players, 340
    c, r = size / 2, size / 2 - 38
    pos = {s: (c + r * math.sin(2 * math.pi * (s - 1) / n), c - r * math.cos(2 * math.pi * (s - 1) / n))
           for s in (voter, target)}
    return math.dist(a, pos[voter]) < 25 and math.dist(b, pos[target]) < 25


def _distance_between(one: tuple[float, ...], other: tuple[float, ...]) -> float:
    """How far apart two nearly opposite segments run (their midpoints)."""
    import math

    mid = ((one[0] + one[2]) / 2, (one[1] + one[3]) / 2)
    mid2 = ((other[0] + other[2]) / 2, (other[1] + other[3]) / 2)
    return math.dist(mid, mid2)


def test_a_game_cut_off_shows_where_it_stopped_and_no_night_that_never_happened() -> None:
    """A game stopped as night 3 fell: its story ends with 第三夜 marked unfinished, never as a night
    without actions; cut later in that night, the night's actions so far come first; a whole game has no mark."""
    from narrator.engine import events as ev

    journal = list(played("030_idiot_reveals_then_cannot_vote.yaml").journal)
    fell = next(i for i, e in enumerate(journal) if isinstance(e, ev.NightFell) and e.night == 3)
    cut = build_recap(journal[: fell + 1])
    assert cut.story[-1] == ("第三夜", ["（游戏停在这里，未完）"])
    assert "这一夜没有行动" not in markdown(cut) + html(cut) and cut.result == "游戏还没有结束"
    assert [name for name, _ in cut.story] == ["第一夜", "第一天", "第二夜", "第二天", "第三夜"]
    killed = next(i for i, e in enumerate(journal) if i > fell and isinstance(e, ev.WolvesChoseVictim))
    later = build_recap(journal[: killed + 1])
    assert later.story[-1][0] == "第三夜" and later.story[-1][1][-1] == "（游戏停在这里，未完）"
    assert later.story[-1][1][0].startswith("狼人")
    whole = build_recap(journal)
    assert all("未完" not in note for _, notes in whole.story for note in notes)


def test_seats_are_said_as_the_judge_says_them_and_tables_have_headers() -> None:
    recap = build_recap(host_script(demo_scenario()).game.journal)
    text = markdown(recap)
    assert not re.search(r"\d+号", text), re.findall(r".{5}\d+号.{5}", text)[:3]
    for table in re.findall(r"((?:^\|.*\|\n)+)", text, flags=re.MULTILINE):
        header = table.splitlines()[0]
        cells = [cell.strip() for cell in header.strip("|").split("|")]
        assert all(cells), header
    assert "<th>座位</th>" in html(recap)



def test_a_traditional_recap_is_traditional_throughout() -> None:
    recap = build_recap(played("004_guard_and_save_same_player_dies.yaml").journal, "zh-Hant")
    from rich.console import Console

    console = Console(record=True, width=200)
    print_recap(recap, console)
    for text in (markdown(recap), html(recap), console.export_text()):
        assert simplified_only(text) == [], simplified_only(text)
    assert "六號" in markdown(recap) and "同守同救" in markdown(recap)
    assert 'lang="zh-Hant"' in html(recap) and "Noto Sans CJK TC" in html(recap)


def test_the_page_names_a_chinese_font_stack() -> None:
    page = html(build_recap(Game(make_setup("12人预女猎白"), 1).journal))
    font = re.search(r"font-family:([^;]+);", page)
    assert font is not None
    assert "Noto Sans CJK SC" in font.group(1) and "WenQuanYi Zen Hei" in font.group(1)
    assert font.group(1).rstrip().endswith("sans-serif")


@pytest.mark.parametrize("where", ["/nonexistent/x.html", "DIR"])
def test_recap_out_to_nowhere_errs_in_one_line(home: Path, where: str) -> None:
    runner = CliRunner()
    scripted = host_script(demo_scenario())
    words = "\n".join(["开始", *scripted.utterances]) + "\n"
    assert runner.invoke(app, ["play", "--input", "text", "--table-device", "none", "--seed", "2026"],
                         input=words).exit_code == 0
    target = str(home) if where == "DIR" else where
    result = runner.invoke(app, ["recap", "-o", target])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("✗ cannot write") and target in lines[0], result.output
    assert not Path("/nonexistent").exists()
