"""A whole game piped into the real `narrator play` process with bytes that are not UTF-8 and a runaway
line among the host's words, under locales that would have decoded stdin otherwise: each bad line is
refused with its reason, every other line is heard, and the game is the same as without them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from play_testkit import demo_scenario

from narrator.play.scripted import host_script
from narrator.play.store import all_games


@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
def test_bad_bytes_and_a_megabyte_line_change_nothing_but_their_own_refusals(
        home: Path, monkeypatch: pytest.MonkeyPatch, locale: str) -> None:
    scripted = host_script(demo_scenario())
    words = [w.encode() for w in scripted.utterances]
    stdin = b"\n".join([
        "开始".encode(),
        b"\xff\xfe oops \x80",                     # not UTF-8
        words[0],
        ("狼" * 1_000_000).encode(),              # a megabyte and more, no spaces
        *words[1:],
    ]) + b"\n"
    env = {**os.environ, "LC_ALL": locale, "LANG": locale, "PYTHONIOENCODING": "",
           "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config")}
    env.pop("PYTHONUTF8", None)
    done = subprocess.run(
        [sys.executable, "-c", "from narrator.cli.main import main; main()",
         "play", "--input", "text", "--table-device", "none", "--seed", "2026"],
        input=stdin, capture_output=True, timeout=300, env=env, check=False,
    )
    out = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
    assert done.returncode == 0, out[-3000:]
    assert "Traceback" not in out
    assert "看不懂这一行" in out and "这一行太长了" in out
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(home / "data"))
    [saved] = all_games()
    assert saved.load().game.journal == scripted.game.journal  # type: ignore[attr-defined]
