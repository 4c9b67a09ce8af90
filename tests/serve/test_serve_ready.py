"""`serve` is ready before its speech model: the ready line and READY=1 come once the mouth is open, keys and
typed text answer at once, and the microphone joins them when the model has loaded. What the table hears of
it: nothing when the microphone joined while a line still played (the ear is deaf to the judge's lines
anyway); "法官现在能听见说话了，请说。" when it joined while a question was already waiting on the host (what he
said before was not heard); that the microphone or the model cannot be opened, and what answers instead."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from narrator.judge.lines import Line
from narrator.listen.base import Heard, QueueEar
from narrator.listen.first import First
from narrator.listen.text import TextEar
from narrator.play.config import Config
from narrator.play.mouth import PrintMouth
from narrator.play.run import StartProblem, Wiring
from narrator.serve.device import Device

READY = "法官准备好了。要开始，请说：法官，开始新游戏。"
JOINED = "法官现在能听见说话了，请说。"


class Microphone(QueueEar):
    """The voice: what the test says is heard as speech."""

    def say(self, words: str) -> None:
        self.post(Heard(words, source="voice"))


class Typed:
    """The host's console: lines typed one at a time."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()

    def __iter__(self) -> Iterator[str]:
        while (line := self.lines.get()) is not None:
            yield line + "\n"

    def type(self, *lines: str) -> None:
        for line in lines:
            self.lines.put(line)


class LaterVoice(Wiring):
    """Typed text at once; the microphone when `loaded` is set (the speech model's load), or never (`fails`)."""

    def __init__(self, on_line: Callable[[Line], None] | None = None, fails: bool = False) -> None:
        super().__init__(("voice", "text"), "none", "", "default")
        self.voice_later = True
        self.typed, self.microphone = Typed(), Microphone()
        self.loaded = threading.Event()
        self.fails, self.on_line = fails, on_line
        self.heard: list[str] = []

    def ear_later(self, players: int) -> Any:
        def voice() -> QueueEar:
            assert self.loaded.wait(30), "the test never let the model load"
            if self.fails:
                raise StartProblem("the speech model vosk-model-small-cn-0.22 is not installed: run `narrator "
                                   "model install`")
            return self.microphone

        return First([TextEar(self.typed)]), voice

    def mouth(self, console: Console, seed: int, lang: str) -> Any:
        def printer(line: Line) -> None:
            self.heard.append(line.text)
            if self.on_line is not None:
                self.on_line(line)

        return PrintMouth(printer)


def waits_for(device: Device, kind: str, timeout_s: float = 20.0) -> None:
    """Until the lobby waits on the host at the question `kind` (its lines said)."""
    deadline = time.monotonic() + timeout_s
    while device._waiting_at != kind:
        assert time.monotonic() < deadline, f"the lobby never waited at {kind}"
        time.sleep(0.01)
    time.sleep(0.1)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path


def run_with(device: Device, wiring: LaterVoice, host: Callable[[], None]) -> int:
    """The device on this thread (it installs signal handlers), the host on another (a host's script that
    fails ends every input: the device stops, the failure is raised)."""
    failed: list[BaseException] = []

    def act() -> None:
        try:
            host()
        except BaseException as exc:  # shown by the test, after the device stopped
            failed.append(exc)
            wiring.typed.lines.put(None)
            wiring.microphone.close()

    acting = threading.Thread(target=act, daemon=True)
    acting.start()
    code = device.run()
    acting.join(10)
    if failed:
        raise failed[0]
    return code


def test_keys_answer_before_the_model_and_a_late_voice_is_announced(home: Path) -> None:
    wiring = LaterVoice()
    device = Device(wiring, Config(), console=Console(file=(home / "console.txt").open("w", encoding="utf-8")))

    def host() -> None:
        waits_for(device, "idle")
        wiring.typed.type("开始新游戏")  # typed before the model has loaded: taken
        waits_for(device, "players")
        wiring.loaded.set()  # the model loads while the lobby waits: the table is told the voice is there
        deadline = time.monotonic() + 20
        while JOINED not in wiring.heard:
            assert time.monotonic() < deadline, f"the voice's joining was never said: {wiring.heard}"
            time.sleep(0.01)
        wiring.microphone.say("九个")  # spoken: heard through the microphone that joined, a count read back
        deadline = time.monotonic() + 20
        while "九个人，对吗？" not in wiring.heard:
            assert time.monotonic() < deadline, f"the count was never read back: {wiring.heard}"
            time.sleep(0.01)
        wiring.microphone.say("对")
        waits_for(device, "board")
        wiring.typed.type("关机", "确认")

    code = run_with(device, wiring, host)
    assert code == 0
    said = wiring.heard
    assert said[0] == READY and "几个人玩？" in said
    assert said.index(JOINED) > said.index("几个人玩？")  # said once, at the question that was waiting
    assert said.count(JOINED) == 1
    assert "九人可以玩：预女猎、标准局、经典。" in said and said[-1] == "法官关机了，再见。"


def test_a_voice_that_joins_while_the_ready_line_plays_is_not_announced(home: Path) -> None:
    def on_line(line: Line) -> None:
        if line.text == READY:  # the model loads while the ready line is said
            wiring.loaded.set()
            assert device._voice is not None and device._voice.settled.wait(20)

    wiring = LaterVoice(on_line)
    device = Device(wiring, Config(), console=Console(file=(home / "console.txt").open("w", encoding="utf-8")))

    def host() -> None:
        waits_for(device, "idle")
        wiring.microphone.say("关机")
        waits_for(device, "idle")  # read back: 关机，对吗？
        wiring.microphone.say("确认")

    assert run_with(device, wiring, host) == 0
    assert JOINED not in wiring.heard
    assert wiring.heard[0] == READY and "关机，对吗？" in wiring.heard


def test_a_model_that_cannot_load_is_said_and_the_console_goes_on(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    wiring = LaterVoice(fails=True)
    wiring.loaded.set()
    device = Device(wiring, Config(), console=Console(file=(home / "console.txt").open("w", encoding="utf-8")))

    def host() -> None:
        waits_for(device, "idle")
        deadline = time.monotonic() + 20
        while not any("打不开" in line for line in wiring.heard):
            assert time.monotonic() < deadline, f"the failure was never said: {wiring.heard}"
            time.sleep(0.01)
        wiring.typed.type("关机", "确认")

    with caplog.at_level(logging.ERROR, logger="narrator.serve"):
        assert run_with(device, wiring, host) == 0
    assert wiring.heard[:2] == [READY, "麦克风或者语音模型打不开，现在请在主持人的控制台上输入。"]
    assert "the voice cannot listen: the speech model vosk-model-small-cn-0.22 is not installed" in caplog.text


def test_a_game_asked_for_by_keys_before_the_model_starts_once_the_voice_joined(home: Path) -> None:
    """The whole lobby by typed text before the model has loaded: 开始 waits for the microphone (a game's
    read-backs are set by the microphones it starts with), then the game begins; nothing is announced (the
    game's first question is asked after the voice joined)."""
    wiring = LaterVoice()
    device = Device(wiring, Config(), console=Console(file=(home / "console.txt").open("w", encoding="utf-8")))

    def host() -> None:
        waits_for(device, "idle")
        wiring.typed.type("开始新游戏", "九个", "预女猎", "开始")
        deadline = time.monotonic() + 20
        while device._voice is None or not device._voice_waited:
            assert time.monotonic() < deadline, f"the game never waited for the voice: {wiring.heard}"
            time.sleep(0.01)
        time.sleep(0.3)
        assert not any("天黑请闭眼" in line for line in wiring.heard), wiring.heard  # no game before the voice
        wiring.loaded.set()
        while not any("天黑请闭眼" in line for line in wiring.heard):
            assert time.monotonic() < deadline + 20, f"the game never began: {wiring.heard}"
            time.sleep(0.01)
        wiring.typed.lines.put(None)  # the host stops here: every input ends, the game is saved
        wiring.microphone.close()

    assert run_with(device, wiring, host) == 3
    assert JOINED not in wiring.heard
