"""The Session: the verbs every front end drives, checked replay, and why a game ended."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from narrator.engine import events as ev
from narrator.engine.answers import Pass, Seats, YesNo
from narrator.engine.game import Game, ReplayDiverged
from narrator.engine.roles import FOLK, GODS, Camp
from narrator.judge.presets import make_setup, preset_names
from narrator.judge.script import LANGS, Script
from narrator.session.session import Accepted, Refused, Session
from narrator.sim.autohost import AutoHost, Deal


def random_session(name: str, seed: int, lang: str = "zh-Hans") -> Session:
    setup = make_setup(name)
    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    session = Session(setup, seed, lang=lang)
    while session.prompt is not None:
        result = session.submit(host.answer(session.game, session.prompt))
        assert isinstance(result, Accepted)
    return session


# ---- why the game ended ---------------------------------------------------------------------------------


def test_every_termination_has_a_line_in_both_scripts() -> None:
    for lang in LANGS:
        script = Script(lang)
        for why in ev.TERMINATIONS:
            assert script.line("terminations", why).text, (lang, why)
        assert set(script.keys("terminations")) == set(ev.TERMINATIONS), lang


def test_the_termination_matches_the_end() -> None:
    seen: Counter[str] = Counter()
    for i, name in enumerate(preset_names()):
        for seed in range(20):
            s = random_session(name, 1000 * i + seed)
            end = s.game.journal[-1]
            assert isinstance(end, ev.GameEnded) and s.termination == end.termination
            state, why = s.game.state, end.termination
            seen[why] += 1
            living = [state.roles.get(x) for x in state.alive]
            wolves = [x for x in state.alive if state.is_wolf(x)]
            expected_camp = {"wolves_dead": Camp.GOOD, "lovers": Camp.LOVERS, "piper": Camp.PIPER}.get(why, Camp.WOLVES)
            if why == "wolves_dead":
                assert not wolves
            elif why == "gods_dead":
                assert not any(r in GODS for r in living)
            elif why == "villagers_dead":
                assert not any(r in FOLK for r in living)
            if state.rules.wolf_kill_first or why == "wolves_dead":
                assert end.winner is expected_camp, (name, seed, why, end.winner)
            # the judge says it after the winner
            lines = [x.key for x in Session(s.setup, s.seed).judge.event_lines(end, state)]
            assert lines[:2] == ["events.game_ended", f"terminations.{why}"]
    assert {"wolves_dead", "gods_dead", "villagers_dead"} <= set(seen), seen


# ---- checked replay -------------------------------------------------------------------------------------


def test_replay_pairs_each_answer_with_its_prompt_kind() -> None:
    s = random_session("12人预女猎白", 5)
    answers = list(s.answers)
    assert Game.replay(s.setup, s.seed, answers).journal == s.game.journal
    i = next(i for i in range(10, len(answers)) if answers[i][0] != answers[i + 1][0])
    dropped = answers[:i] + answers[i + 1 :]  # one answer lost: the next one meets another kind of prompt
    with pytest.raises(ReplayDiverged) as info:
        Game.replay(s.setup, s.seed, dropped)
    assert (info.value.index, info.value.expected, info.value.got) == (i, answers[i + 1][0], answers[i][0])
    assert f"answer {i + 1}:" in str(info.value)
    with pytest.raises(ReplayDiverged) as over:
        Game.replay(s.setup, s.seed, [*answers, ("speech.end", Pass())])
    assert over.value.got == "" and over.value.index == len(answers)


def test_replay_refuses_an_answer_its_prompt_refuses() -> None:
    s = random_session("12人预女猎白", 6)
    kind, _ = s.answers[0]
    with pytest.raises(ReplayDiverged) as info:
        Game.replay(s.setup, s.seed, [(kind, Seats((13,)))])
    assert info.value.refusal is not None and info.value.refusal.code == "seat.no_such"


# ---- the verbs ------------------------------------------------------------------------------------------


def test_words_are_parsed_refused_or_not_understood() -> None:
    s = Session(make_setup("12人预女猎白"), 1)
    first = s.take_lines()
    assert first and first[0].key == "events.game_started" and s.take_lines() == []
    assert s.prompt is not None and s.prompt.kind == "wolves.identify"
    nonsense = s.submit("今天天气不错")
    assert isinstance(nonsense, Refused) and not nonsense.understood and nonsense.line.to == "host"
    wrong = s.submit(YesNo(True))
    assert isinstance(wrong, Refused) and wrong.understood and wrong.refusal.code == "answer.wrong_kind"
    assert wrong.kind == "wolves.identify" and not s.answers
    ok = s.submit("一号 二号 三号 四号")
    assert isinstance(ok, Accepted) and s.answers == [("wolves.identify", Seats((1, 2, 3, 4)))]


def test_a_day_refusal_is_said_to_the_table() -> None:
    setup = make_setup("12人预女猎白")
    rng = random.Random(2)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    s = Session(setup, 2)
    while s.prompt is not None and (s.night or s.prompt.secret):
        s.submit(host.answer(s.game, s.prompt))
    assert s.prompt is not None and not s.prompt.secret
    refused = s.submit(Seats((13,)))
    assert isinstance(refused, Refused) and refused.line.to == "all" and refused.refusal.code
    over = random_session("12人预女猎白", 3)
    gone = over.submit("七号")
    assert isinstance(gone, Refused) and gone.kind == "" and gone.refusal.code == "game.over"


def test_take_lines_says_every_prompt_even_when_read_late() -> None:
    """Lines read after each answer, or all at once at the end, are the same lines in the same order."""
    setup = make_setup("12人白狼王守卫")
    eager, late = Session(setup, 9), Session(setup, 9)
    rng = random.Random(9)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    said: list[object] = []
    while eager.prompt is not None:
        said += eager.take_lines()
        answer = host.answer(eager.game, eager.prompt)
        eager.submit(answer)
        late.submit(answer)
    said += eager.take_lines()
    assert late.take_lines() == said and eager.take_lines() == []


def test_undo_takes_back_and_asks_again() -> None:
    setup = make_setup("12人预女猎白")
    s = Session(setup, 4)
    rng = random.Random(4)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    assert not s.undo()
    for _ in range(30):
        s.take_lines()
        assert s.prompt is not None
        s.submit(host.answer(s.game, s.prompt))
    before = list(s.answers)
    kind = before[-1][0]
    s.take_lines()
    assert s.undo()
    assert s.answers == before[:-1] and s.prompt is not None and s.prompt.kind == kind
    again = s.take_lines()
    asked = [x for x in s.judge.prompt_lines(s.prompt, s.game.state) if x.text]
    assert [x.text for x in again] == [x.text for x in asked]
    assert all(x.to == "host" for x in again)  # the table heard it: asked again on the host's channel alone
    assert again and s.take_lines() == []


def test_status_tells_a_console_where_the_game_stands() -> None:
    s = random_session("12人预女猎白", 8)
    st = s.status()
    assert st.phase == "over" and st.prompt is None and st.winner is s.winner
    assert set(st.alive) | set(st.dead) == set(range(1, 13)) and st.termination == s.termination
    fresh = Session(make_setup("12人预女猎白"), 8).status()
    assert fresh.phase == "night" and fresh.night == 1 and fresh.potions == ("antidote", "poison")
    assert fresh.prompt == "wolves.identify" and len(fresh.alive) == 12
