"""One language per audience (docs/architecture.md "Languages"): the operator's set-up and maintenance
commands and every message about the machine (files, options, config, devices, model, voice cache) are
English; the game's words inside them are names (12人预女猎白, 狼人) or quoted ("天黑请闭眼"). This walks the
set-up commands' whole outputs, good and bad, and the error messages of narrator/cli/errors.py, and fails on
Chinese outside a name or a quote."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.common.zh import to_script
from narrator.engine.roles import Role
from narrator.judge.presets import preset_names

QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|'[^'\n]*'|“[^”\n]*”|「[^」\n]*」")
CHINESE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff01-\uff5e]+")


def names() -> list[str]:
    """The game's names an English line may hold as they are: presets, cards, the two scripts; longest first."""
    simplified = [*preset_names(), *(role.zh for role in Role), "简体"]
    every = {*simplified, *(to_script(n, "zh-Hant") for n in simplified), "繁體"}
    return sorted(every, key=len, reverse=True)


NAMES = names()


def chinese_outside_names_and_quotes(text: str) -> list[str]:
    """The runs of Chinese in `text` that are neither a game name nor inside quotes (`…`, "…", '…', “…”, 「…」)."""
    text = QUOTED.sub(" ", text)
    for name in NAMES:
        text = text.replace(name, " ")
    return CHINESE.findall(text)


def test_the_check_finds_chinese_words_in_english_but_lets_names_and_quotes_be() -> None:
    assert chinese_outside_names_and_quotes("  电平：▁▂▃  最高 -20 dBFS") == ["电平：", "最高"]
    assert chinese_outside_names_and_quotes("✗ 桌上的音箱：找不到设备 'x'") == ["桌上的音箱：找不到设备"]
    assert chinese_outside_names_and_quotes('invalid set-up: "牌数不对：10名玩家需要10张身份牌"') == []
    assert chinese_outside_names_and_quotes("12人预女猎白  12 players  狼人×4, 預言家×1 (简体; 繁體)") == []
    assert chinese_outside_names_and_quotes("say `天黑请闭眼` or “过”") == []


def english(result: object) -> str:
    out = result.output  # type: ignore[attr-defined]
    assert "Traceback" not in out, out
    assert chinese_outside_names_and_quotes(out) == [], out
    return out


def invoke(*args: str) -> str:
    return english(CliRunner().invoke(app, list(args)))


QUIET = ["--yes", "--skip-voices", "--skip-model", "--backend", "espeak"]


@pytest.mark.parametrize("args", [
    ["setup", *QUIET, "--no-test", "--table", "none", "--input", "text"],
    ["setup", *QUIET, "--no-test", "--input", "text", "--table", "no-such-speaker-xyz"],
    ["setup", *QUIET, "--no-test", "--input", "text", "--table", "pulse:no-such-sink-xyz"],
    ["setup", *QUIET, "--no-test", "--input", "text", "--table", "none", "--host", "no-such-earpiece-xyz"],
    ["setup", *QUIET, "--no-test", "--input", "voice,text", "--table", "none", "--mic", "no-such-mic-xyz"],
    ["setup", *QUIET, "--input", "telepathy"],
    ["doctor"],
    ["devices"],
    ["presets"],
    ["model", "list"],
    ["model", "check"],
    ["voices", "list"],
    ["voices", "build", "--rate", "fast"],
    ["voices", "build", "--backend", "espeak", "--voice", "zzzz"],
    ["service", "status"],
], ids=" ".join)  # fmt: skip
def test_a_set_up_command_speaks_english_throughout(home: Path, args: list[str]) -> None:
    invoke(*args)


def test_doctor_on_a_broken_config_and_a_missing_device_speaks_english(home: Path) -> None:
    invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "voice,text")
    invoke("doctor", "--cache-dir", str(home / "empty-cache"))
    cfg = home / "config" / "config.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('table = "none"', 'table = "no-such-speaker-xyz"'))
    assert "no device 'no-such-speaker-xyz'" in invoke("doctor")
    cfg.write_text("[audio\ntable = 3")
    assert "not a readable TOML file" in invoke("doctor")
    assert "not a readable TOML file" in invoke("play", "--input", "text")


def test_the_errors_about_files_options_and_devices_speak_english(home: Path) -> None:
    """Each failure narrator/cli/errors.py names, through the commands that meet it; a set-up error of the
    rule book inside one is quoted."""
    folder = home / "folder"
    folder.mkdir()
    binary, latin, bad_yaml, bad_setup = (home / n for n in ("bin.yaml", "gbk.yaml", "bad.yaml", "setup.yaml"))
    binary.write_bytes(b"preset: \x00\x01")
    latin.write_bytes("preset: 狼人".encode("gb18030"))
    bad_yaml.write_text("preset: [\n", encoding="utf-8")
    bad_setup.write_text("preset: 9人预女猎\nrules: {night_order: 5}\n", encoding="utf-8")
    scenario = home / "ok.yaml"
    scenario.write_text("preset: 9人预女猎\nanswers: []\n", encoding="utf-8")
    for args, says in [
        (["simulate", str(home / "missing.yaml")], "no such file"),
        (["simulate", str(folder)], "is a folder"),
        (["simulate", str(binary)], "is not a text file"),
        (["simulate", str(latin)], "is not UTF-8 text"),
        (["simulate", str(bad_yaml)], "invalid scenario"),
        (["simulate", str(bad_setup)], 'invalid set-up: "房规 night_order'),
        (["render", str(scenario), "-o", str(folder)], "it is a folder"),
        (["demo", "--play", "no-such-output-xyz", "-o", str(home / "d.wav"), "--backend", "espeak"],
         "no sound output"),
        (["render", str(scenario), "--cache-dir", str(binary), "-o", str(home / "g.wav")], "voice cache"),
        (["play", "--input", "text", "--table-device", "no-such-speaker-xyz"], "no device 'no-such-speaker-xyz'"),
        (["recap", "--out", str(home / "nowhere" / "r.html")], "there is no folder"),
    ]:
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert says in english(result), (args, result.output)
