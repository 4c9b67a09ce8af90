"""`narrator serve` under its systemd unit, as the unit runs it: readiness and the watchdog told through
$NOTIFY_SOCKET, `systemctl stop` (SIGTERM) in the lobby a clean stop (143, logged as a stop), and no game
without a host channel (no earpiece, standard output into /dev/null): the table is told why, aloud."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from narrator.listen.first import First
from narrator.listen.text import TextEar
from narrator.play.config import Config
from narrator.play.mouth import PrintMouth
from narrator.play.run import Wiring
from narrator.play.store import all_games
from narrator.serve.device import Device
from narrator.serve.notify import notify, watchdog_period_s

TEXT = ["--input", "text", "--table-device", "none", "--no-web"]


def notifications(sock: socket.socket, until: str, timeout_s: float = 60.0) -> list[str]:
    """Every datagram line received until one equals `until`."""
    got: list[str] = []
    deadline = time.monotonic() + timeout_s
    while until not in got:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            got += sock.recv(4096).decode("utf-8").splitlines()
        except TimeoutError:
            raise AssertionError(f"no {until} within {timeout_s} s; got {got}") from None
    return got


def test_ready_watchdog_and_sigterm_in_the_lobby_are_a_clean_stop(tmp_path: Path) -> None:
    where = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(where)
        env = {**os.environ, "NARRATOR_DATA_DIR": str(tmp_path / "data"),
               "NARRATOR_CONFIG_DIR": str(tmp_path / "config"), "NOTIFY_SOCKET": where,
               "WATCHDOG_USEC": "200000"}
        proc = subprocess.Popen([sys.executable, "-m", "narrator.cli.main", "serve", *TEXT],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        try:
            got = notifications(sock, "READY=1")
            assert "STATUS=ready: in the lobby" in got
            got = notifications(sock, "WATCHDOG=1", timeout_s=20)  # fed every 0.1 s while alive
            proc.send_signal(signal.SIGTERM)
            got = notifications(sock, "STOPPING=1", timeout_s=20)
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 143, err  # the unit's SuccessExitStatus: a clean stop
    assert "stopped (SIGTERM)" in err and "Ctrl-C" not in err
    assert "法官准备好了" in out


def test_without_a_notify_socket_nothing_is_sent(tmp_path: Path) -> None:
    assert notify("READY=1", env={}) is False
    assert watchdog_period_s({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert watchdog_period_s({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None  # another process's
    assert watchdog_period_s({}) is None
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:  # the abstract namespace ("@name")
        sock.bind(f"\0narrator-test-{os.getpid()}")
        assert notify("READY=1", env={"NOTIFY_SOCKET": f"@narrator-test-{os.getpid()}"})
        assert sock.recv(100) == b"READY=1"


class Typed(Wiring):
    """No table speaker: the table's lines are kept (`heard`); the host types into `text`."""

    def __init__(self, text: str, host: str = "") -> None:
        super().__init__(("text",), "none", host, "default")
        self.heard: list[str] = []
        self.text = text

    def ear(self, players: int, stdin: Any = None) -> Any:
        return First([TextEar(io.StringIO(self.text))])

    def mouth(self, console: Console, seed: int, lang: str) -> Any:
        return PrintMouth(lambda line: self.heard.append(line.text))


def test_no_game_starts_without_a_host_channel_and_the_table_hears_why(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    wiring = Typed("开始新游戏\n九个\n预女猎\n开始\n")
    with open(os.devnull, "w", encoding="utf-8") as nowhere:  # the unit's StandardOutput=null
        device = Device(wiring, Config(), console=Console(file=nowhere))
        assert not device.host_channel
        code = device.run()
    assert code == 3  # the typed input ran out, in the lobby
    no_host = "没有接主持人的耳机，秘密的话没地方说，所以还不能开始游戏。请接上耳机，再重新设置一遍。"
    assert wiring.heard[:2] == ["法官准备好了。要开始，请说：法官，开始新游戏。", no_host]  # at the ready line
    assert wiring.heard.count(no_host) == 2  # and again at 开始
    assert all_games(tmp_path / "data" / "games") == []  # no game was started, none saved

    with open(os.devnull, "w", encoding="utf-8") as nowhere:  # an earpiece is a host channel
        assert Device(Typed("", host="default"), Config(), console=Console(file=nowhere)).host_channel
    assert Device(Typed(""), Config(), console=Console(file=io.StringIO())).host_channel  # a console is one too
