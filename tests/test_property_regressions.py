"""Bugs the random-game properties (tests/test_properties.py) found, pinned down one by one."""

from __future__ import annotations

import pytest

from narrator.engine import events as ev
from narrator.engine.state import State
from narrator.judge.narrate import Judge
from narrator.judge.script import Script


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_the_judge_names_the_elder_who_took_the_powers(lang: str) -> None:
    """VillagePowersLost carries `elder`, the line wants {seat}: it raised KeyError when an elder was poisoned."""
    lines = Judge(Script(lang)).event_lines(ev.VillagePowersLost(elder=3), State())
    assert [line.to for line in lines] == ["host"]
    assert "三" in lines[0].text


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_the_judge_says_whom_the_scapegoat_lets_vote(lang: str) -> None:
    """ScapegoatChoseVoters carries `voters`, the line wants {seats}: every scapegoat tie raised KeyError."""
    lines = Judge(Script(lang)).event_lines(ev.ScapegoatChoseVoters(seat=2, voters=(1, 4)), State())
    assert len(lines) == 1 and "一" in lines[0].text and "四" in lines[0].text
