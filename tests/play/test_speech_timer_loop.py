"""The day, timed by the live loop: each speech gets `speech_seconds`, "还剩十五秒" 15 s before the end and
"时间到" at the end; 过 ends a speech early; 暂停 / 继续 stop and restart its clock. On a fake clock, through
the real Conductor (no sound device: table lines are recorded when they would start)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from play_testkit import SCENARIOS

from narrator.audio.conductor import Conductor
from narrator.common.clock import FakeClock
from narrator.judge.lines import Line
from narrator.listen.grammar import WAKE_KINDS
from narrator.play.ears import Heard, InputEnded
from narrator.play.loop import Live
from narrator.play.scripted import host_script
from narrator.session.session import Session
from narrator.sim.scenario import Scenario


class TimedMouth:
    playing = None  # nothing is played: the lines are timed on the fake clock

    def __init__(self, clock: FakeClock) -> None:
        self.heard_at: list[tuple[float, str]] = []
        self.table: list[tuple[float, str]] = []
        self.conductor = Conductor(None, clock, lambda line: np.zeros(2400 * len(line.text), np.float32),
                                   seed=1, on_table=self.record, on_host=self.record)

    def record(self, line: Line) -> None:
        self.heard_at.append((self.conductor.now_s(), line.text))
        if line.to == "all":
            self.table.append(self.heard_at[-1])

    def say(self, line: Line) -> None:
        self.conductor.say([line])

    def heard(self) -> None:
        self.conductor.ready()

    def reopen(self) -> bool:
        return True

    def close(self) -> None: ...

    has_earpiece = False

    def show(self, line: Line) -> None: ...
    def set_volume(self, gain: float) -> None: ...

    def cue_host(self, cue: str) -> bool:
        return False

    def rest(self) -> bool:
        return False


class PacedEar:
    """The host's words; a number is that many seconds of silence (the fake clock moves on)."""

    def __init__(self, clock: FakeClock, script: list[str | float]) -> None:
        self.clock, self.script = clock, list(script)

    def listen(self, prompt: object, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if not self.script:
            raise InputEnded()
        item = self.script[0]
        if isinstance(item, str):
            self.script.pop(0)
            return Heard(item)
        step = item if timeout_s is None else min(item, timeout_s)
        self.clock.advance(step)
        if item - step <= 1e-9:
            self.script.pop(0)
        else:
            self.script[0] = item - step
        return None

    def follow(self, playing: object) -> None: ...
    def close(self) -> None: ...
    def ended(self) -> bool:
        return False  # the words running out end the input (InputEnded)

    def microphones(self) -> list[object]:
        return []

    def check_words(self, prompts: object, max_seat: int) -> None: ...
    def set_mode(self, mode: str) -> None: ...


def timed_day(edit: Callable[[list[str | float], int], None]) -> tuple[Session, TimedMouth]:
    """Scenario 010 played through the live loop on a fake clock, the host's words changed by `edit(words,
    first)` (`first`: the index in the scenario's utterances of day 1's first 过 at a speech — the night's
    victim's last words, then the speeches; numbers in the words are seconds of silence). The game must end
    as the scenario does."""
    scenario = Scenario.load(SCENARIOS / "010_parity_win.yaml")
    scripted = host_script(scenario)
    words: list[str | float] = ["开始", *scripted.utterances]
    edit(words, next(i for i, kind in enumerate(scripted.kinds) if kind in WAKE_KINDS))
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    live = Live(session, mouth, PacedEar(clock, words), now=clock.now, clock=clock, poll_s=0.5)
    assert live.run().code == 0
    assert session.game.journal == scripted.game.journal
    return session, mouth


def test_speeches_are_timed_passed_and_paused() -> None:
    # 200 s of silence: the last words and then 2号's speech both run to 时间到; 3号 pauses for 5 minutes,
    # goes on, and ends with 过; the rest say 过 at once.
    def pauses(words: list[str | float], first: int) -> None:
        words[first + 1:first + 3] = [200.0, "暂停", 300.0, "继续", 10.0, "过"]

    session, mouth = timed_day(pauses)
    said = mouth.heard_at
    speech = [i for i, (_, text) in enumerate(said) if text.endswith("发言。") and text.startswith("请")]
    start = said[speech[0]][0]
    warn = next(t for t, text in said[speech[0]:] if text == "还剩十五秒。")
    up = next(t for t, text in said[speech[0]:] if text == "时间到。")
    seconds = session.setup.rules.speech_seconds
    assert abs((warn - start) - (seconds - 15)) < 3.0  # measured from when "请N号发言" was heard
    assert abs((up - start) - seconds) < 3.0
    # The second speech lasted 5 minutes of pause plus 10 s: no 时间到 for it, and 过 ended it.
    second_start = said[speech[1]][0]
    third_start = said[speech[2]][0]
    assert third_start - second_start > 300
    assert not any(text == "时间到。" for t, text in said if second_start < t < third_start)


def test_words_not_understood_never_end_a_speech_and_time_up_moves_the_game_on() -> None:
    """Heard mid-speech but not a command ("我觉得三号是狼"): the speech runs to 时间到 and the game goes
    on by itself — no 请回答 reminders, no waiting."""
    def talks(words: list[str | float], first: int) -> None:
        words[first + 1:first + 1] = ["我觉得三号是狼", 100.0, "今天天气不错", 200.0]

    _, mouth = timed_day(talks)
    texts = [text for _, text in mouth.heard_at]
    assert texts.count("时间到。") >= 1 and "请回答。" not in texts



def night_table(words: list[str | float], scripted: object) -> list[tuple[float, str]]:
    clock = FakeClock()
    mouth = TimedMouth(clock)
    game = scripted.game  # type: ignore[attr-defined]
    session = Session(game.setup, game.seed)
    Live(session, mouth, PacedEar(clock, words), now=clock.now, clock=clock, poll_s=0.5).run()
    table = mouth.table
    start = next(i for i, (_, text) in enumerate(table) if text == "天黑请闭眼。")
    end = next(i for i, (_, text) in enumerate(table) if text.startswith("天亮了"))
    t0 = table[start][0]
    return [(round(t - t0, 3), text) for t, text in table[start:end + 1]]


def test_a_quick_host_and_a_slow_one_sound_the_same_at_night() -> None:
    """Fair play through the loop: the host answering each night question after 0.2 s or after 3.5 s makes
    no difference to when the table hears the night's lines (both within the host's words' `floor_s`; a
    slower host slows every step alike: tests/test_fair_host_speed.py)."""
    scenario = Scenario.load(SCENARIOS / "010_parity_win.yaml")
    scripted = host_script(scenario)
    night = scripted.utterances[:scripted.utterances.index("没有")]  # night 1's answers, up to the election

    def paced(delay: float) -> list[str | float]:
        out: list[str | float] = ["开始"]
        for word in night:
            out += [delay, word]
        return out + scripted.utterances[len(night):]

    quick, slow = night_table(paced(0.2), scripted), night_table(paced(3.5), scripted)
    assert [text for _, text in quick] == [text for _, text in slow]
    assert quick == slow
