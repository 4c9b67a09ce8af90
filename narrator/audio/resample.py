"""The one resampler (band-limited polyphase sinc): the voices' clips, the beds and cues, the microphone's
test recordings all come to SAMPLE_RATE through it."""

from __future__ import annotations

from math import gcd

import numpy as np
import numpy.typing as npt

from narrator.audio import SAMPLE_RATE

Samples = npt.NDArray[np.float32]

_SINC_HALF_TAPS = 16
"""Zero crossings of the resampling kernel on each side: 16 keeps the passband flat to within ~0.1 dB."""


def resample(audio: Samples, src_hz: int, dst_hz: int = SAMPLE_RATE) -> Samples:
    """Band-limited resampling (Hann-windowed sinc); going down it also filters out what would alias.

    Polyphase: with up/down the reduced ratio, output samples n, n+up, n+2up … share one kernel and read
    input windows `down` apart, so each of the `up` phases is one matrix-vector product."""
    audio = np.asarray(audio, dtype=np.float32)
    if src_hz == dst_hz or audio.size == 0:
        return audio
    g = gcd(src_hz, dst_hz)
    up, down = dst_hz // g, src_hz // g
    n_out = (audio.size * up + down - 1) // down
    cutoff = min(1.0, up / down)  # of the input's Nyquist frequency: below the output's when going down
    half = int(np.ceil(_SINC_HALF_TAPS / cutoff))
    padded = np.concatenate([np.zeros(half, np.float32), audio, np.zeros(half + 2 + down, np.float32)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half)  # windows[i] = padded[i : i + 2*half]
    offsets = np.arange(-half + 1, half + 1)
    out = np.empty(n_out, dtype=np.float32)
    for phase in range(min(up, n_out)):
        base, frac = divmod(phase * down, up)  # output `phase` sits at input position base + frac/up
        dist = frac / up - offsets
        kernel = cutoff * np.sinc(cutoff * dist) * (0.5 + 0.5 * np.cos(np.pi * dist / half))
        count = len(range(phase, n_out, up))
        rows = windows[base + 1 : base + 1 + count * down : down]
        out[phase::up] = rows @ kernel.astype(np.float32)
    return out
