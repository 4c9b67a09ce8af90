"""Fair play with a slow host: games that differ only in a secret sound the same at the table, whatever
the host's speed.

Each pair of scenarios differs in a secret only: who is alive at night, a buried card (tests/fair_nights/),
or by day a card whose skill is asked on the earpiece — an idiot who does not flip, a hunter, 狼王 or 机械狼
who does not shoot, a 白狼王 who explodes and takes nobody (tests/fair_days/). Each is timed by the
Conductor (narrator/audio/conductor.py, the render's timing) with a host who answers every prompt after 0,
4, 8 or 15 s: the table's lines — every night's, and by day the whole game's — and their start times must
be equal within 0.3 s. The quick tests time the lines with a silent stand-in voice (0.2 s a character);
the slow one with the real offline voice (espeak-ng), whose clips are what `narrator render` places.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from test_fair_nights import CASES

from narrator.audio import SAMPLE_RATE
from narrator.audio.conductor import Conductor
from narrator.cli.narration import conduct
from narrator.common.clock import FakeClock
from narrator.judge.lines import Line
from narrator.judge.script import Script
from narrator.sim.scenario import Scenario

HERE = Path(__file__).parent
NIGHTS = HERE / "fair_nights"
DAYS = HERE / "fair_days"
HOST_S = (0.0, 4.0, 8.0, 15.0, 30.0)
"""The host's answer times; 30 s is past the bound (pacing.yaml's `bound_s`, 20 s)."""
PAST_BOUND_S = 30.0
NIGHT_PAIRS = CASES  # the night pairs of tests/test_fair_nights.py, here at every host speed
DAY_PAIRS = [
    ("idiot_exiled", "villager_exiled"),
    ("hunter_exiled", "villager_exiled_7"),
    ("hunter_bitten", "villager_bitten"),
    ("wolf_king_exiled", "wolf_exiled"),
    ("mech_wolf_hunter_exiled", "mech_wolf_villager_exiled"),
    ("white_wolf_king_explodes", "wolf_explodes"),
    ("lovers_vote_refused", "lovers_vote_plain"),
]

ACK_LINE = Script("zh-Hans").line("prompts", "host.pass").text
ALL_PAIRS = [(NIGHTS, a, b) for a, b in NIGHT_PAIRS] + [(DAYS, a, b) for a, b in DAY_PAIRS]


def voice(line: Line) -> np.ndarray:
    """Speech-like length (0.2 s per character), silent: only the timing is under test."""
    return np.zeros(round(0.2 * SAMPLE_RATE * len(line.text)), np.float32)


Timed = tuple[tuple[tuple[float, str, str], ...], tuple[str, ...]]


@cache
def timed(path: Path, host_s: float) -> Timed:
    return timed_with(voice, path, host_s)


def timed_with(said: Callable[[Line], np.ndarray], path: Path, host_s: float | Callable[[str, str], float],
               lang: str = "zh-Hans", wrong: int | Callable[[str], int] = 0) -> Timed:
    """The table's lines (start s, text, phase) and the host's texts, the host answering after `host_s`
    (or after `host_s(phase, kind)` s: a host whose speed changes during the game, or with the question),
    after `wrong` (or `wrong(kind)`) words the judge does not understand at every prompt, each as slow."""
    conductor = Conductor(None, FakeClock(), said, seed=3)
    speed = host_s if callable(host_s) else (lambda phase, kind: host_s)
    output = conduct(Scenario.load(path), conductor, lang, answer_s=lambda kind: speed(conductor.phase, kind),
                     wrong=wrong if callable(wrong) else (lambda kind: wrong))
    assert output.code == 0, output.message
    conductor.settle()
    table = tuple((p.start_s, p.line.text, p.phase) for p in conductor.timeline if p.line.to == "all")
    host = tuple(p.line.text for p in conductor.timeline if p.line.to == "host")
    return table, host


def nights(table: tuple[tuple[float, str, str], ...]) -> list[list[tuple[float, str]]]:
    """Each night's table lines up to its dawn, timed from its 天黑请闭眼."""
    found: dict[str, list[tuple[float, str]]] = {}
    for start, text, phase in table:
        if phase.startswith("night"):
            found.setdefault(phase, []).append((start, text))
        elif text.startswith("天亮了") and "night" + phase[3:] in found:
            found["night" + phase[3:]].append((start, text))
    return [[(t - lines[0][0], text) for t, text in lines] for lines in found.values()]


def assert_same(a: list[tuple[float, str]], b: list[tuple[float, str]], where: str) -> None:
    assert [text for _, text in a] == [text for _, text in b], f"{where}: the table hears other words"
    for (ta, text), (tb, _) in zip(a, b, strict=True):
        assert ta == pytest.approx(tb, abs=0.3), f"{where}: {text} at {ta:.2f} s vs {tb:.2f} s"


@pytest.mark.parametrize("host_s", HOST_S, ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("a", "b"), NIGHT_PAIRS, ids=[f"{a}-vs-{b}" for a, b in NIGHT_PAIRS])
def test_every_night_sounds_the_same_whatever_the_hosts_speed(a: str, b: str, host_s: float) -> None:
    (ta, ha), (tb, hb) = timed(NIGHTS / f"{a}.yaml", host_s), timed(NIGHTS / f"{b}.yaml", host_s)
    na, nb = nights(ta), nights(tb)
    assert len(na) == len(nb) >= 1
    for n, (x, y) in enumerate(zip(na, nb, strict=True), start=1):
        assert x[-1][1].startswith("天亮了"), f"night {n} reached its dawn"
        assert_same(x, y, f"night {n}, host {host_s:g} s")
    assert ha != hb  # the pair differs in a secret: the host hears it


@pytest.mark.parametrize("host_s", HOST_S, ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("a", "b"), DAY_PAIRS, ids=[f"{a}-vs-{b}" for a, b in DAY_PAIRS])
def test_a_secret_skill_of_the_day_sounds_the_same_whatever_the_hosts_speed(a: str, b: str, host_s: float) -> None:
    (ta, ha), (tb, hb) = timed(DAYS / f"{a}.yaml", host_s), timed(DAYS / f"{b}.yaml", host_s)
    assert any(phase == "day1" for _, _, phase in ta), "the game reaches its first day"
    assert_same([(t, text) for t, text, _ in ta], [(t, text) for t, text, _ in tb], f"host {host_s:g} s")
    assert ha != hb  # the host was asked about the secret in one game only


@pytest.fixture(scope="module")
def espeak(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Line], np.ndarray]:
    from narrator.play import bootstrap

    return bootstrap.speaker("espeak", cache_dir=tmp_path_factory.mktemp("voice")).line


@pytest.mark.slow
@pytest.mark.parametrize("host_s", (8.0, 15.0), ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("folder", "a", "b"), ALL_PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in ALL_PAIRS])
def test_with_the_real_voice_the_pairs_sound_the_same(espeak: Callable[[Line], np.ndarray], folder: Path, a: str,
                                                      b: str, host_s: float) -> None:
    """The host's own lines take the real voice's time (the thief's "底牌是村民和女巫" is longer than
    "底牌是村民和村民"): the words' wait still covers them."""
    (ta, _), (tb, _) = (timed_with(espeak, folder / f"{x}.yaml", host_s) for x in (a, b))
    if folder is NIGHTS:
        for n, (x, y) in enumerate(zip(nights(ta), nights(tb), strict=True), start=1):
            assert_same(x, y, f"night {n}, host {host_s:g} s")
    else:
        assert_same([(t, text) for t, text, _ in ta], [(t, text) for t, text, _ in tb], f"host {host_s:g} s")


def test_a_host_slower_than_he_was_is_waited_for() -> None:
    """The measured answer time is this host's: a host answering after 15 s makes every step of the night
    wait for him (the same in every game), so a night lasts longer than with a host answering at once."""
    quick, slow = (nights(timed(NIGHTS / "reference.yaml", s)[0])[0] for s in (0.0, 15.0))
    assert [text for _, text in quick] == [text for _, text in slow]
    assert slow[-1][0] > quick[-1][0] + 60


@pytest.mark.parametrize("lang", ("zh-Hans", "zh-Hant"))
@pytest.mark.parametrize(("folder", "a", "b"), [(NIGHTS, "reference", "witch_dead"), (DAYS, "hunter_exiled",
                                                 "villager_exiled_7")], ids=["witch_dead", "hunter_exiled"])
def test_past_the_bound_every_step_says_please_wait_alike(folder: Path, a: str, b: str, lang: str) -> None:
    """A host slower than the bound: the table hears "请稍等" where the bound runs out — after every line that
    waits for the host's words, whoever was asked —, the same in both games, in both scripts."""
    (ta, _), (tb, _) = (timed_with(voice, folder / f"{x}.yaml", PAST_BOUND_S, lang) for x in (a, b))
    wait = "请稍等。" if lang == "zh-Hans" else "請稍等。"
    if folder is NIGHTS:
        for n, (x, y) in enumerate(zip(nights(ta), nights(tb), strict=True), start=1):
            assert_same(x, y, f"{lang}, night {n}, past the bound")
    else:
        assert_same([(t, text) for t, text, _ in ta], [(t, text) for t, text, _ in tb], f"{lang}, past the bound")
    waits = [t for t, text, _ in ta if text == wait]
    assert len(waits) >= 5, "every step that waits for the host's words says it"
    (quick, _) = timed_with(voice, folder / f"{a}.yaml", 15.0, lang)
    assert sum(text == wait for _, text, _ in quick) <= 1  # within the bound: silence (the first night's
    # first step, before the host was ever timed, may say it: in every game alike)


def slower_from_day_1(phase: str, kind: str) -> float:
    """A host who answers after 2 s on the first night, and after 6 s from the first day on: slower than ever
    before, first at a secret question in one game of each pair."""
    return 2.0 if phase in ("pregame", "night1") else 6.0


@pytest.mark.parametrize(("folder", "a", "b"), ALL_PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in ALL_PAIRS])
def test_a_host_who_gets_slower_tells_nothing(folder: Path, a: str, b: str) -> None:
    """The host's answer time is measured only at the questions every game asks (the wolves'): in the game
    where he is first slow at a secret question (the idiot's flip, the hunter's shot, the witch's potions),
    no later wait is longer than in the game where nobody was asked."""
    (ta, _), (tb, _) = (timed_with(voice, folder / f"{x}.yaml", slower_from_day_1) for x in (a, b))
    if folder is NIGHTS:
        for n, (x, y) in enumerate(zip(nights(ta), nights(tb), strict=True), start=1):
            assert_same(x, y, f"night {n}, a host slower from day 1")
    else:
        assert_same([(t, text) for t, text, _ in ta], [(t, text) for t, text, _ in tb], "a host slower from day 1")


SLOW_AT_SECRETS_S = 50.0
"""s. Past the bound (20 s), and far slower than the host's measured time."""
SECRET_PAIRS = [(NIGHTS, a, b) for a, b in (("reference", "witch_dead"), ("reference", "witch_saves"),
                                            ("reference", "no_kill"), ("reference", "seer_dead"),
                                            ("guard_reference", "guard_dead"),
                                            ("classic_thief_plays", "classic_thief_buried"),
                                            ("classic_thief_plays", "classic_witch_buried"))] + \
               [(DAYS, a, b) for a, b in (("idiot_exiled", "villager_exiled"), ("hunter_bitten", "villager_bitten"),
                                          ("white_wolf_king_explodes", "wolf_explodes"))]


def slow_at_secrets(slow_s: float) -> Callable[[str, str], float]:
    """A host quick (2 s) at what he reads off the table — the wolves', the identifications, the thief's
    buried cards — and `slow_s` at every decision he waits for: the witch's, the seer's, the guard's, a
    shot, a flip, and the 过 of a step that asks him nothing (he takes his time there as well)."""
    def host(phase: str, kind: str) -> float:
        quick = kind.startswith("wolves.") or kind.endswith(".identify") or kind == "thief.cards"
        return 2.0 if quick else slow_s

    return host


@pytest.mark.parametrize(("folder", "a", "b"), SECRET_PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in SECRET_PAIRS])
def test_a_host_slow_at_secret_questions_tells_nothing(folder: Path, a: str, b: str) -> None:
    """The host's time at a secret question is not his measured one (the wolves'): past the bound, the table
    hears "请稍等" and waits for his word. A dead, buried or powerless role's step asks him to say 过 at the
    same place (narrator/judge/host_words.py), so the table waits for his word there too: the same lines,
    "请稍等" included, at the same moments."""
    (ta, ha), (tb, hb) = (timed_with(voice, folder / f"{x}.yaml", slow_at_secrets(SLOW_AT_SECRETS_S)) for x in (a, b))
    if folder is NIGHTS:
        xs, ys = nights(ta), nights(tb)
    else:
        xs, ys = [[(t, text) for t, text, _ in ta]], [[(t, text) for t, text, _ in tb]]
    for n, (x, y) in enumerate(zip(xs, ys, strict=True), start=1):
        assert_same(x, y, f"{'night ' + str(n) if folder is NIGHTS else 'the game'}, a host slow at secret questions")
    waits = [sum(text == "请稍等。" for part in table for _, text in part) for table in (xs, ys)]
    assert waits[0] == waits[1] >= 3, "the table heard it where the host was slow, in both games"
    assert ha != hb and ACK_LINE in hb  # the game where a step asks nothing asked him for 过 there
