"""Every spoken piece at one loudness, its peaks under a ceiling, whichever voice rendered it.

edge-tts's neural voices and espeak-ng come out at different levels (and espeak-ng's clips peaked above
full scale), so each piece is measured (ITU-R BS.1770 K-weighted loudness, by pyloudnorm, over the piece
without its leading and trailing silence) and brought to TARGET_LUFS; the voice's `volume` setting then
moves it up or down from there. A piece whose peaks would pass PEAK_DBFS is turned down until they do not
(speech has a crest factor of ~15–18 dB, so at −20 LUFS this rarely bites). Pieces are stored normalised
in the voice cache (its format number says so), so a game only loads them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.voice.base import Audio, Configured, Switching
from narrator.voice.pcm import trim

TARGET_LUFS = -20.0
"""LUFS. The loudness of every spoken piece (at volume "+0%")."""
PEAK_DBFS = -1.0
"""dBFS. No sample of a spoken piece goes above this (0.891 of full scale)."""
BLOCK_S = 0.4
"""s. BS.1770's gating block; a shorter piece is measured as one block of its own length."""
SILENT_LUFS = -70.0
"""LUFS. Below this a piece counts as silence and is left alone (BS.1770's absolute gate)."""


def loudness_lufs(audio: Audio) -> float:
    """LUFS. The K-weighted loudness of the sound in `audio` (its silent ends left out); -inf if silent."""
    import pyloudnorm

    sound = trim(np.asarray(audio, dtype=np.float32))
    if sound.size < SAMPLE_RATE // 100:  # under 10 ms: nothing to measure
        return -math.inf
    meter = pyloudnorm.Meter(SAMPLE_RATE, block_size=min(BLOCK_S, (sound.size - 0.5) / SAMPLE_RATE))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyloudnorm warns about possibly clipped input: we fix that here
        return float(meter.integrated_loudness(sound.astype(np.float64)))


def peak_dbfs(audio: Audio) -> float:
    """dBFS. The highest sample's level; -inf for silence."""
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    return 20 * math.log10(peak) if peak > 0 else -math.inf


def normalise(audio: Audio, gain_db: float = 0.0, target_lufs: float = TARGET_LUFS,
              ceiling_dbfs: float = PEAK_DBFS) -> Audio:  # fmt: skip
    """`audio` at `target_lufs` + `gain_db`, turned down further if its peak would pass `ceiling_dbfs`."""
    measured = loudness_lufs(audio)
    if not math.isfinite(measured) or measured < SILENT_LUFS:
        return np.asarray(audio, dtype=np.float32)
    gain = target_lufs + gain_db - measured
    gain = min(gain, ceiling_dbfs - peak_dbfs(audio) - 0.01)  # 0.01 dB: float32 and 16-bit rounding
    return (np.asarray(audio, dtype=np.float64) * 10 ** (gain / 20)).astype(np.float32)


def volume_db(voice: object) -> float:
    """dB. A voice's `volume` setting ("+20%") as a gain on top of the target loudness."""
    active = voice.active if isinstance(voice, Switching) else voice  # a FallbackVoice: its active voice
    percent = active.settings.volume_percent if isinstance(active, Configured) else 0
    return 20 * math.log10(max(0.01, 1 + percent / 100))
