"""The energy gate in front of the voice-activity detector (narrator/listen/vad.py, `EnergyGate`): Silero is asked
only when the microphone hears more than the room's steady noise, and a word after a long quiet is scored from
its first frame with the audio just before it — on synthetic rooms, with a detector double that records what it
was given (the real Silero behind the gate: tests/room/test_room_idle.py and scripts/bench_listen.py vad)."""

from __future__ import annotations

import numpy as np

from narrator.listen.recognizer import SAMPLE_RATE
from narrator.listen.vad import EndpointConfig, Endpointer, EnergyGate, SileroVad, make_vad

FRAME = 512


class Recording:
    """A detector double: a frame is speech when loud; it records every frame it scored and each reset."""

    frame = FRAME

    def __init__(self) -> None:
        self.scored: list[np.ndarray] = []
        self.resets = 0

    def prob(self, frame: np.ndarray) -> float:
        self.scored.append(frame)
        return 1.0 if float(np.sqrt(np.mean(np.square(frame)))) > 0.02 else 0.0

    def reset(self) -> None:
        self.resets += 1


def noise(seconds: float, rms: float, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(int(seconds * SAMPLE_RATE)) * rms).astype(np.float32)


def word(seconds: float = 0.5, rms: float = 0.1) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    voiced = np.sin(2 * np.pi * 220 * t) + 0.5 * np.sin(2 * np.pi * 1100 * t)
    return (voiced / np.sqrt(np.mean(voiced**2)) * rms).astype(np.float32)


def frames(x: np.ndarray) -> list[np.ndarray]:
    return [x[i : i + FRAME] for i in range(0, len(x) - FRAME + 1, FRAME)]


def test_the_ear_listens_through_the_gate_by_default() -> None:
    assert isinstance(make_vad("silero"), EnergyGate)
    assert isinstance(make_vad("silero", gate=False), SileroVad)


def test_a_steady_room_is_not_scored_and_a_word_after_it_is_from_its_first_frame() -> None:
    inner = Recording()
    gate = EnergyGate(inner)  # type: ignore[arg-type]
    quiet = noise(10.0, 0.001)
    for f in frames(quiet):
        gate.prob(f)
    settled = len(inner.scored)
    assert settled <= 2 * SAMPLE_RATE // FRAME  # the first second (no floor yet) and the hold after it
    for f in frames(noise(5.0, 0.001, seed=2)):
        assert gate.prob(f) == 0.0
    assert len(inner.scored) == settled  # five seconds of the same steady room: never asked
    before = frames(noise(1.0, 0.001, seed=3))
    for f in before:
        gate.prob(f)
    spoken = frames(word())
    probs = [gate.prob(f) for f in spoken]
    assert probs[0] == 1.0 and all(p == 1.0 for p in probs)  # the word from its first frame
    first = len(inner.scored) - len(spoken)
    assert inner.resets >= 2  # reset at the word's start...
    warmed = inner.scored[first - 3 : first]  # ...and given the three quiet frames before it first
    assert all(np.array_equal(a, b) for a, b in zip(warmed, before[-3:], strict=True))


def test_a_recording_that_starts_with_the_word_is_scored_as_without_the_gate() -> None:
    inner = Recording()
    gate = EnergyGate(inner)  # type: ignore[arg-type]
    clip = np.concatenate([word(0.6), noise(1.0, 0.001)])
    assert [gate.prob(f) for f in frames(clip)] == [Recording().prob(f) for f in frames(clip)]


def test_the_gate_never_ends_an_utterance_the_detector_would_not_have_ended() -> None:
    """Speech with short pauses: the endpointer behind the gate starts and ends where it does without it."""
    room = noise(6.0, 0.001)
    talk = np.concatenate([word(0.4), noise(0.25, 0.001, 4), word(0.3, 0.05), noise(0.3, 0.001, 5), word(0.5)])
    audio = np.concatenate([room, talk, noise(1.5, 0.001, 6)])
    gated = Endpointer(EnergyGate(Recording()), EndpointConfig())  # type: ignore[arg-type]
    bare = Endpointer(Recording(), EndpointConfig())  # type: ignore[arg-type]
    events = [(e.kind, round(e.t, 3)) for e in gated.feed(audio, 0.0) if e.kind != "audio"]
    assert events == [(e.kind, round(e.t, 3)) for e in bare.feed(audio, 0.0) if e.kind != "audio"]
    assert [k for k, _ in events] == ["start", "end"]
