"""End of turn by meaning (narrator/listen/turn.py): which readings are a whole answer, so the ear ends the
turn after the short silence, and which keep the long one. Without a model: a vocabulary that knows the
seats only as a number and 号 ("七 号", as the Chinese model splits them), every other word whole; and the
Korean pack's spoken forms. The real decoder's timing: tests/listen/test_listen_vosk.py."""

from __future__ import annotations

import pytest

from narrator.engine.answers import Ballots, Pass, Seats, VoteResult, YesNo
from narrator.engine.prompts import Prompt
from narrator.listen.grammar import START, Grammar, load_pack
from narrator.listen.turn import Turn
from narrator.listen.vad import EndpointConfig

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
CHECK = Prompt("seer.check", frozenset({Seats}), seats=(1, 2, 3, 5, 7, 9, 11, 12))
WOLVES = Prompt("wolves.identify", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=4, max_seats=4)
SAVE = Prompt("witch.save", frozenset({YesNo}))
SPEECH = Prompt("speech.end", frozenset({Pass}))
EXILE = Prompt("vote.exile", frozenset({Ballots, VoteResult}), seats=tuple(range(1, 13)))


def zh() -> Grammar:
    return Grammar(load_pack("zh"), lambda w: not (len(w) > 1 and "号" in w))


@pytest.mark.parametrize(("prompt", "reading", "whole"), [
    (START, "开始", True),
    (START, "重复", True),  # the cards line again
    (START, "撤销", False),  # nothing to take back before the start: not a word here
    (START, "规则", False),  # 规则 女巫 …: the topic may follow
    (KILL, "七 号", True),
    (KILL, "十 一 号", True),
    (KILL, "七", False),  # a bare number may be the start of 七号
    (KILL, "十", False),  # … or of 十一号
    (KILL, "没有", True),  # 空刀: nobody is legal here
    (KILL, "七 号 [unk]", False),  # something more was said
    (KILL, "撤销", True),
    (CHECK, "九 号", True),
    (CHECK, "四 号", False),  # not a seat the seer may check: not ended early (the long silence, then why)
    (WOLVES, "一 号 四 号 八 号", False),  # three of the four seats: the host is between seats
    (WOLVES, "一 号 四 号 八 号 九 号", True),
    (WOLVES, "一 号 四 号 四 号 九 号", False),  # a seat twice is no whole answer
    (SAVE, "救", True),
    (SAVE, "不救", True),
    (EXILE, "一 号 二 号 投 三 号", False),  # a vote record may go on ("四号投五号")
    (SPEECH, "法官 过", True),
    (SPEECH, "过", False),  # a player's 过, without the judge's name
    (SPEECH, "法官", False),
])
def test_a_whole_legal_answer_ends_the_turn_early(prompt: Prompt, reading: str, whole: bool) -> None:
    assert Turn(zh(), prompt, 12).complete(reading) is whole


def test_an_answer_of_several_seats_waits_longer_between_them() -> None:
    """The host pauses between seats, and a misread seat can make four of three: several seats get the
    longer short silence (EndpointConfig.complete_many_s)."""
    assert Turn(zh(), WOLVES, 12).many and not Turn(zh(), KILL, 12).many and not Turn(zh(), SAVE, 12).many


def test_korean_forms_that_begin_a_longer_one_keep_the_long_silence() -> None:
    ko = Grammar(load_pack("ko"), lambda w: w != "열하나")  # the Korean model splits 열하나 (十一号) in two
    turn = Turn(ko, KILL, 12)
    assert turn.complete("세븐") and turn.complete("열 하나")
    assert not turn.complete("열")  # the first word of 열 하나 (十一号)
    assert not turn.complete("하나")  # a raw piece no host word maps back to
    assert not turn.complete("세븐 제가")  # a filler word: talk goes on
    boards = Prompt("lobby.board", frozenset(), info={"words": ("预女猎", "预女猎白", "预女猎守")})
    lobby = Turn(ko, boards, 12)
    assert lobby.complete("예언자 마녀 사냥꾼 바보")
    assert not lobby.complete("예언자 마녀 사냥꾼")  # 预女猎, or the start of 预女猎白 / 预女猎守


def test_several_seats_end_at_the_first_short_silence_only_when_no_reading_stops_short() -> None:
    """Where four seats are asked the turn may end after `complete_s` only when every reading of the N-best is
    the same four seats (`Turn.settled`): a misread seat can make four of three said, and a competing reading
    of three says the host may be between seats — then the longer `complete_many_s` decides."""
    turn = Turn(zh(), WOLVES, 12)
    four = "一 号 四 号 八 号 九 号"
    assert turn.settled([(four, 250.0), ("一 号 <pause> 四 号 八 号 九 号", 249.0)])  # the same seats
    assert not turn.settled([(four, 250.0), ("一 号 四 号 八 号", 249.5)])  # one reading stops short
    assert not turn.settled([(four, 250.0), ("一 号 四 号 八 号 十 号", 249.0)])  # or says another seat
    assert not turn.settled([])


def test_a_whole_answer_whose_last_word_begins_no_longer_one_ends_soonest() -> None:
    """`Turn.silence`: the short silence a reading needs. A whole answer ending in a word no longer word of the
    prompt begins with is `closed` (`complete_closed_s`); one ending in such a start (여섯 of 여섯째, 오 of 오호)
    waits `complete_s` — the rest of the word may be on its way; several seats wait `complete_many_s` unless
    every reading agrees; an incomplete reading waits for the long silence (None)."""
    ko = Grammar(load_pack("ko"), lambda w: w != "열하나")  # the Korean model splits 열하나 (十一号) in two
    cfg = EndpointConfig()
    assert cfg.complete_closed_s < cfg.complete_s < cfg.complete_many_s
    kill = Turn(ko, KILL, 12)
    assert {"여섯", "오", "열"} <= kill.stems and "세븐" not in kill.stems
    assert kill.silence([("세븐", 1.0)], cfg) == cfg.complete_closed_s  # 七号: no word begins with 세븐
    assert kill.silence([("열 하나", 1.0)], cfg) == cfg.complete_closed_s
    assert kill.silence([("여섯", 1.0)], cfg) == cfg.complete_s  # 六号, or 여섯째 still being said
    assert kill.silence([("오", 1.0)], cfg) == cfg.complete_s  # 五号, or 오호
    assert kill.silence([("열", 1.0)], cfg) is None  # the start of 열 하나
    assert kill.silence([], cfg) is None
    assert Turn(ko, START, 12).silence([("개시", 1.0)], cfg) == cfg.complete_closed_s
    wolves = Turn(ko, WOLVES, 12)
    four = "원 넷 여덟 세븐"
    assert wolves.silence([(four, 2.0)], cfg) == cfg.complete_closed_s
    assert wolves.silence([(four, 2.0), ("원 넷 여덟", 1.9)], cfg) == cfg.complete_many_s  # one reading stops short
    assert wolves.silence([("원 넷 여덟 여섯", 2.0)], cfg) == cfg.complete_s
    assert wolves.silence([("원 넷 여덟", 2.0)], cfg) is None  # between seats
