"""The microphone's mode (narrator/listen/mic.py `Microphone.set_mode`): 64 ms blocks while `serve`'s lobby waits,
32 ms in a game. A running stream is opened again at the new block; the ear is fed the same 32 ms frames, at the
same times, whatever the block; an ear that joins later records in the mode asked for before; and a stream that
cannot be opened again is a lost microphone — reported once, and restarted in the mode asked for when it can be.

PortAudio is replaced here by a fake `sounddevice` that records what is opened (the real one, in a PulseAudio
room: tests/room/test_room_idle.py)."""

from __future__ import annotations

import sys
import time
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from narrator.engine.answers import Seats
from narrator.engine.prompts import Prompt
from narrator.listen.base import QueueEar
from narrator.listen.first import First
from narrator.listen.mic import BLOCKS, FRAME, Microphone
from narrator.listen.recognizer import SAMPLE_RATE
from narrator.play.ears import GuardedEar
from narrator.play.interrupts import Interrupts
from narrator.play.mouth import DeviceLost

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)


class PortAudioError(Exception):
    pass


class FakeStream:
    """An input stream as sounddevice opens one: it records its block; `deliver` is PortAudio's callback."""

    def __init__(self, sd: FakeSounddevice, *, samplerate: int, blocksize: int, callback: Callable[..., None],
                 **kw: Any) -> None:
        self.sd, self.rate, self.blocksize, self.callback = sd, samplerate, blocksize, callback
        self.active = self.closed = False
        self.aborted = False

    def start(self) -> None:
        if self.sd.refuse:
            raise PortAudioError("Error starting stream: the device is gone")
        self.active = True

    def abort(self) -> None:
        self.active, self.aborted = False, True

    def stop(self) -> None:  # draining: what Microphone.stop must not wait for
        raise AssertionError("an input stream is aborted, not drained")

    def close(self) -> None:
        self.active, self.closed = False, True

    def deliver(self, samples: np.ndarray) -> None:
        self.callback(samples.reshape(-1, 1), len(samples), None, None)


class FakeSounddevice(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("sounddevice")
        self.PortAudioError = PortAudioError
        self.opened: list[FakeStream] = []
        self.refuse = False
        """The device cannot be opened (unplugged, its sound server gone)."""

    def InputStream(self, **kw: Any) -> FakeStream:  # sounddevice's name
        stream = FakeStream(self, **kw)
        self.opened.append(stream)
        return stream

    def query_devices(self, device: object = None, kind: str | None = None) -> dict[str, float]:
        return {"default_samplerate": float(SAMPLE_RATE)}

    @property
    def stream(self) -> FakeStream:
        return self.opened[-1]


class RecordingEar(QueueEar):
    """What the ear is fed: (samples, the capture time of the first)."""

    source = "voice"

    def __init__(self) -> None:
        super().__init__()
        self.fed: list[tuple[int, float]] = []
        self.mic = self.microphone = Microphone(self)  # type: ignore[arg-type]  # an ear that records what it is fed

    def feed(self, samples: np.ndarray, t: float) -> None:
        self.fed.append((len(samples), t))

    def stop(self) -> None:
        self.microphone.stop()


@pytest.fixture
def sd(monkeypatch: pytest.MonkeyPatch) -> FakeSounddevice:
    fake = FakeSounddevice()
    monkeypatch.setitem(sys.modules, "sounddevice", fake)
    return fake


def fed_within(ear: RecordingEar, n: int, timeout_s: float = 5.0) -> list[tuple[int, float]]:
    deadline = time.monotonic() + timeout_s
    while len(ear.fed) < n:
        assert time.monotonic() < deadline, f"fed {ear.fed}, waited for {n}"
        time.sleep(0.005)
    return ear.fed


def test_the_lobby_records_in_64_ms_blocks_and_the_ear_hears_32_ms_frames_either_way(sd: FakeSounddevice) -> None:
    ear = RecordingEar()
    mic = ear.microphone
    mic.start()
    try:
        game = sd.stream
        assert game.blocksize == BLOCKS["game"] == FRAME == 512 and mic.mode == "game"
        ear.set_mode("lobby")  # the ear asks its microphone: a running stream is opened again
        lobby = sd.stream
        assert lobby is not game and game.aborted and game.closed
        assert lobby.blocksize == BLOCKS["lobby"] == 1024 and lobby.active and mic.alive and mic.mode == "lobby"
        ear.set_mode("lobby")  # asked again: nothing happens
        assert sd.stream is lobby and lobby.active

        before = time.monotonic()
        lobby.deliver(np.zeros(1024, np.float32))
        (n1, t1), (n2, t2) = fed_within(ear, 2)
        assert (n1, n2) == (FRAME, FRAME)  # two game frames, not one block
        assert before - 1024 / SAMPLE_RATE <= t1 <= time.monotonic() - 1024 / SAMPLE_RATE
        assert t2 == pytest.approx(t1 + FRAME / SAMPLE_RATE)

        ear.set_mode("game")
        assert sd.stream.blocksize == 512 and lobby.closed and mic.alive
        sd.stream.deliver(np.zeros(512, np.float32))
        assert fed_within(ear, 3)[2][0] == FRAME
    finally:
        ear.close()
    assert sd.stream.closed and not mic.alive


def test_an_ear_joining_later_records_in_the_mode_asked_for_before(sd: FakeSounddevice) -> None:
    first = First([QueueEar()])
    first.expect()
    first.set_mode("lobby")  # the lobby asks before the speech model has loaded
    ear = RecordingEar()
    ear.microphone.start()  # opened as any ear is: a game's blocks
    try:
        assert sd.stream.blocksize == 512
        assert first.join(ear)
        assert sd.stream.blocksize == 1024 and ear.microphone.alive and len(sd.opened) == 2
        first.set_mode("game")
        assert sd.stream.blocksize == 512 and len(sd.opened) == 3
    finally:
        first.close()


def test_a_microphone_that_cannot_be_opened_again_is_lost_reported_and_restarted_in_its_mode(
        sd: FakeSounddevice) -> None:
    ear = RecordingEar()
    lost: list[DeviceLost] = []
    back: list[str] = []
    guarded = GuardedEar(First([ear]), Interrupts(), poll_s=0.01, retry_s=0.05, on_lost=lost.append,
                         on_back=back.append)
    ear.microphone.start()
    try:
        sd.refuse = True  # the sound server went away between two games
        guarded.set_mode("lobby")  # nothing raised: the device goes on
        assert not ear.microphone.alive and ear.microphone.mode == "lobby"
        for _ in range(5):
            assert guarded.listen(KILL, 12, timeout_s=0.02) is None
        assert [x.which for x in lost] == ["mic"] and back == []  # told once; tried again meanwhile
        sd.refuse = False
        deadline = time.monotonic() + 5.0
        while not back:
            assert time.monotonic() < deadline, "never opened again"
            assert guarded.listen(KILL, 12, timeout_s=0.02) is None
        assert back == ["mic"] and len(lost) == 1
        assert sd.stream.blocksize == 1024 and sd.stream.active and ear.microphone.alive
    finally:
        guarded.close()
