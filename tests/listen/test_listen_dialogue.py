"""The ear's dialogue, in text: repairs by voice, refusals, reminders, and secrecy first."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from narrator.common.clock import FakeClock
from narrator.engine.answers import Ballots, Seats, YesNo
from narrator.engine.game import Accepted, Game
from narrator.listen.dialogue import Dialogue, DialogueConfig, doubtful, irreversible
from narrator.listen.grammar import load_pack
from narrator.sim.autohost import AutoHost

from .listenkit import Said, ScriptedEar, Step, auto_until, table, voice, words


def dialogue(session: object, script: list[Step], **cfg: object) -> tuple[Dialogue, ScriptedEar, Said]:
    clock = FakeClock()
    ear = ScriptedEar(script, clock)
    said = Said()
    return Dialogue(session, ear, said, clock, DialogueConfig(**cfg)), ear, said  # type: ignore[arg-type]


def test_a_typed_kill_is_taken_at_once_and_a_night_refusal_goes_to_the_host_only() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    before = list(session.game.journal)
    d, _, said = dialogue(session, ["十五号", "听不懂的话", "七号"])
    result = d.answer()
    assert isinstance(result, Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats((7,)))
    assert said.public() == []  # two refusals, at night: the host hears them, the table hears nothing
    assert len(said.host()) == 2 and "十二" in said.host()[0]
    assert session.game.journal[: len(before)] == before


def test_a_refused_answer_changes_nothing() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill", {})
    session.submit("五号")  # the wolves kill the witch: she may not save herself (default rules)
    auto_until(session, deal, "witch.save")
    assert session.prompt is not None and session.prompt.kind == "witch.save"
    journal, answers = list(session.game.journal), list(session.answers)
    d, _, said = dialogue(session, ["救", lambda: check(), "不救"])

    def check() -> None:
        assert session.game.journal == journal and session.answers == answers

    assert isinstance(d.answer(), Accepted)
    assert said.public() == [] and said.host()


def test_two_readings_of_a_kill_are_a_choice_then_a_read_back_to_the_host() -> None:
    """七号 or 一号: the judge asks which (the ear then listens for those two seats only), reads the choice
    back and takes it on 对 — all in the earpiece."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    close = voice(("七号", 100.0), ("一号", 99.0))
    d, _, said = dialogue(session, [close, lambda: none_yet(), voice(("七号", 100.0)), "对"])

    def none_yet() -> None:
        assert session.prompt is not None and session.prompt.kind == "wolves.kill"
        assert d.gathered.listening().seats == (1, 7)  # the grammar holds the two seats alone

    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats((7,)))
    assert said.host() == ["是七号还是一号？", "七号，对吗？"] and said.public() == []


def test_a_reading_that_means_nothing_gives_way_to_the_next_legal_one_read_back() -> None:
    """The best reading means nothing (a stray word at its end), the second names a seat that cannot be
    killed, the third is legal: it is read back — even with no read-back policy for it — and needs 对."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    garbled = voice(("七号 열", 100.0), ("十五号", 99.0), ("七号", 98.0))
    d, _, said = dialogue(session, [garbled, lambda: none_yet(), "对"], read_back="doubt")

    def none_yet() -> None:
        assert session.prompt is not None and session.prompt.kind == "wolves.kill"

    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats((7,)))
    assert said.host() == ["七号，对吗？"] and said.public() == []
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    nothing = voice(("七号 열", 100.0), ("十五号", 99.0))  # no legal reading: refused as before
    d, _, said = dialogue(session, [nothing, "七号"], read_back="doubt")
    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("wolves.kill", Seats((7,)))
    assert len(said.host()) == 1 and "对吗" not in said.host()[0]


def test_no_replaces_a_read_back_and_a_new_answer_replaces_it_too() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    a = voice(("七号", 100.0))
    b = voice(("三号", 100.0))
    d, _, said = dialogue(session, [a, "不对", b, "不对，九号"])
    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats((9,)))  # typed: never in doubt
    assert said.host() == ["七号，对吗？", "好，请重新回答。", "三号，对吗？"]


def test_a_clear_reading_is_not_read_back_unless_configured() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    clear = voice(("七号", 100.0), ("七 号", 99.9), ("一号", 80.0))
    d, _, said = dialogue(session, [clear], read_back="doubt", seat_doubt="score")
    assert isinstance(d.answer(), Accepted) and said == []
    session2, _ = table()
    auto_until(session2, deal, "wolves.kill")
    d2, _, said2 = dialogue(session2, ["七号", "确认"], read_back="always")
    assert isinstance(d2.answer(), Accepted)
    assert said2.host() == ["七号，对吗？"]


def test_by_default_every_spoken_irreversible_answer_is_read_back_to_the_host_at_night() -> None:
    """The recogniser returned one clear reading — "没有" taken as 三号 is exactly that case — and still
    nothing irreversible is taken without 对; the read-back goes to the earpiece (the host channel)."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    one_reading = voice(("三号", 100.0))
    d, _, said = dialogue(session, [one_reading, lambda: not_yet(), "不对", "七号"])

    def not_yet() -> None:
        assert session.prompt is not None and session.prompt.kind == "wolves.kill"

    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats((7,)))  # typed: never misheard, taken at once
    assert said.host() == ["三号，对吗？", "好，请重新回答。"] and said.public() == []
    # The seer's check decides the game as well: read back too. A reversible answer the recogniser does not
    # doubt (救 / 不救, one clear reading) is taken at once.
    auto_until(session, deal, "witch.save")
    d, _, said = dialogue(session, [voice(("不救", 100.0))])
    assert isinstance(d.answer(), Accepted) and said == []
    auto_until(session, deal, "seer.check", {"witch.poison": "没有"})
    d, _, said = dialogue(session, [voice(("一号", 100.0)), "对"])
    assert isinstance(d.answer(), Accepted) and said.host() == ["一号，对吗？"]


def test_read_back_policies() -> None:
    from narrator.engine.answers import Duel

    assert irreversible("speech.end", Duel(5, 3)) and not irreversible("speech.end")
    cases = (("always", "always", True, True), ("irreversible", "always", True, False),
             ("doubt", "always", True, False), ("always", "score", True, True),
             ("irreversible", "score", True, False), ("doubt", "score", False, False))
    for policy, seat_doubt, spoken, typed in cases:
        for said_as, read in ((voice(("七号", 100.0)), spoken), ("七号", typed)):
            session, deal = table()
            auto_until(session, deal, "wolves.kill")
            d, _, said = dialogue(session, [said_as, "对"], read_back=policy, seat_doubt=seat_doubt)
            assert isinstance(d.answer(), Accepted)
            assert (said.host() == ["七号，对吗？"]) is read, (policy, seat_doubt, said_as)


def test_yes_with_noise_beside_it_answers_a_read_back_and_an_offer() -> None:
    """The room (session 5): the host's 맞아 at the witch's read-back was read with a model's raw token beside 确认
    and refused ("没听懂，请说是或者不是"). 对 with nothing the host says beside it ([unk], a pause, a raw token) is
    a 对; with a host word beside it ("안 确认 不是") it is not."""
    session, deal = table()
    auto_until(session, deal, "witch.save", {"wolves.kill": "七号"})
    doubted = voice(("不救", 100.0), ("救", 99.0))
    d, _, said = dialogue(session, [doubted, voice(("안 确认 不是", 100.0)), voice(("안 确认", 100.0))])
    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("witch.save", YesNo(False))
    assert said.host() == ["不救，对吗？", "没听懂，请说是或者不是。"]
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, [voice(("一号 하나", 100.0)), voice(("是 是", 100.0)),
                                    voice(("确认 <pause> 确认", 100.0))])
    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("wolves.kill", Seats((1,)))
    assert said.host()[-1] == "是一号吗？说对或不对，也可以在键盘上按1和回车。"


def test_a_day_read_back_is_public_and_says_the_ballots() -> None:
    session, deal = table()
    auto_until(session, deal, "vote.exile", {
        "wolves.kill": "七号", "witch.save": "救", "seer.check": "一号", "sheriff.run": "没有",
        "sheriff.order": "警右"})
    d, _, said = dialogue(session, ["1 2 投 7号，3 投 5号", "对"], read_back="always")
    assert isinstance(d.answer(), Accepted)
    assert said.public() == ["一号、二号投七号，三号投五号，对吗？"]


def test_undo_takes_back_the_last_answer_and_asks_again_to_the_host_at_night() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    before = list(session.game.journal)
    d, _, _ = dialogue(session, ["三号"])
    assert isinstance(d.answer(), Accepted)
    session.take_lines()
    snapshot: list[object] = []
    d2, _, said2 = dialogue(session, ["撤销", lambda: snapshot.append(list(session.game.journal)), "七号"])
    assert isinstance(d2.answer(), Accepted)
    assert snapshot == [before]
    assert said2.public() == []
    assert said2.host()[0] == "已撤销上一个回答。" and said2.host()[1] == "狼人刀了谁？空刀请说空刀。"


def test_silence_asks_again_then_reminds_and_repeat_says_the_last_line() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    question = [x.text for x in session.judge.prompt_lines(session.game.prompt, session.game.state)]
    d, _, said = dialogue(session, [None, None, None, "重复", "七号"], ask_again_s=20, remind_s=8)
    assert isinstance(d.answer(), Accepted)
    texts = said.host()
    assert d.clock.now() == 20 + 8 + 8
    assert said.public() == []
    assert texts[1:3] == ["请回答。", "请回答。"]
    assert texts[0] == question[0] == "狼人刀了谁？空刀请说空刀。"
    assert texts[3] == texts[0]  # 重复 says the question again (a reminder is not a line worth repeating)


def test_pause_holds_answers_and_reminders_until_go_on() -> None:
    """Talk at the table while paused is not an answer; an answer typed on purpose is kept, said, and taken
    after 继续."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, ["暂停", voice(("八号", 100.0)), "七号", "继续", "八号"])
    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats((7,)))
    assert said.host() == ["已暂停，说“继续”接着进行。", "暂停中：这个回答记下了，说“继续”以后再处理。", "继续。"]


def test_nothing_heard_is_never_an_answer_and_an_ended_ear_returns_none() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    n = len(session.answers)
    d, _, _ = dialogue(session, [])
    assert d.answer() is None and len(session.answers) == n


def test_doubt_is_between_readings_meaning_different_answers() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    prompt = session.prompt
    assert prompt is not None
    pack = load_pack("zh")
    same = voice(("七号", 100.0), ("七 号", 99.9))
    other = voice(("七号", 100.0), ("一号", 98.0))
    far = voice(("七号", 100.0), ("一号", 90.0))
    unk = voice(("七号 [unk]", 100.0))
    assert not doubtful(same, prompt, pack, 3.0)
    assert doubtful(other, prompt, pack, 3.0) and not doubtful(far, prompt, pack, 3.0)
    assert doubtful(unk, prompt, pack, 3.0)
    assert irreversible("wolves.kill") and irreversible("vote.exile") and irreversible("badge.pass")
    assert irreversible("hunter.shoot") and irreversible("wolf_king.take") and irreversible("witch.poison")
    assert irreversible("seer.check") and irreversible("wolves.identify")  # they decide every later step
    assert not irreversible("witch.save") and not irreversible("speech.end")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["不对", "重复", "暂停", "继续", None]),
                          st.tuples(st.integers(1, 12), st.integers(1, 12), st.floats(0, 2.9))),
                max_size=8))
def test_a_doubtful_kill_is_never_accepted_without_yes(steps: list[object]) -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    n = len(session.answers)
    script: list[Step] = []
    for s in steps:
        if isinstance(s, tuple):
            a, b, gap = s
            script.append(voice((f"{a}号", 100.0), (f"{b if b != a else a % 12 + 1}号", 100.0 - gap)))
        else:
            script.append(s)  # type: ignore[arg-type]
    d, _, said = dialogue(session, script)
    d.answer()
    assert len(session.answers) == n, "a doubtful kill was taken without 对"
    assert said.public() == []


def same(answers: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """Answers compared by meaning: a vote record's order of groups is how it was said, not what."""
    return [(k, sorted(a.votes) if isinstance(a, Ballots) else a) for k, a in answers]


def test_every_wrong_answer_then_undo_leaves_the_journal_as_before() -> None:
    """A whole game: at each prompt a wrong (legal) answer is given, then 撤销, then the right one."""
    session, deal = table()
    rng = random.Random(3)
    host = AutoHost(deal, random.Random(5), explode_chance=0.0)
    drills = 0
    while session.prompt is not None and len(session.answers) < 120:
        prompt = session.prompt
        right = host.answer(session.game, prompt)
        wrong = None
        for _ in range(20):
            candidate = host.propose(session.game, prompt)
            if candidate != right and session.game.refusal(prompt, candidate) is None:
                trial = Game.replay(session.setup, session.seed, [*session.answers, (prompt.kind, candidate)])
                if trial.prompt is not None:
                    wrong = candidate
                    break
        session.take_lines()
        if wrong is None:
            assert isinstance(session.submit(right), Accepted)
            continue
        before, answers = list(session.game.journal), list(session.answers)
        d, _, said = dialogue(session, [words(wrong)], read_back="always" if rng.random() < 0.3 else "doubt")
        d.answer()  # accepted, or read back and left waiting (never taken without 对)
        if len(session.answers) > len(answers):
            session.take_lines()
            checks: list[bool] = []

            def check(checks: list[bool] = checks, before: list[object] = before) -> None:
                checks.append(session.game.journal == before)

            d, _, said = dialogue(session, ["撤销", check, words(right), "对"])
        else:
            checks = [session.game.journal == before]
            d, _, said = dialogue(session, ["不对", words(right), "对"], read_back="always")
        d.answer()
        assert checks == [True], prompt.kind
        assert same(session.answers) == same([*answers, (prompt.kind, right)])
        if session.night:
            assert said.public() == [], prompt.kind
        drills += 1
    assert drills >= 15


def test_a_refused_explosion_at_a_day_speech_is_told_to_the_host_alone() -> None:
    """"二号不是狼人，不能自爆" aloud would tell the table that 2 is good: only the host hears why."""
    session, deal = table()
    auto_until(session, deal, "speech.end", {
        "wolves.kill": "七号", "witch.save": "救", "seer.check": "一号", "sheriff.run": "没有"})
    assert session.prompt is not None and not session.night
    d, _, said = dialogue(session, ["二号自爆", "过"])
    assert isinstance(d.answer(), Accepted)
    assert said.public() == []
    assert said.host() == ["二号不是狼人，不能自爆。"]


def test_a_pause_where_people_talk_names_the_judge_as_configured() -> None:
    """"说“法官，继续”" with --judge-name 小狼 would tell the host a word the ear does not take there."""
    session, deal = table()
    auto_until(session, deal, "speech.end", {
        "wolves.kill": "七号", "witch.save": "救", "seer.check": "一号", "sheriff.run": "没有"})
    d, _, said = dialogue(session, ["暂停", "继续", "过"], judge_name="小狼")
    assert isinstance(d.answer(), Accepted)
    assert "已暂停，说“小狼，继续”接着进行。" in said.public() + said.host()
    d, _, said = dialogue(session, ["暂停", "继续", "过"])
    assert isinstance(d.answer(), Accepted)
    assert "已暂停，说“法官，继续”接着进行。" in said.public() + said.host()


def test_the_recogniser_s_own_tokens_never_reach_the_host() -> None:
    """"没听懂“하나”" would hand the host a word of the model; spoken words not understood are "没听懂"."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, [voice(("七号 하나", 100.0)), voice(("七号", 100.0)), "对"])
    assert isinstance(d.answer(), Accepted)
    assert said.host() == ["没听懂，请说座位号。", "七号，对吗？"]
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, ["七号 하나", "七号"])  # typed: the host's own words, said back as typed
    assert isinstance(d.answer(), Accepted) and said.host() == ["没听懂“하나”，请说座位号。"]


def test_a_seat_again_or_a_stray_word_is_refused_never_dropped() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, [voice(("四号 九号 四号", 100.0)), voice(("一号 三号 是", 100.0)),
                                    voice(("九号", 100.0)), "对"])
    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("wolves.kill", Seats((9,)))
    assert said.host() == ["四号说了两次，请把座位号重新说一遍。", "座位号后面多了“是”，请只说座位号。",
                           "是四号吗？说对或不对，也可以在键盘上按4和回车。",  # two misses: one seat at a time
                           "九号，对吗？"]  # he said the seat instead: read back


def test_while_a_read_back_waits_a_new_spoken_answer_is_read_back_too() -> None:
    """The host answers "七号，对吗？" with the right seat instead of 不对: it is read back, never taken."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, [voice(("七号", 100.0)), voice(("九号", 100.0)), lambda: not_yet(), "对"],
                          seat_doubt="score")
    wolves = session.prompt

    def not_yet() -> None:
        assert session.prompt is wolves

    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("wolves.kill", Seats((9,)))
    assert said.host() == ["七号，对吗？", "九号，对吗？"]


def test_under_any_policy_a_new_spoken_answer_at_a_read_back_is_read_back_not_taken() -> None:
    """Even where a clear spoken seat would be taken at once (`read_back=doubt`, `seat_doubt=score`), an answer
    given while a read-back waits ("七号，对吗？" → 九号) is read back: the host is correcting a misreading, and
    the recogniser that misread once may misread his correction."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    wolves = session.prompt
    d, _, said = dialogue(session, [voice(("七号", 100.0), ("没有", 99.0)), voice(("九号", 100.0)), lambda: not_yet(),
                                    "对"], read_back="doubt", seat_doubt="score")  # 七号 in doubt: read back

    def not_yet() -> None:
        assert session.prompt is wolves

    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("wolves.kill", Seats((9,)))
    assert said.host() == ["七号，对吗？", "九号，对吗？"]


def test_a_doubtful_reading_is_read_back_at_a_prompt_that_is_not_irreversible() -> None:
    """The N-best gap is read back whatever the prompt: 救 and 不救 within the gap at the witch's antidote (not
    an irreversible prompt) are read back and taken only on 对; the same words clear are taken at once."""
    session, deal = table()
    auto_until(session, deal, "witch.save", {"wolves.kill": "七号"})
    save = session.prompt
    d, _, said = dialogue(session, [voice(("不救", 100.0), ("救", 99.0)), lambda: not_yet(), "对"])

    def not_yet() -> None:
        assert session.prompt is save

    assert isinstance(d.answer(), Accepted) and said.host() == ["不救，对吗？"] and said.public() == []
    session2, deal2 = table()
    auto_until(session2, deal2, "witch.save", {"wolves.kill": "七号"})
    d2, _, said2 = dialogue(session2, [voice(("不救", 100.0), ("救", 90.0))])
    assert isinstance(d2.answer(), Accepted) and said2 == []


def test_a_read_back_always_says_what_was_heard() -> None:
    """An answer with no words of its own (a lobby choice with an empty `said`) is read back as the words
    heard — never "，对吗？" with nothing before it (what left the lobby asking in a loop)."""
    from narrator.serve.lobby import Choice

    session, _ = table()
    d, _, said = dialogue(session, [])
    assert session.prompt is not None
    d.read_back(Choice("players", 12, said=""), session.prompt, voice(("十二 个 [unk]", 100.0)))
    d.read_back(Choice("players", 12, said=""), session.prompt, voice(("열두", 100.0)))
    assert [x.text for x in said] == ["十二个，对吗？", "刚才的回答，对吗？"]


def test_repeat_after_a_refusal_says_it_again_unless_the_session_says_not() -> None:
    """In a game 重复 after a refusal says the refusal again; a session with `repeat_refusals = False` (the
    lobby of `narrator serve`) gets its question instead."""
    for repeat_refusals, again in ((True, "没有十五号"), (False, "狼人刀了谁")):
        session, deal = table()
        auto_until(session, deal, "wolves.kill")
        if not repeat_refusals:
            session.repeat_refusals = False  # type: ignore[attr-defined]
        d, _, said = dialogue(session, ["十五号", "重复", "七号"])
        assert isinstance(d.answer(), Accepted)
        assert again in said.host()[-1], said.host()


def test_by_day_a_refused_typed_or_keyed_answer_is_told_on_the_console_a_spoken_one_aloud() -> None:
    """The table heard the host say a wrong answer aloud, so it hears why it was refused; a typed or keyed
    mistake the table never heard stays on the host's console (the question stays open for everyone)."""
    from narrator.listen.base import Heard

    to_vote = {"wolves.kill": "七号", "witch.save": "救", "seer.check": "一号", "sheriff.run": "没有"}
    for source in ("text", "keypad"):
        session, deal = table()
        auto_until(session, deal, "vote.exile", to_vote)
        assert session.prompt is not None and not session.night
        d, _, said = dialogue(session, [Heard("四号自爆", source=source), Heard("十五号出局", source=source),
                                        Heard("一号出局", source=source)])
        assert isinstance(d.answer(), Accepted)
        assert said.public() == [], (source, said.public())
        assert "投票时不能自爆" in said.host()[0] and "十五" in said.host()[1], said.host()
    session, deal = table()
    auto_until(session, deal, "vote.exile", to_vote)
    d, _, said = dialogue(session, [voice(("十五号出局", 100.0)), voice(("一号出局", 100.0)), "对"])
    assert isinstance(d.answer(), Accepted)
    assert any("十五" in line for line in said.public()), said.public()


def test_a_typed_pass_at_a_kill_is_not_taken_as_nobody_without_yes() -> None:
    """Issue 29: after a run of "请说过" prompts a typed 过 at an irreversible prompt (a kill, a shot, a
    poison …) is easily a slip: it is read back ("没有人，对吗？" to the host at night) and needs 对; 放弃 or
    the keypad's 0 still say "nobody" at once."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, ["过", lambda: none_yet(), "对"])

    def none_yet() -> None:
        assert session.prompt is not None and session.prompt.kind == "wolves.kill"

    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats(()))
    assert len(said.host()) == 1 and said.host()[0].endswith("对吗？") and said.public() == []
    session2, deal2 = table()
    auto_until(session2, deal2, "wolves.kill")
    d2, _, said2 = dialogue(session2, ["放弃"])
    assert isinstance(d2.answer(), Accepted) and session2.answers[-1] == ("wolves.kill", Seats(()))
    assert said2.host() == []


def test_an_answer_given_again_after_an_undo_is_not_read_back_again_but_another_one_is() -> None:
    """By voice the wolves' kill of 七号 was read back and confirmed; at the witch's step the host says 撤销 and
    七号 again: the same answer, confirmed once, is taken at once — said back on the earpiece with the next
    question, no 对 asked (issue 29: a voice undo inside the bound). Said as 三号 instead — another answer —
    it is read back and waits for 对, as any spoken kill (issue 28: never a wrong answer without a read-back).
    The recogniser's own doubt (another reading close by) reads even the same answer back."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, [voice(("七号", 100.0)), "对"])
    assert isinstance(d.answer(), Accepted) and said.host() == ["七号，对吗？"]
    session.take_lines()
    d, _, said = dialogue(session, ["撤销", voice(("七号", 100.0))])
    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.kill", Seats((7,)))
    assert said.host()[0] == "已撤销上一个回答。" and said.host()[-1] == "还是七号，记下了。"
    assert not any("对吗" in text for text in said.host()) and said.public() == []
    session.take_lines()
    d, _, said = dialogue(session, ["撤销", voice(("三号", 100.0)), lambda: not_yet(), "对"])

    def not_yet() -> None:
        assert session.prompt is not None and session.prompt.kind == "wolves.kill"

    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("wolves.kill", Seats((3,)))
    assert said.host()[-1] == "三号，对吗？"
    session.take_lines()
    d, _, said = dialogue(session, ["撤销", voice(("三号", 100.0), ("八号", 99.0)), lambda: not_yet(), "三号"])
    assert isinstance(d.answer(), Accepted) and "还是三号，记下了。" not in said.host()  # in doubt: asked
