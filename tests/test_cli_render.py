"""`narrator render`, the audible demo and `narrator devices`, end to end with the offline voice."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from narrator.cli.main import app

SCENARIO = Path(__file__).parent / "scenarios" / "001_witch_saves_first_night.yaml"
RATE = 24_000


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (RATE, 1, 2)
        return np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768


def active_seconds(x: np.ndarray, threshold: float = 0.02) -> float:
    """s during which 20 ms windows carry more than `threshold` RMS."""
    n = len(x) // 480 * 480
    rms = np.sqrt((x[:n].reshape(-1, 480) ** 2).mean(axis=1))
    return float((rms > threshold).sum() * 0.02)


@pytest.mark.slow
def test_render_writes_time_aligned_table_and_host_files(tmp_path: Path) -> None:
    out = tmp_path / "game.wav"
    result = CliRunner().invoke(app, ["render", str(SCENARIO), "-o", str(out), "--backend", "espeak",
                                      "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    table, host = read_wav(out), read_wav(tmp_path / "game.host.wav")
    assert len(table) == len(host) > 60 * RATE  # a night and a day take minutes, not seconds
    assert active_seconds(table) > 30  # the judge speaks over the bed at the table …
    assert active_seconds(host) > 10  # … and to the host's ear
    # The host channel holds only speech: long stretches of silence between the host's lines.
    assert active_seconds(host) < 0.7 * len(host) / RATE


@pytest.mark.slow
def test_render_is_repeatable_and_second_run_uses_only_the_cache(tmp_path: Path) -> None:
    args = ["render", str(SCENARIO), "--backend", "espeak", "--cache-dir", str(tmp_path / "cache")]
    first = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "a.wav")])
    second = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "b.wav"), "--offline"])
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    assert (tmp_path / "a.wav").read_bytes() == (tmp_path / "b.wav").read_bytes()


def test_render_offline_with_an_empty_cache_names_the_missing_piece(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["render", str(SCENARIO), "-o", str(tmp_path / "g.wav"), "--offline",
                                      "--backend", "espeak", "--cache-dir", str(tmp_path / "empty")])
    assert result.exit_code == 1
    assert "voices build" in result.output and "Traceback" not in result.output


def test_render_refuses_an_invalid_scenario(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: 没有这个板子\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["render", str(bad), "-o", str(tmp_path / "g.wav")])
    assert result.exit_code == 2 and "没有这个板子" in result.output


@pytest.mark.slow
def test_demo_plays_a_whole_game_to_audio_files(tmp_path: Path) -> None:
    out = tmp_path / "demo.wav"
    result = CliRunner().invoke(app, ["demo", "-o", str(out), "--backend", "espeak",
                                      "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    assert "好人阵营胜利" in result.output
    table, host = read_wav(out), read_wav(tmp_path / "demo.host.wav")
    assert table.size == host.size > 5 * 60 * RATE
    # Loudness: not one clipped sample on either channel; the host's channel (speech alone) peaks ≤ −1 dBFS.
    assert int(np.sum(np.abs(table) >= 32767 / 32768)) == 0 and int(np.sum(np.abs(host) >= 32767 / 32768)) == 0
    assert 20 * np.log10(np.abs(host).max()) <= -1.0
    # Subtitles of both channels beside the WAVs, ending where the audio ends.
    from narrator.audio.subtitles import read_cues

    cues = {name: read_cues(tmp_path / name) for name in ("demo.vtt", "demo.host.vtt")}
    assert cues["demo.vtt"][0][2].startswith("欢迎")
    assert any("好人阵营胜利" in text for _, _, text in cues["demo.vtt"])
    assert any("狼人的座位号" in text for _, _, text in cues["demo.host.vtt"])
    assert max(end for _, end, _ in cues["demo.vtt"]) < table.size / RATE


def test_demo_text_only_needs_no_voice() -> None:
    result = CliRunner().invoke(app, ["demo", "--no-audio"])
    assert result.exit_code == 0, result.output
    assert "天黑请闭眼" in result.output and "好人阵营胜利" in result.output


@pytest.mark.slow
@pytest.mark.usefixtures("pulse")
def test_devices_lists_the_sound_server() -> None:
    result = CliRunner().invoke(app, ["devices"])
    assert result.exit_code == 0, result.output
    assert "pulse" in result.output or "default" in result.output
