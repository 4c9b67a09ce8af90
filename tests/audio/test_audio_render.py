"""Offline rendering to a public and a host WAV through the same mixer."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
from audio_testkit import SR, host_tone, rms_db, tone_level, voiced_burst

from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer, MixerConfig
from narrator.audio.pacing import Pacer
from narrator.audio.render import SYNC, RenderItem, render, render_to_files
from narrator.judge.lines import Line

NIGHT = Line("天黑请闭眼。", key="night_fell", pause="long", bed="night")
OPEN = Line("预言家请睁眼。", key="step.seer.open", pause="eyes_open")
ASK = Line("预言家查验了谁？", to="host", key="prompt.seer.check", pause="none")
CLOSE = Line("预言家请闭眼。", key="step.seer.close", pause="eyes_close")
DAWN = Line("天亮了，请大家睁眼。", key="day_broke", pause="long", cue="dawn", bed="day")


def read_wav(path: Path) -> tuple[int, np.ndarray]:
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
        return w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), "<i2") / 32767.0


def test_render_to_files_writes_two_aligned_wavs(tmp_path: Path) -> None:
    clips = {line.key: voiced_burst(0.6 + 0.1 * i) for i, line in enumerate((NIGHT, OPEN, CLOSE, DAWN))}
    items: list[RenderItem] = [(NIGHT, clips[NIGHT.key]), (OPEN, clips[OPEN.key]), (ASK, host_tone(0.8)), SYNC,
             (CLOSE, clips[CLOSE.key]), (DAWN, clips[DAWN.key])]
    result = render_to_files(items, tmp_path / "p.wav", tmp_path / "h.wav", pacer=Pacer(seed=3),
                             mixer=Mixer(builtin_sounds()))
    rate_p, public = read_wav(tmp_path / "p.wav")
    rate_h, host = read_wav(tmp_path / "h.wav")
    assert rate_p == rate_h == SR and len(public) == len(host) == len(result.public)
    np.testing.assert_allclose(public, result.public, atol=1 / 32767 + 1e-6)

    # Pauses come from the pacer, class by class, in queueing order.
    expected = Pacer(seed=3)
    by_key = {p.line.key: p for p in result.timeline}
    for p in result.timeline:
        clip_s = len(host_tone(0.8) if p.line is ASK else clips[p.line.key]) / SR
        assert p.end_s - p.speech_s - clip_s == pytest.approx(expected.draw(p.line.pause), abs=1 / SR)
    # The cue comes before the speech; lines on one channel follow each other back to back.
    assert by_key["day_broke"].speech_s - by_key["day_broke"].start_s == pytest.approx(2.4, abs=1 / SR)
    assert by_key["step.seer.open"].start_s == by_key["night_fell"].end_s
    # SYNC: the close waits for the host's line (which started with the public opening line) to finish.
    assert by_key["prompt.seer.check"].start_s == 0.0
    assert by_key["step.seer.close"].start_s == max(by_key["step.seer.open"].end_s,
                                                    by_key["prompt.seer.check"].end_s)

    # The secret is in the host file only; the host file holds nothing else.
    ask = by_key["prompt.seer.check"]
    a, b = int(ask.speech_s * SR), int((ask.speech_s + 0.8) * SR)
    assert tone_level(host[a:b], 7000.0) > 0.25
    assert tone_level(public, 7000.0) < 1e-3
    assert np.all(host[b:] == 0) and np.all(host[:a] == 0)
    # Speech where the lines are, the bed between them, and a fade-out at the very end.
    close = by_key["step.seer.close"]
    speech = public[int(close.speech_s * SR) + 2400 : int(close.speech_s * SR) + 9600]
    gap = public[int(close.end_s * SR) - 24000 : int(close.end_s * SR) - 2400]
    assert rms_db(speech) > rms_db(gap) + 10 and rms_db(gap) > -35
    assert result.duration_s == pytest.approx(by_key["day_broke"].end_s + MixerConfig().bed_crossfade_s)
    assert np.max(np.abs(public[-240:])) < 1e-3


def test_without_sync_the_channels_run_independently() -> None:
    items: list[RenderItem] = [(OPEN, voiced_burst(0.5), 1.0), (ASK, host_tone(3.0), 0.0),
                               (CLOSE, voiced_burst(0.5), 0.5)]
    result = render(items, mixer=Mixer(builtin_sounds()))
    by_key = {p.line.key: p for p in result.timeline}
    assert by_key["prompt.seer.check"].start_s == 0.0
    assert by_key["step.seer.close"].start_s == pytest.approx(1.5)
    assert result.duration_s == pytest.approx(3.0)  # the longer channel; no bed, so no fade tail


def test_explicit_pauses_equal_pacer_draws() -> None:
    lines = [(OPEN, voiced_burst(0.3)), (CLOSE, voiced_burst(0.3))]
    drawn = render(lines, pacer=Pacer(seed=11), mixer=Mixer(builtin_sounds()))
    pacer = Pacer(seed=11)
    explicit = render([(line, clip, pacer.draw(line.pause)) for line, clip in lines], mixer=Mixer(builtin_sounds()))
    np.testing.assert_array_equal(drawn.public, explicit.public)


def test_render_uses_the_given_mixer_and_its_config() -> None:
    mixer = Mixer(builtin_sounds(), MixerConfig(duck_db=-20.0, bed_crossfade_s=0.2))
    result = render([(NIGHT, np.zeros(SR, np.float32), 1.0)], mixer=mixer, tail_s=0.5)
    gain_db = rms_db(result.public[int(0.5 * SR) : SR]) - rms_db(result.public[int(1.5 * SR) : 2 * SR])
    assert gain_db == pytest.approx(-20.0, abs=1.5)
    assert result.duration_s == pytest.approx(2.5)


def test_a_line_without_a_pause_is_refused() -> None:
    with pytest.raises(ValueError, match="no pause"):
        render([(OPEN, voiced_burst(0.1))], mixer=Mixer(builtin_sounds()))
