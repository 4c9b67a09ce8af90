"""Music beds and sound cues: synthesised here with numpy (no downloaded music), or the user's own files.

Built-in sounds (all mono float32 at SAMPLE_RATE):

- ``night``: a 16 s ambience loop (low minor drone, wind, distant crickets). Every component is *periodic
  in the loop length*: sinusoids and LFOs have a whole number of cycles per loop and the wind is noise
  synthesised in the frequency domain on the loop's own FFT grid, so sample N-1 flows into sample 0
  exactly as sample k flows into k+1. The loop point is click-free by construction, not by a fade.
- ``day``: a quiet 12 s major pad, built the same way.
- ``dawn`` (sting), ``bell`` (death bell), ``tick`` (countdown tick): one-shot cues that start and end
  at zero.

User overrides: a file named ``night.*``, ``day.*``, ``dawn.*``, ``bell.*`` or ``tick.*`` (any format
ffmpeg decodes) in ``platformdirs.user_data_dir("narrator")/audio`` or in the repository's top-level
``audio/`` folder (searched in that order) replaces the built-in sound. It is decoded with pydub, mixed
down to mono, resampled to SAMPLE_RATE; a user bed gets its tail crossfaded into its head so it loops
without a click. Beds are levelled to the built-in bed's RMS and cues to the built-in peak so a loud file
cannot drown the voice. A file that cannot be decoded logs a warning naming the file and the reason, and
the built-in sound is used instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio.resample import resample  # the one resampler (band-limited polyphase sinc)

log = logging.getLogger(__name__)

BED_NAMES = ("night", "day")
CUE_NAMES = ("dawn", "bell", "tick")
SOUND_NAMES = BED_NAMES + CUE_NAMES

NIGHT_LOOP_S = 16.0
"""s. Length of the built-in night loop; every periodic component has a whole number of cycles in it."""
DAY_LOOP_S = 12.0
"""s. Length of the built-in day loop."""
BED_RMS_DB = {"night": -28.0, "day": -34.0}
"""dBFS. Bed loudness before ducking; the day bed is quieter because people talk over it."""
CUE_PEAK_DB = -6.0
"""dBFS. Peak level of every cue."""
USER_LOOP_CROSSFADE_S = 0.5
"""s. Tail-into-head crossfade applied to user beds, which are not periodic by construction."""


class SoundFileError(Exception):
    """A user sound file could not be decoded."""


# --- synthesis helpers ------------------------------------------------------------------------------


def _db(db: float) -> float:
    return float(10.0 ** (db / 20.0))


def _cycles(freq_hz: float, n: int) -> int:
    """Whole number of cycles closest to `freq_hz` over n samples, so the tone is periodic in n."""
    return max(1, round(freq_hz * n / SAMPLE_RATE))


def _periodic_tone(n: int, freq_hz: float, phase: float = 0.0) -> np.ndarray:
    k = _cycles(freq_hz, n)
    return np.sin(2.0 * np.pi * k * np.arange(n) / n + phase)


def _lfo(n: int, cycles: int, depth: float, phase: float = 0.0) -> np.ndarray:
    """1 ± depth, with a whole number of cycles per loop (so it is periodic too)."""
    return 1.0 + depth * np.sin(2.0 * np.pi * cycles * np.arange(n) / n + phase)


def _periodic_noise(n: int, rng: np.random.Generator, lo_hz: float, hi_hz: float) -> np.ndarray:
    """Band-limited noise that is exactly periodic in n: random phases on the n-point FFT grid."""
    freqs = np.fft.rfftfreq(n, 1.0 / SAMPLE_RATE)
    # Smooth raised-cosine band edges (one octave wide) instead of a brick wall, and a 1/f tilt for "wind".
    lo = np.clip(np.log2(np.maximum(freqs, 1.0) / (lo_hz / 2.0)), 0.0, 1.0)
    hi = np.clip(np.log2(2.0 * hi_hz / np.maximum(freqs, 1.0)), 0.0, 1.0)
    mag = np.sin(0.5 * np.pi * lo) * np.sin(0.5 * np.pi * hi) / np.sqrt(np.maximum(freqs, 1.0))
    spec = mag * np.exp(2j * np.pi * rng.random(len(freqs)))
    spec[0] = 0.0
    x = np.fft.irfft(spec, n)
    return x / (np.std(x) + 1e-12)


def _fade_edges(x: np.ndarray, in_s: float, out_s: float) -> np.ndarray:
    """Raised-cosine fade-in and fade-out so a one-shot starts and ends exactly at zero."""
    a, b = max(1, int(in_s * SAMPLE_RATE)), max(1, int(out_s * SAMPLE_RATE))
    x = x.copy()
    x[:a] *= 0.5 - 0.5 * np.cos(np.pi * np.arange(a) / a)
    x[-b:] *= 0.5 + 0.5 * np.cos(np.pi * (np.arange(b) + 1) / b)
    return x


def _to_rms(x: np.ndarray, db: float) -> np.ndarray:
    rms = float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))
    return (x * (_db(db) / rms if rms > 0 else 1.0)).astype(np.float32)


def _to_peak(x: np.ndarray, db: float) -> np.ndarray:
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    return (x * (_db(db) / peak if peak > 0 else 1.0)).astype(np.float32)


def _struck(t: np.ndarray, freq_hz: float, decay_s: float, amp: float = 1.0) -> np.ndarray:
    return amp * np.sin(2.0 * np.pi * freq_hz * t) * np.exp(-t / decay_s)


# --- built-in sounds -------------------------------------------------------------------------------


def night_bed(seconds: float = NIGHT_LOOP_S, seed: int = 11) -> np.ndarray:
    """Night ambience loop: A-minor drone with slow swell, wind and sparse crickets; periodic in its length."""
    n = round(seconds * SAMPLE_RATE)
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    # Drone: each note twice, detuned by one or two cycles per loop, for a slow chorus that is still periodic.
    for i, (f, amp) in enumerate([(55.0, 1.0), (82.41, 0.6), (110.0, 0.7), (130.81, 0.45), (164.81, 0.35)]):
        swell = _lfo(n, cycles=1 + i % 3, depth=0.35, phase=rng.uniform(0, 2 * np.pi))
        for h, h_amp in ((1, 1.0), (2, 0.3), (3, 0.12)):
            k = _cycles(f * h, n)
            for detune in (0, 1 + i % 2):
                ph = rng.uniform(0, 2 * np.pi)
                x += amp * h_amp * swell * np.sin(2.0 * np.pi * (k + detune) * np.arange(n) / n + ph)
    x /= np.std(x)
    wind = _periodic_noise(n, rng, 150.0, 900.0) * _lfo(n, cycles=3, depth=0.6, phase=1.0)
    x += 0.5 * wind
    # Crickets: 4.2 kHz chirps (three 25 ms pulses), placed modulo n so a chirp may straddle the loop point.
    t = np.arange(int(0.025 * SAMPLE_RATE)) / SAMPLE_RATE
    pulse = np.sin(2 * np.pi * 4200.0 * t) * np.sin(np.pi * t / t[-1]) ** 2
    for start in rng.integers(0, n, size=int(seconds * 1.2)):
        gain = rng.uniform(0.1, 0.25)
        for p in range(3):
            idx = (start + p * int(0.045 * SAMPLE_RATE) + np.arange(len(pulse))) % n
            x[idx] += gain * pulse
    return _to_rms(x, BED_RMS_DB["night"])


def day_bed(seconds: float = DAY_LOOP_S, seed: int = 12) -> np.ndarray:
    """Quiet daytime pad (C major, gentle tremolo); periodic in its length like the night bed."""
    n = round(seconds * SAMPLE_RATE)
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    for i, f in enumerate((130.81, 196.0, 261.63, 329.63, 392.0)):
        trem = _lfo(n, cycles=2 + i, depth=0.25, phase=rng.uniform(0, 2 * np.pi))
        x += trem * (_periodic_tone(n, f, rng.uniform(0, 6.3)) + 0.25 * _periodic_tone(n, 2 * f, 1.0))
    x += 0.15 * _periodic_noise(n, rng, 300.0, 2500.0) * np.std(x)
    return _to_rms(x, BED_RMS_DB["day"])


def dawn_sting() -> np.ndarray:
    """Rising C-major arpeggio of bell-like notes, 2.4 s."""
    n = int(2.4 * SAMPLE_RATE)
    x = np.zeros(n)
    for i, f in enumerate((261.63, 329.63, 392.0, 523.25)):
        start = int(i * 0.16 * SAMPLE_RATE)
        t = np.arange(n - start) / SAMPLE_RATE
        x[start:] += _struck(t, f, 0.9) + _struck(t, 2 * f, 0.4, 0.35) + _struck(t, 3.01 * f, 0.2, 0.12)
    return _to_peak(_fade_edges(x, 0.004, 0.4), CUE_PEAK_DB)


def death_bell() -> np.ndarray:
    """One low church-bell stroke: inharmonic partials (hum, prime, tierce, quint, nominal…), 4.5 s."""
    n = int(4.5 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    f0 = 196.0
    partials = [(0.5, 1.0, 3.0), (1.0, 0.8, 2.2), (1.19, 0.55, 1.6), (1.5, 0.35, 1.2), (2.0, 0.5, 1.0),
                (2.52, 0.25, 0.6), (3.0, 0.2, 0.45), (4.17, 0.12, 0.3)]
    x = sum(_struck(t, f0 * r, d, a) for r, a, d in partials)
    return _to_peak(_fade_edges(np.asarray(x), 0.003, 0.8), CUE_PEAK_DB)


def countdown_tick() -> np.ndarray:
    """Wood-block tick, 60 ms: two damped modes and a 2 ms noise click for the attack."""
    n = int(0.06 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    x = _struck(t, 1750.0, 0.010) + _struck(t, 2900.0, 0.005, 0.4)
    click = np.random.default_rng(3).standard_normal(int(0.002 * SAMPLE_RATE)) * 0.3
    x[: len(click)] += click * np.linspace(1.0, 0.0, len(click))
    return _to_peak(_fade_edges(x, 0.0005, 0.01), CUE_PEAK_DB)


BUILTIN: Mapping[str, Callable[[], np.ndarray]] = {
    "night": night_bed, "day": day_bed, "dawn": dawn_sting, "bell": death_bell, "tick": countdown_tick,
}


@cache
def builtin(name: str) -> np.ndarray:
    """The built-in sound `name`, synthesised once per process (read-only array)."""
    x = BUILTIN[name]()
    x.setflags(write=False)
    return x


# --- user files -------------------------------------------------------------------------------------


def decode_file(path: Path) -> np.ndarray:
    """Decode any file pydub/ffmpeg can read to mono float32 at SAMPLE_RATE; raises SoundFileError."""
    from pydub import AudioSegment  # imported here: pydub looks for ffmpeg at import time

    try:
        seg = AudioSegment.from_file(str(path))
    except Exception as exc:  # pydub raises CouldntDecodeError, OSError, IndexError… depending on format
        raise SoundFileError(f"{path}: cannot decode ({type(exc).__name__}: {str(exc).strip()[:200]})") from exc
    full_scale = float(1 << (8 * seg.sample_width - 1))
    samples = np.asarray(seg.get_array_of_samples(), dtype=np.float64) / full_scale
    if seg.sample_width == 1:  # 8-bit WAV is unsigned
        samples -= 1.0
    mono = samples.reshape(-1, seg.channels).mean(axis=1)
    if len(mono) < seg.frame_rate // 100:
        raise SoundFileError(f"{path}: shorter than 10 ms")
    if not np.any(mono):
        raise SoundFileError(f"{path}: digital silence")
    return resample(mono, seg.frame_rate)


def make_loopable(clip: np.ndarray, crossfade_s: float = USER_LOOP_CROSSFADE_S) -> np.ndarray:
    """Crossfade the last `crossfade_s` into the first, dropping the tail: the new last sample is followed
    (on wrap) by a head sample that equals the old continuation of the tail, so the seam is continuous."""
    f = min(int(crossfade_s * SAMPLE_RATE), len(clip) // 3)
    if f < 2:
        return clip.astype(np.float32)
    ramp = np.sin(0.5 * np.pi * np.arange(f) / f)  # equal power: the two ends are uncorrelated
    out = clip[: len(clip) - f].astype(np.float64)
    out[:f] = clip[:f] * ramp + clip[len(clip) - f :] * np.sqrt(1.0 - ramp**2)
    return out.astype(np.float32)


def sound_dirs() -> list[Path]:
    """Where user sounds are looked for, first match wins: the user data dir, then the repo's audio/."""
    from platformdirs import user_data_dir

    return [Path(user_data_dir("narrator")) / "audio", Path(__file__).resolve().parents[2] / "audio"]


def user_sound_files(name: str, dirs: Iterable[Path]) -> list[Path]:
    """The user's files for sound `name` ("night.ogg", "night.wav" …) in `dirs`, in the order they are tried."""
    found: list[Path] = []
    for d in dirs:
        if d.is_dir():
            found += sorted(p for p in d.glob(f"{name}.*") if p.is_file() and not p.name.startswith("."))
    return found


@dataclass(frozen=True)
class SoundBank:
    """The five sounds the mixer uses, each mono float32 at SAMPLE_RATE, and where each came from."""

    sounds: Mapping[str, np.ndarray]
    """name → samples; beds are loops, cues one-shots."""
    origins: Mapping[str, str] = field(default_factory=dict)
    """name → "built-in" or the path of the user file."""

    def __getitem__(self, name: str) -> np.ndarray:
        return self.sounds[name]


def load_sounds(dirs: Iterable[Path] | None = None) -> SoundBank:
    """Built-in sounds, each replaced by the first decodable user file named after it in `dirs`
    (default: sound_dirs()). Undecodable files are skipped with a warning."""
    dirs = sound_dirs() if dirs is None else list(dirs)
    sounds: dict[str, np.ndarray] = {}
    origins: dict[str, str] = {}
    for name in SOUND_NAMES:
        for path in user_sound_files(name, dirs):
            try:
                clip = decode_file(path)
            except SoundFileError as exc:
                log.warning("ignoring user sound %s; using the built-in %r instead", exc, name)
                continue
            if name in BED_NAMES:
                clip = _to_rms(make_loopable(clip), BED_RMS_DB[name])
            else:
                clip = _to_peak(_fade_edges(clip, 0.002, 0.01), CUE_PEAK_DB)
            sounds[name], origins[name] = clip, str(path)
            break
        else:
            sounds[name], origins[name] = builtin(name), "built-in"
    return SoundBank(sounds, origins)


def builtin_sounds() -> SoundBank:
    """Only the built-in sounds (tests, benchmarks, reproducible renders)."""
    return SoundBank({n: builtin(n) for n in SOUND_NAMES}, dict.fromkeys(SOUND_NAMES, "built-in"))
