"""校准 in the lobby of `narrator serve` (narrator/serve/device.py `_calibrate`): heard at every question, it
runs the calibration by voice (its rules: tests/listen/test_calibrate_by_voice.py; through the room:
tests/room/test_room_calibrate.py) — and where nothing listens by voice, the judge says it cannot, the config
stays as it was, and the lobby asks its question again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from listen.listenkit import Said, ScriptedEar

from narrator.common.clock import FakeClock
from narrator.listen.dialogue import Dialogue, DialogueConfig
from narrator.serve.lobby import Lobby

TEXT = ["--input", "text", "--table-device", "none", "--no-web"]


def test_calibrate_is_an_action_heard_at_every_lobby_question_and_says_nothing_of_its_own() -> None:
    for before in ([], ["开始新游戏"], ["开始新游戏", "九个"]):
        for words in ("校准", "校准声音"):
            lobby = Lobby()
            lobby.ready()
            clock = FakeClock()
            said = Said()
            dialogue = Dialogue(lobby, ScriptedEar([*before, words], clock), said, clock, DialogueConfig())
            for _ in range(len(before) + 1):
                assert dialogue.answer(lobby.take_lines()) is not None
            assert lobby.take_action() == "calibrate", (before, words)
            assert lobby.take_lines() == [] and said == [], said  # the calibration says its own lines


def test_typed_calibrate_says_it_cannot_and_asks_again(tmp_path: Path) -> None:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(tmp_path / "data"), "NARRATOR_CONFIG_DIR": str(tmp_path / "config")}
    proc = subprocess.run([sys.executable, "-m", "narrator.cli.main", "serve", *TEXT], input="开始新游戏\n校准\n",
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 3, proc.stderr  # the typed input ran out at the lobby
    out = proc.stdout
    assert "现在没法校准：麦克风或者语音模型打不开。" in out, out
    assert out.count("几个人玩？") == 2, out  # the question it stood at, asked again
    assert not (tmp_path / "config" / "config.toml").exists() or "drop_forms = \"\"" in (
        tmp_path / "config" / "config.toml").read_text(encoding="utf-8")
