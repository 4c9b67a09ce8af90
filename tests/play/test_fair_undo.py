"""撤销 is the host's own business (issue 29, item 2): the table hears no line twice and nothing of the
correction, at night and by day, and its timing after an undo is what it would have been without it.

Played by the real live loop (`Live`) on a fake clock through the real Conductor and Dialogue: the same
game as tests/fair_nights/witch_saves.yaml (the witch saves on night 1, has no antidote on night 2), once
as the scenario says it and once with a host who says 撤销 at a step and gives the same answers again from
the answer he took back (his 过s included). An undo round is repairs of the question he was at
(narrator/audio/conductor.py): for a host measured at as many repairs at the questions every game asks alike,
the table's tape — every line and the moment it starts — must be the same to the millisecond; past the bound
the table hears "请稍等" at the same places whatever he undid. The host hears "已撤销上一个回答。" and the
question again on his own channel, and his panel shows the question he is asked again."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fair_resume_property import host_words
from test_fair_stumbling_host_loop import STUMBLE, VoiceHost
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.common.clock import FakeClock
from narrator.engine.rules import Setup
from narrator.judge.host_words import ACK
from narrator.judge.presets import make_setup, preset_names
from narrator.play.loop import Live, QuietView
from narrator.play.scripted import Scripted, host_script
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

NIGHTS = Path(__file__).parent.parent / "fair_nights"
UNDONE = "已撤销上一个回答。"


class Panel(QuietView):
    """The host's panel as the loop tells it: the kind of the question it shows after each update."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.shown: list[str | None] = []

    def update(self, session: Session) -> None:
        place = session.place()
        self.shown.append(None if place.prompt is None else place.prompt.kind)


def play(scripted: Scripted, words: list[str | float]) -> tuple[TimedMouth, Panel]:
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    panel = Panel(session)
    Live(session, mouth, PacedEar(clock, words), view=panel, now=clock.now, clock=clock, poll_s=0.5).run()
    assert session.game.journal == scripted.game.journal
    return mouth, panel


def words(scripted: Scripted, host_s: float, at: int | None = None, undos: int = 1,
          stumbles: int = 0) -> list[str | float]:
    """The host's words, each `host_s` after the question; with `at`: before word `at` he says 撤销 `undos`
    times, then every word again from the answer taken back last (the acknowledgements' 过 included). With
    `stumbles`: that many words the judge does not understand before each answer at the questions every game
    asks alike (where his repairs are measured), in the first run of them (not when asked again after 撤销); where
    he says 撤销 at such a question, its round's repairs stand for as many of them (`repairs`)."""
    said: list[tuple[int, str]] = [(stumbles if public else 0, word)
                                   for public, word in zip(publics(scripted), scripted.utterances, strict=True)]
    if at is not None:
        answers = [k for k in range(at) if scripted.kinds[k] != ACK]
        said[at] = (max(0, said[at][0] - repairs(scripted, at, undos)), said[at][1])
        said[at:at] = [(0, "撤销")] * undos + [(0, word) for _, word in said[answers[-undos]:at]]
    out: list[str | float] = ["开始"]
    for wrong, word in said:
        for said_word in [STUMBLE] * wrong + [word]:
            out += [host_s, said_word]
    return out


def repairs(scripted: Scripted, at: int, undos: int) -> int:
    """The repairs of an undo round (narrator/audio/conductor.py): 撤销 `undos` times before word `at`, then
    every word again from the answer taken back last — each of his words after the first is one."""
    answers = [k for k in range(at) if scripted.kinds[k] != ACK]
    return undos + at - answers[-undos]


def publics(scripted: Scripted, night: bool = False) -> list[bool]:
    """For each of the host's words, whether it answers a question every game asks alike (`Line.public_ask`),
    or (`night`) whether it is said at night."""
    session = Session(scripted.game.setup, scripted.game.seed)
    session.acks = True
    out = []
    for word in scripted.utterances:
        lines = session.take_lines()
        out.append(session.night if night else any(line.public_ask for line in lines))
        session.submit(word)
    return out


def step(scripted: Scripted, kind: str, nth: int = 0) -> int:
    return [i for i, k in enumerate(scripted.kinds) if k == kind][nth]


def host_only(mouth: TimedMouth) -> list[str]:
    table = set(mouth.table)
    return [text for said in mouth.heard_at if said not in table for text in [said[1]]]


CASES = {
    # night 2, at the seer's check: the witch's poison taken back (the table heard "今晚你要用毒药吗？女巫请闭眼。
    # 预言家请睁眼。你今晚要查验谁？" since: the first said again to the host alone, the rest not at all)
    "night2_seer": ("seer.check", 1, "witch.poison"),
    # night 1, at the witch's antidote: her seat taken back (asked again, then the antidote)
    "night1_witch": ("witch.save", 0, "witch.identify"),
    # by day, at the 过 after the exiled 一号's skill call: the exile taken back ("发言结束，请大家举手投票。"
    # and "一号被放逐出局。" are not said again)
    "day_exile": (ACK, 1, "vote.exile"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_undo_within_his_measured_repairs_is_not_heard_at_the_table(case: str) -> None:
    """A host measured at two repairs (two words the judge does not understand before each answer at the
    questions every game asks alike) who says 撤销 at a question and answers again at once — an undo round is
    two repairs: the answer taken back asked again, then the question he was at: the table's whole tape is
    the uncut game's, to the ms; the host is told on his own channel, and asked the question again there."""
    kind, nth, again = CASES[case]
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    at = step(scripted, kind, nth)
    plain, shown = play(scripted, words(scripted, 0.0, stumbles=2))
    undone, panel = play(scripted, words(scripted, 0.0, at, stumbles=2))
    assert undone.table == plain.table, f"撤销 at {kind}: the table's tape changed"
    assert "请稍等。" not in [text for _, text in plain.table]  # his two repairs are within the bound
    host = host_only(undone)
    assert host.count(UNDONE) == 1 and UNDONE not in [text for _, text in undone.table]
    assert host[host.index(UNDONE) + 1:], "the host is asked the question again"
    assert panel.shown.count(again) > shown.shown.count(again)  # the panel showed the question asked again


def by_voice(scripted: Scripted, said: list[str | float], host_s: float) -> TimedMouth:
    """The game played live by a host by voice (`VoiceHost`: 对 to every read-back), saying the words of `said`
    (its silences left out: each of his words comes `host_s` after he heard the judge)."""
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    ear = VoiceHost(clock, mouth, [word for word in said if isinstance(word, str)], host_s, 0)
    Live(session, mouth, ear, now=clock.now, clock=clock, poll_s=0.5).run()  # type: ignore[arg-type]
    assert session.game.journal == scripted.game.journal
    return mouth


@pytest.mark.parametrize("host_s", [0.0, 4.0], ids=lambda s: f"host{s:g}s")
@pytest.mark.parametrize("case", list(CASES))
def test_by_voice_an_undo_and_the_same_answer_again_fit_the_bound(case: str, host_s: float) -> None:
    """The same by voice, where every spoken seat and irreversible answer is read back: a host measured at
    three repairs (two words not understood before each answer at the public questions, and their read-back)
    says 撤销 and gives the same answer again. It was confirmed once: it is taken at once, said back on the
    earpiece with the next question, no 对 asked — so the round is two repairs, as typed, on top of the
    read-back every voice answer has, and the bound hides two repairs beyond that read-back. The table's
    tape is the uncut game's to the ms, with no "请稍等". Before: four repairs (the answer given again read back
    and confirmed), "请稍等" once and the night 10–22 s longer (by day, "一号出局，对吗？" said again at the table)."""
    kind, nth, _ = CASES[case]
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    at = step(scripted, kind, nth)
    plain = by_voice(scripted, words(scripted, 0.0, stumbles=2), host_s)
    undone = by_voice(scripted, words(scripted, 0.0, at, stumbles=2), host_s)
    assert "请稍等。" not in [text for _, text in plain.table]  # his three repairs are within the bound
    assert undone.table == plain.table, f"撤销 at {kind}: the table's tape changed"
    host = host_only(undone)
    assert host.count(UNDONE) == 1
    assert sum("对吗" in text for text in host) == sum("对吗" in text for text in host_only(plain))
    assert sum(text.startswith("还是") and text.endswith("记下了。") for text in host) == 1


def test_past_the_bound_the_table_hears_please_wait_at_the_same_places_whatever_was_undone() -> None:
    """A host measured past the bound (three words not understood before each answer at the wolves' and
    night 1's questions: three repairs, the bound hides two) makes the table hear "请稍等" at every line that
    waits for his words, alive, dead or absent — and so wherever he says 撤销, one answer back or two, the
    table hears the same words, "请稍等" in the same places; a round within the three repairs he is measured at
    (one answer back, at most one 过 between: night 2's 撤销 at the witch's poison taking back the wolves' kill,
    issue 29's case) moves no line either at night (by day a speech ends at his 过, in sight of the table)."""
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    plain, _ = play(scripted, words(scripted, 0.0, stumbles=3))
    table = [text for _, text in plain.table]
    assert table.count("请稍等。") >= 6, table
    answers = [k for k, kind in enumerate(scripted.kinds) if kind != ACK]
    night = publics(scripted, night=True)
    for at in range(answers[1] + 1, len(scripted.kinds)):  # after night 1's first question measured him
        for undos in (1, 2):
            undone, _ = play(scripted, words(scripted, 0.0, at, undos, stumbles=3))
            assert [text for _, text in undone.table] == table, (at, scripted.kinds[at], undos)
            if night[at] and repairs(scripted, at, undos) <= 3 and undone.table != plain.table:
                raise AssertionError(f"撤销 at {scripted.kinds[at]} (word {at}) moved a table line")


@pytest.mark.parametrize("host_s", [2.0, 8.0], ids=lambda s: f"host{s:g}s")
def test_a_long_undo_is_a_slow_host(host_s: float) -> None:
    """Four answers taken back at the seer's check on night 1 (his seat, the witch's 救, her seat, the wolves'
    kill), or a host who takes his time over a correction: the table hears its lines once each, and at most
    "请稍等" — the neutral line every game says past the bound (narrator/audio/conductor.py) — where the
    host's words keep it waiting; never a line of the correction."""
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    plain, _ = play(scripted, words(scripted, host_s))
    for at, undos in ((step(scripted, "seer.check"), 4), (step(scripted, "witch.poison"), 1)):
        undone, _ = play(scripted, words(scripted, host_s, at, undos))
        table = [text for _, text in undone.table]
        assert [text for text in table if text != "请稍等。"] == [text for _, text in plain.table
                                                             if text != "请稍等。"]
        assert table.count("请稍等。") <= [text for _, text in plain.table].count("请稍等。") + 1


def test_the_panel_shows_the_question_asked_again_after_an_undo() -> None:
    """After 撤销 at the witch's poison on night 2 the host is asked the wolves' kill again: his panel says so
    at once (before: it kept showing the witch's step until he answered)."""
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    at = step(scripted, "witch.poison")
    _, panel = play(scripted, words(scripted, 0.0, at))
    shown = [kind for i, kind in enumerate(panel.shown) if i == 0 or panel.shown[i - 1] != kind]
    poison = shown.index("witch.poison")
    assert shown[poison + 1] == "wolves.kill", shown[poison - 2: poison + 4]


def test_a_changed_answer_by_day_is_said_and_nothing_before_it_again() -> None:
    """By day the host takes back the exile of 一号 and says 二号: the table hears "二号被放逐出局。" (the game
    changed) and what follows from it — not the vote's call again."""
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    at = step(scripted, ACK, 1)  # the 过 after 一号's skill call
    assert scripted.kinds[at - 1] == "vote.exile"
    said = [*words(scripted, 0.0)[:2 + 2 * at], "撤销", 0.0, "二号出局", 0.0, "过", 0.0, "过"]
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    Live(session, mouth, PacedEar(clock, said), now=clock.now, clock=clock, poll_s=0.5).run()
    table = [text for _, text in mouth.table]
    vote = table.index("发言结束，请大家举手投票。")
    assert table[vote:vote + 6] == ["发言结束，请大家举手投票。", "一号被放逐出局。", "一号，请确认是否发动技能。",
                            "二号被放逐出局。", "二号，请确认是否发动技能。", "请二号发表遗言。"], table[vote:]


@settings(max_examples=16, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(preset_names()), seed=st.integers(0, 2**16), where=st.floats(0.0, 1.0),
       back=st.integers(1, 3))
def test_in_any_game_an_undo_and_the_same_answers_again_leave_the_tables_words_as_they_were(
        preset: str, seed: int, where: float, back: int) -> None:
    """Random games of every preset (a random legal host typing his words into the live loop): at a random
    word he says 撤销 one to three times and gives the same answers again from there (his 过s included). The
    table hears exactly the words of the game without it — none twice, none of the correction — and at most
    the neutral "请稍等" where the correction took him past the bound."""
    said, _, _ = host_words(preset, seed, 30)
    setup = make_setup(preset)
    session = Session(setup, seed)
    session.acks = True
    kinds: list[str] = []
    for word in said:  # which words answer the game (the others are the host's 过 where a step asks nothing)
        session.take_lines()
        assert session.prompt is not None
        kinds.append(session.prompt.kind)
        session.submit(word)
    answers = [i for i, kind in enumerate(kinds) if kind != ACK]
    at = answers[0] + 1 + int(where * (len(said) - answers[0] - 1))
    before = [i for i in answers if i < at]
    back = min(back, len(before))
    again = [*said[:at], *["撤销"] * back, *said[before[-back]:]]
    plain, undone = (_game(setup, seed, words) for words in (said, again))
    words = [[text for _, text in mouth.table if text != "请稍等。"] for mouth in (plain, undone)]
    assert words[1] == words[0], (preset, seed, at, back)  # "请稍等" past the bound: a long correction is a slow host


def _game(setup: Setup, seed: int, said: list[str]) -> TimedMouth:
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(setup, seed)
    Live(session, mouth, PacedEar(clock, ["开始", *said]), now=clock.now, clock=clock, poll_s=0.5).run()
    return mouth


def test_an_undo_at_the_wolves_question_is_measured_alike_however_far_back_the_last_answer_was() -> None:
    """Night 2 of tests/fair_nights/guard_reference.yaml and guard_dead.yaml: 撤销 at the wolves' kill takes back
    the guard's seat (alive) — or, his step a 过 (dead), the day's last 过, and walks back over his 过 too: one
    repair more at a question every game asks alike, where the host's repairs are measured. Measured as its
    shortest round (two repairs) in both, so every step after the wolves' waits alike: the rest of the night
    is the same in both to the ms (the wolves' step itself waits for the longer walk: docs/architecture.md)."""
    rests = []
    for name in ("guard_reference", "guard_dead"):
        scripted = host_script(Scenario.load(NIGHTS / f"{name}.yaml"))
        at = step(scripted, "wolves.kill", 1)
        undone, _ = play(scripted, words(scripted, 0.0, at))
        night = [(t, text) for t, text in undone.table if text.startswith("天黑请闭眼")][1][0]
        table = [(t, text) for t, text in undone.table if t > night]
        witch = next(t for t, text in table if text.startswith("女巫请睁眼"))
        dawn = next(t for t, text in table if text.startswith("天亮了"))
        rests.append([(round(t - witch, 3), text) for t, text in table if witch <= t <= dawn])
    assert rests[0] == rests[1]
