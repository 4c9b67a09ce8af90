"""The timing core on a FakeClock: table holds, host lines after the table, fair nights, the tape."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
from audio_testkit import SR, host_tone, tone_level, voiced_burst

from narrator.audio.beds import builtin_sounds
from narrator.audio.conductor import Conductor
from narrator.audio.mixer import Mixer
from narrator.audio.pacing import load_pacing
from narrator.audio.render import Tape
from narrator.audio.timeline import Placed
from narrator.common.clock import FakeClock
from narrator.judge.lines import Line

NIGHT = Line("天黑请闭眼。", key="night_fell", pause="long", bed="night")
WOLF_OPEN = Line("狼人请睁眼。", key="steps.wolves.open", pause="eyes_open")
WOLF_ASK = Line("你们今晚要杀谁？", key="steps.wolves.ask", pause="action")
WOLF_CLOSE = Line("狼人请闭眼。", key="steps.wolves.close", pause="eyes_close")
WITCH_OPEN = Line("女巫请睁眼。", key="steps.witch.open", pause="eyes_open")
WITCH_SAVE = Line("你要救吗？", key="steps.witch.ask_save", pause="action")
WITCH_POISON = Line("你要用毒药吗？", key="steps.witch.ask_poison", pause="action")
WITCH_CLOSE = Line("女巫请闭眼。", key="steps.witch.close", pause="eyes_close")
DAWN = Line("天亮了，请大家睁眼。", key="day_broke", pause="long", cue="dawn", bed="day")
KILL_Q = Line("狼人刀了谁？空刀请说空刀。", to="host", key="prompts.wolves.kill")
KILLED = Line("狼人今晚刀了七号。", to="host", key="events.wolves_chose_victim")
SAVE_Q = Line("今晚被刀的是七号。女巫救不救？", to="host", key="prompts.witch.save")
POISON_Q = Line("女巫毒谁？不用请说不用。", to="host", key="prompts.witch.poison")
DAY_TALK = Line("请一号发言。", key="prompts.speech.end", pause="short")


def voice(line: Line) -> np.ndarray:
    """Deterministic clips: a host tone for host lines, a vowel for table lines, 0.12 s per character."""
    seconds = 0.12 * len(line.text)
    return host_tone(seconds) if line.to == "host" else voiced_burst(seconds)


def conductor(seed: int = 5, tape: Tape | None = None, mixer: Mixer | None = None) -> Conductor:
    mixer = mixer or (tape.mixer if tape is not None else Mixer(builtin_sounds()))
    if tape is None:
        tape = Tape(mixer)  # pulls and forgets: the mixer's queues stay short, as live
    return Conductor(mixer, FakeClock(), voice, seed=seed, tape=tape)


def answer(c: Conductor, delay_s: float) -> None:
    """The host hears the question and answers `delay_s` seconds later."""
    c.ready()
    c.wait_until(c.now_s() + delay_s)


def night(c: Conductor, *, delay_s: float = 0.8, wolves: bool = True, witch: bool = True,
          extra_host: int = 0) -> None:
    """A night of two steps; the witch step has two table questions (a mid-step public line)."""
    c.say([NIGHT, WOLF_OPEN, WOLF_ASK])
    if wolves:
        c.say([KILL_Q])
        answer(c, delay_s)
        c.say([KILLED])
    c.say([WOLF_CLOSE, WITCH_OPEN, WITCH_SAVE])
    if witch:
        c.say([SAVE_Q])
        answer(c, delay_s)
    c.say([WITCH_POISON])
    if witch:
        c.say([POISON_Q])
        answer(c, delay_s)
    c.say([KILLED] * extra_host)  # read-backs: the host hears them while the table moves on
    c.say([WITCH_CLOSE, DAWN])


def table(c: Conductor) -> list[tuple[str, float, float]]:
    return [(p.line.key, round(p.start_s, 6), round(p.said_s, 6)) for p in c.timeline if p.line.to == "all"]


def by_key(c: Conductor, key: str) -> Placed:
    return next(p for p in c.timeline if p.line.key == key)


def test_a_host_line_never_starts_before_the_table_line_before_it_has_finished() -> None:
    c = conductor()
    c.say([NIGHT, WOLF_OPEN, WOLF_ASK, KILL_Q])
    ask, q = by_key(c, WOLF_ASK.key), by_key(c, KILL_Q.key)
    assert q.start_s == ask.said_s > 0  # the host channel was free from 0:00, yet the prompt waits
    assert q.start_s < ask.end_s  # … and it fills the table's hold, it does not wait for it


def test_the_table_never_waits_for_host_audio_at_night() -> None:
    quiet, chatty = conductor(), conductor()
    night(quiet)
    night(chatty, extra_host=30)  # thirty more read-backs on the host channel: a minute of host-only speech
    assert table(quiet) == table(chatty)


@pytest.mark.parametrize("other", [{"delay_s": 0.2}, {"delay_s": 5.0}, {"witch": False}, {"wolves": False},
                                   {"wolves": False, "witch": False}])
def test_a_night_sounds_the_same_whoever_is_alive_and_however_fast_the_host_answers(other: dict) -> None:
    reference, changed = conductor(), conductor()
    night(reference)
    night(changed, **other)
    assert table(reference) == table(changed)


def test_a_step_closes_no_earlier_than_its_drawn_hold_and_later_only_for_a_host_slower_than_it() -> None:
    pacing = load_pacing()
    first = pacing["action_first"]
    for delay in (0.2, 5.0, 30.0):
        c = conductor()
        c.say([NIGHT, WOLF_OPEN, WOLF_ASK, KILL_Q])
        answer(c, delay)
        answered = c.now_s()
        c.say([WOLF_CLOSE])
        ask, close = by_key(c, WOLF_ASK.key), by_key(c, WOLF_CLOSE.key)
        assert first.low_s <= ask.end_s - ask.said_s <= first.high_s  # night 1 draws from action_first
        if delay == 30.0:  # a host slower than the hold: the step waits for him, and no longer
            assert ask.end_s < answered == pytest.approx(close.start_s, abs=1 / SR)
        else:
            assert close.start_s == ask.end_s
    assert pacing["action"].high_s < first.low_s


def test_later_nights_do_not_depend_on_the_day_before() -> None:
    short_day, long_day = conductor(), conductor()
    for c, speeches in ((short_day, 1), (long_day, 9)):
        night(c)
        for _ in range(speeches):
            c.say([DAY_TALK])
            answer(c, 0.5)
        night(c, witch=speeches == 1)
    def second_night(c: Conductor) -> list[float]:
        lines = [p for p in c.timeline if p.line.to == "all" and p.phase == "night2"]
        return [round(p.start_s - lines[0].start_s, 6) for p in lines]
    assert second_night(short_day) == second_night(long_day)
    assert by_key(short_day, DAY_TALK.key).phase == "day1"


def test_host_pauses_and_table_holds_are_separate_streams() -> None:
    a, b = conductor(seed=1), conductor(seed=1)
    a.say([NIGHT, WOLF_OPEN])
    b.say([KILLED, KILLED, NIGHT, WOLF_OPEN])  # host draws first: the table's draws do not move
    assert [p.end_s - p.said_s for p in a.timeline] == [p.end_s - p.said_s for p in b.timeline if p.line.to == "all"]


def test_without_an_earpiece_host_lines_go_to_the_console_when_due() -> None:
    printed: list[tuple[float, str]] = []
    mixer = Mixer(builtin_sounds())
    clock = FakeClock()
    c = Conductor(mixer, clock, voice, seed=2, tape=Tape(mixer))
    c.host_audio, c.on_host = False, lambda line: printed.append((c.now_s(), line.text))
    c.say([NIGHT, WOLF_OPEN, WOLF_ASK, KILL_Q])
    assert printed == []  # not before the table has heard 你们今晚要杀谁？
    c.ready()
    ask = by_key(c, WOLF_ASK.key)
    assert printed == [(pytest.approx(ask.said_s, abs=1e-3), KILL_Q.text)]
    assert mixer.is_drained("host")  # nothing of it was queued for any speaker


def test_resumed_game_counts_nights_on() -> None:
    c = conductor()
    c.resume_at("day2")
    c.say([NIGHT])
    assert c.timeline[-1].phase == "night3"
    c.resume_at("night2")
    assert c.phase == "night2"
    c.say([DAWN])
    assert c.timeline[-1].phase == "day2"
    with pytest.raises(ValueError, match="night2"):
        c.resume_at("evening")


def test_the_tape_writes_what_the_conductor_placed(tmp_path: Path) -> None:
    mixer = Mixer(builtin_sounds())
    tape = Tape(mixer, tmp_path / "t.wav", tmp_path / "h.wav", keep=True)
    c = conductor(tape=tape)
    night(c)
    c.settle()
    rendered = tape.close(c.timeline)
    for name, kept in (("t.wav", rendered.public), ("h.wav", rendered.host)):
        with wave.open(str(tmp_path / name)) as w:
            samples = np.frombuffer(w.readframes(w.getnframes()), "<i2") / 32767.0
        assert len(samples) == len(kept) == rendered.frames
        np.testing.assert_allclose(samples, kept, atol=1 / 32767 + 1e-6)
    host = rendered.host
    inside = np.zeros(len(host), bool)
    for p in c.timeline:
        if p.line.to == "host":
            a, b = round(p.speech_s * SR), round(p.said_s * SR)
            inside[a:b] = True
            assert tone_level(host[a:b], 7000.0) > 0.2, p.line.text  # the host line is where it was placed
    assert np.all(host[~inside] == 0)  # and nothing else is on the host channel
    assert tone_level(rendered.public, 7000.0) < 1e-3  # nothing of it at the table
    dawn = by_key(c, DAWN.key)
    assert dawn.speech_s - dawn.start_s == pytest.approx(len(builtin_sounds()["dawn"]) / SR, abs=1 / SR)
    assert rendered.duration_s == pytest.approx(dawn.end_s + mixer.config.bed_crossfade_s, abs=1 / SR)


def test_without_any_speaker_every_line_is_handed_out_when_it_would_be_heard() -> None:
    clock = FakeClock()
    heard: list[tuple[float, str, str]] = []
    c = Conductor(None, clock, voice, seed=5, on_host=lambda line: heard.append((c.now_s(), "host", line.text)),
                  on_table=lambda line: heard.append((c.now_s(), "all", line.text)))
    reference = conductor()
    for x in (c, reference):
        night(x)
        x.settle()
    assert table(c) == table(reference)  # the same shape as when it is played
    assert [(round(t, 6), text) for t, ch, text in heard if ch == "all"] == [
        (round(p.start_s, 6), p.line.text) for p in c.timeline if p.line.to == "all"]
    assert len([h for h in heard if h[1] == "host"]) == len([p for p in c.timeline if p.line.to == "host"])


def test_hold_waits_out_the_table_hold_and_nothing_more() -> None:
    c = conductor()
    vote = Line("请大家举手投票。", key="prompts.vote.exile", pause="countdown")
    c.say([DAWN, vote])
    heard = c.ready()
    placed = by_key(c, vote.key)
    assert heard == pytest.approx(placed.said_s, abs=1 / SR)
    assert c.hold_remaining_s() == pytest.approx(placed.end_s - placed.said_s, abs=1 / SR)
    assert c.hold_remaining_s() >= 4.0  # the countdown class: hands stay up at least 4 s
    assert c.hold() == pytest.approx(placed.end_s, abs=1 / SR)
    assert c.hold_remaining_s() == 0.0
