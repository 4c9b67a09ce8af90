"""Property (issue 29): a game of any preset, killed at any table line and resumed, lets the table hear only
"继续游戏。" and then exactly what the uncut game says from the journal's last said mark on — no line that
names a phase, a step or a card, nothing it heard before the mark again, nothing lost.

Random deals and a random legal host (`AutoHost`), his words typed into the real live loop (`Live`) on a fake
clock through the real Conductor, the Session journaling into memory. The kill is in-process: the speaker
raises at the chosen table line (as SIGKILL would stop the device mid-batch, with every journal line written
so far kept); the game is then resumed from the journal alone (`narrator resume`'s path: `Session.resume`,
`Live.run(resumed=True)`) and played to the same point with the same host. The same with 撤销 somewhere before
the kill, by a host whose undo round is within his measured repairs: nothing of it is heard, at night not even
in the table's timing."""

from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from listen.listenkit import words
from test_fair_resume import RESUMED, MarkedStore, live, texts
from test_fair_stumbling_host_loop import STUMBLE
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.common.clock import FakeClock
from narrator.engine.answers import Pass
from narrator.judge.host_words import ACK
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup, preset_names
from narrator.listen.doubt import irreversible
from narrator.play.loop import Live
from narrator.session.journal import MemoryStore, load
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal

ANSWERS = 40
"""Each game is followed this far (answers of the game, the host's 过s aside): night 1, a day, night 2."""


class Killed(BaseException):
    """The device lost its power: nothing after this line is said, nothing more is written."""


class KilledMouth(TimedMouth):
    """A TimedMouth that dies as it is about to say table line `at` (counted from the first, the deal line)."""

    def __init__(self, clock: FakeClock, at: int) -> None:
        super().__init__(clock)
        self.at = at

    def say(self, line: Line) -> None:
        if line.to == "all" and len(self.table) >= self.at:
            raise Killed()
        super().say(line)


def host_words(preset: str, seed: int, most: int = ANSWERS,
               where: list[tuple[bool, bool]] | None = None) -> tuple[list[str], list[str], int]:
    """The host's typed words for the first `most` answers of a random game (to its end, if it ends
    first), his 过s included; the words that answer the game alone (for the resumed game, which asks its own
    过s); and how many 过s he says after the last answer. `where`, if given, gets for each word whether it
    answers a question every game asks alike (`Line.public_ask`: where his time and repairs are measured), and
    whether it is said at night."""
    setup = make_setup(preset)
    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    session = Session(setup, seed)
    session.acks = True
    said: list[str] = []
    answers: list[str] = []
    trailing = 0
    while len(answers) < most:
        lines = session.take_lines()
        if where is not None:
            where.append((any(line.public_ask for line in lines), session.night))
        prompt = session.prompt
        if prompt is None:
            break
        if prompt.kind == ACK:
            said.append("过")
            trailing += 1
        else:
            trailing = 0
            answer = host.answer(session.game, prompt)
            # 过 at a shot or a kill is read back (a slip after many 请说过): the host says 放弃 there
            said.append("放弃" if isinstance(answer, Pass) and irreversible(prompt.kind) else words(answer))
            answers.append(said[-1])
        session.submit(said[-1])
    return said, answers, trailing


def words_after(answers: list[str], trailing: int, journal: bytes) -> list[str]:
    """What the host says to the game resumed from `journal`: the answers still to come, and 过 wherever the
    resumed game asks for it (those owed since the last said mark again), up to where the uncut game's words
    end (`trailing` 过s after the last answer)."""
    session = Session.resume(MemoryStore(journal))
    session.acks = True
    out: list[str] = []
    while True:
        session.take_lines()
        prompt = session.prompt
        if prompt is None or (len(session.answers) == len(answers) and (prompt.kind != ACK or trailing == 0)):
            return out
        trailing -= len(session.answers) == len(answers)
        out.append("过" if prompt.kind == ACK else answers[len(session.answers)])
        taken = session.submit(out[-1])
        assert type(taken).__name__ == "Accepted", (prompt.kind, out[-1], taken)


def killed_and_resumed(preset: str, seed: int, cut: float, undo: float | None = None) -> None:
    """Play the game to table line `cut` of the way, killed there, resumed from its journal: the table hears
    "继续游戏。" and the uncut game's lines from the last said mark. `undo`: at that share of the host's words
    (a game's answer, not a 过) he says 撤销 at the next question (or 过) and gives that answer again — a host
    measured at two repairs (two words the judge does not understand before each answer at the questions every
    game asks alike, in both games), so the undo round (two repairs: the answer taken back asked again, the
    question he was at asked again) is within the bound: at night the table's tape up to the kill is the
    uncut game's to the frame. Where the undo is said at such a question it stands for his two words there."""
    where: list[tuple[bool, bool]] = []
    said, answers, trailing = host_words(preset, seed, where=where)
    setup = make_setup(preset)
    stumbles = [[STUMBLE, STUMBLE] if undo is not None and where[k][0] else [] for k in range(len(said))]
    uncut = Session(setup, seed)
    timed = live(uncut, ["开始", *[w for k, word in enumerate(said) for w in [*stumbles[k], word]]])
    reference = texts(timed)[1:]  # the deal line aside
    at = 1 + int(cut * (len(reference) - 1))  # die as table line `at` (the deal line is 0) is about to be said
    night = True  # the undo is said at night (by day the table sees the host: a speech ends at his 过)
    if undo is not None:
        given = [k for k, word in enumerate(said) if word != "过"]  # answers (a 过 may be an acknowledgement)
        back = given[min(len(given) - 1, int(undo * len(given)))]  # the answer taken back
        if back + 1 < len(said):  # at the next question (or 过) after it, then again; his words there after it
            stumbles[back + 1] = ["撤销", said[back]]
            night = where[back + 1][1]
    typed = [w for k, word in enumerate(said) for w in [*stumbles[k], word]]

    clock = FakeClock()
    mouth = KilledMouth(clock, at)
    store = MarkedStore(mouth)
    first = Session(setup, seed, store=store)
    with contextlib.suppress(Killed):
        Live(first, mouth, PacedEar(clock, ["开始", *typed]), now=clock.now, clock=clock, poll_s=0.5).run()
    heard = texts(mouth)[1:]
    assert heard == reference[: len(heard)], "the table heard the undo"
    assert not night or mouth.table == timed.table[:len(mouth.table)], "the undo moved a table line"
    journal = store.read()

    second = Session.resume(MemoryStore(journal))
    loaded = load(MemoryStore(journal))
    again = 0  # the question the mark covers, said again when the host had not answered it
    if loaded.heard is not None and loaded.heard[1] and loaded.heard[0] == len(loaded.answers):
        again = sum(line.to == "all" for line in second.repeat_lines())
    start = max(0, store.heard_at_mark - 1 - again) if loaded.heard != (-1, False) else 0
    resumed = live(second, words_after(answers, trailing, journal), resumed=True)
    table = texts(resumed)
    assert table[0] == RESUMED, table[:2]
    assert not any(text.startswith(("继续游戏：", "上一局")) or "正在" in text for text in table)
    assert table[1:] == reference[start:], (preset, seed, at, start)


@settings(max_examples=24, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(preset_names()), seed=st.integers(0, 2**16), cut=st.floats(0.0, 1.0))
def test_a_game_killed_at_any_line_resumes_saying_only_continue_and_the_rest(preset: str, seed: int,
                                                                           cut: float) -> None:
    killed_and_resumed(preset, seed, cut)


@settings(max_examples=48, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(preset_names()), seed=st.integers(0, 2**16), cut=st.floats(0.0, 1.0),
       undo=st.floats(0.0, 1.0))
def test_a_game_with_an_undo_killed_at_any_line_resumes_saying_only_continue_and_the_rest(
        preset: str, seed: int, cut: float, undo: float) -> None:
    """The same with 撤销 somewhere in the game (at night or by day), before or after the kill: the table heard
    nothing of it, and after the resume hears "继续游戏。" and the uncut game's lines from the last said mark."""
    killed_and_resumed(preset, seed, cut, undo)
