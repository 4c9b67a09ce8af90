"""Calibration's rules (narrator/listen/calibrate.py) with a recogniser whose mistakes are written down: for
what the host said, the readings it prefers in order — the first one the grammar offers is what it hears.
The room test (tests/room/test_room_calibrate.py) runs the same with the real model and voice."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from narrator.engine.answers import Seats
from narrator.engine.prompts import Prompt
from narrator.listen.calibrate import Sample, calibrate, find_forms, form_tokens
from narrator.listen.grammar import Grammar, Pack, load_pack

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)


def knows(word: str) -> bool:
    return True


def pack_with(**say: tuple[str, ...]) -> Pack:
    base = load_pack("ko")
    return replace(base, say={**base.say, **{k.replace("_", ""): v for k, v in say.items()}})


def recogniser(prefers: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    """A fake Hear: the audio holds the index of what was said in `spoken`."""
    spoken: list[str] = []

    def hear(audio: np.ndarray, grammar: Grammar, prompt: Prompt, max_seat: int) -> str:
        said = spoken[int(audio[0])]
        offered = set(grammar.phrases_for(prompt, max_seat))
        return next((p for p in prefers.get(said, [said]) if p in offered), "")

    def sample(expect: str, said: str, form: str | None = None) -> Sample:
        spoken.append(said)
        return Sample(expect, np.array([len(spoken) - 1], np.float32), KILL, form, said)

    return hear, sample


def test_a_form_his_other_words_are_read_as_is_dropped_when_its_word_keeps_another() -> None:
    # His 二号 (둘) comes out as 五号's 오; his 五号 he says 다섯.
    pack = pack_with(二号=("둘",), 五号=("오", "다섯"))
    hear, sample = recogniser({"둘": ["오", "둘"]})
    samples = [sample("二号", "둘"), sample("五号", "다섯")]
    result = calibrate(samples, pack, knows, hear)
    assert (result.right_before, result.right_after) == (1, 2)
    assert [(h, f) for h, f, _ in result.dropped] == [("五号", "오")]
    assert "二号 was read as it" in result.dropped[0][2]
    assert result.drop_forms == "五号:오"
    assert result.kept["五号"] == ("다섯",)
    assert result.unheard() == []


def test_the_last_form_of_a_word_is_never_dropped() -> None:
    pack = pack_with(二号=("둘",), 五号=("오",))
    hear, sample = recogniser({"둘": ["오", "둘"]})
    result = calibrate([sample("二号", "둘"), sample("五号", "오")], pack, knows, hear)
    assert result.dropped == []
    assert result.unheard() == ["二号"]
    assert any("二号 was not read right" in line and "keypad" in line for line in result.report())


def test_a_drop_that_hears_him_worse_is_not_kept() -> None:
    # Without 오 his 二号 is read as 四号 instead, and his own 오 (五号) is lost: worse, so 오 stays.
    pack = pack_with(二号=("둘",), 四号=("넷",), 五号=("오", "다섯"))
    hear, sample = recogniser({"둘": ["오", "넷"]})
    result = calibrate([sample("二号", "둘"), sample("五号", "오"), sample("四号", "넷")], pack, knows, hear)
    assert result.dropped == []
    assert result.right_after == result.right_before == 2


def test_a_form_he_said_that_is_never_read_right_is_dropped() -> None:
    # A phrase file names the form: he said 첫째 for 一号 and it came out as nothing; 일호 works for him.
    pack = pack_with(一号=("일호", "첫째"))
    hear, sample = recogniser({"첫째": []})
    result = calibrate([sample("一号", "일호", "일호"), sample("一号", "첫째", "첫째")], pack, knows, hear)
    assert [(h, f) for h, f, _ in result.dropped] == [("一号", "첫째")]
    assert "never read right" in result.dropped[0][2]


def test_the_forms_in_a_reading_are_found_longest_first() -> None:
    pack = pack_with(十一号=("열 하나",), 十号=("열",), 一号=("하나",))
    table = form_tokens(pack, knows)
    assert find_forms("열 하나 [unk] 열", table) == (("十一号", "열 하나"), ("十号", "열"))


def test_a_form_his_voice_gets_through_is_never_dropped_though_another_word_is_read_as_it() -> None:
    # Through the room his 七号 (일곱, not a form of the pack) was read as 四号's 넷 — and his own 넷 as 넷. Without
    # 넷 his 四号 would still be read right (as 네번째): no worse by the count, but 넷 is how he says it.
    pack = pack_with(四号=("넷", "네번째"))
    hear, sample = recogniser({"일곱": ["넷"], "넷": ["넷", "네번째"]})
    result = calibrate([sample("四号", "넷"), sample("七号", "일곱")], pack, knows, hear)
    assert result.dropped == [] and result.kept["四号"] == ("넷", "네번째")
    assert result.unheard() == ["七号"]


def test_a_form_of_a_word_none_of_whose_samples_got_through_is_kept_though_another_word_is_read_as_it() -> None:
    # CI's room run: his 十号 (열번째) was heard as nothing, his 十二号 as 열번째 — and 열번째 was dropped, the very
    # form he says 十号 in, which would leave his 十号 unheard all game. Which form of 十号 is his is not known.
    pack = pack_with(十号=("열째", "열번째"), 十二号=("열두번째",))
    hear, sample = recogniser({"열번째": [], "열두번째": ["열번째"]})
    result = calibrate([sample("十号", "열번째"), sample("十二号", "열두번째")], pack, knows, hear)
    assert result.dropped == [] and result.kept["十号"] == ("열째", "열번째")
    assert result.unheard() == ["十号", "十二号"]
    # Once a sample of 十号 gets through in its other form, 열번째 is known not to be his: dropped, and his
    # 十二号 is read right.
    hear, sample = recogniser({"열째": ["열째"], "열두번째": ["열번째", "열두번째"]})
    result = calibrate([sample("十号", "열째"), sample("十二号", "열두번째")], pack, knows, hear)
    assert [(h, f) for h, f, _ in result.dropped] == [("十号", "열번째")]
    assert result.unheard() == []
