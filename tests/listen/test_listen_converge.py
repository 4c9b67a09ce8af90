"""The ear converges instead of repeating: host transcripts (tests/listen/transcripts/*.yaml) played through
the dialogue with the recogniser's misreadings — seats kept and only the rest asked for, one seat corrected in
place, a choice between two readings, one seat at a time after two misses — every repair in the earpiece."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from narrator.engine.answers import Seats, VoteResult
from narrator.engine.game import Accepted
from narrator.listen.base import Heard
from narrator.listen.converge import Correction, corrected, merged, read_correction
from narrator.listen.keypad import keys_to_words

from .listenkit import Step, auto_until, table, voice
from .test_listen_dialogue import dialogue

TRANSCRIPTS = sorted((Path(__file__).parent / "transcripts").glob("*.yaml"))


def heard_for(line: dict[str, Any], prompt: Any) -> Heard:
    """`host: 七号` (one reading), `host: [一号, 七号]` (the recogniser's readings, best first), `keys: "7"`."""
    if "keys" in line:
        return Heard(keys_to_words(str(line["keys"]), prompt), source="keypad")
    said = line["host"]
    readings = said if isinstance(said, list) else [said]
    return voice(*((str(text), 100.0 - i) for i, text in enumerate(readings)))


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_a_host_transcript(path: Path) -> None:
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    session, deal = table()
    auto_until(session, deal, spec["at"], dict(spec.get("before") or {}))
    prompt = session.prompt
    assert prompt is not None and prompt.kind == spec["at"]
    script: list[Step] = [heard_for(line, prompt) for line in spec["talk"] if "judge" not in line]
    d, _, said = dialogue(session, script)
    result = d.answer()
    assert isinstance(result, Accepted), said.host()
    assert session.answers[-1] == (spec["at"], Seats(tuple(spec["taken"])))
    expected = [line["judge"] for line in spec["talk"] if "judge" in line]
    assert said.host() == expected
    assert said.public() == []  # a night step: every repair in the earpiece, nothing at the table


def test_every_transcript_alternates_host_and_judge_sensibly() -> None:
    assert len(TRANSCRIPTS) >= 7
    for path in TRANSCRIPTS:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert spec["talk"][0].keys() & {"host", "keys"}, path.name
        assert all(len(line) == 1 and line.keys() <= {"host", "keys", "judge"} for line in spec["talk"]), path.name


@pytest.mark.parametrize(("text", "fix"), [
    ("不是十号，是十一号", Correction(10, 11)),
    ("不是 十 号 是 十 一 号", Correction(10, 11)),
    ("十号换成十一号", Correction(10, 11)),
    ("去掉十号", Correction(10, None)),
    ("十号不要", Correction(10, None)),
    ("十号 不对", Correction(10, None)),  # "十号不对": that seat is wrong (the stand-in reads its 빼 so too)
    ("不对 十号", None),  # 不对 and a new answer: not a correction
    ("不是十号", None),
    ("不是十号，是十号", None),
    ("去掉十号十一号", None),
    ("十号", None),
])
def test_a_correction_names_one_seat_out_and_at_most_one_in(text: str, fix: Correction | None) -> None:
    assert read_correction(text) == fix


def test_corrections_and_merges_change_one_seat_only() -> None:
    assert corrected((1, 4, 8, 10), Correction(10, 11)) == (1, 4, 8, 11)
    assert corrected((1, 4, 8, 10), Correction(10, None)) == (1, 4, 8)
    assert corrected((1, 4, 8, 10), Correction(9, 11)) is None  # 9 is not in it
    assert corrected((1, 4, 8, 10), Correction(10, 4)) is None  # 4 is already in it
    assert merged((1, 4, 8), (11,), 4) == (1, 4, 8, 11)
    assert merged((1, 4, 8), (2, 3, 5, 6), 4) == (2, 3, 5, 6)  # a whole new answer replaces the seats kept
    assert merged((), (7,), 4) == (7,)


def test_a_miss_typed_is_no_miss_of_the_ear() -> None:
    """Typed words are never misheard: two refused lines typed do not start the seat-by-seat offers."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    d, _, said = dialogue(session, ["十五号", "听不懂的话", "七号"])
    assert isinstance(d.answer(), Accepted) and len(said.host()) == 2 and "键盘" not in "".join(said.host())


def test_undo_drops_what_the_question_gathered_and_keeps_the_question() -> None:
    session, _ = table()
    prompt = session.prompt
    assert prompt is not None
    d, _, said = dialogue(session, [voice(("一号 四号", 100.0)), "撤销", voice(("一号 四号 八号 十一号", 100.0)),
                                    "对"])
    assert isinstance(d.answer(), Accepted) and session.answers[-1] == (prompt.kind, Seats((1, 4, 8, 11)))
    assert said.host() == ["一号、四号，还差两个。", "好，请重新回答。", "一号、四号、八号、十一号，对吗？"]


def test_a_day_repair_is_said_where_the_prompt_is_said() -> None:
    """By day a repair goes where the question went (the table): nothing about it is secret."""
    session, deal = table()
    auto_until(session, deal, "vote.exile", {
        "wolves.kill": "七号", "witch.save": "救", "seer.check": "一号", "sheriff.run": "没有",
        "sheriff.order": "警右"})
    d, _, said = dialogue(session, [voice(("1 2 投 7号", 100.0)), "对"])
    assert isinstance(d.answer(), Accepted)
    assert said.public() == ["一号、二号投七号，对吗？"]


def test_a_seat_may_have_several_spoken_forms_and_a_calibration_drops_some() -> None:
    """`say:` takes a list of forms per host word (幺/一, 两/二; 일호/하나): each is offered and each is read back
    as the host word; `Pack.without` (the config's game.drop_forms) leaves out what the host's voice does not
    get through — never the last way to say a word."""
    from dataclasses import replace

    from narrator.engine.prompts import Prompt
    from narrator.listen.grammar import Grammar, PackError, load_pack

    ko = load_pack("ko")
    two = replace(ko, say={**ko.say, "一号": ("일호", "하나")})
    grammar = Grammar(two, lambda w: True)
    kill = Prompt("wolves.kill", frozenset({Seats}), seats=(1, 2, 3), min_seats=0)
    offered = grammar.phrases_for(kill, 12)
    assert "일호" in offered and "하나" in offered
    grammar.phrases_for(kill, 12)
    assert grammar.host_words("하나") == grammar.host_words("일호") == "一号"
    calibrated = two.without("一号:하나")
    assert calibrated.say["一号"] == ("일호",)
    assert "하나" not in Grammar(calibrated, lambda w: True).phrases_for(kill, 12)
    with pytest.raises(PackError, match="last way"):
        calibrated.without("一号:일호")
    with pytest.raises(PackError, match="no such spoken form"):
        ko.without("七号:하나")
    zh = load_pack("zh").without("幺号, 幺")
    assert "幺号" not in Grammar(zh, lambda w: True).phrases_for(kill, 12)
    assert "一号" in Grammar(zh, lambda w: True).phrases_for(kill, 12)
    with pytest.raises(PackError, match="last word"):
        load_pack("zh").without("法官")
    assert load_pack("zh").without("") == load_pack("zh")


def test_undo_with_a_choice_open_drops_the_choice_not_the_last_answer() -> None:
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    n = len(session.answers)
    d, _, said = dialogue(session, [voice(("一号", 100.0), ("七号", 99.0)), "撤销", "七号"])
    assert isinstance(d.answer(), Accepted) and len(session.answers) == n + 1
    assert said.host() == ["是一号还是七号？", "好，请重新回答。"]


def test_a_vote_misread_twice_is_offered_one_seat_at_a_time_and_taken_on_yes() -> None:
    """The day's vote ("九号出局" read as "确认 不对 没有", then as "确认 九号 没有 四号"): after two misses the
    judge offers who is out, the seats heard first, and 对 takes that result — a vote converges like a seat."""
    session, deal = table()
    auto_until(session, deal, "vote.exile", {"wolves.kill": "二号", "witch.save": "不救", "witch.poison": "没有",
                                            "seer.check": "一号", "host.pass": "过", "sheriff.run": "没有"})
    prompt = session.prompt
    assert prompt is not None and 9 in prompt.seats
    script: list[Step] = [voice(("确认 不对 没有", 100.0)), voice(("确认 九号 没有 四号 没有", 100.0)),
                          voice(("确认", 100.0))]
    d, _, said = dialogue(session, script)
    result = d.answer()
    assert isinstance(result, Accepted)
    assert session.answers[-1] == ("vote.exile", VoteResult(out=9))
    assert said.public()[-1] == "是九号吗？说对或不对，也可以在键盘上按9和回车。"  # by day, at the table


def test_at_a_votes_offer_the_seat_and_yes_is_yes_and_another_seat_is_read_back() -> None:
    """The room (session 5): "是九号吗？" answered 맞아, read "九号 确认" eight times in a row — the seat offered
    and 对 take who is out. Another seat said at the offer is who he means: read back as the vote's result,
    taken only on 对; "四号 确认" (another seat with 对) is neither, and the offer is said again."""
    before = {"wolves.kill": "二号", "witch.save": "不救", "witch.poison": "没有", "seer.check": "一号",
              "host.pass": "过", "sheriff.run": "没有"}
    misses: list[Step] = [voice(("确认 不对 没有", 100.0)), voice(("确认 九号 没有 四号 没有", 100.0))]
    offer = "是九号吗？说对或不对，也可以在键盘上按9和回车。"
    session, deal = table()
    auto_until(session, deal, "vote.exile", before)
    d, _, said = dialogue(session, [*misses, voice(("九号 确认", 100.0))])
    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("vote.exile", VoteResult(out=9))
    assert said.public()[-1] == offer
    session, deal = table()
    auto_until(session, deal, "vote.exile", before)
    vote = session.prompt
    assert vote is not None

    def every_seat_listened_for() -> None:  # at the offer: 对 / 不对 and every seat (bench_offer.py)
        assert d.gathered.offer == 9 and d.gathered.listening().seats == vote.seats

    d, _, said = dialogue(session, [*misses, every_seat_listened_for, voice(("四号 确认", 100.0)),
                                    voice(("六号", 100.0)), "对"])
    assert isinstance(d.answer(), Accepted) and session.answers[-1] == ("vote.exile", VoteResult(out=6))
    assert said.public()[-3:] == [offer, offer, "六号出局，对吗？"]


def test_what_is_not_understood_during_an_offer_gets_the_offer_again() -> None:
    """While "是七号吗？" waits for 对 / 不对, a reading that means nothing ("四号 是 没有": the room's noise) is
    asked the offer again — not the question's own refusal, which asks for a whole answer
    the ear is not listening for."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    offer = "是四号吗？说对或不对，也可以在键盘上按4和回车。"  # the seat heard first
    script: list[Step] = [voice(("四号 是", 100.0)), voice(("是 是", 100.0)), voice(("四号 是 没有", 100.0)),
                          voice(("不对", 100.0)), voice(("确认", 100.0))]
    d, _, said = dialogue(session, script)
    assert isinstance(d.answer(), Accepted), said.host()
    host = said.host()
    assert host[host.index(offer):] == [offer, offer, "是一号吗？说对或不对，也可以在键盘上按1和回车。"]
    assert session.answers[-1] == ("wolves.kill", Seats((1,)))


def test_offers_skip_the_seats_the_game_would_refuse() -> None:
    """At the idiot's identification the seats already known (the wolves 1, 4, 8, 11, the seer 3, the witch 5,
    the hunter 7) are never offered: 对 to one could only be refused."""
    session, deal = table()
    auto_until(session, deal, "idiot.identify", {"wolves.kill": "二号", "witch.save": "不救", "witch.poison": "没有",
                                                 "seer.check": "一号"})
    script: list[Step] = [voice(("是", 100.0)), voice(("是 是", 100.0)), voice(("不对", 100.0)),
                          voice(("不对", 100.0)), voice(("不对", 100.0)), voice(("确认", 100.0))]
    d, _, said = dialogue(session, script)
    assert isinstance(d.answer(), Accepted), said.host()
    offered = [x for x in said.host() if x.startswith("是")]
    assert [x[:x.index("吗")] for x in offered] == ["是二号", "是六号", "是九号", "是十号"]
    assert session.answers[-1] == ("idiot.identify", Seats((10,)))


def test_a_deny_heard_with_noise_is_a_deny_never_a_yes() -> None:
    """The room reads 아니야 (不对) as "确认 不对": at an offer 不对 with anything around it declines the seat, at
    a read-back a reading of 对 and 不对 alone drops the answer — 不对 wins, as it can only cost a question."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    script: list[Step] = [voice(("四号", 100.0)), voice(("确认 不对", 100.0)), voice(("是", 100.0)),
                          voice(("四号 确认 不对", 100.0)), voice(("确认", 100.0))]
    d, _, said = dialogue(session, script)
    assert isinstance(d.answer(), Accepted), said.host()
    assert said.host() == ["四号，对吗？", "好，请重新回答。", "没听清座位号，请再说一遍。",
                           "是一号吗？说对或不对，也可以在键盘上按1和回车。",
                           "是二号吗？说对或不对，也可以在键盘上按2和回车。"]
    assert session.answers[-1] == ("wolves.kill", Seats((2,)))


def test_a_silent_host_at_an_offer_hears_the_offer_again_not_the_question() -> None:
    """The room, seed 5: "是八号吗？" got no answer the ear heard, the question was asked again, the host gave
    his whole answer ("九号出局") and the ear, listening for 对 / 不对, read it as 对 — 八号 was exiled. While an
    offer waits, the reminder is the offer."""
    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    offer = "是一号吗？说对或不对，也可以在键盘上按1和回车。"
    d, _, said = dialogue(session, [voice(("是", 100.0)), voice(("是 是", 100.0)), None, None, "不对", "确认"],
                          ask_again_s=20, remind_s=8)
    assert isinstance(d.answer(), Accepted)
    host = said.host()
    assert host[host.index(offer):] == [offer, offer, offer, "是二号吗？说对或不对，也可以在键盘上按2和回车。"]
    assert "狼人刀了谁？空刀请说空刀。" not in host[host.index(offer):]


def test_a_stray_word_keeps_the_seats_only_while_some_are_missing_and_the_whole_is_read_back() -> None:
    """"四号 六号 是": the seats beside a stray word are kept while the answer needs more, and what they complete
    is read back and needs 对 — even where no policy reads seats back, and when the last breath was clean: the
    seats kept were never confirmed. A whole answer with a stray word is refused (the word may be a seat
    misheard), and a stray word counts as a miss: the second starts the one-seat offers."""
    session, deal = table()
    auto_until(session, deal, "wolves.identify")
    script: list[Step] = [voice(("一号 四号 是", 100.0)), voice(("八号 十一号", 100.0)), lambda: not_yet(), "对"]
    d, _, said = dialogue(session, script, read_back="doubt", seat_doubt="score")

    def not_yet() -> None:
        assert session.prompt is not None and session.prompt.kind == "wolves.identify"

    assert isinstance(d.answer(), Accepted)
    assert session.answers[-1] == ("wolves.identify", Seats((1, 4, 8, 11)))
    assert said.host() == ["一号、四号，还差两个。", "一号、四号、八号、十一号，对吗？"] and said.public() == []
    session, deal = table()
    auto_until(session, deal, "wolves.identify")
    d, _, said = dialogue(session, [voice(("一号 四号 八号 十一号 是", 100.0)), voice(("一号 四号 是", 100.0))])
    assert d.answer() is None  # the script ends: nothing taken
    assert said.host() == ["座位号后面多了“是”，请只说座位号。", "是一号吗？说对或不对，也可以在键盘上按1和回车。"]
