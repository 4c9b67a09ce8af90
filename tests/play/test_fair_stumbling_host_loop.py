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

import random
from pathlib import Path

import pytest
from test_fair_slow_host_loop import DAY_PAIRS
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.audio.pacing import load_host_words
from narrator.common.clock import FakeClock
from narrator.engine.answers import Seats
from narrator.engine.prompts import Prompt
from narrator.hostwords import Ambiguous, NotUnderstood, parse
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup, preset_names
from narrator.listen.base import Heard
from narrator.listen.doubt import host_answer, irreversible
from narrator.listen.grammar import WAKE_KINDS
from narrator.play.ears import InputEnded
from narrator.play.loop import Live
from narrator.play.scripted import host_script
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal
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


def played(path: Path, host_s: float, wrong: int, *,
           declines: bool = False) -> tuple[list[tuple[float, str]], list[str]]:
    """The table's lines (start s, text) and the host's of the scenario played live, the host saying `wrong`
    words the judge does not understand before every answer (a speech's 过 aside: no question is asked there),
    each try `host_s` after he heard the judge; `declines`: every irreversible prompt that takes nobody (the
    wolves' kill, the witch's poison, a shot, a take) he declines with 过 — read back ("没有人，对吗？") and
    confirmed with 对 (issue 29 item 6)."""
    scripted = host_script(Scenario.load(path))
    words: list[str | float] = ["开始"]
    for word, kind in zip(scripted.utterances, scripted.kinds, strict=True):
        for _ in range(0 if kind in WAKE_KINDS else wrong):
            words += [host_s, STUMBLE]
        if declines and irreversible(kind) and _nobody(word):
            words += [host_s, "过", host_s, "对"]
        else:
            words += [host_s, word]
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    Live(session, mouth, PacedEar(clock, words), now=clock.now, clock=clock, poll_s=0.5).run()
    assert session.game.journal == scripted.game.journal
    return mouth.table, [p.line.text for p in mouth.conductor.timeline if p.line.to == "host"]


def _nobody(word: str) -> bool:
    try:
        return parse(word, frozenset({Seats})) == Seats(())
    except (NotUnderstood, Ambiguous):
        return False


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


class Mic:
    """A microphone that records (the ear is a voice ear: every spoken seat is read back)."""

    alive = True

    def restart(self) -> bool:
        return True

    def set_mode(self, mode: str) -> None: ...


class VoiceHost:
    """The host by voice: `wrong` times a word the judge does not understand ("没听懂"), then his answer,
    each `host_s` after he heard the judge; 对 to every read-back (a spoken seat, an irreversible answer)."""

    def __init__(self, clock: FakeClock, mouth: TimedMouth, answers: list[str], host_s: float, wrong: int) -> None:
        self.clock, self.mouth, self.answers, self.host_s, self.wrong = clock, mouth, list(answers), host_s, wrong
        self.stumbled = 0
        self.seen = 0  # the judge's lines placed before his last words
        self.left: float | None = None  # s of silence before his next words

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if self.left is None:
            self.left = self.host_s
        step = self.left if timeout_s is None else min(self.left, timeout_s)
        self.clock.advance(step)
        self.left -= step
        if self.left > 1e-9:
            return None
        self.left = None
        timeline = self.mouth.conductor.timeline
        since, self.seen = timeline[self.seen:], len(timeline)  # what the judge said since his last words
        if prompt.kind in WAKE_KINDS:  # a speech's 过 (by voice it would need the judge's name first)
            return Heard(self.answers.pop(0), source="text")
        if any(p.line.key.startswith("listening.read_back") for p in since):
            return self.spoken("对")
        if self.stumbled < self.wrong:
            self.stumbled += 1
            return self.spoken("嗯")
        if not self.answers:
            raise InputEnded()
        self.stumbled = 0
        return self.spoken(self.answers.pop(0))

    @staticmethod
    def spoken(text: str) -> Heard:
        return Heard(text, alternatives=((text, 0.0),), source="voice")

    def follow(self, playing: object) -> None: ...
    def close(self) -> None: ...
    def ended(self) -> bool:
        return False

    def microphones(self) -> list[Mic]:
        return [Mic()]

    def check_words(self, prompts: object, max_seat: int) -> None: ...
    def set_mode(self, mode: str) -> None: ...


def by_voice(path: Path, host_s: float, wrong: int) -> tuple[list[tuple[float, str]], list[str]]:
    scripted = host_script(Scenario.load(path))
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    ear = VoiceHost(clock, mouth, ["开始", *scripted.utterances], host_s, wrong)
    ear.stumbled = wrong  # none before 开始
    Live(session, mouth, ear, now=clock.now, clock=clock, poll_s=0.5).run()
    assert session.game.journal == scripted.game.journal
    return mouth.table, [p.line.text for p in mouth.conductor.timeline if p.line.to == "host"]


VOICE_PAIRS = [(NIGHTS, "reference", "witch_dead"), (NIGHTS, "guard_reference", "guard_dead"),
               (NIGHTS, "classic_thief_plays", "classic_witch_buried"),
               (NIGHTS, "classic_hunter_able", "classic_hunter_unable"), (DAYS, "idiot_exiled", "villager_exiled"),
               (DAYS, "hunter_bitten", "villager_bitten")]


@pytest.mark.parametrize("wrong", (0, 1), ids=lambda n: f"wrong{n}")
@pytest.mark.parametrize("host_s", (0.0, 8.0), ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("folder", "a", "b"), VOICE_PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in VOICE_PAIRS])
def test_by_voice_the_read_backs_are_inside_the_wait(folder: Path, a: str, b: str, host_s: float,
                                                      wrong: int) -> None:
    """By voice every spoken seat and every irreversible answer is read back ("七号，对吗？" → 对) — at a
    living role's step (the witch's poison, the guard's seat), never at a dead one's 过: a repair only one
    game of the pair has at that step, inside the wait all the same (the voice ear counts one repair from the start, and
    the wolves' read-back measures it)."""
    (ta, ha), (tb, hb) = by_voice(folder / f"{a}.yaml", host_s, wrong), by_voice(folder / f"{b}.yaml", host_s, wrong)
    assert parts(folder, ta) == parts(folder, tb)
    assert ha != hb and any("对吗" in text for text in ha)  # the host heard the secret, and read-backs


PASS_PAIRS = [(NIGHTS, "reference", "witch_dead"), (NIGHTS, "no_kill", "reference"),
              (DAYS, "hunter_exiled", "villager_exiled_7"), (DAYS, "hunter_bitten", "villager_bitten"),
              (DAYS, "wolf_king_exiled", "wolf_exiled"), (DAYS, "mech_wolf_hunter_exiled", "mech_wolf_villager_exiled"),
              (DAYS, "white_wolf_king_explodes", "wolf_explodes")]


@pytest.mark.parametrize("host_s", (0.0, 2.0, 4.0, 8.0, 15.0), ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize(("folder", "a", "b"), PASS_PAIRS, ids=[f"{a}-vs-{b}" for _, a, b in PASS_PAIRS])
def test_a_typed_pass_read_back_at_a_living_roles_step_tells_nothing(folder: Path, a: str, b: str,
                                                                     host_s: float) -> None:
    """A typing host, clean everywhere (so measured at 0 repairs), declines the living witch's poison, the
    wolves' kill, a hunter's, 狼王's or 机械狼's shot, a 白狼王's take with 过: it is read back on the earpiece
    and confirmed with 对 — a repair only a living role's decision can have. The table of the pair without it
    (the witch dead, a kill, a villager exiled, a plain wolf's explosion) hears the same lines at the same
    moments. Measured before: night 2 6 / 10 / 14 / 18 s longer at 0 / 2 / 4 / 8 s a try, and "请稍等" at the
    witch's step that the other table did not hear."""
    (ta, ha), (tb, hb) = (played(folder / f"{x}.yaml", host_s, 0, declines=True) for x in (a, b))
    assert any(text.endswith("对吗？") for text in ha) and ha != hb  # 过 read back; the host heard the secret
    assert parts(folder, ta) == parts(folder, tb)
    assert not any(text == "请稍等。" for part in parts(folder, ta) for _, text in part[1:])  # within the bound


@pytest.mark.parametrize("preset", preset_names())
def test_every_prompt_where_a_typed_pass_is_read_back_allows_it_in_every_game(preset: str) -> None:
    """Random games of every preset: wherever the host's 过 would be read back (an irreversible prompt that takes
    nobody), the table line whose wait the question is in counts that word as one that allows the read-back
    (`Line.confirms`, from public facts) — so no such question is left out of the allowance."""
    setup = make_setup(preset)
    found = 0
    for seed in range(3):
        rng = random.Random(seed)
        host = AutoHost(Deal.shuffle(setup, rng), rng)
        session = Session(setup, seed)
        table: Line | None = None
        while (prompt := session.prompt) is not None:
            said = [line for line in session.take_lines() if line.to == "all"]
            table = said[-1] if said else table
            try:
                nobody = prompt.refuse(host_answer("过", prompt)) is None
            except (NotUnderstood, Ambiguous):
                nobody = False
            if nobody and irreversible(prompt.kind) and table is not None and table.words:
                found += 1
                assert table.confirms >= 1, (prompt.kind, table.key)
            session.submit(host.answer(session.game, prompt))
    assert found >= 3  # the wolves' kill every night at least
