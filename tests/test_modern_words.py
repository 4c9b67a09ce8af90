"""The host's words for the modern roles (docs/rule-book.md): the knight's duel, 发动技能, 不换, and the
card aliases (狼王 is never 白狼王)."""

from __future__ import annotations

import pytest

from narrator.engine.answers import Cards, Duel, Pass, Seats, SelfExplode, YesNo
from narrator.engine.roles import Role, role_named
from narrator.hostwords import NotUnderstood, parse, phrases

SPEECH = {Pass, SelfExplode, Duel}


@pytest.mark.parametrize(
    ("words", "duel"),
    [("五号决斗三号", Duel(5, 3)), ("5号 决斗 3号", Duel(5, 3)), ("十二号决斗一号", Duel(12, 1)),
     ("七号 骑士 决斗 四号", Duel(7, 4)), ("五號決鬥三號", Duel(5, 3))],
)
def test_a_duel_is_the_knight_then_the_target(words: str, duel: Duel) -> None:
    assert parse(words, SPEECH) == duel


@pytest.mark.parametrize(("words", "code"), [("决斗三号", "words.duel_seats"), ("五号决斗", "words.duel_seats"),
                                             ("一号二号决斗三号", "words.duel_seats")])
def test_a_duel_needs_both_seats(words: str, code: str) -> None:
    with pytest.raises(NotUnderstood) as caught:
        parse(words, SPEECH)
    assert caught.value.refusal.code == code


def test_speech_answers_stay_apart() -> None:
    assert parse("过", SPEECH) == Pass()
    assert parse("五号自爆", SPEECH) == SelfExplode(5)
    with pytest.raises(NotUnderstood):
        parse("五号决斗三号", {Pass, SelfExplode})  # no knight in the deck: the prompt does not take a duel


@pytest.mark.parametrize(("words", "yes"), [("发动技能", True), ("发动", True), ("不发动", False),
                                            ("不发动技能", False)])
def test_skill_words(words: str, yes: bool) -> None:
    assert parse(words, {YesNo}) == YesNo(yes)


@pytest.mark.parametrize("words", ["不换", "不交换", "不恐惧", "不狩猎", "不学", "不放逐", "不选"])
def test_nobody_words_of_the_new_prompts(words: str) -> None:
    assert parse(words, {Seats}) == Seats(())


@pytest.mark.parametrize(
    ("name", "role"),
    [("狼王", Role.BLACK_WOLF_KING), ("黑狼王", Role.BLACK_WOLF_KING), ("狼枪", Role.BLACK_WOLF_KING),
     ("暗黑狼王", Role.BLACK_WOLF_KING), ("白狼王", Role.WHITE_WOLF_KING), ("噩梦之影", Role.NIGHTMARE),
     ("混子", Role.HALF_BLOOD), ("混混", Role.HALF_BLOOD), ("机械狼人", Role.MECH_WOLF), ("魔镜少女", Role.PSYCHIC),
     ("墓守者", Role.GRAVEKEEPER), ("恶夜骑士", Role.SPIRIT_KNIGHT), ("赤月使徒", Role.BLOOD_MOON),
     ("惡靈騎士", Role.SPIRIT_KNIGHT), ("攝夢人", Role.DREAMCATCHER)],
)
def test_card_aliases(name: str, role: Role) -> None:
    assert role_named(name) is role
    assert parse(name, {Cards}) == Cards((role,))


def test_the_recogniser_is_offered_the_duel_words() -> None:
    offered = phrases(SPEECH, 12)
    assert "决斗" in offered and "五号" in offered
