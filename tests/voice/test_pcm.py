"""WAV parsing, MP3 decoding, resampling and trimming: the plumbing every voice goes through."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from voice_testkit import mp3_of

from narrator.audio import SAMPLE_RATE
from narrator.audio.resample import resample
from narrator.voice.base import Audio, VoiceError
from narrator.voice.pcm import decode_mp3, decode_mp3s, duration_ms, read_wav, silence, trim


def sine(freq_hz: float, rate_hz: int, seconds: float) -> Audio:
    return np.sin(2 * np.pi * freq_hz * np.arange(round(rate_hz * seconds)) / rate_hz).astype(np.float32)


def wav_bytes(pcm: np.ndarray, rate_hz: int, channels: int = 1, streaming: bool = False) -> bytes:
    data: bytes = (np.clip(pcm, -1, 1) * 32767).astype("<i2").tobytes()
    size = 0x7FFFFFFF if streaming else len(data)
    fmt = struct.pack("<HHIIHH", 1, channels, rate_hz, rate_hz * 2 * channels, 2 * channels, 16)
    return b"RIFF" + struct.pack("<I", size) + b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data" + \
        struct.pack("<I", size) + data


def dominant_hz(audio: np.ndarray, rate_hz: int = SAMPLE_RATE) -> float:
    spectrum = np.abs(np.fft.rfft(audio * np.hanning(len(audio))))
    return float(np.fft.rfftfreq(len(audio), 1 / rate_hz)[np.argmax(spectrum)])


@pytest.mark.parametrize("streaming", [False, True])
def test_read_wav_also_reads_the_streaming_header_espeak_writes_to_a_pipe(streaming: bool) -> None:
    pcm = sine(440, 22050, 0.5) * 0.5
    audio, rate = read_wav(wav_bytes(pcm, 22050, streaming=streaming))
    assert rate == 22050 and audio.dtype == np.float32 and len(audio) == len(pcm)
    assert np.max(np.abs(audio - pcm)) < 1e-3


def test_read_wav_mixes_stereo_down_and_rejects_what_is_not_wav() -> None:
    left, right = sine(440, 8000, 0.1), np.zeros(800, np.float32)
    stereo = np.stack([left, right], axis=1).reshape(-1) * 0.5
    audio, _ = read_wav(wav_bytes(stereo, 8000, channels=2))
    assert np.max(np.abs(audio - left * 0.25)) < 1e-3
    with pytest.raises(VoiceError):
        read_wav(b"ID3 this is an mp3")


def test_resampling_keeps_a_tone_and_its_length() -> None:
    out = resample(sine(440, 22050, 1.0), 22050, SAMPLE_RATE)
    assert len(out) == SAMPLE_RATE
    reference = sine(440, SAMPLE_RATE, 1.0)
    assert np.max(np.abs(out[100:-100] - reference[100:-100])) < 1e-3


def test_resampling_down_removes_what_would_alias() -> None:
    high = resample(sine(15000, 48000, 0.5), 48000, SAMPLE_RATE)  # above the new Nyquist (12 kHz)
    low = resample(sine(1000, 48000, 0.5), 48000, SAMPLE_RATE)
    assert np.sqrt(np.mean(high[200:-200] ** 2)) < 0.01
    assert np.sqrt(np.mean(low[200:-200] ** 2)) == pytest.approx(np.sqrt(0.5), rel=0.01)


def test_decode_mp3_gives_24khz_float32_of_the_same_sound() -> None:
    sound = sine(440, SAMPLE_RATE, 1.0) * np.float32(0.5)
    audio = decode_mp3(mp3_of(sound))
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert abs(duration_ms(audio) - 1000) < 120  # MP3 adds encoder delay and padding
    assert dominant_hz(audio) == pytest.approx(440, abs=3)
    assert np.sqrt(np.mean(audio**2)) == pytest.approx(0.5 / np.sqrt(2), rel=0.1)


def test_decode_mp3_of_garbage_is_a_voice_error() -> None:
    with pytest.raises(VoiceError, match="ffmpeg"):
        decode_mp3(b"\x00" * 1000)
    with pytest.raises(VoiceError, match="ffmpeg"):
        decode_mp3s([mp3_of(sine(440, SAMPLE_RATE, 0.3)), b"\x00" * 1000])


def test_one_ffmpeg_decodes_many_clips_each_as_alone() -> None:
    clips = [mp3_of(sine(hz, SAMPLE_RATE, seconds)) for hz, seconds in ((440, 1.0), (300, 0.3), (880, 2.0))]
    together = decode_mp3s(clips)
    assert len(together) == 3 and decode_mp3s([]) == []
    for clip, audio in zip(clips, together, strict=True):
        assert audio.dtype == np.float32 and np.array_equal(audio, decode_mp3(clip))
    assert [round(dominant_hz(a)) for a in together] == [440, 300, 880]


def test_trim_cuts_the_silence_around_a_sound_but_keeps_a_margin() -> None:
    sound = sine(300, SAMPLE_RATE, 0.2)
    padded = np.concatenate([silence(500), sound, silence(300)])
    trimmed = trim(padded, margin_ms=20)
    assert duration_ms(trimmed) == pytest.approx(200 + 2 * 20, abs=2)
    assert len(trim(silence(100))) == 0
