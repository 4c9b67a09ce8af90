"""The judge's timing core: where every line goes on the table and host channels, offline and live.

One Conductor places the judge's lines on the one Mixer, by these rules (all times on the Clock port):

- A **table** line ("all") starts when it is said, but never before the previous table line's *hold* is
  over. The hold is the pause after a table line, drawn from its pacing class (narrator/data/pacing.yaml)
  out of the table's own seeded stream: one stream per night and one per day, so a night's table shape —
  its lines and the holds between them — depends only on the preset, the rules and the night number
  (`night1:` classes on night 1). The table never waits for host audio.
- A **host** line starts when it is said, once the host channel is free, and never before the table line
  that precedes it in the judge's order has finished (a host line cannot run ahead of the table). Host
  pauses are drawn from the host's own streams, a new one after each table line (so a secret host line
  before a table line never moves the pauses of the host lines after it).
- `ready()` waits until both channels have said everything (the host heard his question, the table heard
  its line); the host's answer comes after it. At night the table's hold runs on meanwhile, so a quick
  answer, a slow one (within the hold) and a dead role's step all sound the same: a step closes no
  earlier than its drawn hold.
- **The host's words** (`host_words:` in pacing.yaml): after a table line that may hide secret questions
  to the host (`Line.words`, counted by the judge from public facts in narrator/judge/host_words.py: a
  night step's question, an exile, a skill call, an explosion, a vote's call in a deck with lovers), the
  next table line also waits `words × (word_s + the host's time)` from that line's end, whether or not the
  host was asked. The answer time is the host's own, measured only at questions every game asks alike
  (`Line.public_ask`: the wolves', night 1's identifications without a thief; from `ready()` to his words,
  each try of a question, once per table line; the longest so far, rounded up to `step_s`, at least
  `floor_s`, at most `most_s`), so no secret question moves it; and so are his repairs (below). So a
  slow host slows every such step alike, alive, dead or absent, and a host who answers within his measured
  time never moves the table. A reminder at the table (the line again, "请回答") keeps the wait open.
- **His own time at each word**: every host question after such a line is timed too, from `ready()` to
  the answer the judge takes, every repair on the way included (a refusal, a read-back and its 对, a
  choice, "还差一个": lines keyed `refusals.*` / `listening.*` keep the question open). Each try — his time
  from hearing the judge's last line to his words (`tried()`: the live loop's ear says when he spoke),
  hearing the judge and reminders left out — is rounded up to `step_s`, and each repair counts for the
  judge's lines `read_back_s` if it is a read-back (`listening.read_back`), else `repair_s` (a batch of lines
  after one try is one repair). His repairs and what they count are measured where his answer time is
  (`repairs`, `repair_cost`: the most at one such question; a try after a repair — his 对, a seat said again —
  is measured apart, `again_s`, the answer time until one is), and a word's wait is `word_s` plus the longer
  of the measured `answer time + repairs × again_s + repair_cost` and his own there — a word nobody asked
  counts the measured time, a gesture word (`Line.gestures`: no question, so no repair) his answer time. A
  word whose question may be irreversible and take nobody (`Line.confirms`: the wolves' kill, the witch's
  poison, a shot, a take) allows one repair more, the read-back of a typed 过 and his 对 (`read_back_s` and
  a try after a repair), asked or not (unless the ear reads back every answer: `expect_repairs`); a
  read-back at such a public question is not measured. A dead, buried or
  powerless role's step asks him
  for 过 at the same place (the Session's acknowledgement, narrator/judge/host_words.py), so the table's
  next line waits for his word there exactly as for a living role's answer, at whatever moment it would
  come, and never before he gave it (his own lines fit in `word_s`, a repair's in `repair_s` or `read_back_s`).
- **The bound and "请稍等"** (`please_wait`): the table waits in silence for at most
  `words × (word_s + (1 + repairs) × bound_s + repairs × repair_s)` (`repairs` of pacing.yaml's host_words,
  beyond the read-backs an ear gives every answer, `expect_repairs`; his measured time and repairs if those
  are less; a gesture word `word_s + bound_s`). When its next line
  is not due by then — the host's measured time or repairs are past the bound (then at every such step,
  asked or not), or he is slower now than at the wolves' questions (at a decision or a 过 alike) — the table
  hears `please_wait` at that moment, once, then its next line when it is due and said. `wake()` says it
  when due (the live loop calls it while it
  listens; `wait_until` does offline). The wait, bound included, counts from the line's end — or from when
  the host has heard the lines said to him before the first night (`_briefed`: the gesture conventions; nothing
  is secret yet, so alike in every game of the preset), when those still play: his question comes after them.
  The voice ear does not drop an answer under way when `please_wait` begins (mixer.LISTENED_THROUGH).
- **撤销 is a repair** (`UNDONE`, the host's line that says it was done) of the question he was at: his
  撤销 is a try there, and so is each word he gives again until that question is asked again and answered;
  each batch of the judge's lines after one (`UNDONE` and the answer taken back asked again, a 过 owed, the
  question again) is a repair (`repair_s`). So one answer taken back is two repairs (three with a 过 between),
  counted, measured at a public question (as its shortest round: how far back the last answer lies may be a
  secret, `_Asked.walked`) and hidden like a refusal's: within his measured repairs the
  table's lines do not move; past them he is slow at that step, and past the bound the table hears
  "请稍等". 撤销 at a question not timed (no wait covers it) is not timed either. By voice the answer given
  again is not read back when it is the one taken back (narrator/listen/dialogue.py, `taken_again`: said
  back with the next question, in its batch), so a voice undo is two repairs as well, beyond the read-back
  every voice answer has.

Offline (`narrator render`, the demo's files) the clock is a FakeClock and a Tape pulls the mixer up to
the clock as it moves, writing the WAVs as it goes. Live (`narrator play`, `demo --play`) the clock is
the SystemClock and the Player's streams pull the mixer; host lines without an earpiece go to `on_host`
at the moment they would have started (`on_host`); with no speaker at all (mixer None) table lines go to
`on_table` the same way, timed exactly as if they were played.

API for the live loop (see also narrator/audio/timer.py for the day speech timer):

    conductor = Conductor(mixer, clock, voice=speaker.line, seed=seed, player=player)
    conductor.say(session.take_lines())   # place lines; returns their Placed records
    conductor.ready()                     # wait until everything said has been heard; the host may answer
    conductor.tried()                     # the host's words were heard: one try at the open question
    conductor.expect_repairs(1)           # a voice ear: one read-back a question from the start
    conductor.wake()                      # while the host is waited for: "请稍等" when due; s until it is
    conductor.hold_remaining_s()          # s until the table may hear its next line (the step's hold)
    conductor.hold()                      # wait that long (the vote call's `countdown` hold: hands up)
    conductor.settle()                    # wait until both channels are silent (game over, pause)
    conductor.timeline                    # every Placed line so far (subtitles: narrator/audio/subtitles.py)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio.pacing import (
    HostWords,
    Pacer,
    PauseSpec,
    load_host_words,
    load_line_classes,
    load_night1,
    load_pacing,
    sub_seed,
)
from narrator.audio.timeline import Placed

if TYPE_CHECKING:
    from narrator.audio.mixer import Mixer, Ticket
    from narrator.audio.playback import Player
    from narrator.audio.render import Tape
    from narrator.common.clock import Clock
    from narrator.judge.lines import Line

SR = SAMPLE_RATE
_POLL_S = 0.01
UNDONE = "listening.undone"
"""The host's line after 撤销 (narrator/data/script.*.yaml): a repair of the question open then, which stays open
until it is asked again (see the module docstring)."""
READ_BACK = "listening.read_back"
"""A read-back at a question ("七号，对吗？", "没有人，对吗？"): at a word that may need one (`Line.confirms`) the
first is the confirmation every game allows there, not a repair the host is measured at."""
_LATE_S = 3.0
"""s. Live: how long past its planned end a wait still waits for the device to report a line played."""


def _f(seconds: float) -> int:
    return round(seconds * SR)


def _same(line: Line, other: Line | _Wait) -> bool:
    """The same line said again (a reminder)."""
    return (line.key, line.text) == (other.key, other.text)


def _repair(line: Line) -> bool:
    """A line of the dialogue's repairs at a question (narrator/listen/dialogue.py, repairs.py): a refusal, a
    read-back, a choice, "还差一个", an offer — said while the question is still open, never its answer. (撤销's
    `UNDONE` and the round after it are repairs too, counted apart: `Conductor._undoing`.)"""
    return line.key.startswith("refusals.") or (line.key.startswith("listening.")
                                                 and line.key not in ("listening.remind", UNDONE))


def _budget(answer_s: float, again_s: float, repairs: int, repair_cost: float) -> float:
    """s one word counts for the host: the first try at `answer_s`, one per repair at `again_s` each, and
    `repair_cost` for the judge's lines of those repairs (`read_back_s` a read-back, `repair_s` another)."""
    return answer_s + repairs * again_s + repair_cost


@dataclass(slots=True)
class _Asked:
    """A host question being answered, timed from when he heard it to the answer the judge took, every repair
    on the way included: his time at each try (from hearing the judge's last line to his words; hearing a
    reminder or a repair left out), and how many tries."""

    line: Line
    since: float | None
    """s when his current stretch began; None while he hears the judge (until `ready()`)."""
    thinking: float = 0.0
    """s of the current try so far."""
    tries: list[float] = field(default_factory=list)
    """s of each try done, rounded up to `step_s` (at most `most_s`)."""
    costs: list[float] = field(default_factory=list)
    """s each repair counts for the judge's lines (`read_back_s` for a read-back, `repair_s` for another; a
    batch of lines after one try is one repair, counted as its dearest line)."""
    heard: bool = False
    """His words were just heard (`tried()`): until the judge's next line the time is the judge's, not his."""
    read_backs: int = 0
    """Read-backs he heard at this question (`READ_BACK`)."""
    undoing: bool = False
    """撤销 was said at it (`UNDONE`): until it is asked again, every line to the host is a repair of it."""
    rounds: int = 0
    """Repairs of its undo rounds so far."""
    walked: list[int] = field(default_factory=list)
    """Of its tries and repairs (by index), those of the steps an undo walked back over past the answer taken
    back (a 过 owed, an earlier answer): how far back the last answer lies may be a secret, so where his
    repairs are measured these are not (an undo is measured as its shortest round, two repairs)."""


@dataclass(slots=True)
class _Wait:
    """A table line's wait for the host's words: the line's end and hold's end (frames), its words, whether
    the table has heard "请稍等" since (`told`), and the host's answers since (`took`)."""

    said: int
    """Frame from which the host's words are counted: the line's end, or later while the host still hears the
    lines said to him before the first night (`Conductor._briefed`) — public, so alike in every game of the
    preset; his question comes after them."""
    end: int
    words: int
    key: str
    text: str
    """The line's key and text: the same line said again is a reminder."""
    told: bool = False
    took: list[float] = field(default_factory=list)
    """s each host question since the line counted (his tries rounded up to `step_s`, and `repair_s` per
    repair), secret or not, an acknowledgement's 过 included."""
    asked: set[tuple[str, str]] = field(default_factory=set)
    """The questions timed since the line (key, text): one asked again after a refusal is not timed again."""
    gestures: int = 0
    """Of `words`, those the host answers with a gesture (`Line.gestures`): no question, no repair."""
    confirms: int = 0
    """Of its words, those that allow one repair more: a read-back of 过 may come there (`Line.confirms`, when
    the ear does not read back every answer already)."""
    read_backs: int = 0
    """Read-backs the ear gives every answer (`expect_repairs`): the bound hides `repairs` repairs beyond them."""

    def budgets(self, words: HostWords, answer_s: float, again_s: float, repairs: int,
                repair_cost: float) -> list[float]:
        """s each word counts for the host, the largest first: a word that allows a confirmation one repair more
        (a read-back and his next try), a gesture his answer time alone (no question, so no repair)."""
        budget = _budget(answer_s, again_s, repairs, repair_cost)
        confirmed = _budget(answer_s, again_s, repairs + 1, repair_cost + words.read_back_s)
        asks = max(0, self.words - self.confirms - self.gestures)
        return [confirmed] * self.confirms + [budget] * asks + [answer_s] * min(self.gestures, self.words)

    def due(self, words: HostWords, answer_s: float, again_s: float, repairs: int, repair_cost: float) -> int:
        """Frame from which the next table line may start: per word `word_s` and the host's time — his measured
        answer time and repairs, or his own at that word's question when it took longer; a word not asked (yet)
        counts the measured time, a gesture his answer time alone (it has no repair). The questions' times go
        with the words' allowances in order, the longest with the largest (which word a question was is a
        secret: a dead role's 过 stands for its decision)."""
        budgets = self.budgets(words, answer_s, again_s, repairs, repair_cost)
        budgets += [_budget(answer_s, again_s, repairs, repair_cost)] * max(0, len(self.took) - len(budgets))
        budgets.sort(reverse=True)
        took = sorted(self.took, reverse=True) + [0.0] * max(0, len(budgets) - len(self.took))
        host = sum(max(budget, t) for budget, t in zip(budgets, took, strict=True))
        return max(self.end, self.said + _f(self.words * words.word_s + host))

    def late(self, words: HostWords, answer_s: float, again_s: float, repairs: int, repair_cost: float) -> int:
        """The bound: past it the table hears "请稍等" (the answer time counted at most `bound_s`, the repairs at
        most `repairs` a question beyond the read-backs the ear gives every answer — one more at a word that allows
        a confirmation — and their lines at most `repairs × repair_s` and `read_back_s` each of those read-backs,
        whatever the host took since)."""
        hidden = words.repairs + self.read_backs
        cost = words.repairs * words.repair_s + self.read_backs * words.read_back_s
        budgets = self.budgets(words, min(answer_s, words.bound_s), min(again_s, words.bound_s),
                               min(repairs, hidden), min(repair_cost, cost))
        return max(self.end, self.said + sum(_f(words.word_s + budget) for budget in budgets))


class Conductor:
    """Places lines; see the module docstring. Not thread-safe: one judge thread drives it."""

    def __init__(self, mixer: Mixer | None, clock: Clock, voice: Callable[[Line], np.ndarray], *, seed: int = 0,
                 pacing: Mapping[str, PauseSpec] | None = None, night1: Mapping[str, str] | None = None,
                 line_classes: Mapping[str, str] | None = None, host_words: HostWords | None = None,
                 tape: Tape | None = None, player: Player | None = None,
                 on_host: Callable[[Line], None] | None = None,
                 on_table: Callable[[Line], None] | None = None) -> None:
        self.mixer, self.clock, self.voice, self.seed = mixer, clock, voice, seed
        self.table = load_pacing() if pacing is None else dict(pacing)
        self.night1 = (load_night1() if pacing is None else {}) if night1 is None else dict(night1)
        self.line_classes = (load_line_classes() if pacing is None else {}) if line_classes is None \
            else dict(line_classes)
        self.host_words = (load_host_words() if pacing is None else None) if host_words is None else host_words
        """None: the table never waits for the host's words (tests of the holds alone)."""
        self.tape, self.player, self.on_host, self.on_table = tape, player, on_host, on_table
        self.table_audio = mixer is not None
        """False: no speaker at all (`--table-device none`); table lines go to on_table when due."""
        self.host_audio = mixer is not None and (player.has_host_output if player is not None else True)
        """False: no earpiece; host lines go to on_host when due, nothing of them is queued."""
        self.host_pacer = Pacer(sub_seed(seed, "host"), self.table)
        self._table_lines = 0  # table lines placed (each starts the host's pauses' next stream)
        self.phase, self.nights, self.days = "pregame", 0, 0
        self._table_pacer = Pacer(sub_seed(seed, "table.pregame"), self.table)
        self._t0 = clock.now()
        self._end = {"all": 0, "host": 0}  # frame where the channel's queue ends (holds included)
        self._said = {"all": 0, "host": 0}  # frame where the channel's last line's speech ends
        self._tickets: dict[str, Ticket | None] = {"all": None, "host": None}
        self._unprinted: list[Placed] = []
        self._cues: dict[str, int] | None = None
        self._opened = False  # a step has opened and its first question's hold is still to come
        self.answer_s = 0.0 if self.host_words is None else self.host_words.floor_s
        """s. The host's answer time: the longest first try measured so far, rounded up to a step, within its
        bounds."""
        self.again_s: float | None = None
        """s. His time at a try after a repair (his 对 to a read-back, a seat said again: he decided already): the
        longest measured so far where `answer_s` is, rounded up to a step; None until one is measured (then
        `answer_s` counts for it)."""
        self.repairs = 0
        """The host's repairs per question: the most measured so far (at most one more than the bound counts)."""
        self.repair_cost = 0.0
        """s. The judge's lines of those repairs: the most measured at one question (`read_back_s` a read-back,
        `repair_s` another repair; at most one repair more than the bound counts)."""
        self._expected = 0  # repairs a question expected from the start (`expect_repairs`)
        self.please_wait: Line | None = None
        """The table's neutral line past the bound ("请稍等"); None: the table waits in silence."""
        self._open: _Asked | None = None  # the host question being answered (timed), repairs and all
        self._timed = False  # the host's answer was measured since the last table line
        self._word: _Wait | None = None  # the last table line's wait for the host's words
        self._briefed = 0
        """Frame from which the host has heard the host lines said before the first night (the gesture conventions,
        the set-up's advice: nothing is secret yet) and may hear his first question: a step's wait for his words
        counts from there when the table's question ends sooner (`_Wait.said`)."""
        self._undone = False  # 撤销 at an untimed question since the last table line: the round is not timed
        self._wait_pacer = Pacer(sub_seed(seed, "table.please_wait"), self.table)
        self.timeline: list[Placed] = []

    # --- time -------------------------------------------------------------------------------------------

    def now_s(self) -> float:
        """s since the conductor started (the channels' time)."""
        return self.clock.now() - self._t0

    def _now(self) -> int:
        return _f(self.now_s())

    def wait_until(self, t_s: float, *, wake: bool = True) -> None:
        """Sleep until `t_s` (conductor seconds), keeping the tape, the host console and (`wake`) the table's
        "请稍等" up to date."""
        while True:
            self.pump()
            late = self.wake() if wake else None
            now = self.now_s()
            left = t_s - now
            if left <= 0:
                return
            if late is not None:
                left = min(left, late)
            if self._unprinted:  # wake up when the next host line is due on the console
                left = min(left, max(_POLL_S / 10, min(p.start_s for p in self._unprinted) - now))
            self.clock.sleep(left if self.player is None else min(left, _POLL_S))

    def pump(self) -> None:
        """Bring the offline tape up to now and hand due host lines to on_host (no host earpiece)."""
        if self.tape is not None:
            self.tape.run_to(self._now())
        if self._unprinted:
            now = self.now_s()
            due = [p for p in self._unprinted if p.start_s <= now + 0.5 / SR]  # a frame: not a float's last bit
            for p in due:
                self._unprinted.remove(p)
                handler = self.on_table if p.line.to == "all" else self.on_host
                if handler is not None:
                    handler(p.line)

    # --- placing lines ----------------------------------------------------------------------------------

    def say(self, lines: Iterable[Line]) -> list[Placed]:
        """Place `lines` in the judge's order (public and host mixed) and return at once."""
        placed = []
        for line in lines:
            if not line.text:
                continue
            placed.append(self._place(line))
        self.pump()
        return placed

    def _place(self, line: Line) -> Placed:
        ch = "all" if line.to == "all" else "host"
        self._answered(line)
        if line.key == UNDONE and self._open is None:
            self._undone = True  # at an untimed question: the round is not timed either
        word = self._word
        if ch == "all" and word is not None and self._reminds(line, word):
            return self._put(line, ch, aside=True)
        if ch == "all" and word is not None and not word.told and \
                max(self._now(), self._table_free()) > self._late(word):
            self._say_wait(word)  # its next line is not due by the bound: every step alike
        if ch == "all" and line.bed in ("night", "day"):
            self._begin_phase(line.bed)
        return self._put(line, ch)

    @staticmethod
    def _reminds(line: Line, word: _Wait) -> bool:
        """A reminder to a slow host at a public prompt (its question again, "请回答"): said when it is due,
        and the line's wait for the host's words goes on (the table's next line is as late as without it)."""
        return line.key == "listening.remind" or _same(line, word)

    def _put(self, line: Line, ch: str, wait_at: int | None = None, aside: bool = False) -> Placed:
        """Place one line; `wait_at`: the table's "请稍等", at that frame (or later), and `aside`: a reminder —
        both keep the open wait for the host's words."""
        clip = np.asarray(self.voice(line), dtype=np.float32)
        now = self._now()
        if wait_at is not None or aside:
            start = max(now, wait_at or 0, self._end["all"])
            pacer = self._wait_pacer if wait_at is not None else self._table_pacer
            hold = pacer.draw(self.line_classes.get(line.key, line.pause))
        elif ch == "all":
            start = max(now, self._table_free())
            hold = self._table_pacer.draw(self._class(line))
            self._word = None
            self._table_lines += 1  # the host's pauses after it from a stream of their own: a secret host line
            self.host_pacer = Pacer(sub_seed(self.seed, f"host.{self._table_lines}"), self.table)  # before it
            # never moves a repair's pause at a public question
        else:
            start = max(now, self._end["host"], self._said["all"])
            hold = self.host_pacer.draw("short" if _repair(line) else line.pause)  # a read-back's own pause
            # (`action`) is the table's, when the table hears it: on the earpiece he answers, and the
            # judge's next repair line comes after a breath (inside `repair_s`)
        audible = self.host_audio if ch == "host" else self.table_audio
        cue = self._cue_frames(line.cue)
        speech = start + cue
        said = speech + len(clip)
        end = said + _f(hold)
        if audible and self.mixer is not None:
            lead = start - max(now, self._end[ch])
            self._tickets[ch] = self.mixer.enqueue_line(line, clip, (end - said) / SR, lead_s=lead / SR)
        self._end[ch], self._said[ch] = end, said
        if ch == "host" and self.phase == "pregame":
            self._briefed = end
        words = self.host_words
        if ch == "all" and wait_at is None and not aside:
            self._timed = self._undone = False
            if line.words > 0 and words is not None:
                self._word = _Wait(max(said, self._briefed), end, line.words, line.key, line.text,
                                   confirms=line.confirms if self._expected == 0 else 0, read_backs=self._expected,
                                   gestures=min(line.gestures, line.words))
        p = Placed(line, start / SR, speech / SR, said / SR, end / SR, self.phase)
        self.timeline.append(p)
        if not audible:
            self._unprinted.append(p)
        return p

    # --- the host's words ---------------------------------------------------------------------------------

    def _table_free(self) -> int:
        """Frame from which the table may hear its next line: the hold, and the host's words' wait."""
        word, words = self._word, self.host_words
        if word is None or words is None:
            return self._end["all"]
        return max(self._end["all"], word.due(words, self.answer_s, self._again_s(), self.repairs, self.repair_cost))

    def _again_s(self) -> float:
        """s a try after a repair counts: measured, or (until it is) the answer time."""
        return self.answer_s if self.again_s is None else self.again_s

    def _late(self, word: _Wait) -> int:
        assert self.host_words is not None
        return word.late(self.host_words, self.answer_s, self._again_s(), self.repairs, self.repair_cost)

    def wake(self) -> float | None:
        """Say "请稍等" on the table if it is due now (the last table line's next one not said by its bound);
        returns s until it will be due, or None. The live loop calls this while it waits for the host."""
        word = self._word
        if word is None or word.told or self.please_wait is None:
            return None
        left = self._late(word) / SR - self.now_s()
        if left > 0:
            return left
        self._say_wait(word)
        self.pump()
        return None

    def _say_wait(self, word: _Wait) -> None:
        if self.please_wait is None:
            return
        word.told = True
        self._put(self.please_wait, "all", wait_at=self._late(word))

    def _asked(self) -> None:
        """ready(): the host has heard a question (the last line said) and may answer now. A public one
        (`public_ask`) is timed once per table line (not when asked again after a refusal) for his measured
        answer time and repairs; every host question after a table line with words is timed for that line's
        wait. A question still open (he heard a repair or a reminder) runs on from now."""
        last = self.timeline[-1].line if self.timeline else None
        if self.host_words is None or last is None:
            return
        asked = self._open
        if asked is not None:
            if asked.since is None:
                asked.since = self.now_s()
            return
        if self._undone:
            return  # not the steps again after 撤销
        word = self._word
        waited = word is not None and last.to == "host" and last.key.startswith("prompts.") and \
            not _same(last, word) and (last.key, last.text) not in word.asked
        if (last.public_ask and not self._timed) or waited:
            self._open = _Asked(last, self.now_s())

    def tried(self) -> None:
        """The host's words were heard (the live loop's ear; a rendered host's answer): one try at the open
        question ends there. The judge's next line says whether it was the answer or a repair."""
        asked, words = self._open, self.host_words
        if asked is None or words is None:
            return
        now = self.now_s()
        if asked.since is not None:
            asked.thinking += now - asked.since
        asked.tries.append(self._rounded(asked.thinking))
        asked.thinking, asked.since, asked.heard = 0.0, now, True

    def expect_repairs(self, repairs: int) -> None:
        """At least this many repairs a question from the start, read-backs (an ear that reads every spoken seat
        back): `repairs` tries more, and `read_back_s` each for the judge's lines. A read-back of 过 is one of
        them, so a word that may need one (`Line.confirms`) allows no repair more."""
        self.repairs = max(self.repairs, repairs)
        self._expected = max(self._expected, repairs)
        if self.host_words is not None:
            self.repair_cost = max(self.repair_cost, repairs * self.host_words.read_back_s)

    def _rounded(self, seconds: float) -> float:
        assert self.host_words is not None
        words = self.host_words
        return min(words.most_s, words.step_s * math.ceil(max(0.0, seconds) / words.step_s - 1e-6))

    def _answered(self, line: Line) -> None:
        """A line is said while a host question is open: a reminder or a repair (he hears it, and his time
        goes on after it), or the answer was taken — his time there is counted (each try, and `repair_s` for
        each repair)."""
        words, asked = self.host_words, self._open
        if words is None or asked is None:
            return
        if line.key == UNDONE or (asked.undoing and line.to == "host"):
            self._undoing(asked, line, words)
            return
        reminder = self._again(line)
        if asked.since is not None and (reminder or not asked.heard):
            asked.thinking += self.now_s() - asked.since  # his silence until the judge spoke (not the judge's
            # own time between his words and its answer)
        heard, asked.since, asked.heard = asked.heard, None, False
        if reminder:
            return
        if _repair(line):
            asked.read_backs += line.key == READ_BACK
            cost = words.read_back_s if line.key == READ_BACK else words.repair_s
            if heard or not asked.costs:  # the judge's first line after his words: a repair of its own
                asked.costs.append(cost)
            else:  # a batch of lines after one try ("好，请重新回答。" and a seat offered): one repair
                asked.costs[-1] = max(asked.costs[-1], cost)
            return
        if not heard:  # his last words were not signalled (`tried`): his last try ends here
            asked.tries.append(self._rounded(asked.thinking))
        self._open = None
        repairs = len(asked.tries) - 1
        costs = (asked.costs + [words.repair_s] * repairs)[:repairs]  # a repair not told apart: `repair_s`
        took = sum(asked.tries) + sum(costs)
        question = asked.line
        word = self._word
        if question.public_ask and not self._timed:
            self._timed = True
            tries = [t for i, t in enumerate(asked.tries) if i not in asked.walked]  # an undo: its shortest
            costs = [c for i, c in enumerate(costs) if i not in asked.walked]  # round (`_Asked.walked`)
            self.answer_s = max(self.answer_s, tries[0])
            confirmed = min(asked.read_backs, 1) if word is not None and word.confirms else 0  # allowed there
            hidden = words.repairs + self._expected  # what the bound hides (beyond the ear's own read-backs)
            again = tries[1:len(tries) - confirmed][:hidden + 1]  # his 对 to a 过 read back
            if again:  # is not measured: whether 过 was said there is a secret (空刀)
                self.again_s = max(again if self.again_s is None else [self.again_s, *again])
            self.repairs = max(self.repairs, min(len(tries) - 1 - confirmed, hidden + 1))
            cost = sum(costs[:hidden + 1 + confirmed]) - confirmed * words.read_back_s
            self.repair_cost = max(self.repair_cost, cost)
        if word is not None and question.to == "host" and question.key.startswith("prompts.") and \
                (question.key, question.text) not in word.asked:
            word.asked.add((question.key, question.text))
            word.took.append(took)

    def _undoing(self, asked: _Asked, line: Line, words: HostWords) -> None:
        """A line of an undo round at the open question: "已撤销上一个回答。", the answers taken back asked
        again, their lines, and the question he was at asked again, which ends the round. Each try in it is one
        more try at that question, each batch of the judge's lines after one a repair (`repair_s`; a read-back of
        an answer given again `read_back_s`): an undo is a repair, hidden up to his measured repairs and the
        bound like any other (the module docstring)."""
        if asked.since is not None and not asked.heard:
            asked.thinking += self.now_s() - asked.since
        heard, asked.since, asked.heard = asked.heard, None, False
        asked.undoing = line.key == UNDONE or not _same(line, asked.line)
        cost = words.read_back_s if line.key == READ_BACK else words.repair_s  # by kind, as any repair's
        if heard or not asked.costs:
            asked.costs.append(cost)
            asked.rounds += 1
            if asked.rounds > 2:  # past the answer taken back and the question again: a step walked back over
                asked.walked.append(len(asked.costs) - 1)
        else:
            asked.costs[-1] = max(asked.costs[-1], cost)

    def _again(self, line: Line) -> bool:
        """A reminder while the host's answer is timed: "请回答", the question again, the table's line again."""
        question, word = (self._open.line if self._open is not None else None), self._word
        return line.key == "listening.remind" or (question is not None and _same(line, question)) or \
            (word is not None and _same(line, word))

    def _cue_frames(self, cue: str | None) -> int:
        if self.mixer is not None or cue is None:
            return self.mixer.cue_frames(cue) if self.mixer is not None else 0
        if self._cues is None:  # no speaker: time the cue as the default sounds would play it
            from narrator.audio.beds import CUE_NAMES, load_sounds

            sounds = load_sounds()
            self._cues = {name: len(sounds[name]) for name in CUE_NAMES}
        return self._cues[cue]

    def _class(self, line: Line) -> str:
        """The pacing class of a table line's hold: pacing.yaml's `lines:` by key, else the line's own
        `pause`; on night 1 the first hold after a step opens (an `eyes_open` line) of a class in
        `night1:` is drawn from its replacement (the host also identifies who opened their eyes)."""
        name = self.line_classes.get(line.key, line.pause)
        if name == "eyes_open":
            self._opened = True
        elif self._opened:
            self._opened = False
            if self.phase == "night1":
                return self.night1.get(name, name)
        return name

    def _begin_phase(self, bed: str) -> None:
        if bed == "night":
            self.nights += 1
            self.phase = f"night{self.nights}"
        else:
            self.days += 1
            self.phase = f"day{self.days}"
        self._table_pacer = Pacer(sub_seed(self.seed, "table." + self.phase), self.table)

    def resume_at(self, phase: str) -> None:
        """Continue a resumed game's counting of nights and days (phase "night2", "day3", …)."""
        kind, n = phase.rstrip("0123456789"), int(phase[len(phase.rstrip("0123456789")):] or 0)
        if kind not in ("night", "day") or n < 1:
            raise ValueError(f"phase must be like night2 or day3, got {phase!r}")
        self.nights, self.days = (n - 1, n - 1) if kind == "night" else (n, n - 1)
        self._begin_phase(kind)

    # --- waiting ----------------------------------------------------------------------------------------

    def said_s(self) -> float:
        """s when everything said so far will have been heard (both channels' last speech ends)."""
        return max(self._said.values()) / SR

    def ready(self) -> float:
        """Wait until the table and the host have heard every line said so far; returns the time (s).
        The table's hold after its last line goes on: it only delays the next table line."""
        self.wait_until(self.said_s())
        self._wait_played()
        self._asked()
        return self.now_s()

    def hold_remaining_s(self) -> float:
        """s until the table's next line may start (what is left of the current hold)."""
        return max(0.0, self._table_free() / SR - self.now_s())

    def hold(self) -> float:
        """Wait until the table's current hold is over (e.g. the hands stay up for the vote's `countdown`
        hold before the host reads the result); returns the time (s)."""
        self.wait_until(self._table_free() / SR)
        return self.now_s()

    def settle(self) -> float:
        """Wait until both channels are silent, holds included; returns the time (s)."""
        self.wait_until(max(self._table_free(), self._end["host"]) / SR, wake=False)  # nobody is waited for
        self._wait_played()
        return self.now_s()

    def _wait_played(self) -> None:
        """Live: the device may lag the clock; also wait until the mixer has played the last lines."""
        if self.player is None:
            return
        deadline = self.clock.now() + _LATE_S
        while self.clock.now() < deadline:
            self.player.check()
            if all(t is None or t.speech_end_frame is not None for t in self._tickets.values()):
                break
            self.clock.sleep(_POLL_S)
        self.clock.sleep(self.player.output_latency_s)
        self.pump()
