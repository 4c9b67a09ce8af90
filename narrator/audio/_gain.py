"""Gain ramps and looping bed voices for the mixer's audio thread: fill preallocated buffers, never a step."""

from __future__ import annotations

import math

import numpy as np


class Ramp:
    """A gain that moves linearly towards a target at a fixed rate per sample; fills blocks with its path."""

    __slots__ = ("down", "up", "value")

    def __init__(self, value: float, up_per_frame: float, down_per_frame: float) -> None:
        self.value, self.up, self.down = value, up_per_frame, down_per_frame

    def fill(self, buf: np.ndarray, target: float, steps: np.ndarray) -> None:
        """Write the gain for each of len(buf) frames into buf; `steps` is a preallocated 1..N ramp."""
        g, k = self.value, len(buf)
        if g == target:
            buf.fill(g)
            return
        rate = self.up if target > g else -self.down
        m = min(k, math.ceil(abs(target - g) / abs(rate)))
        np.multiply(steps[:m], rate, out=buf[:m])
        buf[:m] += g
        end = g + rate * m  # the state is kept in double precision so block size cannot change the path
        if (end - target) * rate >= 0:
            buf[m - 1 :] = target  # land exactly on the target (no float drift past it)
            self.value = target
        else:
            self.value = end


class BedVoice:
    """One bed loop: its read position (frames into the loop) and its fade (a 0..1 Ramp the mixer shapes
    to equal power); target 1 = fading in or playing, 0 = fading out."""

    __slots__ = ("data", "fade", "name", "pos", "target")

    def __init__(self, name: str, data: np.ndarray, fade_rate: float) -> None:
        self.name, self.data, self.pos, self.target = name, data, 0, 1.0
        self.fade = Ramp(0.0, fade_rate, fade_rate)

    def read(self, out: np.ndarray) -> None:
        """Copy the next len(out) samples of the loop into out, wrapping at the loop end."""
        n, done, size = len(out), 0, len(self.data)
        while done < n:
            take = min(n - done, size - self.pos)
            out[done : done + take] = self.data[self.pos : self.pos + take]
            done += take
            self.pos = (self.pos + take) % size
