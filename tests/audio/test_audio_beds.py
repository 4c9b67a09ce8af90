"""Built-in beds and cues, the loop point, and user sound files."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import numpy as np
import pytest
from audio_testkit import SR, rms_db, tone_level, write_wav

from narrator.audio import beds
from narrator.audio.beds import SOUND_NAMES, builtin, load_sounds, make_loopable
from narrator.audio.resample import resample


def seam_click(loop: np.ndarray) -> float:
    """How much the wrap from the last sample to the first stands out: the second difference across the
    seam divided by the 99.9th percentile of second differences inside the loop. A click is >> 1."""
    inner = np.abs(np.diff(loop.astype(np.float64), 2))
    seam = abs(float(loop[1]) - 2 * float(loop[0]) + float(loop[-1]))
    seam = max(seam, abs(float(loop[0]) - 2 * float(loop[-1]) + float(loop[-2])))
    return seam / float(np.percentile(inner, 99.9))


@pytest.mark.parametrize("name", SOUND_NAMES)
def test_builtin_sounds_are_mono_float32_and_sane(name: str) -> None:
    x = builtin(name)
    assert x.dtype == np.float32 and x.ndim == 1
    assert np.all(np.isfinite(x))
    assert 0.05 < np.max(np.abs(x)) <= 0.6
    assert len(x) >= 0.05 * SR


@pytest.mark.parametrize("name", ["night", "day"])
def test_bed_loop_point_is_click_free(name: str) -> None:
    loop = builtin(name)
    assert seam_click(loop) < 1.0
    jump = abs(float(loop[0]) - float(loop[-1]))
    assert jump <= np.percentile(np.abs(np.diff(loop)), 99.9)


def test_seam_measure_catches_a_naive_cut() -> None:
    # The same bed cut 0.3 s short is no longer periodic: the measure must see the click.
    loop = builtin("night")
    assert seam_click(loop[: len(loop) - int(0.3137 * SR)]) > 3.0


def test_bed_is_periodic_by_construction() -> None:
    # Synthesising twice the length with the same seed is not the same signal, so instead check the
    # defining property: the spectrum of the loop has no leakage skirt (energy only on loop harmonics).
    loop = builtin("night").astype(np.float64)
    spec = np.abs(np.fft.rfft(loop)) ** 2
    # A discontinuity at the wrap spreads energy ~1/f^2 to all bins above 6 kHz; the bed has none there.
    assert spec[int(6000 * len(loop) / SR) :].sum() / spec.sum() < 1e-9


def test_cues_start_and_end_silent() -> None:
    for name in ("dawn", "bell", "tick"):
        x = builtin(name)
        assert abs(x[0]) < 1e-3 and abs(x[-1]) < 1e-3, name


def test_night_bed_leaves_the_host_signature_band_empty() -> None:
    assert tone_level(builtin("night"), 7000.0) < 1e-5


def test_make_loopable_removes_a_seam_click() -> None:
    rng = np.random.default_rng(5)
    # A smooth random walk that ends far from where it starts: a loud click if looped as is.
    clip = np.cumsum(rng.standard_normal(3 * SR)) / 300.0
    clip = (clip - clip.mean()).astype(np.float32)
    assert seam_click(clip) > 10
    looped = make_loopable(clip, 0.5)
    assert len(looped) == len(clip) - SR // 2
    assert seam_click(looped) < 1.5
    # Away from the crossfade region the clip is untouched.
    np.testing.assert_array_equal(looped[SR // 2 :], clip[SR // 2 : len(clip) - SR // 2])


def test_resample_keeps_a_tone_and_its_level() -> None:
    t = np.arange(44100) / 44100
    y = resample(0.5 * np.sin(2 * np.pi * 1000 * t), 44100)
    assert abs(len(y) - SR) <= 1
    assert tone_level(y, 1000.0) == pytest.approx(0.5, rel=0.02)
    # Content above the new Nyquist is removed, not aliased.
    y2 = resample(0.5 * np.sin(2 * np.pi * 15000 * t), 44100)
    assert np.max(np.abs(y2[1000:-1000])) < 0.01


def test_user_files_override_builtins(tmp_path: Path) -> None:
    user, repo = tmp_path / "user", tmp_path / "repo"
    user.mkdir()
    repo.mkdir()
    t = np.arange(2 * 44100) / 44100
    write_wav(repo / "night.wav", 0.5 * np.sin(2 * np.pi * 440 * t), rate=44100)
    # The user data dir wins over the repo folder; an mp3 goes through ffmpeg.
    write_wav(tmp_path / "bell.wav", 0.8 * np.sin(2 * np.pi * 300 * t[:22050]), rate=44100)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-i", str(tmp_path / "bell.wav"), str(user / "bell.mp3")],
                   check=True)
    write_wav(repo / "bell.wav", np.zeros(100), rate=44100)
    bank = load_sounds([user, repo])
    assert bank.origins["night"] == str(repo / "night.wav")
    assert bank.origins["bell"] == str(user / "bell.mp3")
    assert bank.origins["day"] == "built-in"
    night = bank["night"]
    assert night.dtype == np.float32
    assert len(night) == pytest.approx(2 * SR - beds.USER_LOOP_CROSSFADE_S * SR, abs=2)
    assert rms_db(night) == pytest.approx(beds.BED_RMS_DB["night"], abs=0.1)  # levelled like the built-in
    assert tone_level(night, 440.0) > 0.03
    assert seam_click(night) < 1.5
    assert np.max(np.abs(bank["bell"])) == pytest.approx(10 ** (beds.CUE_PEAK_DB / 20), rel=1e-3)


def test_bad_user_file_warns_and_falls_back(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "tick.mp3").write_bytes(b"this is not audio" * 50)
    write_wav(tmp_path / "dawn.wav", np.zeros(SR))  # decodes, but is silence: also refused
    with caplog.at_level(logging.WARNING, logger="narrator.audio.beds"):
        bank = load_sounds([tmp_path])
    assert bank.origins["tick"] == "built-in" and bank.origins["dawn"] == "built-in"
    np.testing.assert_array_equal(bank["tick"], builtin("tick"))
    text = caplog.text
    assert "tick.mp3" in text and "cannot decode" in text
    assert "dawn.wav" in text and "silence" in text


def test_missing_dirs_mean_builtins() -> None:
    bank = load_sounds([Path("/nonexistent/narrator-audio")])
    assert set(bank.origins.values()) == {"built-in"}
