"""`narrator reset`: the factory reset of a device — the config and where the lobby stood go (every setting
back to its default), the games only when asked, the speech model and the voice cache stay; without a
terminal it does nothing unless told --yes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.play.config import Config


@pytest.fixture
def device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A device that was set up and used: a config with the volume and the judge's name changed, the lobby
    standing at the board question, a saved game, the speech model and the measurement of the ear."""
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    config = Config()
    config.voice.volume, config.game.judge_name, config.audio.table = "6", "小狼", "USB Speaker"
    config.save()
    data = tmp_path / "data"
    (data / "games" / "2026-12-07-2000").mkdir(parents=True)
    (data / "games" / "2026-12-07-2000" / "journal.jsonl").write_text("{}\n", encoding="utf-8")
    (data / "models" / "vosk-model-small-cn-0.22").mkdir(parents=True)
    (data / "lobby.json").write_text(json.dumps({"kind": "board", "players": 9, "board": None, "page": 0,
                                                 "rules": []}), encoding="utf-8")
    (data / "model-test.json").write_text("{}", encoding="utf-8")
    return tmp_path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_a_reset_puts_every_setting_back_and_keeps_the_games_unless_asked(device: Path) -> None:
    code, out = invoke("reset")  # no terminal here: nothing is removed without --yes
    assert code == 2 and "add --yes" in out
    assert Config.load().game.judge_name == "小狼"
    code, out = invoke("reset", "--yes")
    assert code == 0, out
    assert "the config" in out and "where the lobby stood" in out and "next: narrator setup" in out
    fresh = Config.load()
    assert (fresh.voice.volume, fresh.game.judge_name, fresh.audio.table) == (Config().voice.volume, "",
                                                                           Config().audio.table)
    data = device / "data"
    assert not (data / "lobby.json").exists() and not (data / "model-test.json").exists()
    assert (data / "games" / "2026-12-07-2000" / "journal.jsonl").exists()  # kept
    assert (data / "models" / "vosk-model-small-cn-0.22").is_dir()  # the model always stays
    code, out = invoke("reset", "--games", "--yes")
    assert code == 0 and "every saved game" in out
    assert not (data / "games").exists() and (data / "models" / "vosk-model-small-cn-0.22").is_dir()
    code, out = invoke("reset", "--games", "--yes")  # again: nothing left to remove
    assert code == 0 and "nothing to remove" in out
