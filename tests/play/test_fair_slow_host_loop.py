"""Fair play through the live loop with a slow host: the host answers every question 4, 15 or 30 s after
hearing it (with the holds alone, night 2 lasted 8.4 s longer with the witch alive); 30 s is past the bound,
so the table hears "请稍等" at every step that waits for his words. Played by `Live` on a fake clock through
the real Conductor and Dialogue (its reminders included): every night pair of tests/fair_nights/ (every
night's table lines at the same moments after 天黑请闭眼) and every day pair of tests/fair_days/ (the whole
game's table lines at the same moments)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_fair_nights import CASES
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.common.clock import FakeClock
from narrator.play.loop import Live
from narrator.play.scripted import host_script
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

TESTS = Path(__file__).parent.parent
PAIRS = TESTS / "fair_nights"


def table(path: Path, host_s: float | Callable[[str], float]) -> list[tuple[float, str]]:
    """The table's lines (start s, text) of the scenario played live, the host answering after `host_s`
    (or `host_s(kind)` s, by the question)."""
    scripted = host_script(Scenario.load(path))
    words: list[str | float] = ["开始"]
    for word, kind in zip(scripted.utterances, scripted.kinds, strict=True):
        words += [host_s(kind) if callable(host_s) else host_s, word]
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    Live(session, mouth, PacedEar(clock, words), now=clock.now, clock=clock, poll_s=0.5).run()
    assert session.game.journal == scripted.game.journal
    return mouth.table


def nights(name: str, host_s: float | Callable[[str], float]) -> list[list[tuple[float, str]]]:
    found: list[list[tuple[float, str]]] = []
    for t, text in table(PAIRS / f"{name}.yaml", host_s):
        if text.startswith("天黑请闭眼"):
            found.append([(t, text)])
        elif found and not found[-1][-1][1].startswith("天亮了"):
            found[-1].append((t, text))
    return [[(round(t - night[0][0], 3), text) for t, text in night] for night in found]


@pytest.mark.parametrize("host_s", (4.0, 15.0, 30.0), ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("a", "b"), CASES, ids=[f"{a}-vs-{b}" for a, b in CASES])
def test_a_slow_hosts_nights_do_not_tell_a_secret(a: str, b: str, host_s: float) -> None:
    """Every night pair of tests/fair_nights/ (the witch alive or dead, saving or not, the thief playing or
    buried, …): every night's table lines at the same moments."""
    na, nb = nights(a, host_s), nights(b, host_s)
    assert len(na) == len(nb) == 2
    assert na == nb
    waits = [text for night in na for _, text in night if text == "请稍等。"]
    if host_s > 20:  # past the bound: at every step that waits for the host's words, in both games
        assert len(waits) >= 4
    else:
        assert waits == []


DAY_PAIRS = [("lovers_vote_refused", "lovers_vote_plain"), ("idiot_exiled", "villager_exiled"),
             ("hunter_exiled", "villager_exiled_7"), ("hunter_bitten", "villager_bitten"),
             ("wolf_king_exiled", "wolf_exiled"), ("mech_wolf_hunter_exiled", "mech_wolf_villager_exiled"),
             ("white_wolf_king_explodes", "wolf_explodes")]


@pytest.mark.parametrize("host_s", (0.0, 4.0, 8.0, 15.0, 30.0), ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("a", "b"), DAY_PAIRS, ids=[f"{a}-vs-{b}" for a, b in DAY_PAIRS])
def test_a_slow_hosts_day_does_not_tell_a_secret(a: str, b: str, host_s: float) -> None:
    """By day through the live loop: a lover's ballot refused on the earpiece and read again (the reminders
    after it to the host too), an idiot who does not flip, a hunter, 狼王 or 机械狼 who does not shoot, a 白狼王
    who takes nobody — the table's whole game is the same as with nobody refused or asked, to the
    millisecond; past the bound with "请稍等" at the same moments."""
    ta, tb = (table(TESTS / "fair_days" / f"{x}.yaml", host_s) for x in (a, b))
    assert ta == tb
    waits = [text for _, text in ta if text == "请稍等。"]
    if host_s > 20:
        assert len(waits) >= 4
    else:  # within the bound: silence
        assert waits == []


SECRET_PAIRS = [("reference", "witch_dead"), ("reference", "seer_dead"), ("guard_reference", "guard_dead"),
                ("classic_thief_plays", "classic_witch_buried")]


def slow_at_secrets(kind: str) -> float:
    """Quick (2 s) at what he reads off the table — the wolves', the identifications, the buried cards —,
    50 s at every decision he waits for and at the 过 of a step that asks him nothing: the Dialogue says
    the question again after 20 s and "请回答" every 10 s meanwhile, on the earpiece."""
    return 2.0 if kind.startswith("wolves.") or kind.endswith(".identify") or kind == "thief.cards" else 50.0


@pytest.mark.parametrize(("a", "b"), SECRET_PAIRS, ids=[f"{a}-vs-{b}" for a, b in SECRET_PAIRS])
def test_a_host_slow_at_secret_questions_tells_nothing_live(a: str, b: str) -> None:
    """Slower at the secret questions than his measured time and than the bound: the table hears "请稍等" at
    those steps, and at a dead or buried role's the host is asked for 过 and takes as long — every night's
    table lines at the same moments, "请稍等" included."""
    na, nb = nights(a, slow_at_secrets), nights(b, slow_at_secrets)
    assert len(na) == len(nb) == 2
    assert na == nb
    assert sum(text == "请稍等。" for night in na for _, text in night) >= 3
