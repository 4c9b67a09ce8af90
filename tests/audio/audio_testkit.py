"""Signals and measurements shared by the audio tests."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio.beds import SoundBank, decode_file

SR = SAMPLE_RATE
HOST_TONE_HZ = 7000.0
"""Hz. The host clip's signature: nothing else in the tests has energy here (speech is low-passed)."""


def voiced_burst(seconds: float, f0: float = 160.0, amp: float = 0.3) -> np.ndarray:
    """Synthetic vowel: harmonics of f0 up to 3.5 kHz with a 1/k spectrum and 20 ms fades."""
    t = np.arange(int(seconds * SR)) / SR
    x = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, int(3500 / f0)))
    return _fade(amp * np.asarray(x) / np.max(np.abs(x)), 0.02)


def host_tone(seconds: float = 1.0, amp: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    return _fade(amp * np.sin(2 * np.pi * HOST_TONE_HZ * t), 0.01)


def _fade(x: np.ndarray, s: float) -> np.ndarray:
    n = int(s * SR)
    ramp = np.sin(0.5 * np.pi * np.arange(n) / n) ** 2
    x = x.copy()
    x[:n] *= ramp
    x[-n:] *= ramp[::-1]
    return x.astype(np.float32)


def write_wav(path: Path, samples: np.ndarray, rate: int = SR) -> None:
    """16-bit mono WAV, written with the standard library (independent of the code under test)."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())


def lowpass(x: np.ndarray, cutoff_hz: float) -> np.ndarray:
    spec = np.fft.rfft(x)
    spec[np.fft.rfftfreq(len(x), 1 / SR) > cutoff_hz] = 0
    return np.fft.irfft(spec, len(x)).astype(np.float32)


def espeak(text: str, tmp: Path) -> np.ndarray:
    """Mandarin speech from espeak-ng, through the project's own decoder; low-passed at 5 kHz and
    levelled to -20 dBFS RMS over its voiced part (a TTS clip's typical loudness)."""
    wav = tmp / f"espeak-{abs(hash(text))}.wav"
    subprocess.run(["espeak-ng", "-v", "cmn", "-w", str(wav), text], check=True, capture_output=True)
    x = lowpass(decode_file(wav), 5000.0)
    frames = x[: len(x) // 480 * 480].reshape(-1, 480)
    loud = frames[np.sqrt(np.mean(frames**2, axis=1)) > 0.1 * np.max(np.abs(x))]
    out: np.ndarray = (x * (0.1 / np.sqrt(np.mean(loud**2)))).astype(np.float32)
    assert np.max(np.abs(out)) < 1.0
    return out


def constant_bank(level: float = 0.1) -> SoundBank:
    """Beds of constant value, so the bed's contribution to the output *is* the gain envelope."""
    from narrator.audio.beds import builtin_sounds

    base = builtin_sounds().sounds
    sounds = dict(base)
    sounds["night"] = np.full(SR, level, np.float32)
    sounds["day"] = np.full(SR // 2, -level, np.float32)
    return SoundBank(sounds)


def rms_db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(np.square(x, dtype=np.float64)) + 1e-20))


def tone_level(x: np.ndarray, freq_hz: float, window_s: float = 0.5) -> float:
    """Largest amplitude of a sinusoid at freq_hz over sliding windows (Hann-windowed DFT bin)."""
    n = int(window_s * SR)
    if len(x) < n:
        x = np.pad(x, (0, n - len(x)))
    w = np.hanning(n)
    probe = w * np.exp(-2j * np.pi * freq_hz * np.arange(n) / SR)
    # The windows a quarter window apart, a few dozen at a time, times the probe's real and imaginary parts:
    # one real matrix product each (a complex dot of float32 samples, window by window, took ~7 ms a window).
    windows = np.lib.stride_tricks.sliding_window_view(np.asarray(x, np.float64), n)[:: n // 4]
    parts = np.stack([probe.real, probe.imag], axis=1)
    best = 0.0
    for a in range(0, len(windows), 64):
        best = max(best, float(np.max(np.hypot(*(windows[a : a + 64] @ parts).T))))
    return 2 * best / w.sum()


def band_levels(x: np.ndarray, lo_hz: float = 1000.0, hi_hz: float = 3500.0, frame_s: float = 0.05) -> np.ndarray:
    """dB energy per frame in [lo_hz, hi_hz) (Hann-windowed STFT, no overlap)."""
    fr = int(frame_s * SR)
    n = len(x) // fr
    spec = np.abs(np.fft.rfft(x[: n * fr].reshape(n, fr) * np.hanning(fr), axis=1)) ** 2
    f = np.fft.rfftfreq(fr, 1 / SR)
    levels: np.ndarray = 10 * np.log10(spec[:, (f >= lo_hz) & (f < hi_hz)].sum(axis=1) + 1e-12)
    return levels


def align(recorded: np.ndarray, reference: np.ndarray) -> tuple[np.ndarray, float]:
    """Shift `recorded` so it lines up with `reference` (integer lag from the cross-correlation peak,
    then a fractional FFT shift from a parabola through it). Returns (aligned, correlation)."""
    n = 1 << int(np.ceil(np.log2(len(recorded) + len(reference))))
    xc = np.fft.irfft(np.fft.rfft(recorded, n) * np.conj(np.fft.rfft(reference, n)), n)
    lag = int(np.argmax(xc[: len(recorded)]))
    y0, y1, y2 = xc[lag - 1], xc[lag], xc[(lag + 1) % n]
    frac = 0.5 * (y0 - y2) / (y0 - 2 * y1 + y2) if (y0 - 2 * y1 + y2) != 0 else 0.0
    seg = np.pad(recorded[lag:], (0, max(0, len(reference) + 1 - len(recorded[lag:]))))[: len(reference) + 1]
    freqs = np.fft.rfftfreq(len(seg))
    shifted = np.fft.irfft(np.fft.rfft(seg) * np.exp(2j * np.pi * freqs * frac), len(seg))[: len(reference)]
    corr = float(np.dot(shifted, reference) / (np.linalg.norm(shifted) * np.linalg.norm(reference) + 1e-20))
    return shifted, corr


def fit_gains(y: np.ndarray, *parts: np.ndarray) -> np.ndarray:
    """Least-squares gains g so that y ≈ sum(g_i * parts_i)."""
    a = np.stack(parts, axis=1).astype(np.float64)
    gains: np.ndarray = np.linalg.lstsq(a, y.astype(np.float64), rcond=None)[0]
    return gains


class MonitorRecorder:
    """Records a PulseAudio source (e.g. "room.monitor") with parec, mono float32 at SR."""

    def __init__(self, source: str) -> None:
        assert shutil.which("parec"), "parec (pulseaudio-utils) is required"
        self.source = source
        self._file = tempfile.NamedTemporaryFile(suffix=".f32")  # noqa: SIM115 (closed in stop())
        self._proc = subprocess.Popen(
            ["parec", "-d", source, f"--rate={SR}", "--channels=1", "--format=float32le", "--latency-msec=10"],
            stdout=self._file, stderr=subprocess.PIPE,
        )

    def stop(self) -> np.ndarray:
        time.sleep(0.3)  # let the last period arrive
        self._proc.terminate()
        _, err = self._proc.communicate(timeout=10)
        data = np.fromfile(self._file.name, dtype="<f4")
        self._file.close()
        assert len(data), f"parec recorded nothing from {self.source}: {err.decode(errors='replace')}"
        return data


@dataclass(frozen=True)
class Mixed:
    """A fixed list of lines through one mixer, offline: samples and where each line landed."""

    public: np.ndarray
    host: np.ndarray
    timeline: list[Any]


@dataclass(frozen=True)
class MixedLine:
    line: Any
    start_s: float
    speech_s: float
    end_s: float


def mix_offline(items: list[tuple[Any, np.ndarray, float]], mixer: Any, tail_s: float = 0.0) -> Mixed:
    """Queue (line, clip, pause_s) items on `mixer` back to back, per channel, and pull them all through a
    Tape (narrator.audio.render) kept in memory. No timing rules: the mixer alone."""
    from narrator.audio.render import Tape

    tape = Tape(mixer, keep=True)
    tickets = [(line, mixer.enqueue_line(line, clip, pause)) for line, clip, pause in items]
    rendered = tape.close(tail_s=tail_s)
    timeline = [MixedLine(line, t.start_frame / SR, t.speech_frame / SR, t.end_frame / SR) for line, t in tickets]
    return Mixed(rendered.public, rendered.host, timeline)
