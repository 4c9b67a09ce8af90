"""Property: in random games of one preset, every night sounds the same at the table.

Random deals and random legal answers (the AutoHost) through the Session, timed by the Conductor on a
FakeClock with the same pacing seed, the host answering after a random 0.2–4 s, or always after 15 s (a
slow host: every step waits for his words, asked or not), or 30 s (past the bound: "请稍等" at every step
that waits for him), or after 2 s at the wolves', the identifications and the buried cards but 50 s at
every decision (slower at secrets than his measured time, past the bound) — and at the 过 a step that asks
nothing asks for, as long as at the question it stands for there (the wolves' kill when the 梦魇 feared a
wolf, a buried card's identification, a dead role's decision): whatever happened and whoever was alive,
night n's table lines start at the same moments after 天黑请闭眼 in every game that reached its dawn.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from narrator.audio import SAMPLE_RATE
from narrator.audio.conductor import Conductor
from narrator.common.clock import FakeClock
from narrator.engine.night import STEPS
from narrator.judge.host_words import ACK
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup
from narrator.judge.script import Script
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal

PRESETS = ["12人预女猎白", "12人白狼王守卫", "经典12人", "9人预女猎", "12人梦魇守卫", "12人机械狼通灵师"]
GAMES = 12


def voice(line: Line) -> np.ndarray:
    """Speech-like length (0.2 s per character), silent: only the timing is under test."""
    return np.zeros(round(0.2 * SAMPLE_RATE * len(line.text)), np.float32)


SLOW_AT_DECISIONS = -1.0
"""host_s: 2 s where he reads off the table, 50 s at every decision and 过."""


def answer_time(host_s: float | None, kind: str, rng: random.Random, step: str) -> float:
    """The host's time at a question of `kind`, at the night step `step` ("" by day)."""
    if host_s == SLOW_AT_DECISIONS:
        quick = kind.startswith("wolves.") or kind.endswith(".identify") or kind == "thief.cards"
        if kind == ACK:  # what it stands for: the wolves' kill, or an identification (a wake that only identifies)
            quick = step == "wolves" or (step in STEPS and STEPS[step] is None)
        return 2.0 if quick else 50.0
    took = rng.uniform(0.2, 4.0)  # the host looks, thinks, answers
    return took if host_s is None else host_s


def nights_of(preset: str, game_seed: int, host_s: float | None = None) -> dict[int, list[tuple[float, str]]]:
    setup = make_setup(preset)
    rng = random.Random(game_seed)
    session = Session(setup, game_seed)
    session.acks = True  # the host says 过 where a step asks him nothing, as live
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    c = Conductor(None, FakeClock(), voice, seed=2024)  # the same pacing seed for every game
    c.please_wait = Script().line("events", "please_wait")  # past the bound
    seen, step = 0, ""
    for _ in range(3000):
        c.say(session.take_lines())
        if session.over:
            break
        prompt = session.prompt
        assert prompt is not None
        c.ready()
        for placed in c.timeline[seen:]:  # the step the host is at: the last table line's
            if placed.line.to == "all" and placed.line.key != "events.please_wait":
                step = placed.line.key.split(".")[1] if placed.line.key.startswith("steps.") else ""
        seen = len(c.timeline)
        c.wait_until(c.now_s() + answer_time(host_s, prompt.kind, rng, step))
        result = session.submit(host.answer(session.game, prompt))
        assert not hasattr(result, "refusal"), result
    c.settle()
    nights: dict[int, list[tuple[float, str]]] = {}
    for p in c.timeline:
        if p.line.to == "all" and p.phase.startswith("night"):
            nights.setdefault(int(p.phase[5:]), []).append((p.start_s, p.line.text))
        elif p.line.key == "events.day_broke" and p.phase.startswith("day"):
            n = int(p.phase[3:])
            nights[n].append((p.start_s, p.line.text))
            first = nights[n][0][0]
            nights[n] = [(t - first, text) for t, text in nights[n]]
    # Only nights that reached their dawn (a game can end in the night).
    return {n: lines for n, lines in nights.items() if lines[0][0] == 0.0 and lines[-1][1].startswith("天亮了")}


@pytest.mark.parametrize("host_s", [None, 15.0, 30.0, SLOW_AT_DECISIONS],
                         ids=["host0.2-4s", "host15s", "host30s", "host2s-at-the-wolves-50s-at-decisions"])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_night_of_random_games_sounds_the_same(preset: str, host_s: float | None) -> None:
    seen: dict[int, list[tuple[float, str]]] = {}
    compared = 0
    for game_seed in range(GAMES):
        for n, lines in nights_of(preset, game_seed, host_s).items():
            if n not in seen:
                seen[n] = lines
                continue
            where = f"{preset}, game {game_seed}, night {n}, host {host_s or '0.2-4'} s"
            assert [t for _, t in lines] == [t for _, t in seen[n]], where
            np.testing.assert_allclose([s for s, _ in lines], [s for s, _ in seen[n]], atol=1e-6, err_msg=where)
            compared += 1
    assert compared >= GAMES  # most games see at least two dawns: the property was really exercised
