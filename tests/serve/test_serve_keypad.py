"""A lost microphone at the lobby: `serve` says so, and the keypad alone drives it — a board chosen by keys,
then 关机 (0) read back and confirmed (*)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from narrator.listen.base import QueueEar
from narrator.listen.first import First
from narrator.listen.keypad import KeypadEar
from narrator.play.config import Config
from narrator.play.run import Wiring
from narrator.serve.device import Device


class DeadMic:
    """A microphone whose stream stopped and does not come back."""

    alive = False

    def restart(self) -> bool:
        return False

    def set_mode(self, mode: str) -> None:
        """Gone: opened in this mode if it ever comes back."""


class MicEar(QueueEar):
    source = "voice"

    def __init__(self) -> None:
        super().__init__()
        self.mic = DeadMic()


class KeysOnly(Wiring):
    def __init__(self, ear: First) -> None:
        super().__init__(("voice", "keypad"), "none", "", "default")
        self.given = ear

    def ear(self, players: int) -> Any:
        return self.given


def test_the_keypad_drives_the_lobby_when_the_microphone_is_gone(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    read, write = os.pipe()
    keypad = KeypadEar(os.fdopen(read, "rb", buffering=0))
    ear = First([MicEar(), keypad])
    out = tmp_path / "console.txt"
    with out.open("w", encoding="utf-8") as sink:
        device = Device(KeysOnly(ear), Config(), console=Console(file=sink, width=200, highlight=False))
        device.ask_again_s = 60.0
        presses = [("lobby.idle", b"1\n"), ("lobby.players", b"9\n"), ("lobby.board", b"1\n"),
                   ("lobby.ready", b"0\n"), ("lobby.ready", b"*\n")]

        def press() -> None:
            for kind, keys in presses:
                deadline = time.monotonic() + 20
                while keypad.context is None or keypad.context.prompt.kind != kind:
                    assert time.monotonic() < deadline, f"never asked {kind}"
                    time.sleep(0.01)
                time.sleep(0.1)  # the question is being waited on
                os.write(write, keys)

        presser = threading.Thread(target=press, daemon=True)
        presser.start()
        code = device.run()
        presser.join(5)
    said = out.read_text(encoding="utf-8")
    assert code == 0
    assert "麦克风断开了" in said  # the host is told once
    assert "九人可以玩：预女猎、标准局、经典。" in said and "好的，预女猎。" in said
    assert "关机，对吗？" in said and "法官关机了，再见。" in said
