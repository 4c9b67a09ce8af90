"""The judge's own sound taken out of what the microphone heard, in a room without an echo canceller.

The ear listens through the speech timer's cue (narrator/audio/mixer.py `LISTENED_THROUGH`): a host's
法官，过 said over it reaches the recogniser mixed with the cue, which in a room without a canceller is louder
than the host at the microphone, and the mixture is rarely read as the command. But the device knows exactly
what its table speaker played and when (the mixer keeps it: `Mixer.heard_through`), so when an utterance
overlapped such a sound the ear decodes it again from the microphone's audio minus that sound as the room
brought it to the microphone (`subtract`): the room's echo path is estimated from the utterance itself, a
short FIR filter per quarter second fitted by least squares (the host's voice is not correlated with the
table's, so it does not bias the fit; the path may drift — clocks, a loopback's rate — between blocks), and
the filtered table output is subtracted; then the frames the table was all the microphone heard are
silenced (`host_only`: what is left of the cue there, alone, is read as words around the host's). Measured
in docs/benchmarks.md, "The timer's cue".

`MicHistory` is the ear's memory of the last seconds of microphone audio on its own clock, from which the
utterance's stretch is taken again.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from scipy.linalg import solve_toeplitz

MARGIN_S = 0.5
"""s. The table's output is asked for this much before and after the microphone's stretch: the two clocks
(when a block left the device, when the microphone's block was captured) agree only to tens of ms, and the
room delays the sound; the lag is found by cross-correlation within it."""
TAPS_S = 0.064
"""s. The echo path's length after its first arrival (the direct sound and the early reflections)."""
LEAD_S = 0.004
"""s. Taps before the strongest arrival (a first arrival weaker than a reflection)."""
BLOCK_S = 0.125
"""s. The echo path is fitted afresh every this long (over twice this span), cross-faded between blocks."""
TABLE_ALONE_DB = -15.0
"""dB. A frame of which taking the table out left less than this (against what the microphone heard) held
only the table: the host was not speaking in it (his voice under a cue 4 dB louder keeps −6 dB)."""
FRAME_S = 0.02
"""s. The frames `host_only` judges."""
HOLD_S = 0.04
"""s. Kept on either side of a frame the host spoke in (a soft consonant under the cue)."""
ONSET_S = 0.12
"""s. Kept before a frame the host spoke in: the soft start of a word ("진행자"'s ㅈ) is under the cue's rest."""
STEADY_S = 1.0
"""s. The microphone's blocks are placed by the earliest offset of those fed this long before (MicHistory)."""
EARLY_S = 0.25
"""s. A block this much earlier than its samples can be starts the history afresh (another stream)."""
JUMP_S = 2.0
"""s. A block this much later than its samples would be starts it afresh (the microphone was reopened)."""
QUIET_TABLE = 0.05
"""A block whose table power is under this share of the stretch's mean tells nothing of the echo path's delay."""


class MicHistory:
    """The last `seconds` of the microphone's audio (mono float32 at `rate`), as fed, with the ear's clock.

    The samples of one stream follow each other without a gap, but the time a block is fed with is when its
    callback ran, late by whatever the machine was busy with (tens to hundreds of ms under load). So the
    samples are placed by their count, on the earliest offset (time − count / rate) of the blocks of the
    last STEADY_S: a late callback moves nothing, a clock that drifts is followed. A block earlier than its
    samples can be, or later than JUMP_S after where they would be, is another stream (the microphone opened
    again): the history starts afresh. (Starting afresh at every block 50 ms off, as before, lost the whole
    history at every busy moment: under load the cue was not taken out of most utterances.)"""

    def __init__(self, seconds: float = 12.0, rate: int = 16_000) -> None:
        self.rate = rate
        self._ring = np.zeros(round(seconds * rate), np.float32)
        self._count = 0
        """Samples written in all (the ring holds the last len(_ring) of them)."""
        self._offsets: deque[tuple[int, float]] = deque()
        """(count at a block's first sample, its time − count / rate) for the blocks of the last STEADY_S."""
        self._origin = 0.0
        """The ear's time of sample count 0: the earliest of `_offsets`."""

    def add(self, samples: np.ndarray, t: float) -> None:
        """Samples whose first was captured at `t` (or a little before: see the class)."""
        if self._count:
            due = self._origin + self._count / self.rate
            if t < due - EARLY_S or t > due + JUMP_S:
                self._count = 0
                self._offsets.clear()
        self._offsets.append((self._count, t - self._count / self.rate))
        while self._offsets[0][0] < self._count - STEADY_S * self.rate:
            self._offsets.popleft()
        self._origin = min(offset for _, offset in self._offsets)
        size, n = len(self._ring), len(samples)
        if n >= size:
            samples, n = samples[-size:], size
        at = self._count % size
        first = min(n, size - at)
        self._ring[at : at + first] = samples[:first]
        self._ring[: n - first] = samples[first:]
        self._count += n

    def between(self, start: float, end: float) -> np.ndarray | None:
        """A copy of what was captured from `start` to `end` (the ear's clock), up to the last sample if `end`
        is less than EARLY_S past it (the ear's own times are as late as its blocks); None when not all of
        it is held."""
        size = len(self._ring)
        a = round((start - self._origin) * self.rate)
        b = round((end - self._origin) * self.rate)
        if self._count < b <= self._count + EARLY_S * self.rate:
            b = self._count
        if b <= a or a < max(0, self._count - size) or b > self._count:
            return None
        idx = np.arange(a, b) % size
        return self._ring[idx].copy()


def lag(mic: np.ndarray, ref: np.ndarray) -> int:
    """The offset o (0 ≤ o ≤ len(ref) − len(mic)) at which `ref[o:]` best lines up with `mic`: the peak of
    their cross-correlation."""
    n = 1 << int(np.ceil(np.log2(len(mic) + len(ref))))
    corr = np.fft.irfft(np.fft.rfft(ref, n) * np.conj(np.fft.rfft(mic, n)), n)[: len(ref) - len(mic) + 1]
    return int(np.argmax(np.abs(corr)))


def _fit(mic: np.ndarray, ref: np.ndarray, taps: int) -> np.ndarray:
    """The FIR h (`taps` long) minimising |mic − h∗ref|² (least squares: the Toeplitz normal equations)."""
    n = 1 << int(np.ceil(np.log2(2 * len(mic))))
    r, m = np.fft.rfft(ref, n), np.fft.rfft(mic, n)
    auto = np.fft.irfft(r * np.conj(r), n)[:taps]
    cross = np.fft.irfft(m * np.conj(r), n)[:taps]
    auto[0] = auto[0] * (1 + 1e-3) + 1e-9  # a little loading: a silent or narrow-band stretch stays solvable
    return np.asarray(solve_toeplitz(auto, cross))


def _convolve(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    n = 1 << int(np.ceil(np.log2(len(x) + len(h))))
    return np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(h, n), n)[: len(x)]


def _blocks(mic: np.ndarray, table: np.ndarray, taps: int, block: int) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """The echo of `table` in `mic`, fitted afresh per `block` (over twice that span) and cross-faded (Hann,
    half overlap); and per block where the table sounded (its centre, where its filter peaks, in samples: a
    block the table was nearly silent in — the cue over, an underflow's gap — fits only the host, and its
    peak says nothing of the path). `table[k]` is the table's sample that reaches mic[k − taps] by the
    filter's first tap (`taps` samples of history first)."""
    n = len(mic)
    echo = np.zeros(n)
    peaks: list[tuple[float, float]] = []
    window = np.hanning(2 * block + 1)[:-1]
    loud = QUIET_TABLE * float(np.mean(table**2))
    for a in range(-block, n, block):
        lo, hi = max(0, a - block // 2), min(n, a + 2 * block + block // 2)
        if hi - lo < taps:
            continue
        h = _fit(mic[lo:hi], table[taps + lo : taps + hi], taps)
        if np.any(h) and np.mean(table[taps + lo : taps + hi] ** 2) > loud:
            peaks.append(((lo + hi) / 2, _peak(h)))
        est = _convolve(table[lo : taps + hi], h)[taps:]  # the filtered table with its history, from lo
        w0, w1 = max(0, a), min(n, a + 2 * block)
        echo[w0:w1] += window[w0 - a : w1 - a] * est[w0 - lo : w1 - lo]
    return echo, peaks


def _peak(h: np.ndarray) -> float:
    """Where |h| peaks, to a fraction of a sample (a parabola through the three around it)."""
    k = int(np.argmax(np.abs(h)))
    if 0 < k < len(h) - 1:
        y0, y1, y2 = np.abs(h[k - 1 : k + 2])
        bend = y0 - 2 * y1 + y2
        if bend < 0:
            return float(k + 0.5 * (y0 - y2) / bend)
    return float(k)


def _drift(peaks: list[tuple[float, float]]) -> tuple[float, float] | None:
    """A line (slope, intercept) through the blocks' peaks — the path's delay as it drifts —, robust to the
    blocks far off it (a reflection taken for the direct sound, a block the host's voice filled): the median
    of the slopes between every two blocks and the median intercept (Theil–Sen), then least squares through
    the blocks near that line. None with fewer than 3 blocks. (A least-squares line first, as before, was
    pulled by one block at 1,023 taps to a drift of 0.4 ms a second where there was none, and the cue fell
    14 dB instead of 23.)"""
    if len(peaks) < 3:
        return None
    x, d = np.array(peaks).T
    i, j = np.triu_indices(len(x), 1)
    apart = x[j] != x[i]
    slope = float(np.median((d[j] - d[i])[apart] / (x[j] - x[i])[apart])) if apart.any() else 0.0
    line = (slope, float(np.median(d - slope * x)))
    off = np.abs(d - np.polyval(line, x))
    keep = off <= max(2.0, 2 * float(np.median(off)))
    if keep.sum() >= 3:
        fitted = np.polyfit(x[keep], d[keep], 1)
        line = (float(fitted[0]), float(fitted[1]))
    return line


def subtract(mic: np.ndarray, ref: np.ndarray, rate: int = 16_000) -> np.ndarray:
    """`mic` minus `ref` as the room brought it to the microphone. `ref` (same rate) is what the table played
    from `MARGIN_S` before `mic`'s stretch to `MARGIN_S` after it (or less at the end: silence is assumed).

    The table is lined up with the microphone by cross-correlation; short blocks are fitted, and where their
    filters peak says how the delay drifts over the stretch; the table is then resampled along that drift
    and fitted again in blocks twice as long (fewer unknowns per sample: less of the host's voice is taken
    for echo) — unless that leaves twice the residual of the short blocks (the delay jumped: an underflow)."""
    mic = np.asarray(mic, np.float64)
    ref = np.asarray(ref, np.float64)
    n = len(mic)
    if n == 0 or not np.any(ref):
        return mic.astype(np.float32)
    want = n + 2 * round(MARGIN_S * rate)
    if len(ref) < want:  # the table's output ends where the mixer has handed it out: silence after
        ref = np.concatenate([ref, np.zeros(want - len(ref))])
    taps, lead, block = round(TAPS_S * rate), round(LEAD_S * rate), round(BLOCK_S * rate)
    at = lag(mic, ref) + lead
    pad = np.concatenate([np.zeros(taps), ref, np.zeros(n + lead + taps)])  # pad[p] = ref[p - taps]
    aligned = pad[at : at + n + taps]  # aligned[k] = ref[at - taps + k]: the strongest path at tap `lead`
    echo, peaks = _blocks(mic, aligned, taps, block)
    drift = _drift(peaks)
    if drift is not None:
        slope, intercept = drift
        k = np.arange(n + taps, dtype=np.float64)
        shift = slope * (k - taps + lead) + intercept - lead  # the strongest path at tap `lead` all along
        warped = np.interp(at + k - shift, np.arange(len(pad)), pad)
        along, _ = _blocks(mic, warped, taps, 2 * block)
        if np.sum((mic - along) ** 2) < 2 * np.sum((mic - echo) ** 2):  # not a drift a line describes: kept
            echo = along
    out: np.ndarray = (mic - echo).astype(np.float32)
    return out


def host_only(mic: np.ndarray, rest: np.ndarray, rate: int = 16_000) -> np.ndarray:
    """`rest` (`mic` with the table taken out: `subtract`) silenced wherever the table was all the microphone
    heard: 20 ms frames of which less than TABLE_ALONE_DB was left (against what the microphone heard in the
    frame, or in the stretch's median frame where it heard less: in the cue's pauses what is left is small
    beside the bed's hush, yet nothing of the host's), but for ONSET_S before and HOLD_S after a frame that
    kept more. What is left of the cue there (15–30 dB down, yet the recogniser, alone with it, reads it as
    words around the host's: "합니다 취소 진행자 넘어가") is not heard, in his pauses neither; his words
    are. Edges are faded over 10 ms (no click for the recogniser to read)."""
    frame = round(FRAME_S * rate)
    n = len(rest) // frame
    if n == 0:
        return rest
    heard = np.mean(np.square(np.asarray(mic[: n * frame], np.float64)).reshape(n, frame), axis=1)
    left = np.mean(np.square(np.asarray(rest[: n * frame], np.float64)).reshape(n, frame), axis=1)
    keep = left > np.maximum(heard, np.median(heard)) * 10 ** (TABLE_ALONE_DB / 10)
    kept = keep.copy()
    for k in range(1, round(ONSET_S / FRAME_S) + 1):  # before a kept frame: a word's soft onset
        kept[:-k] |= keep[k:]
    for k in range(1, round(HOLD_S / FRAME_S) + 1):
        kept[k:] |= keep[:-k]
    gain = np.repeat(kept.astype(np.float64), frame)
    gain = np.concatenate([gain, np.full(len(rest) - len(gain), float(kept[-1]))])
    fade = np.hanning(2 * round(0.005 * rate) + 1)
    gain = np.convolve(gain, fade / fade.sum(), "same")
    out: np.ndarray = (np.asarray(rest, np.float64) * gain).astype(np.float32)
    return out
