"""Helpers shared by the voice tests (imported as `voice_testkit`, like tests/audio's audio_testkit)."""

from __future__ import annotations

import subprocess

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.judge.lines import Line
from narrator.voice.base import Audio, Voice


def tone(text: str, seconds_per_char: float = 0.05) -> Audio:
    """A distinct, deterministic sound per text: a tone whose pitch and length depend on the text."""
    n = max(1, round(SAMPLE_RATE * seconds_per_char * len(text)))
    freq = 200 + sum(map(ord, text)) % 600
    t = np.arange(n) / SAMPLE_RATE
    return (0.5 * np.sin(2 * np.pi * freq * t) * np.hanning(n)).astype(np.float32)


class FakeVoice:
    """A voice for tests: counts its calls; its key changes with its name and rate like a real one."""

    def __init__(self, name: str = "fake", rate: str = "+0%") -> None:
        self.name, self.rate = name, rate
        self.calls: list[str] = []

    @property
    def key(self) -> str:
        return f"fake:{self.name}:rate={self.rate}"

    def synthesize(self, text: str) -> Audio:
        self.calls.append(text)
        return tone(text)


class Counting:
    """A real voice, counting what it is asked to say."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice
        self.calls: list[str] = []

    @property
    def key(self) -> str:
        return self.voice.key

    @property
    def label(self) -> str:
        return str(getattr(self.voice, "label", self.voice.key))

    def synthesize(self, text: str) -> Audio:
        self.calls.append(text)
        return self.voice.synthesize(text)


def mp3_of(audio: Audio) -> bytes:
    """`audio` encoded as edge-tts sends it: MP3, 24 kHz mono, 48 kbit/s."""
    proc = subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "f32le", "-ar", str(SAMPLE_RATE), "-ac", "1",
         "-i", "pipe:0", "-f", "mp3", "-b:a", "48k", "pipe:1"],
        input=audio.astype("<f4").tobytes(), capture_output=True, check=True,
    )  # fmt: skip
    return proc.stdout


def game_lines(lang: str, games: int) -> list[Line]:
    """Every line (table and host) the judge says in `games` random legal games over the presets."""
    import random

    from narrator.engine.game import Game
    from narrator.judge.narrate import Judge
    from narrator.judge.script import Script
    from narrator.presets import make_setup, preset_names
    from narrator.sim.autohost import AutoHost, Deal

    judge, out = Judge(Script(lang)), []
    names = preset_names()
    for seed in range(games):
        setup = make_setup(names[seed % len(names)])
        rng = random.Random(seed)
        host, game, done = AutoHost(Deal.shuffle(setup, rng), rng), Game(setup, seed), 0
        while True:
            for event in game.journal[done:]:
                out.extend(judge.event_lines(event, game.state))
            done = len(game.journal)
            if game.prompt is None:
                break
            out.extend(judge.prompt_lines(game.prompt, game.state))
            game.answer(host.answer(game, game.prompt))
    return out
