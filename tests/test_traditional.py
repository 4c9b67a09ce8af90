"""繁體 end to end: the language is the game's (CLI option, scenario `lang:`), and presets, cards, the host's
words and expectations work in either script (issue 6, item 3)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.common.zh import holds, lang_named, readings
from narrator.engine.answers import Seats, YesNo
from narrator.engine.refusals import refuse
from narrator.engine.roles import Role, role_named
from narrator.hostwords import parse
from narrator.judge.presets import make_setup
from narrator.judge.script import Script
from narrator.sim.scenario import Run, Scenario

HERE = Path(__file__).parent
WRITTEN_IN_HANT = HERE / "scenarios" / "102_traditional_game_written_in_traditional.yaml"
runner = CliRunner()


def spoken(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.lstrip().startswith(("🔊", "🎧"))]


def test_the_demo_plays_in_traditional_script() -> None:
    result = runner.invoke(app, ["demo", "--lang", "zh-Hant", "--no-audio"])
    assert result.exit_code == 0, result.output
    said = spoken(result.stdout)
    assert "🔊 天黑請閉眼。" in said and "🔊 三號當選警長。" in said
    assert not [line for line in said if "请" in line or "号" in line]


def test_a_scenario_file_says_its_script() -> None:
    scenario = Scenario.load(WRITTEN_IN_HANT)
    assert scenario.lang == "zh-Hant"
    out = Run(scenario).execute()
    assert out.code == 0, out.message
    assert "天黑請閉眼。" in [line.text for line in out.lines]


def test_the_cli_plays_the_files_script_unless_told_otherwise() -> None:
    result = runner.invoke(app, ["simulate", str(WRITTEN_IN_HANT)])
    assert result.exit_code == 0, result.output
    assert "🔊 天黑請閉眼。" in spoken(result.stdout)
    result = runner.invoke(app, ["simulate", str(WRITTEN_IN_HANT), "--lang", "zh-Hans"])
    assert result.exit_code == 0, result.output
    assert "🔊 天黑请闭眼。" in spoken(result.stdout)


@pytest.mark.parametrize(("hant", "hans"), [("12人預女獵白", "12人预女猎白"), ("經典10人", "经典10人"),
                                            ("12人標準局", "12人标准局"), ("12人預女獵守", "12人预女猎守")])
def test_presets_are_named_in_either_script(hant: str, hans: str) -> None:
    assert make_setup(hant) == make_setup(hans)


@pytest.mark.parametrize(("name", "role"), [("預言家", Role.SEER), ("獵人", Role.HUNTER), ("白癡", Role.IDIOT),
                                            ("守衞", Role.GUARD), ("野孩子", Role.WILD_CHILD), ("烏鴉", Role.RAVEN)])
def test_cards_are_named_in_either_script(name: str, role: Role) -> None:
    assert role_named(name) is role
    seer = {} if role is Role.SEER else {"預言家": 1}
    assert make_setup(roles={name: 1, "狼人": 3, "村民": 4, **seer}).deck.count(role) == 1


def test_host_words_in_traditional_script() -> None:
    assert parse("十二號", {Seats}) == Seats((12,))
    assert parse("不救了", {YesNo}) == YesNo(False)


def test_the_hosts_own_words_are_said_back_in_the_games_script() -> None:
    line = Script("zh-Hant").refusal(refuse("words.unknown", heard="随便说", wanted=("seats",)))
    assert line.text == "沒聽懂“隨便說”，請說座位號。"


@pytest.mark.parametrize(("name", "lang"), [("zh-Hant", "zh-Hant"), ("zh-TW", "zh-Hant"), ("zh_hk", "zh-Hant"),
                                            ("繁體", "zh-Hant"), ("zh-CN", "zh-Hans"), ("zh-Hans", "zh-Hans"),
                                            ("klingon", None)])
def test_script_names(name: str, lang: str | None) -> None:
    assert lang_named(name) == lang


def test_expectations_match_in_the_games_script() -> None:
    assert holds("三號當選警長。", "三号当选警长", "zh-Hant")
    assert holds("十號是白癡。", "十号是白痴", "zh-Hant")  # OpenCC's standard form, not Taiwan's
    assert holds("三号当选警长。", "三號當選警長", "zh-Hans")
    assert not holds("三號當選警長。", "五号当选警长", "zh-Hant")
    assert readings("过", "zh-Hans") == ("过",)


def test_resume_notes_are_in_the_resumed_games_script(tmp_path: Path) -> None:
    """`narrator resume` names the game it takes (and the ones it skips) in that game's script."""
    from narrator.play import store
    from narrator.play.scripted import host_script
    from narrator.session.session import Session

    scripted = host_script(Scenario.load(WRITTEN_IN_HANT))
    for answered in (2, 0):  # the older game has answers, the newer one none (skipped)
        session = Session(scripted.game.setup, scripted.game.seed, lang="zh-Hant")
        store.save_game(session, "12人預女獵白", {}, tmp_path)
        for said in scripted.utterances[:answered]:
            session.submit(said)
        session.close()
        time.sleep(1.05)  # a new second: a new folder
    taken = store.resume_game(None, tmp_path)
    taken.session.close()
    assert any("繼續最近的一局" in note for note in taken.notes), taken.notes
    assert any(note.startswith("跳過") for note in taken.notes), taken.notes
    assert not [note for note in taken.notes if "继续" in note or "跳过" in note or "还没有" in note]
