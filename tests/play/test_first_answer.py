"""Night 1's first answer: a host who answers as soon as he has heard his question is not hurried.

Before the first night the judge tells the host the gesture conventions (手势约定) on the earpiece or console;
on a brisk board (`--pace 0.3`, serve's 快一点) the table's first night lines run on while he still hears them,
so the wolves' question reaches him well after the table's. The table's wait for the host's words must count
from when he has heard those lines — said before anything is secret, so the same in every game of the preset
— or the table hears "请稍等" while he answers (and a voice ear used to lose the answer under it).

Played by `Live` on a fake clock through the real Conductor and Dialogue, each line as long as espeak-ng's
judge voice says it (0.24 s a character), the ear reading every spoken seat back (`expect_repairs(1)`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.audio import SAMPLE_RATE
from narrator.audio.conductor import Conductor
from narrator.common.clock import FakeClock
from narrator.judge.lines import Line
from narrator.play.loop import Live
from narrator.play.mouth import scaled_host_words, scaled_pacing
from narrator.play.scripted import host_script
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

NIGHTS = Path(__file__).parent.parent / "fair_nights"
CHAR_S = 0.24
"""s a character: espeak-ng's Mandarin judge voice at its default rate ("手势约定：…" 28 characters, 6.7 s)."""


def spoken(line: Line) -> np.ndarray:
    return np.zeros(round(SAMPLE_RATE * CHAR_S * len(line.text)), np.float32)


def played(name: str, pace: float, host_s: float, last: int | None = None) -> TimedMouth:
    """The pair's game through the live loop at `pace`, the host answering `host_s` after hearing each question
    (his first `last` answers only: then the input ends)."""
    scripted = host_script(Scenario.load(NIGHTS / f"{name}.yaml"))
    words: list[str | float] = ["开始"]
    for word in scripted.utterances[:last]:
        words += [host_s, word]
    clock = FakeClock()
    mouth = TimedMouth(clock)
    mouth.conductor = Conductor(None, clock, spoken, seed=1, pacing=scaled_pacing(pace),
                                host_words=scaled_host_words(pace), on_table=mouth.record, on_host=mouth.record)
    mouth.conductor.expect_repairs(1)  # a voice ear: every spoken seat is read back
    session = Session(scripted.game.setup, scripted.game.seed)
    Live(session, mouth, PacedEar(clock, words), now=clock.now, clock=clock, poll_s=0.5).run()
    return mouth


def nights(mouth: TimedMouth) -> list[tuple[float, str]]:
    """The table's lines from 天黑请闭眼 until 天亮了 (s after 天黑请闭眼, text)."""
    start = next(i for i, (_, text) in enumerate(mouth.table) if text.startswith("天黑"))
    end = next(i for i, (_, text) in enumerate(mouth.table) if text.startswith("天亮了"))
    return [(round(t - mouth.table[start][0], 3), text) for t, text in mouth.table[start:end + 1]]


@pytest.mark.parametrize("pace", (1.0, 0.5, 0.3))
def test_a_host_who_answers_at_once_is_not_hurried_at_the_wolves_on_night_one(pace: float) -> None:
    """9人预女猎: at pace 0.3 the witch's gesture convention is still on the host's channel when the table has
    asked the wolves (he hears their question 4 s after the table's ended); he answers each question a second
    after hearing it, and the table hears no "请稍等" while he does (it did at 0.3: 0.6 s before his kill).
    At pace 1 and 0.5 the whole night has none."""
    mouth = played("reference", pace, 1.0, last=2)  # the wolves' identification and kill
    texts = [text for _, text in mouth.table]
    assert "请稍等。" not in texts[:texts.index("狼人请闭眼。")], mouth.heard_at
    if pace >= 0.5:
        assert "请稍等。" not in [text for _, text in nights(played("reference", pace, 1.0))]


@pytest.mark.parametrize("other", ("witch_dead", "seer_dead"))
def test_the_wait_counted_from_the_gesture_conventions_tells_nothing(other: str) -> None:
    """Counting from when the host has heard what was said to him before the first night is the same in every
    game of the preset: at pace 0.3 (the conventions still playing when the wolves are asked) night 1 sounds
    the same with the witch or the seer dead."""
    assert nights(played("reference", 0.3, 1.0)) == nights(played(other, 0.3, 1.0))
