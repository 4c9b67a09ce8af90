"""Live playback: one long-lived sounddevice OutputStream per channel, pulling from one Mixer.

    mixer = Mixer(load_sounds())
    with Player(mixer, public=OutputConfig.parse("pulse:room"), pacer=Pacer(seed)) as player:
        player.say(line, clip)        # queued behind what is playing; returns at once
        player.wait_drained()         # block until everything queued has been handed to the device

The public stream plays the queue over the bed gaplessly (a line never opens its own stream). Host lines
("host" channel) go to a second stream on another device (an earpiece) if `host` is configured; without
one they are printed on the host's console and never sent to any speaker. Underflows reported by
PortAudio (status.output_underflow) are counted in the callback and logged from the caller's thread.

sounddevice (PortAudio) is imported only when a Player starts, so `--help` stays instant and a machine
without PortAudio can still render files.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio.mixer import Mixer, Ticket

if TYPE_CHECKING:
    from rich.console import Console

    from narrator.audio.pacing import Pacer
    from narrator.judge.lines import Line

log = logging.getLogger(__name__)
_env_lock = threading.Lock()


@dataclass(frozen=True)
class OutputConfig:
    """Where and how one channel is played."""

    device: int | str | None = None
    """sounddevice device index, or a substring of its name; None is the system default."""
    pulse_sink: str | None = None
    """PulseAudio sink name, for the "pulse" ALSA device: PULSE_SINK is set while the stream opens."""
    blocksize: int = 240
    """frames per callback (240 = 10 ms at 24 kHz): small, so a queued line starts within one block."""
    latency: float | str = 0.05
    """s (or "low"/"high"): PortAudio's suggested output latency. 50 ms leaves the callback room for a
    scheduling hiccup; the callback still runs every block, so a queued line starts within ~one block."""

    @classmethod
    def parse(cls, spec: str | None, **kw: Any) -> OutputConfig:
        """From a CLI string: "" / None → default, "3" → index 3, "pulse:room" → pulse device into sink
        "room", anything else → a device-name substring."""
        if not spec:
            return cls(**kw)
        if spec.isdigit():
            return cls(device=int(spec), **kw)
        if spec.startswith("pulse:"):
            return cls(device="pulse", pulse_sink=spec.removeprefix("pulse:") or None, **kw)
        return cls(device=spec, **kw)


def output_devices() -> list[tuple[int, str]]:
    """(index, name) of every device with output channels, for a CLI --list-devices."""
    import sounddevice as sd

    return [(i, str(d["name"])) for i, d in enumerate(sd.query_devices()) if d["max_output_channels"] > 0]


@contextmanager
def _pulse_sink(name: str | None) -> Iterator[None]:
    """PULSE_SINK routes the ALSA "pulse" device; libpulse reads it when the stream connects (on open)."""
    if name is None:
        yield
        return
    with _env_lock:
        old = os.environ.get("PULSE_SINK")
        os.environ["PULSE_SINK"] = name
        try:
            yield
        finally:
            if old is None:
                del os.environ["PULSE_SINK"]
            else:
                os.environ["PULSE_SINK"] = old


class _Channel:
    """One OutputStream and its callback's counters (plain ints: written by the audio thread only)."""

    def __init__(self, mixer: Mixer, channel: str, cfg: OutputConfig) -> None:
        import sounddevice as sd

        self.cfg, self.underflows, self.calls, self.frames = cfg, 0, 0, 0
        self.error: Exception | None = None
        self.mixer, self.channel = mixer, channel
        self._pull: Callable[[np.ndarray], None] = (
            mixer.pull_public_into if channel == "all" else mixer.pull_host_into
        )
        with _pulse_sink(cfg.pulse_sink):
            self.stream = sd.OutputStream(samplerate=SAMPLE_RATE, channels=1, dtype="float32",
                                          device=cfg.device, blocksize=cfg.blocksize, latency=cfg.latency,
                                          callback=self._callback)

    def _callback(self, outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if status.output_underflow:
            self.underflows += 1
        frame = self.mixer.frames_played(self.channel)
        try:
            self._pull(outdata[:, 0])
            self.mixer.stamp(self.channel, frame, self.leaves_at(time_info))
        except Exception as exc:  # keep the stream alive and silent; re-raised on the caller's thread
            outdata.fill(0.0)
            self.error = self.error or exc
        self.calls += 1
        self.frames += frames

    def leaves_at(self, time_info: Any) -> float:
        """time.monotonic() when the block being written leaves the device: PortAudio's own figure for
        this block (DAC time − now) when it gives a sane one, else the stream's latency. Right after an
        underflow the device holds nothing: the block leaves at once (0: PortAudio's figure, kept)."""
        ahead = float(time_info.outputBufferDacTime - time_info.currentTime) if time_info is not None else -1.0
        if not 0.0 <= ahead < 1.0:
            ahead = float(self.stream.latency)
        return time.monotonic() + ahead

    def start(self) -> None:
        """Start the stream; what is queued counts as playing from now (the first period may be late)."""
        self.mixer.stamp(self.channel, self.mixer.frames_played(self.channel), time.monotonic())
        self.stream.start()

    def close(self) -> None:
        self.mixer.unstamp(self.channel)
        self.stream.stop()
        self.stream.close()


class Player:
    """Plays a Mixer live. Use as a context manager, or start()/close()."""

    def __init__(self, mixer: Mixer, public: OutputConfig | None = None, host: OutputConfig | None = None,
                 *, pacer: Pacer | None = None, console: Console | None = None) -> None:
        self.mixer, self.pacer = mixer, pacer
        self._public_cfg, self._host_cfg = public or OutputConfig(), host
        self._console = console
        self._channels: dict[str, _Channel] = {}
        self._logged_underflows = 0
        self._resting = False
        self._rest_lock = threading.Lock()

    @property
    def has_host_output(self) -> bool:
        return self._host_cfg is not None

    def start(self, ready_timeout_s: float | None = 5.0) -> None:
        """Open and start the stream(s); then wait until the device really consumes audio (PulseAudio can
        hold a new stream for ~2 s before its first period), unless ready_timeout_s is None."""
        try:
            self._channels["all"] = _Channel(self.mixer, "all", self._public_cfg)
            if self._host_cfg is not None:
                self._channels["host"] = _Channel(self.mixer, "host", self._host_cfg)
            for ch in self._channels.values():
                ch.start()
        except Exception:
            self.close()  # e.g. the earpiece is missing: do not leave the table stream open
            raise
        if ready_timeout_s is not None and not self.wait_ready(ready_timeout_s):
            log.warning("audio output is not consuming samples after %.1f s", ready_timeout_s)

    def wait_ready(self, timeout_s: float = 5.0, window_s: float = 0.2) -> bool:
        """True once every stream has pulled at least half real-time over `window_s`, not counting the
        initial prefill burst."""
        deadline = time.monotonic() + timeout_s
        while not all(ch.frames for ch in self._channels.values()):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        while time.monotonic() < deadline:
            before = [ch.frames for ch in self._channels.values()]
            time.sleep(window_s)
            after = [ch.frames for ch in self._channels.values()]
            if all(b - a >= 0.5 * window_s * SAMPLE_RATE for a, b in zip(before, after, strict=True)):
                return True
        return False

    def rest(self) -> bool:
        """Stop the streams while nothing plays (`Mixer.quiet`: nothing queued, no bed): a stream writing
        silence still wakes PortAudio's and the sound server's threads 100 times a second. The next thing
        queued on the mixer, from any thread, starts them again (`Mixer.waker`); what it cost the first line
        is in docs/benchmarks.md. For an owner whose timing is no one's business — `serve`'s lobby — never a
        game's (the table's timing at night would then depend on how long the host took). True while
        resting (False: something still plays, or no stream is open)."""
        with self._rest_lock:
            if self._resting:
                return True
            if not self._channels or not self.mixer.quiet():
                return False
            for ch in self._channels.values():
                ch.stream.stop()
            self._resting = True
            self.mixer.waker = self.wake
        if not self.mixer.quiet():  # queued while the streams stopped (before the waker was set)
            self.wake()
        return self._resting

    @property
    def resting(self) -> bool:
        return self._resting

    def wake(self) -> None:
        """Start the streams `rest` stopped (what is queued counts as playing from now); nothing if awake."""
        with self._rest_lock:
            if not self._resting:
                return
            self._resting = False
            self.mixer.waker = None
            for ch in self._channels.values():
                ch.start()

    def say(self, line: Line, clip: np.ndarray, pause_after_s: float | None = None) -> Ticket | None:
        """Queue one judge line and return at once. The pause is drawn from the Pacer (line.pause) unless
        given. A host line without a host output is printed on the console right away (it may appear
        while earlier public lines are still playing) and returns None; nothing of it is played."""
        if pause_after_s is None:
            if self.pacer is None:
                raise ValueError("Player.say needs pause_after_s or a Player(pacer=...)")
            pause_after_s = self.pacer.draw(line.pause)
        if line.to == "host" and not self.has_host_output:
            self._print_host(line.text)
            return None
        return self.mixer.enqueue_line(line, clip, pause_after_s)

    def _print_host(self, text: str) -> None:
        from rich.console import Console
        from rich.markup import escape

        if self._console is None:
            self._console = Console(stderr=True)
        self._console.print(f"[bold magenta]〔主持人〕[/] {escape(text)}")

    def wait_drained(self, timeout_s: float | None = None) -> bool:
        """Block until both queues are empty and the last block has left the device buffer.
        Returns False on timeout. Re-raises an exception from the audio callback."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not all(self.mixer.is_drained(ch) for ch in self._channels):
            self.check()
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        time.sleep(self.output_latency_s)  # drained = handed to PortAudio; audible one latency later
        self.check()
        return True

    @property
    def output_latency_s(self) -> float:
        """s. PortAudio's reported output latency (largest of the streams): how long after the callback
        hands a sample over it is heard."""
        return max((ch.stream.latency for ch in self._channels.values()), default=0.0)

    def stopped(self) -> list[str]:
        """The channels ("all", "host") whose stream PortAudio has stopped since `start` — its device or
        sound server is gone; empty while everything plays."""
        if self._resting:  # stopped on purpose
            return []
        return [name for name, ch in self._channels.items() if not ch.stream.active]

    @property
    def underflows(self) -> int:
        return sum(ch.underflows for ch in self._channels.values())

    def check(self) -> None:
        """Log new underflows; re-raise an error the callback swallowed."""
        if self.underflows > self._logged_underflows:
            log.warning("audio output underflow: %d so far (%d new)", self.underflows,
                        self.underflows - self._logged_underflows)
            self._logged_underflows = self.underflows
        for ch in self._channels.values():
            if ch.error is not None:
                err, ch.error = ch.error, None
                raise RuntimeError("audio callback failed") from err

    def close(self) -> None:
        """Stop and close the streams (what is still queued is dropped)."""
        with self._rest_lock:
            self._resting = False
            if self.mixer.waker == self.wake:
                self.mixer.waker = None
        for ch in self._channels.values():
            ch.close()
        try:
            self.check()
        finally:
            self._channels.clear()

    def __enter__(self) -> Player:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
