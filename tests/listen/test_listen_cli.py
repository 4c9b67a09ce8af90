"""The ear's commands refuse what they cannot use in one line with exit 2, never "failed unexpectedly":
`narrator model test` with a broken phrase file, `narrator listen` with a grammar that is not there."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.cli.main import app


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output and "unexpectedly" not in result.output, result.output
    return result.exit_code, result.output


@pytest.mark.parametrize(("text", "says"), [
    ("phrases: {wolves.kill: [일곱]}\n", "each entry is [what is spoken, the host words]"),
    ("phrases: {wolves.eat: [[일곱, 七号]]}\n", "unknown prompt type 'wolves.eat'"),
    ("pack: nope\nphrases: {wolves.kill: [[일곱, 七号]]}\n", "cannot read the grammar"),
    ("recordings: [kill.wav]\n", "each entry is {file: …, kind: …, expect: …}"),
    ("recordings: [{file: none.wav, kind: wolves.kill, expect: 七号}]\n", "cannot read"),
    ("phrases: [[일곱, 七号]]\n", "phrases: must be a table"),
    ("[1, 2\n", "cannot read the phrase file"),
])  # fmt: skip
def test_a_broken_phrase_file_is_one_line_and_exit_2(tmp_path: Path, text: str, says: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    code, out = invoke("model", "test", str(bad), "--model", "ko")
    assert code == 2, out
    assert says in out
    assert len([x for x in out.splitlines() if x.strip()]) == 1, out


def test_listen_takes_a_grammar_pack_or_file_and_refuses_a_missing_one(tmp_path: Path) -> None:
    code, out = invoke("listen", "--grammar", str(tmp_path / "missing.yaml"), "--model", "ko")
    assert code == 1, out
    assert "cannot read the grammar" in out and "missing.yaml" in out


@pytest.mark.slow
def test_a_word_the_model_cannot_say_stops_play_before_the_first_line_and_leaves_no_game(
        pulse: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from narrator.listen.grammar import GRAMMARS_DIR
    from narrator.play.store import all_games

    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    pack = tmp_path / "ko-typo.yaml"  # the judge's name misspelt with a syllable the model does not know
    pack.write_text((GRAMMARS_DIR / "ko.yaml").read_text(encoding="utf-8").replace("法官: 진행자", "法官: 진행굺"),
                    encoding="utf-8")
    code, out = invoke("play", "--input", "voice", "--model", "ko", "--grammar", str(pack), "--mic",
                       "pulse:room.monitor", "--table-device", "none")
    assert code == 2, out
    assert "진행굺" in out and "本局" not in out  # one line naming the word; the deal line was never said
    assert all_games(tmp_path / "data" / "games") == []
