"""Fair play through the live loop with a host who stumbles: before every answer (过 included) he says 1 or
2 words the judge does not understand, each try 0, 4, 8, 15 or 30 s after he heard the judge — everywhere
alike. Played by `Live` on a fake clock through the real Conductor and Dialogue (the refusals on the
earpiece, the reminders of a silent host): in every pair of tests/fair_nights/ (the witch dealt or buried,
alive or dead, the guard alive or dead, the hunter able or unable to shoot, …) every night's table lines
come at the same moments, to the millisecond, and in every pair of tests/fair_days/ (the idiot or a villager
exiled, a hunter who does not shoot, …) the whole game's. Before this, one wrong word before each answer made
the witch dealt vs buried night 1 longer by 2.1 s (8 s host), 16.6 s (15 s) and 43.3 s (30 s), and at 8 s
the two tables heard "请稍等" 8 and 6 times. The rendered side: tests/test_fair_stumbling_host.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fair_slow_host_loop import DAY_PAIRS
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.audio.pacing import load_host_words
from narrator.common.clock import FakeClock
from narrator.listen.grammar import WAKE_KINDS
from narrator.play.loop import Live
from narrator.play.scripted import host_script
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

TESTS = Path(__file__).parent.parent
NIGHTS, DAYS = TESTS / "fair_nights", TESTS / "fair_days"
NIGHT_PAIRS = [("reference", "witch_saves"), ("reference", "witch_dead"), ("reference", "seer_dead"),
               ("reference", "no_kill"), ("reference", "witch_poisons"), ("guard_reference", "guard_dead"),
               ("classic_thief_plays", "classic_thief_buried"), ("classic_thief_plays", "classic_witch_buried"),
               ("classic_hunter_able", "classic_hunter_unable")]
PAIRS = [(NIGHTS, a, b) for a, b in NIGHT_PAIRS] + [(DAYS, a, b) for a, b in DAY_PAIRS]
STUMBLE = "听不懂的话"
BOUND_S = load_host_words().bound_s


def played(path: Path, host_s: float, wrong: int) -> tuple[list[tuple[float, str]], list[str]]:
    """The table's lines (start s, text) and the host's of the scenario played live, the host saying `wrong`
    words the judge does not understand before every answer (a speech's 过 aside: no question is asked there),
    each try `host_s` after he heard the judge."""
    scripted = host_script(Scenario.load(path))
    words: list[str | float] = ["开始"]
    for word, kind in zip(scripted.utterances, scripted.kinds, strict=True):
        for _ in range(0 if kind in WAKE_KINDS else wrong):
            words += [host_s, STUMBLE]
        words += [host_s, word]
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    Live(session, mouth, PacedEar(clock, words), now=clock.now, clock=clock, poll_s=0.5).run()
    assert session.game.journal == scripted.game.journal
    return mouth.table, [p.line.text for p in mouth.conductor.timeline if p.line.to == "host"]


def parts(folder: Path, table: list[tuple[float, str]]) -> list[list[tuple[float, str]]]:
    """Every night from its 天黑请闭眼 to its 天亮了 (night pairs), or the whole game (day pairs), to the ms."""
    if folder is DAYS:
        return [[(round(t, 3), text) for t, text in table]]
    found: list[list[tuple[float, str]]] = []
    for t, text in table:
        if text.startswith("天黑请闭眼"):
            found.append([(t, text)])
        elif found and not found[-1][-1][1].startswith("天亮了"):
            found[-1].append((t, text))
    return [[(round(t - night[0][0], 3), text) for t, text in night] for night in found]


@pytest.mark.parametrize("wrong", (1, 2), ids=lambda n: f"wrong{n}")
@pytest.mark.parametrize("host_s", (0.0, 4.0, 8.0, 15.0, 30.0), ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("folder", "a", "b"), PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in PAIRS])
def test_a_host_who_stumbles_alike_everywhere_tells_nothing_live(folder: Path, a: str, b: str, host_s: float,
                                                                 wrong: int) -> None:
    (ta, ha), (tb, hb) = played(folder / f"{a}.yaml", host_s, wrong), played(folder / f"{b}.yaml", host_s, wrong)
    pa, pb = parts(folder, ta), parts(folder, tb)
    assert len(pa) == len(pb) >= 1
    assert folder is DAYS or all(night[-1][1].startswith("天亮了") for night in pa)
    assert pa == pb
    assert ha != hb  # the pair differs in a secret: the host hears it
    assert sum(text.startswith("没听懂") for text in ha) >= wrong * 4  # he was refused, again and again
    waits = sum(text == "请稍等。" for part in pa for _, text in part)
    if host_s > BOUND_S:  # past the bound: at every step that waits for his words, in both games
        assert waits >= 4
    else:  # within the bound: silence (but the first wait of a game, before he was ever timed)
        assert waits <= 1
