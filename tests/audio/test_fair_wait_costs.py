"""What one host word costs the table (docs/architecture.md, "Fair play with a slow host"), on a FakeClock with
no speaker: a read-back counts `read_back_s` for the judge's lines, another repair `repair_s`, and a gesture
word (no question, so no repair) the host's answer time alone. Before, every repair counted `repair_s` (10 s
for a 1.2 s "七号，对吗？") and a gesture word as many repairs as a question — a voice host's night 1 was
367 s where a typed one's was 205 s (scripts/bench_fair_wait.py; docs/benchmarks.md)."""

from __future__ import annotations

import numpy as np
import pytest

from narrator.audio.conductor import Conductor
from narrator.audio.pacing import HostWords, PauseSpec
from narrator.common.clock import FakeClock
from narrator.judge.lines import Line

WORDS = HostWords(word_s=1.0, floor_s=2.0, step_s=1.0, bound_s=20.0, repair_s=10.0, read_back_s=3.0)
PACING = {name: PauseSpec(name, "fixed", 0.1, 0.1) for name in ("action", "short", "long", "eyes_close")}
ASK = Line("你今晚要查验谁？", key="steps.seer.ask", pause="action", words=1)
STATUS = Line("猎人请示意身份。你今晚的开枪状态是这个。", key="steps.hunter.ask_first", pause="action", words=2,
              gestures=1)
CLOSE = Line("请闭眼。", key="steps.seer.close", pause="eyes_close")
CHECK_Q = Line("预言家查验谁？", to="host", key="prompts.seer.check")
IDENTIFY_Q = Line("猎人是几号？", to="host", key="prompts.hunter.identify")
READ_BACK = Line("七号，对吗？", to="host", key="listening.read_back")
REFUSED = Line("没听懂，请再说一遍。", to="host", key="refusals.words.unknown")


def silent(line: Line) -> np.ndarray:
    return np.zeros(0, np.float32)  # the judge's lines take no time: the waits alone are measured


def conductor(read_backs: int) -> Conductor:
    c = Conductor(None, FakeClock(), silent, pacing=PACING, host_words=WORDS)
    c.expect_repairs(read_backs)
    return c


def answered(c: Conductor, after_s: float, then: Line) -> None:
    """The host hears the judge, speaks `after_s` later, and the judge says `then`."""
    c.ready()
    c.wait_until(c.now_s() + after_s)
    c.tried()
    c.say([then])


def read_back_round(c: Conductor, question: Line | None, first_s: float) -> None:
    """The step's end: the host asked `question` (None: nobody was asked, the step just closes) answers it
    `first_s` later, the judge reads it back, his 对 2 s later, and the step closes."""
    if question is None:
        c.say([CLOSE])
        return
    c.say([question])
    answered(c, first_s, READ_BACK)
    answered(c, 2.0, CLOSE)


def next_line_after(c: Conductor, line: Line) -> float:
    """s from the end of `line` to the start of the table's next line."""
    placed = [p for p in c.timeline if p.line.to == "all"]
    i = next(i for i, p in enumerate(placed) if p.line is line)
    return round(placed[i + 1].start_s - placed[i].said_s, 6)


def test_a_read_back_counts_read_back_s_and_a_refusal_repair_s() -> None:
    """A voice ear reads every spoken seat back: the wait per word is `word_s`, two tries at the host's
    answer time and `read_back_s` (1 + 2×2 + 3 = 8 s); his own read-back round fits in it at once. A refusal
    instead of the read-back is dearer than the measured repair: his own time there (2 + 2 + 10) counts."""
    c = conductor(read_backs=1)
    c.say([ASK, CHECK_Q])
    answered(c, 2.0, READ_BACK)
    answered(c, 2.0, CLOSE)
    assert next_line_after(c, ASK) == 1.0 + 2 * 2.0 + 3.0
    c = conductor(read_backs=1)
    c.say([ASK, CHECK_Q])
    answered(c, 2.0, REFUSED)
    answered(c, 2.0, CLOSE)
    assert next_line_after(c, ASK) == 1.0 + 2 * 2.0 + 10.0


@pytest.mark.parametrize("asked", (True, False), ids=("identified", "nobody"))
def test_a_gesture_word_counts_the_answer_time_without_repairs(asked: bool) -> None:
    """The hunter's step on night 1: his identification (a question, read back by voice) and his shot status
    shown by a gesture (no question): 2 × `word_s` + (2 × 2 + 3) + 2 = 11 s, whether he was asked or not."""
    c = conductor(read_backs=1)
    c.say([STATUS])
    read_back_round(c, IDENTIFY_Q if asked else None, 2.0)
    assert next_line_after(c, STATUS) == 2 * 1.0 + (2 * 2.0 + 3.0) + 2.0


WOLVES = Line("狼人请相互确认身份。", key="steps.wolves.ask_first", pause="action", words=1)
WOLVES_Q = Line("狼人是几号？", to="host", key="prompts.wolves.identify", public_ask=True)


@pytest.mark.parametrize("asked", (True, False), ids=("seer", "nobody"))
def test_a_try_after_a_repair_counts_the_time_measured_at_one(asked: bool) -> None:
    """The host takes 6 s over the wolves' seats and 2 s over his 对 to their read-back (he decided already):
    a word then counts 6 s for his first try and 2 s for the one after the read-back — 1 + 6 + 2 + 3 = 12 s,
    not two tries at 6 s — at the seer's step and at a step that asked nothing alike."""
    c = conductor(read_backs=1)
    c.say([WOLVES, WOLVES_Q])
    answered(c, 6.0, READ_BACK)
    answered(c, 2.0, CLOSE)
    assert (c.answer_s, c.again_s) == (6.0, 2.0)
    c.say([ASK])
    read_back_round(c, CHECK_Q if asked else None, 6.0)
    assert next_line_after(c, ASK) == 1.0 + 6.0 + 2.0 + 3.0


WAIT = Line("请稍等。", key="events.please_wait", pause="short")


@pytest.mark.parametrize("refusals", (2, 3))
def test_by_voice_the_bound_hides_two_repairs_beyond_the_read_back(refusals: int) -> None:
    """A voice ear reads back every answer: a host refused twice at the wolves' question, then read back — three
    repairs, two beyond the read-back every voice answer has (what a voice undo costs: two repairs) — is within
    the bound, so the seer's step after, answered alike, waits for him in silence: 1 + 4 × 2 + 2 × 10 + 3 s.
    Refused three times he is past it: "请稍等" there (before, a voice host was past it at two refusals)."""
    c = conductor(read_backs=1)
    c.please_wait = WAIT
    for table, question in ((WOLVES, WOLVES_Q), (ASK, CHECK_Q)):
        c.say([table, question])
        for _ in range(refusals):
            answered(c, 2.0, REFUSED)
        answered(c, 2.0, READ_BACK)
        answered(c, 2.0, CLOSE)
    assert c.repairs == refusals + 1
    after = [p.line.text for p in c.timeline if p.line.to == "all"]
    after = after[after.index(ASK.text):]
    assert (WAIT.text in after) == (refusals == 3), after
    if refusals == 2:
        assert next_line_after(c, ASK) == 1.0 + 4 * 2.0 + 2 * 10.0 + 3.0
