"""The ear against what the device really plays, in a real room: a PulseAudio null sink `room` is the
room, the judge speaks into it through the real Player and Mixer, the host's words are played into it
with paplay, and the ear records `room.monitor` through the real microphone adapter, the real VAD and the
real Vosk decoder (the Korean model, `grammars/ko.yaml`, espeak-ng Korean as every voice)."""

from __future__ import annotations

import subprocess
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from narrator.audio import SAMPLE_RATE as OUT_RATE
from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer
from narrator.audio.playback import OutputConfig, Player
from narrator.audio.resample import resample
from narrator.engine.answers import Seats
from narrator.engine.prompts import Prompt
from narrator.judge.lines import Line
from narrator.listen.first import First
from narrator.listen.grammar import Grammar, load_pack
from narrator.listen.measure import espeak
from narrator.listen.mic import MicEar
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer, knows
from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad
from narrator.play.ears import GuardedEar
from narrator.play.interrupts import Interrupts
from narrator.play.mouth import DeviceLost

pytestmark = pytest.mark.slow

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)


def mic_ear(model: Any) -> MicEar:
    grammar = Grammar(load_pack("ko"), lambda w: knows(model, w))
    return MicEar(Recognizer(model), grammar, Endpointer(SileroVad(), EndpointConfig(trailing_s=0.4)),
                  tail_s=0.35, device="pulse:room.monitor")


def host_says(text: str, tmp: Path) -> None:
    """The host speaks into the room (its own stream into the room sink, as a person would)."""
    wav = tmp / f"host-{abs(hash(text))}.wav"
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes((np.clip(espeak(text, "ko"), -1, 1) * 32767).astype("<i2").tobytes())
    subprocess.run(["paplay", "--device=room", str(wav)], check=True, timeout=20)


def judge_line(text: str) -> tuple[Line, np.ndarray]:
    return Line(text, "all"), resample(espeak(text, "ko"), SAMPLE_RATE, OUT_RATE).astype(np.float32)


def heard_after_the_judge(model: Any, tmp: Path, *, follow: bool, host: str | None) -> str | None:
    """The judge says a deal line before any question, then the question's seat word "일곱" (seven) into
    the room; once the room has heard it the host says `host` (or nothing). What does the ear take?"""
    mixer = Mixer(builtin_sounds())
    player = Player(mixer, OutputConfig(device="pulse", pulse_sink="room"))
    ear = mic_ear(model)
    if follow:
        ear.follow(mixer)
    first = First([ear])
    player.start(ready_timeout_s=10.0)
    mixer.switch_bed("night")
    ear.start()
    try:
        # Before the first question: heard with no grammar yet — discarded, and the microphone lives on.
        player.say(*judge_line("둘 셋 다섯"), pause_after_s=0.0)
        assert player.wait_drained(timeout_s=20)
        time.sleep(0.5)
        assert ear.mic.alive and ear.mic.error is None
        assert first.listen(KILL, 12, timeout_s=0.01) is None
        player.say(*judge_line("일곱"), pause_after_s=0.0)
        assert player.wait_drained(timeout_s=20)  # the loop's "heard()": the line is out of the device
        if host is not None:
            time.sleep(0.6)  # the host answers after the question, past the room's echo tail
            host_says(host, tmp)
        heard = first.listen(KILL, 12, timeout_s=4.0)
        assert ear.mic.alive and ear.mic.error is None
        return None if heard is None else heard.text
    finally:
        first.close()
        player.close()


def test_the_ear_is_deaf_to_what_the_device_plays_and_hears_the_host_after(pulse: object, model: Any,
                                                                         tmp_path: Path) -> None:
    assert heard_after_the_judge(model, tmp_path, follow=True, host="넷") == "四号"
    # The same room with the ear not following the player and a silent host: the judge's own voice is heard.
    assert heard_after_the_judge(model, tmp_path, follow=False, host=None) is not None


def test_an_exception_in_the_audio_thread_is_a_lost_microphone_reported_and_restarted(pulse: object,
                                                                                     model: Any) -> None:
    ear = mic_ear(model)
    injected = [RuntimeError("injected into the microphone's thread")]
    feed = ear.feed

    def failing_feed(samples: np.ndarray, t: float) -> None:
        if injected:
            raise injected.pop()
        feed(samples, t)

    ear.feed = failing_feed  # type: ignore[method-assign]
    lost: list[DeviceLost] = []
    back: list[str] = []
    guarded = GuardedEar(First([ear]), Interrupts(), poll_s=0.05, retry_s=0.3, on_lost=lost.append,
                         on_back=back.append)
    ear.start()
    try:
        deadline = time.monotonic() + 10.0
        while not back:
            assert time.monotonic() < deadline, f"lost {lost}, never back"
            assert guarded.listen(KILL, 12, timeout_s=0.1) is None
        assert [x.which for x in lost] == ["mic"] and back == ["mic"]
        assert ear.mic.alive and ear.mic.error is None and not injected
    finally:
        guarded.close()
