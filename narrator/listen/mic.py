"""The microphone: a sounddevice input stream at 16 kHz mono feeding a VoiceEar.

`--mic` takes a device index ("3"), a substring of its name ("USB"), or "pulse:SOURCE" (PortAudio's
ALSA "pulse" device recording PulseAudio source SOURCE, e.g. "pulse:room.monitor"). A device that
cannot record at 16 kHz is opened at its own rate and resampled. PortAudio is imported only here.

A microphone that disappears mid-game (unplugged, its sound server or PulseAudio source gone) stops its
stream: `alive` turns False (also when no block has arrived for `stall_s`), and `restart()` tries to open
it again — the live loop polls both, tells the host and goes on with the keypad or typed text meanwhile.
The worker thread that feeds the ear never dies silently: an exception in it (the VAD, the recogniser)
is logged, stops the microphone and makes `alive` False, so the loop reports it lost and restarts it.

Its block (how much audio PortAudio hands over at a time) follows the mode it is asked for (`set_mode`,
`BLOCKS`): 32 ms in a game, 64 ms while `serve`'s lobby waits — each block wakes PortAudio's and the sound
server's client threads 6–7 times and the worker twice, so larger blocks halve the ear's idle CPU
(docs/benchmarks.md, "Where the ear's idle CPU goes"). A running stream cannot change its block: it is opened
again (aborted, not drained: a few ms), and one that cannot be opened again is lost like an unplugged one. The
ear is fed `FRAME` samples at a time whatever the block, so the endpointer and Silero see the same frames at
the same times in either mode.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np

from narrator.listen.recognizer import SAMPLE_RATE
from narrator.listen.voice import VoiceEar, VoiceOptions

if TYPE_CHECKING:
    from narrator.listen.base import MicMode
    from narrator.listen.grammar import Grammar
    from narrator.listen.recognizer import Recognizer
    from narrator.listen.vad import Endpointer

log = logging.getLogger(__name__)

FRAME = 512
"""Samples at 16 kHz (32 ms) the ear is fed at a time, whatever the block: Silero's window."""
BLOCKS: dict[MicMode, int] = {"game": FRAME, "lobby": 2 * FRAME}
"""Samples at 16 kHz per block of the stream, by mode: 32 ms in a game (the latency its answers were measured
with), 64 ms while the lobby waits."""


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

    stall_s = 2.0
    """s. A stream that delivered nothing for this long counts as dead (PortAudio may keep it "active")."""

    def __init__(self, ear: VoiceEar, device: str | None = None, blocksize: int = BLOCKS["game"]) -> None:
        self.ear = ear
        self._last_block = 0.0
        self.device, self.pulse_source = parse_device(device)
        self.spec = device or "the default microphone"
        self.blocksize = blocksize
        self._q: queue.Queue[tuple[np.ndarray, float] | None] = queue.Queue()
        self._stream: Any = None
        self._thread: threading.Thread | None = None
        self.rate = SAMPLE_RATE
        self.error: BaseException | None = None
        """What ended the worker thread (None while it runs or after a clean stop)."""
        self._lock = threading.RLock()
        """Opening and closing the stream: one at a time (a mode asked for from one thread, a restart from another)."""

    def start(self) -> None:
        with self._lock:
            self._start()

    def _start(self) -> None:
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
            self._last_block = time.monotonic()
            self._stream.start()
        except (sd.PortAudioError, ValueError) as e:
            raise MicError(f"cannot record from {self.spec}: {e}") from None
        finally:
            if self.pulse_source:
                if old is None:
                    os.environ.pop("PULSE_SOURCE", None)
                else:
                    os.environ["PULSE_SOURCE"] = old
        self.error = None
        self._thread = threading.Thread(target=self._run, name="narrator-mic", daemon=True)
        self._thread.start()

    def _open(self, sd: Any, rate: int) -> Any:
        self.rate = rate
        block = self.blocksize * rate // SAMPLE_RATE
        return sd.InputStream(samplerate=rate, channels=1, dtype="float32", device=self.device,
                              blocksize=block, callback=self._callback)

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        now = self._last_block = time.monotonic()
        self._q.put((indata[:, 0].copy(), now - frames / self.rate))

    def _run(self) -> None:
        try:
            self._feed_all()
        except BaseException as exc:  # any failure is a lost microphone, never a silent one
            self.error = exc
            log.warning("the microphone's worker stopped: %r", exc, exc_info=exc)

    def _feed_all(self) -> None:
        q = self._q  # this stream's (a reopened one gets a new queue)
        while True:
            item = q.get()
            if item is None:
                return
            samples, t = item
            if self.rate != SAMPLE_RATE:
                n = round(len(samples) * SAMPLE_RATE / self.rate)
                samples = np.interp(np.arange(n) * self.rate / SAMPLE_RATE, np.arange(len(samples)),
                                    samples).astype(np.float32)
            for i in range(0, len(samples), FRAME):  # the frames of a game's blocks, in either mode
                self.ear.feed(samples[i : i + FRAME], t + i / SAMPLE_RATE)

    @property
    def alive(self) -> bool:
        """True while the microphone records: its stream is open and running, and its last block came less
        than `stall_s` ago, and its worker thread feeds the ear. False once the device or its sound server
        is gone, the worker died (`error`), or before `start`."""
        stream, thread = self._stream, self._thread
        if stream is None or not bool(stream.active) or thread is None or not thread.is_alive():
            return False
        return time.monotonic() - self._last_block < self.stall_s

    def restart(self) -> bool:
        """Close the stream and open it again: True when it records again (the device is back), False
        when it still cannot be opened (nothing raised; try again later)."""
        with self._lock:
            self.stop()
            try:
                self.start()
            except MicError:
                return False
            return True

    @property
    def mode(self) -> MicMode:
        """The mode its block is (`BLOCKS`); "game" for a block of another size (a benchmark's)."""
        return "lobby" if self.blocksize == BLOCKS["lobby"] else "game"

    def set_mode(self, mode: MicMode) -> None:
        """Record in blocks of `BLOCKS[mode]` from now on: a running stream is opened again at once (the
        blocks it had not handed over yet are dropped: a few ms, asked for where the ear is deaf anyway). One
        that cannot be opened again is lost (`alive` False, logged): the live loop reports it and restarts it
        in this mode, as an unplugged one. Not recording (not started, or lost): its next start is in it."""
        with self._lock:
            if BLOCKS[mode] == self.blocksize:
                return
            self.blocksize = BLOCKS[mode]
            if self._stream is None:
                return
            began = time.monotonic()
            self.stop()
            try:
                self.start()
            except MicError as exc:
                log.warning("the microphone could not be opened again for the %s: %s", mode, exc)
                return
            log.info("microphone: %d ms blocks for the %s (opened again in %.0f ms)",
                     1000 * self.blocksize // SAMPLE_RATE, mode, 1000 * (time.monotonic() - began))

    def stop(self) -> None:
        """Stop recording (a stream whose device is gone is closed all the same). Aborted, not drained: what
        it had not handed over is dropped anyway, and draining an input stream can take a second."""
        with self._lock:
            stream, self._stream = self._stream, None
            if stream is not None:
                with contextlib.suppress(Exception):  # PortAudioError from a device that vanished
                    stream.abort()
                with contextlib.suppress(Exception):
                    stream.close()
            self._q.put(None)
            if self._thread is not None:
                self._thread.join(timeout=2)
                self._thread = None
            self._q = queue.Queue()  # blocks of the old stream (and its stop mark) are not the new one's


class MicEar(VoiceEar):
    """A VoiceEar that owns its microphone."""

    def __init__(self, recognizer: Recognizer, grammar: Grammar, endpointer: Endpointer, *,
                 device: str | None = None, **kw: Unpack[VoiceOptions]) -> None:
        super().__init__(recognizer, grammar, endpointer, **kw)
        self.mic: Microphone = Microphone(self, device)

    def start(self) -> None:
        self.mic.start()

    def stop(self) -> None:
        self.mic.stop()
