"""The timeline of a rendered game (the demo): host lines never run ahead of the table, the subtitles are
the audio's real times, and the render streams to disk."""

from __future__ import annotations

import wave
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import yaml

from narrator.audio import SAMPLE_RATE
from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer
from narrator.audio.render import Rendered
from narrator.audio.subtitles import read_cues
from narrator.cli.narration import render_scenario
from narrator.sim.scenario import Output, Scenario
from narrator.voice import Speaker

SR = SAMPLE_RATE


class ToneVoice:
    """A quick deterministic voice: 0.15 s of tone per character (a real voice is ~0.2–0.35 s)."""

    key = "tone:test"

    def synthesize(self, text: str) -> np.ndarray:
        n = max(1, round(0.15 * SR * len(text)))
        t = np.arange(n) / SR
        return (0.3 * np.sin(2 * np.pi * (300 + len(text) * 7) * t) * np.hanning(n)).astype(np.float32)


def demo() -> Scenario:
    text = resources.files("narrator.data").joinpath("demo.yaml").read_text(encoding="utf-8")
    return Scenario.from_dict(yaml.safe_load(text), name="demo")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Rendered, Output, Path]:
    tmp = tmp_path_factory.mktemp("demo")
    rendered, output = render_scenario(demo(), Speaker(ToneVoice()), tmp / "demo.wav", tmp / "demo.host.wav",
                                       mixer=Mixer(builtin_sounds()))
    return rendered, output, tmp


def test_a_host_line_never_starts_before_the_table_line_before_it_has_been_said(
        rendered: tuple[Rendered, Output, Path]) -> None:
    timeline = rendered[0].timeline
    assert rendered[1].code == 0, rendered[1].message
    last_table = None
    checked = 0
    for p in timeline:  # the judge's order
        if p.line.to == "all":
            last_table = p
        elif last_table is not None:
            assert p.start_s >= last_table.said_s - 1e-9, f"{p.line.text!r} starts during {last_table.line.text!r}"
            checked += 1
    assert checked >= 30
    first_ask = next(p for p in timeline if p.line.text.startswith("请告诉我狼人的座位号"))
    wolves = next(p for p in timeline if p.line.key == "steps.wolves.ask_first")
    assert first_ask.start_s == pytest.approx(wolves.said_s)
    assert first_ask.start_s > 15  # not at 0:00 during the welcome


def test_the_subtitles_are_the_lines_real_times(rendered: tuple[Rendered, Output, Path]) -> None:
    result, _, tmp = rendered
    table, host = read_cues(tmp / "demo.vtt"), read_cues(tmp / "demo.host.vtt")
    assert [t for _, _, t in table] == [p.line.text for p in result.timeline if p.line.to == "all"]
    assert [t for _, _, t in host] == [p.line.text for p in result.timeline if p.line.to == "host"]
    assert all(a < b for a, b, _ in table + host)
    with wave.open(str(tmp / "demo.host.wav")) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), "<i2")
    # The host channel is silent outside its cues, and each cue starts where its sound starts.
    inside = np.zeros(len(samples), bool)
    for start, end, text in host:
        a, b = round(start * SR), round(end * SR)
        inside[a - 24 : b + 24] = True  # cue times are rounded to the millisecond
        assert np.any(samples[a : a + SR // 20]) and not np.any(samples[a - SR // 20 : a - 24]), text
    assert not np.any(samples[~inside])


def test_the_files_are_the_whole_game(rendered: tuple[Rendered, Output, Path]) -> None:
    result, _, tmp = rendered
    for name in ("demo.wav", "demo.host.wav"):
        with wave.open(str(tmp / name)) as w:
            assert w.getnframes() == result.frames and w.getframerate() == SR
    assert result.duration_s > 10 * 60
    assert result.timeline[-1].end_s <= result.duration_s
