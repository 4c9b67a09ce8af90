"""A whole game through a real sound server: `narrator play` speaks into the PulseAudio null sink `room`
(the table) and `host` (the earpiece), the host's words are piped in as text, and the game runs from the
cards to the recap. Its winner and journal equal the same game run by `simulate`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from play_testkit import SCENARIOS

from narrator.play.scripted import host_script
from narrator.play.store import all_games
from narrator.sim.scenario import Run, Scenario

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audio"))
from audio_testkit import SR, MonitorRecorder

pytestmark = pytest.mark.slow


def active_s(x: np.ndarray, threshold_db: float = -45.0) -> float:
    n = len(x) // 480 * 480
    rms = np.sqrt((x[:n].reshape(-1, 480) ** 2).mean(axis=1) + 1e-12)
    return float((20 * np.log10(rms) > threshold_db).sum() * 480 / SR)


def test_a_game_through_pulseaudio_from_play_to_recap(pulse: object, tmp_path: Path) -> None:
    scenario = Scenario.load(SCENARIOS / "008_side_win_seer_killed_8_standard.yaml")
    scripted = host_script(scenario)
    simulated = Run(scenario).execute()
    assert simulated.code == 0
    env = {**os.environ, "NARRATOR_DATA_DIR": str(tmp_path / "data"), "NARRATOR_CONFIG_DIR": str(tmp_path / "c")}
    room, host = MonitorRecorder("room.monitor"), MonitorRecorder("host.monitor")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "narrator.cli.main", "play", "--preset", "8人标准局", "--seed", str(scenario.seed),
             "--input", "text", "--table-device", "pulse:room", "--host-device", "pulse:host", "--backend", "espeak",
             "--rate=+150%", "--pace", "0.05", "--cache-dir", str(tmp_path / "cache")],
            input="开始\n" + "\n".join(scripted.utterances) + "\n", capture_output=True, text=True, env=env,
            timeout=240, check=False)
    finally:
        table_audio, host_audio = room.stop(), host.stop()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "狼人阵营胜利" in done.stdout
    [saved] = all_games(tmp_path / "data" / "games")
    session = saved.load()
    assert session.winner == scripted.game.winner
    assert session.game.journal == scripted.game.journal
    said = [line.text for line in simulated.lines if line.to == "all"]
    assert "本局八人：两狼人，五村民，预言家。请洗牌发牌，准备好了说开始。" in done.stdout
    assert all(f"🔊 {text}" in done.stdout for text in said)
    # The table heard the judge for a good while; the host's earpiece heard the host lines.
    assert active_s(table_audio) > 15, active_s(table_audio)
    assert active_s(host_audio) > 3, active_s(host_audio)
    assert (saved.folder / "game.recap.html").exists()
