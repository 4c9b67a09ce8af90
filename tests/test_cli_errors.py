"""Bad input ends in one clear line and the documented exit code, never a traceback (typer's CliRunner, and
one real subprocess to prove no traceback reaches stderr)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from narrator.cli.main import app
from narrator.cli.voices import Lang, parse_lang

HERE = Path(__file__).parent
GOOD = HERE / "scenarios" / "001_witch_saves_first_night.yaml"
MISMATCH = HERE / "scenario_cases" / "kind_mismatch.yaml"
runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def one_error_line(result: Result) -> str:
    """The single line a failure prints on stderr (and no traceback anywhere)."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def scenario(tmp_path: Path):  # type: ignore[no-untyped-def]
    def write(text: str | bytes, name: str = "s.yaml") -> Path:
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return write


# ---- the scenario file -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("content", "says"), [
    (b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00", "is not a text file"),
    ("preset: 12人预女猎白\n".encode("gb18030"), "is not UTF-8 text (byte 0xc8 on line 1); save it as UTF-8"),
    ("preset: [12人\nseed: 1\n", "not valid YAML on line 2"),
])  # fmt: skip
def test_a_file_that_is_not_a_yaml_text_is_refused_in_one_line(scenario, content: bytes | str, says: str) -> None:  # type: ignore[no-untyped-def]
    path = scenario(content)
    for command in (["simulate", str(path)], ["render", str(path), "-o", str(path.with_suffix(".wav"))]):
        result = run(*command)
        assert result.exit_code == 2
        line = one_error_line(result)
        assert says in line and str(path) in line


def test_a_missing_file_or_a_folder_is_named(tmp_path: Path) -> None:
    assert "no such file" in one_error_line(run("simulate", str(tmp_path / "nope.yaml")))
    assert "is a folder" in one_error_line(run("simulate", str(tmp_path)))


@pytest.mark.parametrize(("expect", "says"), [
    ("deaths: {night1: 7}", "expect.deaths.night1 must be a list of seats like [7], not 7"),
    ("winner: goodies", "expect.winner: 'goodies' is not a camp (did you mean good?)"),
    ("awaiting: wolf.kill", "expect.awaiting: 'wolf.kill' is not a prompt kind (did you mean wolves.kill?)"),
    ("says: 天亮了", "expect.says must be a list of texts like [天亮了]"),
    ("sheriff: 三号", "expect.sheriff must be a seat number or null, not '三号'"),
    ("steps: {day1: [wolves]}", "expect.steps: 'day1' is not a phase"),
])  # fmt: skip
def test_a_wrongly_typed_or_unknown_expectation_is_exit_2_with_what_to_write(scenario, expect: str, says: str) -> None:  # type: ignore[no-untyped-def]
    path = scenario(f"preset: 9人预女猎\nanswers:\n  - [wolves.kill, 七号]\nexpect:\n  {expect}\n")
    result = run("simulate", str(path))
    assert result.exit_code == 2
    assert says in one_error_line(result)


@pytest.mark.parametrize(("text", "says"), [
    ("preset: 9人预女猎\nseed: abc\n", "seed must look like `seed: 7`, not 'abc'"),
    ("preset: 9人预女猎\nanswers: 5\n", "answers must look like `answers: [[wolves.kill, 七号]]`, not 5"),
    ("preset: 9\n", "preset must look like `preset: 12人预女猎白`, not 9"),
    ("preset: 9人预女猎\nrules: 5\n", "rules must look like `rules: {sheriff: false}`, not 5"),
    ("preset: 9人预女猎\nrules: {night_order: true}\n", "房规 night_order 要写成名字的列表（逗号分隔）"),
    ("preset: 9人预女猎\nrules: {night_order: 5}\n", "房规 night_order 要写成名字的列表（逗号分隔）"),
    ("preset: 9人预女猎\nrules: {new_moon: 5}\n", "房规 new_moon 要写成名字的列表（逗号分隔）"),
    ("preset: 9人预女猎\nrules: {new_moon: {wolves_ally: 1}}\n", "房规 new_moon 要写成名字的列表（逗号分隔）"),
    ("preset: 9人预女猎\nnotes: " + "[" * 5000 + "]" * 5000 + "\n", "its YAML is nested too deeply to read"),
    ("preset: 9人预女猎\nnotes: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n", "its YAML is nested too deeply to read"),
])  # fmt: skip
def test_a_wrongly_typed_set_up_is_exit_2(scenario, text: str, says: str) -> None:  # type: ignore[no-untyped-def]
    result = run("simulate", str(scenario(text)))
    assert result.exit_code == 2
    assert says in one_error_line(result)


def test_errors_about_an_answer_name_its_number(scenario) -> None:  # type: ignore[no-untyped-def]
    path = scenario("preset: 9人预女猎\nanswers:\n  - [wolves.kill, 七号]\n  - [witch.safe, 救]\n")
    assert "answer 2: 'witch.safe' is not a prompt kind (did you mean witch.save?)" in one_error_line(
        run("simulate", str(path)))
    result = run("simulate", str(MISMATCH))
    assert result.exit_code == 2
    assert "answer 1: the scenario answers witch.save, but the game asks wolves.kill" in result.stderr


@pytest.mark.parametrize(("words", "why"), [("十三号", "本局只有十二名玩家，没有十三号"),
                                           ("三号", "预言家不能查验自己")])
def test_a_seat_that_cannot_be_chosen_says_why(scenario, words: str, why: str) -> None:  # type: ignore[no-untyped-def]
    path = scenario(
        "preset: 12人预女猎白\nseats: [狼人, 村民, 预言家, 狼人, 女巫, 村民, 猎人, 狼人, 村民, 白痴, 狼人, 村民]\n"
        "answers:\n  - [wolves.kill, 七号]\n  - [witch.save, 救]\n"
        f"  - [seer.check, {words}]\n"
    )
    result = run("simulate", str(path))
    assert result.exit_code == 2
    assert f"answer 3 (seer.check): '{words}' was refused" in result.stderr and why in result.stderr


def test_a_non_candidate_cannot_withdraw_and_a_charmed_seat_cannot_be_charmed_again(scenario) -> None:  # type: ignore[no-untyped-def]
    twelve = "preset: 12人预女猎白\nseats: [狼人, 村民, 预言家, 狼人, 女巫, 村民, 猎人, 狼人, 村民, 白痴, 狼人, 村民]\n"
    path = scenario(twelve + "answers:\n  - [wolves.kill, 七号]\n  - [witch.save, 救]\n  - [seer.check, 一号]\n"
                    "  - [sheriff.run, 三号 五号]\n  - [sheriff.withdraw, 八号]\n")
    result = run("simulate", str(path))
    assert result.exit_code == 2 and "answer 5 (sheriff.withdraw)" in result.stderr
    assert "八号没有上警，不能退水。" in result.stderr
    piper = ("roles: {狼人: 2, 村民: 4, 预言家: 1, 女巫: 1, 乐师: 1}\n"
             "seats: [狼人, 村民, 预言家, 乐师, 女巫, 村民, 村民, 狼人, 村民]\nanswers:\n"
             "  - [wolves.kill, 二号]\n  - [witch.save, 救]\n  - [seer.check, 一号]\n  - [piper.charm, 一号 三号]\n"
             "  - [sheriff.run, 没有]\n  - [vote.exile, 八号出局]\n  - [wolves.kill, 九号]\n"
             "  - [witch.poison, 不用]\n  - [seer.check, 五号]\n  - [piper.charm, 一号 六号]\n")
    result = run("simulate", str(scenario(piper, "piper.yaml")))
    assert result.exit_code == 2 and "一号已经被魅惑了。" in result.stderr, result.stderr


# ---- outputs and devices, found before anything is synthesised ----------------------------------------------


def test_an_unwritable_output_is_found_before_any_voice_work(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    cache = tmp_path / "cache"
    for out in (blocker / "game.wav", tmp_path):  # a file where a folder must be; a folder given as -o
        result = run("render", str(GOOD), "-o", str(out), "--backend", "espeak", "--cache-dir", str(cache))
        assert result.exit_code == 2
        assert f"cannot write {out}" in one_error_line(result)
    result = run("demo", "-o", str(blocker / "demo.wav"), "--backend", "espeak", "--cache-dir", str(cache))
    assert result.exit_code == 2 and "cannot write" in one_error_line(result)
    assert not cache.exists(), "nothing was rendered"


def test_every_minus_o_refuses_a_missing_folder_alike_and_makes_none(tmp_path: Path) -> None:
    """`render -o`, `demo -o` and `recap -o` into a folder that is not there: the same refusal (a typo in
    the path makes no folder tree), exit 2, naming the folder."""
    cache = tmp_path / "cache"
    for args in (["render", str(GOOD), "--backend", "espeak", "--cache-dir", str(cache)],
                 ["demo", "--backend", "espeak", "--cache-dir", str(cache)],
                 ["recap"]):
        out = tmp_path / "nowhere" / "deeper" / "x.out"
        result = run(*args, "-o", str(out))
        assert result.exit_code == 2, (args, result.output)
        line = one_error_line(result)
        assert line == f"✗ cannot write {out}: there is no folder {out.parent}; make it first or choose " \
                       "another file with -o", (args, line)
        assert not (tmp_path / "nowhere").exists(), args


def test_a_cache_folder_that_is_a_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for args in (["render", str(GOOD), "-o", str(tmp_path / "g.wav"), "--backend", "espeak"],
                 ["voices", "build", "--backend", "espeak"]):
        result = run(*args, "--cache-dir", str(blocker))
        assert result.exit_code == 2, result.output
        assert "cannot write the voice cache" in one_error_line(result)
    assert not (tmp_path / "g.wav").exists()


@pytest.mark.usefixtures("pulse")  # PortAudio lists devices once, at import: let it see the sound server
def test_a_missing_sound_device_is_one_line_before_rendering(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    result = run("demo", "-o", str(tmp_path / "d.wav"), "--play", "no-such-device-anywhere", "--backend",
                 "espeak", "--cache-dir", str(cache))
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "no sound output for --play no-such-device-anywhere" in line and "narrator devices" in line
    assert not cache.exists() and not (tmp_path / "d.wav").exists()


def test_no_traceback_reaches_stderr_of_the_real_command(tmp_path: Path) -> None:
    """A real process, with no sound server to be found: --play default ends in one line, exit 2."""
    binary = tmp_path / "game.yaml"
    binary.write_bytes(bytes(range(256)))
    env = {**os.environ, "PULSE_SERVER": f"unix:{tmp_path}/no-server", "PULSE_RUNTIME_PATH": str(tmp_path / "x"),
           "NARRATOR_CACHE_DIR": str(tmp_path / "cache")}  # fmt: skip
    env.pop("NARRATOR_DEBUG", None)
    for args in (["simulate", str(binary)], ["demo", "--no-audio", "--play", "default"]):
        proc = subprocess.run([sys.executable, "-m", "narrator.cli.main", *args], capture_output=True, text=True,
                              env=env, timeout=120, check=False)  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stderr.startswith("✗ ")
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


# ---- render says ✓ only for a scenario that held -------------------------------------------------------------


def test_render_of_a_failing_scenario_says_why_and_no_tick(tmp_path: Path) -> None:
    result = run("render", str(MISMATCH), "-o", str(tmp_path / "g.wav"), "--backend", "espeak",
                 "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "✓" not in result.output and line.startswith("✗ answer 1: the scenario answers witch.save")
    assert "the audio up to there" in line and (tmp_path / "g.wav").exists()


# ---- --lang takes the region tags too ------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "lang"), [("zh-TW", Lang.hant), ("zh-tw", Lang.hant), ("ZH-HANT", Lang.hant),
                                             ("zh_HK", Lang.hant), ("zh-CN", Lang.hans), ("zh-cn", Lang.hans),
                                             ("zh-hans", Lang.hans)])  # fmt: skip
def test_lang_aliases(given: str, lang: Lang) -> None:
    assert parse_lang(given) is lang


def test_every_lang_option_takes_the_aliases(tmp_path: Path) -> None:
    hant = run("simulate", str(GOOD), "--lang", "zh-TW")
    assert "天黑請閉眼" in hant.stdout and "Invalid value" not in hant.output
    hans = run("simulate", str(GOOD), "--lang", "ZH-CN")
    assert hans.exit_code == 0 and "天黑请闭眼" in hans.stdout
    assert "天黑請閉眼" in run("demo", "--no-audio", "--lang", "zh-tw").stdout
    # Past the option parser: these fail on a later, deliberate error, not on --lang.
    built = run("voices", "build", "--lang", "zh-TW", "--rate", "fast", "--cache-dir", str(tmp_path))
    assert built.exit_code == 2 and "rate must look like" in built.output
    rendered = run("render", str(tmp_path / "none.yaml"), "--lang", "zh-tw")
    assert rendered.exit_code == 2 and "no such file" in rendered.output
    wrong = run("simulate", str(GOOD), "--lang", "en")
    assert wrong.exit_code == 2 and "zh-TW" in wrong.output


def test_every_command_with_a_lang_option_takes_the_region_tags() -> None:
    """The alias parser is on every --lang: a wrong value gets its sentence (naming zh-TW), not a choice list."""
    import typer

    def commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
        found = [(path, group)]
        for name, sub in (getattr(group, "commands", None) or {}).items():
            found += commands(sub, (*path, name))
        return found

    langs = [path for path, cmd in commands(typer.main.get_command(app)) if any(p.name == "lang" for p in cmd.params)]
    assert {("simulate",), ("demo",), ("render",), ("voices", "build"), ("play",), ("setup",)} <= set(langs)
    for path in langs:
        result = run(*path, "--lang", "klingon")
        assert result.exit_code == 2 and "also zh-TW" in result.output, (path, result.output)
