"""`narrator model test PHRASES --calibrate`: the calibration from the host's own phrases (here synthesised by
espeak-ng, heard by the Korean stand-in): what it found is printed and written to the config's
game.drop_forms; a form said and read right is never dropped, one said and never read right is (when its
word keeps another); the measurement itself is not run."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.listen.grammar import load_pack


@pytest.mark.slow
def test_model_test_calibrate_writes_what_the_recordings_found(home: Path) -> None:
    phrases = home / "mine.yaml"
    phrases.write_text("pack: ko\nvoice: ko\nplayers: 12\nphrases:\n"
                       "  wolves.kill: [[원, 一号], [넷, 四号], [네번째, 四号], [오호, 五号], [세븐, 七号]]\n",
                       encoding="utf-8")
    result = CliRunner().invoke(app, ["model", "test", str(phrases), "--model", "ko", "--calibrate"])
    out = result.output
    assert result.exit_code == 0, out
    assert "words read right with your voice" in out and "prompt type" not in out, out  # no measurement table
    written = tomllib.loads((home / "config" / "config.toml").read_text(encoding="utf-8"))["game"]["drop_forms"]
    assert f"game.drop_forms = {written!r} written" in out, out
    load_pack("ko").without(written)  # every form dropped is the pack's and never a word's last (PackError)
    # What he said and was read right stays (넷, 오호: clean espeak-ng, read alike every time); a form he said
    # that was never read right goes (here 네번째, its word keeping 넷).
    kept = next(line for line in out.splitlines() if line.startswith("kept:"))
    assert "四号 넷" in kept and "오호" in kept, out
    assert all(form in kept or form in written for form in ("넷", "네번째", "오호", "오")), out
