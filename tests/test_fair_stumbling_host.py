"""Fair play with a host who stumbles: the repairs of a question — the judge's refusal on the earpiece and the
host's next try — are inside the wait every step gets alike (docs/architecture.md, "Fair play with a slow
host": the host's time at a question runs from hearing it to the answer taken, and his repairs are measured
where his answer time is).

A host who says a word the judge does not understand 0, 1 or 2 times before every answer, everywhere alike
(过 included), answering each try after 0, 4, 8, 15 or 30 s: in every pair of games that differ in a secret —
the witch dealt or buried, alive or dead, the guard alive or dead, the hunter able or unable to shoot, the
idiot or a villager exiled, the other pairs of tests/fair_nights/ and tests/fair_days/ — the table hears
the same words at the same moments (to the millisecond, rendered on the fake clock). Before this, one wrong
word before each answer made the witch dealt vs buried night 1 longer by 2.1 s (8 s host) … 43.3 s (30 s).
The live loop's side: tests/play/test_fair_stumbling_host_loop.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from test_fair_host_speed import DAY_PAIRS, DAYS, NIGHT_PAIRS, NIGHTS, nights, timed_with, voice

from narrator.audio.pacing import load_host_words

NIGHT_STUMBLE_PAIRS = [*NIGHT_PAIRS, ("guard_reference", "guard_dead"), ("classic_thief_plays", "classic_witch_buried"),
                       ("classic_hunter_able", "classic_hunter_unable")]
PAIRS = [(NIGHTS, a, b) for a, b in NIGHT_STUMBLE_PAIRS] + [(DAYS, a, b) for a, b in DAY_PAIRS]
HOST_S = (0.0, 4.0, 8.0, 15.0, 30.0)
WORDS = load_host_words()


def parts(folder: Path, table: tuple[tuple[float, str, str], ...]) -> list[list[tuple[float, str]]]:
    """Every night from its 天黑请闭眼 (night pairs), or the whole game (day pairs)."""
    return nights(table) if folder is NIGHTS else [[(t, text) for t, text, _ in table]]


def assert_same_to_the_ms(a: list[list[tuple[float, str]]], b: list[list[tuple[float, str]]], where: str) -> None:
    assert len(a) == len(b) >= 1, where
    for n, (x, y) in enumerate(zip(a, b, strict=True), start=1):
        assert [text for _, text in x] == [text for _, text in y], f"{where}, part {n}: the table hears other words"
        for (tx, text), (ty, _) in zip(x, y, strict=True):
            assert abs(tx - ty) <= 0.001, f"{where}, part {n}: {text} at {tx:.3f} s vs {ty:.3f} s"


@pytest.mark.parametrize("wrong", (0, 1, 2), ids=lambda n: f"wrong{n}")
@pytest.mark.parametrize("host_s", HOST_S, ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("folder", "a", "b"), PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in PAIRS])
def test_a_host_who_stumbles_alike_everywhere_tells_nothing(folder: Path, a: str, b: str, host_s: float,
                                                            wrong: int) -> None:
    (ta, ha), (tb, hb) = (timed_with(voice, folder / f"{x}.yaml", host_s, wrong=wrong) for x in (a, b))
    where = f"host {host_s:g} s, {wrong} wrong before each answer"
    assert_same_to_the_ms(parts(folder, ta), parts(folder, tb), where)
    assert ha != hb  # the pair differs in a secret: the host hears it
    refused = sum(text.startswith("没听") for text in ha)
    answers = sum(not text.startswith("没听") and text.endswith(("？", "吗？", "请说过。")) for text in ha)
    assert refused >= wrong * answers // 2, "the host was refused before his answers"  # the test stumbles
    waits = sum(text == "请稍等。" for _, text, _ in ta)
    if host_s > WORDS.bound_s:  # past the bound: at every step that waits for his words, in both games
        assert waits >= 4
    else:  # within the bound (up to `repairs` a question): silence — but the first wait of the game, before
        assert waits <= 1  # the host was ever timed, may say it (in every game alike)


SECRET_KINDS = frozenset({"witch.save", "witch.poison", "seer.check", "guard.protect", "cupid.link", "thief.choose",
                          "hunter.shoot", "idiot.reveal", "host.pass"})
"""The pairs' secret questions: a living role's decisions, and the 过 a dead, buried or powerless one's step asks."""


def stumbling(at_secrets: int) -> Callable[[str], int]:
    """`at_secrets` wrong words before every secret answer, two before every other one (the wolves', the
    identifications, the buried cards — where his repairs are measured —, and the day's public questions)."""
    return lambda kind: at_secrets if kind in SECRET_KINDS else 2


SECRET_PAIRS = [(NIGHTS, "reference", "witch_dead"), (NIGHTS, "reference", "seer_dead"),
                (NIGHTS, "guard_reference", "guard_dead"), (NIGHTS, "classic_thief_plays", "classic_witch_buried"),
                (NIGHTS, "classic_hunter_able", "classic_hunter_unable"), (DAYS, "idiot_exiled", "villager_exiled"),
                (DAYS, "hunter_bitten", "villager_bitten")]


@pytest.mark.parametrize("host_s", (4.0, 15.0), ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("folder", "a", "b"), SECRET_PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in SECRET_PAIRS])
def test_a_dead_roles_step_and_a_living_ones_hide_0_1_or_2_repairs(folder: Path, a: str, b: str,
                                                                   host_s: float) -> None:
    """A host measured needing two repairs (at the wolves', the identifications): a living role's step and a
    dead, buried or powerless one's sound the same whether he needs 0, 1 or 2 repairs there — every combination."""
    tables = {(x, n): parts(folder, timed_with(voice, folder / f"{x}.yaml", host_s, wrong=stumbling(n))[0])
              for x in (a, b) for n in (0, 1, 2)}
    first = tables[(a, 0)]
    for (x, n), table in tables.items():
        assert_same_to_the_ms(first, table, f"host {host_s:g} s: {x} with {n} repairs at its secret questions")


NOT_REPAIRS = {"refusals.thief.reshuffle": "the buried cards: a question every game asks, as long in each",
               "refusals.words.rules_topic": "a rules question the host asked for, no repair of an answer"}


@pytest.mark.slow
@pytest.mark.parametrize("lang", ("zh-Hans", "zh-Hant"))
def test_every_repair_fits_in_its_allowance(tmp_path: Path, lang: str) -> None:
    """A repair counts `repair_s` for the judge's lines, whatever they say: every refusal and every line of the
    dialogue's own (a read-back, a choice, "还差一个", …), with the offline voice at its own rate and a seat
    or two in it, fits with a pause (1 s) — and so does the longest batch, "请重新回答", a pause and a seat
    offered. A read-back counts `read_back_s`: one of two seats fits in it with the pause."""
    from narrator.judge.lines import Line
    from narrator.judge.script import Script, Seat
    from narrator.play import bootstrap

    speaker = bootstrap.speaker("espeak", cache_dir=tmp_path)
    script = Script(lang)

    def seconds(text: str) -> float:
        return len(speaker.line(Line(text, "host"))) / 24000

    def texts(node: object, key: str) -> list[tuple[str, str]]:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                return [(key, node["text"])]
            return [found for k, v in node.items() for found in texts(v, f"{key}.{k}")]
        return [(key, node)] if isinstance(node, str) else []

    lines = [(key, re.sub(r"\{[a-z_]+\}", "十一号、十二号", text)) for section in ("refusals", "listening")
             for key, text in texts(script.data[section], section) if key not in NOT_REPAIRS]
    assert len(lines) > 50
    long = [(key, round(seconds(text), 2)) for key, text in lines if seconds(text) + 1.0 > WORDS.repair_s]
    assert long == []
    batch = [script.line("listening", "dropped"), script.line("listening", "offer", seat=Seat(12), keys="12")]
    assert sum(seconds(line.text) for line in batch) + 1.0 <= WORDS.repair_s  # a breath between them (a
    # repair line's pause on the earpiece is `short`: narrator/audio/conductor.py)
    read_back = script.line("listening", "read_back", answer="十一号、十二号")  # a read-back counts less: one
    assert seconds(read_back.text) + 1.0 <= WORDS.read_back_s  # or two seats, as every secret question asks
