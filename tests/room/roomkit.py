"""A real room in PulseAudio: a table speaker and a microphone that hear each other, a host and a player who
talk into it. Used by the room tests (tests/room) and the room benchmarks (scripts/bench_room.py).

    table ──► speaker ──(20 ms, gain, two later reflections: module-loopback ×3)──┐
    voice ──► the host's / a player's mouth ──(module-loopback, ~3 ms)─────────────┤
                                                                                   ▼
                                                      air (null sink) ── air.monitor: the raw microphone
    earpiece ──► the host's ear only (not in the room)

With `probe=True` the host's mouth, the table, the earpiece and the air are not sinks of their own but four
channels of one null sink `probe` (module-remap-sink, `PROBE`): recording `probe.monitor` hears the host's
voice, the judge's output and what the microphone hears on ONE sample clock, as they leave their sinks —
what the room latency benchmark (scripts/bench_room.py start) measures from (`sound_spans`).

With echo cancellation (`module-echo-cancel`, aec_method webrtc or speex) the device plays into the
canceller's sink `ec_table` (whose master is `table`: what it plays is its reference) and records its
source `ec_mic` (the room minus the judge, from `air.monitor`); without it, it plays into `table` and
records `air.monitor`. Every sink is float32 mono at 48 kHz. The night bed is the device's own: `narrator
play` plays it into the table like every line.

The host speaks Korean with espeak-ng (`-v ko`): the Korean Vosk model stands in for the Chinese one
(grammars/ko.yaml maps the host words to what is said).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import wave
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from narrator.play.echo import AEC_ARGS

RATE = 48_000
"""Hz. Every sink of the room."""
SPEAKER_DELAY_MS = 20
SPEAKER_GAIN = 0.5
"""The speaker's direct sound at the microphone (−6 dB), then the reflections (ms, gain)."""
REFLECTIONS = ((45, 0.2), (80, 0.1))
PROBE_SINK = "probe"
PROBE = {"voice": "front-left", "table": "front-right", "earpiece": "front-center", "air": "rear-left"}
"""With Room(probe=True): the sinks that are channels of `probe`, in its channel order."""



def pactl(*args: str) -> str:
    run = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=15, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"pactl {' '.join(args)}: {run.stderr.strip()}")
    return run.stdout.strip()


def _owned_inputs() -> dict[str, str]:
    """sink-input index by owner module index."""
    owners: dict[str, str] = {}
    current = None
    for row in pactl("list", "sink-inputs").splitlines():
        if m := re.match(r"Sink Input #(\d+)", row):
            current = m.group(1)
        elif (m := re.match(r"\s*Owner Module: (\d+)", row)) and current is not None:
            owners[m.group(1)] = current
    return owners


@dataclass
class Room:
    echo_cancel: str | None = "webrtc"
    """aec_method of module-echo-cancel ("webrtc", "speex"), or None: no canceller."""
    probe: bool = False
    """voice, table and earpiece as the channels of one sink `probe` (see the module docstring)."""
    aec_args: str | None = None
    """module-echo-cancel's aec_args; None: as narrator/play/echo.py sets them."""
    aec_rate: int | None = None
    """The canceller's own sample rate (Hz); None: the masters' (48 kHz, as narrator/play/echo.py has it)."""
    modules: list[str] = field(default_factory=list)

    @property
    def table(self) -> str:
        """The sink the device plays into."""
        return "ec_table" if self.echo_cancel else "table"

    @property
    def mic(self) -> str:
        """The source the device records."""
        return "ec_mic" if self.echo_cancel else "air.monitor"

    def build(self) -> Room:
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def _build(self) -> None:
        if self.probe:
            self._load("module-null-sink", f"sink_name={PROBE_SINK}", f"rate={RATE}", f"channels={len(PROBE)}",
                       f"channel_map={','.join(PROBE.values())}", "format=float32le")
            for sink, channel in PROBE.items():
                self._load("module-remap-sink", f"sink_name={sink}", f"master={PROBE_SINK}", "channels=1",
                           f"master_channel_map={channel}", "channel_map=mono", "remix=no")
        for sink in ("table", "air", "voice", "earpiece"):
            if not (self.probe and sink in PROBE):
                self._load("module-null-sink", f"sink_name={sink}", f"rate={RATE}", "channels=1",
                           "format=float32le")
        for delay_ms, gain in ((SPEAKER_DELAY_MS, SPEAKER_GAIN), *REFLECTIONS):
            index = self._load("module-loopback", "source=table.monitor", "sink=air", f"latency_msec={delay_ms}",
                               "source_dont_move=true", "sink_dont_move=true")
            self._volume(index, gain)
        mouth = self._load("module-loopback", "source=voice.monitor", "sink=air", "latency_msec=1",
                           "source_dont_move=true", "sink_dont_move=true")
        self._volume(mouth, 1.0)  # set every loopback's volume: the server restores the last one it saw
        if self.echo_cancel:
            aec_args = AEC_ARGS.get(self.echo_cancel) if self.aec_args is None else self.aec_args
            self._load("module-echo-cancel", "source_master=air.monitor", "sink_master=table",
                       f"aec_method={self.echo_cancel}", "source_name=ec_mic", "sink_name=ec_table",
                       # and the canceller's settings as narrator/play/echo.py has them
                       *(["use_master_format=1"] if self.aec_rate is None else
                         [f"rate={self.aec_rate}", "channels=1", "format=float32le"]),
                       *([f'aec_args="{aec_args}"'] if aec_args else []))

    def _load(self, module: str, *args: str) -> str:
        index = pactl("load-module", module, *args)
        self.modules.append(index)
        return index

    def _volume(self, module: str, gain: float) -> None:
        deadline = time.monotonic() + 5
        while (sink_input := _owned_inputs().get(module)) is None:
            assert time.monotonic() < deadline, f"module {module} made no sink input"
            time.sleep(0.05)
        # absolute, in PulseAudio's cubic units ("-6dB" would be relative to what the server restored)
        pactl("set-sink-input-volume", sink_input, str(round(gain ** (1 / 3) * 65536)))

    def close(self) -> None:
        for index in reversed(self.modules):
            subprocess.run(["pactl", "unload-module", index], capture_output=True, timeout=15, check=False)
        self.modules.clear()

    def __enter__(self) -> Room:
        return self.build()

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- voices in the room ---------------------------------------------------------------------------------

_CLIPS = Path(tempfile.gettempdir()) / "narrator-room-clips"


def espeak(text: str, voice: str = "ko", speed: int = 150, gap: int = 0) -> Path:
    """A WAV of `text` said by espeak-ng at `speed` words a minute with `gap` × 10 ms between words (cached
    by all of these)."""
    assert shutil.which("espeak-ng"), "espeak-ng is required"
    _CLIPS.mkdir(exist_ok=True)
    wav = _CLIPS / f"{hashlib.sha1(f'{voice}|{speed}|{gap}|{text}'.encode()).hexdigest()[:16]}.wav"
    if not wav.exists():
        part = wav.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part.wav")  # two makers of one clip
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-g", str(gap), "-w", str(part), text],
                       check=True, capture_output=True, timeout=30)
        part.replace(wav)
    return wav


def wav_seconds(wav: Path) -> float:
    with wave.open(str(wav)) as w:
        return w.getnframes() / w.getframerate()


def play(wav: Path, sink: str = "voice", volume: float = 1.0) -> subprocess.Popen[bytes]:
    """Start playing `wav` into `sink` (returns at once)."""
    return subprocess.Popen(["paplay", f"--device={sink}", f"--volume={round(volume ** (1 / 3) * 65536)}", str(wav)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Recorder:
    """Records a PulseAudio source with parec, float32 at `rate`, mono or `channels` (then `stop()` gives
    one column per channel, in `channel_map`'s order: give the source's own map, or the server remixes);
    `t0` is when it started (monotonic)."""

    def __init__(self, source: str, rate: int = 16_000, channels: int = 1, channel_map: str | None = None) -> None:
        self.source, self.rate, self.channels = source, rate, channels
        self._file = tempfile.NamedTemporaryFile(suffix=".f32")  # noqa: SIM115 (closed in stop())
        self._proc = subprocess.Popen(
            ["parec", "-d", source, f"--rate={rate}", f"--channels={channels}", "--format=float32le",
             "--latency-msec=10", *([f"--channel-map={channel_map}"] if channel_map else [])],
            stdout=self._file, stderr=subprocess.PIPE)
        self.t0 = time.monotonic()

    def stop(self) -> np.ndarray:
        time.sleep(0.2)
        self._proc.terminate()
        _, err = self._proc.communicate(timeout=10)
        data = np.fromfile(self._file.name, dtype="<f4")
        self._file.close()
        assert len(data), f"parec recorded nothing from {self.source}: {err.decode(errors='replace')}"
        if self.channels > 1:
            data = data[: len(data) // self.channels * self.channels].reshape(-1, self.channels)
        return data


def probe_recorder() -> Recorder:
    """Records Room(probe=True)'s `probe`: one column per PROBE sink, in PROBE's order, at the room's rate."""
    return Recorder(f"{PROBE_SINK}.monitor", RATE, len(PROBE), ",".join(PROBE.values()))


def sound_spans(x: np.ndarray, rate: int, floor_db: float = -60.0, gap_s: float = 0.25) -> list[tuple[float, float]]:
    """(start, end) in s of the stretches of one channel `x` with samples above `floor_db` (dBFS), joined
    across quieter gaps shorter than `gap_s`: a clean voice's utterances, or what a silent sink played."""
    loud = np.flatnonzero(np.abs(x) > 10 ** (floor_db / 20))
    if not len(loud):
        return []
    breaks = np.flatnonzero(np.diff(loud) > gap_s * rate)
    starts, ends = np.r_[loud[0], loud[breaks + 1]], np.r_[loud[breaks], loud[-1]] + 1
    return [(int(s) / rate, int(e) / rate) for s, e in zip(starts, ends, strict=True)]


def _xcorr(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """corr[k] = Σ x[i + k]·y[i] (k ≥ 0 at the front; the wrapped negative lags at the end)."""
    n = 1 << int(np.ceil(np.log2(len(x) + len(y))))
    return np.fft.irfft(np.fft.rfft(x, n) * np.conj(np.fft.rfft(y, n)), n)


def lag_s(x: np.ndarray, y: np.ndarray, rate: int, max_s: float = 0.3) -> float:
    """s by which `y` lags `x` (0 to `max_s`): the peak of their cross-correlation."""
    return float(np.argmax(_xcorr(y, x)[: round(max_s * rate)])) / rate


def starts_s(x: np.ndarray, clip: np.ndarray, rate: int, count: int = 1) -> list[float]:
    """Where in `x` (s, in order) the `count` copies of `clip` (same rate, not overlapping) start: the highest
    peaks of their cross-correlation, each at least the clip's length from the others. A recording's own
    samples say where a sound lies; when a process started playing or recording it does not (paplay and parec
    start late by different amounts on a busy machine)."""
    corr = _xcorr(x, clip)[: max(1, len(x) - len(clip) + 1)]
    found: list[int] = []
    for _ in range(count):
        best = int(np.argmax(corr))
        found.append(best)
        corr[max(0, best - len(clip) + 1): best + len(clip)] = -np.inf
    return sorted(f / rate for f in found)


def erle_db(before: np.ndarray, after: np.ndarray, rate: int = 16_000, block_s: float = 0.1,
            floor_db: float = -50.0) -> float:
    """Echo return loss enhancement: energy of the microphone's echo over the canceller's output, on the
    blocks where the echo is above `floor_db` (the judge speaking), in dB."""
    n = min(len(before), len(after))
    block = int(block_s * rate)
    m = n // block * block
    b = before[:m].reshape(-1, block)
    a = after[:m].reshape(-1, block)
    eb, ea = (b**2).mean(axis=1), (a**2).mean(axis=1)
    loud = 10 * np.log10(eb + 1e-12) > floor_db
    assert loud.any(), "no echo above the floor"
    return float(10 * np.log10(eb[loud].sum() / (ea[loud].sum() + 1e-12)))


class Ears:
    """A person in the room listening to the table: Silero VAD on the table's sound (`table.monitor`: the
    judge's voice, not the bed), so a scripted host speaks only once the judge has finished, as a host does."""

    def __init__(self, source: str = "table.monitor", threshold: float = 0.5,
                 onsets: list[float] | None = None) -> None:
        from narrator.listen.vad import SileroVad

        self.vad, self.threshold = SileroVad(), threshold
        self.onsets = onsets if onsets is not None else []
        """When the judge's voice started after at least `gap_s` of silence (monotonic)."""
        self.last_voice = time.monotonic()
        self._proc = subprocess.Popen(
            ["parec", "-d", source, "--rate=16000", "--channels=1", "--format=float32le", "--latency-msec=20"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._thread = threading.Thread(target=self._run, name="room-ears", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        assert self._proc.stdout is not None
        frame = self.vad.frame
        t0, n = time.monotonic(), 0
        while chunk := self._proc.stdout.read(frame * 4):
            if len(chunk) < frame * 4:
                return
            n += frame
            if self.vad.prob(np.frombuffer(chunk, "<f4")) > self.threshold:
                # the frame's start on the recording's own clock (the pipe may deliver in bursts)
                at = t0 + (n - frame) / 16_000
                if at - self.last_voice > 0.3:
                    self.onsets.append(at)
                self.last_voice = max(at, time.monotonic() - 0.05)

    def quiet_for(self, seconds: float) -> bool:
        return time.monotonic() - self.last_voice >= seconds

    def wait_quiet(self, seconds: float, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not self.quiet_for(seconds):
            assert time.monotonic() < deadline, f"the judge never stopped talking for {seconds} s"
            time.sleep(0.05)

    def close(self) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=10)


# --- words said in the room, as the microphone heard them ---------------------------------------------

class NightBed:
    """The game's own night bed playing on the room's table (the Mixer and Player of `narrator play`),
    so what the microphone hears under the host's words is what it hears at night."""

    def __init__(self, room: Room) -> None:
        from narrator.audio.beds import builtin_sounds
        from narrator.audio.mixer import Mixer
        from narrator.audio.playback import OutputConfig, Player

        self.mixer = Mixer(builtin_sounds())
        self.player = Player(self.mixer, OutputConfig(device="pulse", pulse_sink=room.table))
        self.player.start(ready_timeout_s=10)
        self.mixer.switch_bed("night")

    def close(self) -> None:
        self.player.close()

    def __enter__(self) -> NightBed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_wav16(path: Path, x: np.ndarray, rate: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())


def said_in_room(room: Room, clips: list[np.ndarray], rate: int = 16_000, gap_s: float = 1.3,
                 before_s: float = 0.4, after_s: float = 0.9) -> list[np.ndarray]:
    """Each clip (mono float32 at `rate`) said from the host's place in the room, one after another with
    `gap_s` of silence between them, as one recording of the device's microphone source (`room.mic`) at
    `rate`: for each clip the stretch from `before_s` before it to `after_s` after it, found by
    cross-correlation with what was played (one long clip: paplay's and parec's start-up delays do not
    matter)."""
    gap = np.zeros(int(gap_s * rate), np.float32)
    where, pieces, pos = [], [gap], len(gap)
    for clip in clips:
        where.append(pos)
        pieces += [clip.astype(np.float32), gap]
        pos += len(clip) + len(gap)
    joined = np.concatenate(pieces)
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "said.wav"
        _write_wav16(wav, joined, rate)
        recorder = Recorder(room.mic, rate)
        time.sleep(0.5)
        play(wav).wait(timeout=30 + 2 * len(joined) / rate)
        time.sleep(1.0)
        rec = recorder.stop()
    [offset] = starts_s(rec, joined, rate)
    base = round(offset * rate)
    return [rec[max(0, base + at - round(before_s * rate)): base + at + len(clip) + round(after_s * rate)]
            for at, clip in zip(where, clips, strict=True)]
