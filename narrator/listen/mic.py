"""The microphone: a sounddevice input stream at 16 kHz mono feeding a VoiceEar.

`--mic` takes a device index ("3"), a substring of its name ("USB"), or "pulse:SOURCE" (PortAudio's
ALSA "pulse" device recording PulseAudio source SOURCE, e.g. "pulse:room.monitor"). A device that
cannot record at 16 kHz is opened at its own rate and resampled. PortAudio is imported only here.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from typing import Any

import numpy as np

from narrator.listen.recognizer import SAMPLE_RATE
from narrator.listen.voice import VoiceEar


class MicError(Exception):
    """The microphone cannot be opened (one sentence naming the device)."""


def parse_device(spec: str | None) -> tuple[int | str | None, str | None]:
    """(sounddevice device, PulseAudio source) from a CLI string."""
    if not spec:
        return None, None
    if spec.isdigit():
        return int(spec), None
    if spec.startswith("pulse:"):
        return "pulse", spec.removeprefix("pulse:") or None
    return spec, None


def input_devices() -> list[tuple[int, str]]:
    import sounddevice as sd

    return [(i, str(d["name"])) for i, d in enumerate(sd.query_devices()) if d["max_input_channels"] > 0]


class Microphone:
    """Records into `ear.feed` on a worker thread until `stop()`."""

    def __init__(self, ear: VoiceEar, device: str | None = None, blocksize: int = 512) -> None:
        self.ear = ear
        self.device, self.pulse_source = parse_device(device)
        self.spec = device or "the default microphone"
        self.blocksize = blocksize
        self._q: queue.Queue[tuple[np.ndarray, float] | None] = queue.Queue()
        self._stream: Any = None
        self._thread: threading.Thread | None = None
        self.rate = SAMPLE_RATE

    def start(self) -> None:
        import sounddevice as sd

        old = os.environ.get("PULSE_SOURCE")
        if self.pulse_source:
            os.environ["PULSE_SOURCE"] = self.pulse_source
        try:
            try:
                self._stream = self._open(sd, SAMPLE_RATE)
            except sd.PortAudioError:
                rate = int(sd.query_devices(self.device, "input")["default_samplerate"])
                self._stream = self._open(sd, rate)
            self._stream.start()
        except (sd.PortAudioError, ValueError) as e:
            raise MicError(f"cannot record from {self.spec}: {e}") from None
        finally:
            if self.pulse_source:
                if old is None:
                    os.environ.pop("PULSE_SOURCE", None)
                else:
                    os.environ["PULSE_SOURCE"] = old
        self._thread = threading.Thread(target=self._run, name="narrator-mic", daemon=True)
        self._thread.start()

    def _open(self, sd: Any, rate: int) -> Any:
        self.rate = rate
        block = self.blocksize * rate // SAMPLE_RATE
        return sd.InputStream(samplerate=rate, channels=1, dtype="float32", device=self.device,
                              blocksize=block, callback=self._callback)

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        now = time.monotonic()
        self._q.put((indata[:, 0].copy(), now - frames / self.rate))

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            samples, t = item
            if self.rate != SAMPLE_RATE:
                n = round(len(samples) * SAMPLE_RATE / self.rate)
                samples = np.interp(np.arange(n) * self.rate / SAMPLE_RATE, np.arange(len(samples)),
                                    samples).astype(np.float32)
            self.ear.feed(samples, t)

    def stop(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None
        self._q.put(None)
        if self._thread is not None:
            self._thread.join(timeout=2)


class MicEar(VoiceEar):
    """A VoiceEar that owns its microphone."""

    def __init__(self, *args: Any, device: str | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.mic = Microphone(self, device)

    def start(self) -> None:
        self.mic.start()

    def stop(self) -> None:
        self.mic.stop()
