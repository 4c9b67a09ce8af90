"""The seed rules of issue 11 that are not games: the house-rules paragraph covers every switch in both
scripts, the rules questions' words, the set-up's villager rule and advice, and the New Moon deck switch."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from narrator.engine.roles import Role
from narrator.engine.rules import CHOICES, NEW_MOON_DECK, Rules, Setup, SetupError
from narrator.hostwords import NotUnderstood, rules_request
from narrator.judge.presets import make_setup
from narrator.judge.rules_talk import SWITCHES, TOPICS, opening_lines, phrase_key, rules_lines
from narrator.judge.script import LANGS, Script

NO_VILLAGER = {"狼人": 2, "预言家": 1, "女巫": 1, "猎人": 1, "守卫": 1, "白痴": 1, "长老": 1}


def values_of(name: str) -> list[Any]:
    """Every value a switch can take, as far as the paragraph's wording goes."""
    default = getattr(Rules(), name)
    if name in CHOICES:
        return list(CHOICES[name])
    if name == "night_order":
        return [Rules().night_order, make_setup("经典8人").rules.night_order, ("thief", "wolves", "seer")]
    if name == "new_moon":
        return [(), NEW_MOON_DECK]
    if name == "sheriff_weight":
        return [1.5, 2.0]
    if isinstance(default, bool):
        return [True, False]
    assert isinstance(default, int), f"{name}: a switch of an unknown kind"
    return [0, 1, 3, 90, 120]


@pytest.mark.parametrize("lang", LANGS)
def test_every_switch_and_value_has_a_phrase_in_the_rules_paragraph(lang: str) -> None:
    script = Script(lang)
    phrases = script.data["house_rules"]
    assert set(SWITCHES) == {f.name for f in fields(Rules)}, "rules_talk.SWITCHES must list every switch"
    used = {"joiner"}
    for name in SWITCHES:
        for value in values_of(name):
            key, n = phrase_key(Rules(**{name: value}), name)
            assert key in phrases, f"{lang}: no house_rules.{key}"
            assert ("{n}" in str(phrases[key])) == (n is not None), key
            used.add(key)
    assert set(phrases) == used, f"stale house_rules keys: {sorted(set(phrases) - used)}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_topic_and_role_has_a_description(lang: str) -> None:
    topics = Script(lang).data["rules_topics"]
    assert set(topics) == {*TOPICS, *(r.value for r in Role)}
    assert {t for t, _ in SWITCHES.values()} <= set(topics)


@pytest.mark.parametrize("preset", ["12人预女猎白", "9人预女猎", "12人狼王守卫", "经典12人", "经典8人"])
def test_a_game_by_the_boards_usual_rules_opens_with_one_sentence(preset: str) -> None:
    (line,) = opening_lines(make_setup(preset))
    assert line.to == "all" and line.text == "本局按常规玩法进行，想听全部规则可以问法官。"


@pytest.mark.parametrize(("preset", "rules", "said"), [
    ("12人预女猎白", {"witch_self_save": "always", "speech_seconds": 60}, "女巫可以自救，每人发言六十秒"),
    ("12人预女猎白", {"sheriff": False}, "没有警长"),
    ("经典12人", {"sheriff_weight": 1.5}, "警长一票半"),
    ("12人预女猎守", {"guard_and_save": "lives"}, "同守同救"),
])
def test_the_opening_reads_only_the_house_rules(preset: str, rules: dict[str, Any], said: str) -> None:
    """Only what differs from the board's usual rules, in a few clauses; the full list stays on 规则."""
    (line,) = opening_lines(make_setup(preset, rules=rules))
    assert line.text.startswith("本局房规：") and said in line.text and line.text.endswith("可以问法官。")
    (full,) = rules_lines(make_setup(preset, rules=rules))
    assert len(line.text) < len(full.text) / 3
    (hant,) = opening_lines(make_setup(preset, rules=rules), "zh-Hant")
    assert hant.text.startswith("本局房規：")


def test_the_paragraph_says_this_games_switches() -> None:
    (line,) = rules_lines(make_setup("12人预女猎白"))
    assert line.to == "all" and line.text.startswith("本局规则：")
    for words in ("女巫不能自救", "警长一票半", "白痴算神", "每人发言九十秒", "闭眼上警"):
        assert words in line.text
    assert "守卫" not in line.text and "小女孩" not in line.text  # no cards of this deck, no rules for them
    (other,) = rules_lines(make_setup("12人预女猎白", rules={"witch_self_save": "always", "sheriff": False}))
    assert "女巫可以自救" in other.text and "没有警长" in other.text and "警长一票半" not in other.text
    (hant,) = rules_lines(make_setup("12人预女猎白"), lang="zh-Hant")
    assert hant.text.startswith("本局規則：") and "女巫不能自救" in hant.text
    assert "".join(line.pieces) == line.text


def test_a_topic_is_said_to_the_host_at_night() -> None:
    day = rules_lines(make_setup("9人预女猎"), "witch")
    night = rules_lines(make_setup("9人预女猎"), "witch", night=True)
    assert [x.text for x in day] == [x.text for x in night]
    assert {x.to for x in day} == {"all"} and {x.to for x in night} == {"host"}
    assert day[0].text.startswith("女巫有一瓶解药") and "女巫不能自救" in day[1].text
    with pytest.raises(ValueError):
        rules_lines(make_setup("9人预女猎"), "fox")


@pytest.mark.parametrize(
    ("words", "topic"),
    [("规则", ""), ("规则 女巫", "witch"), ("規則 警長", "sheriff"), ("请讲一下规则 预言家", "seer"),
     ("规则 先知", "seer"), ("规则女巫", "witch"), ("规则 遗言", "last_words"), ("规则，自爆", "explode"),
     ("七号", None), ("救", None)],
)
def test_rules_request_words(words: str, topic: str | None) -> None:
    assert rules_request(words) == topic


def test_an_unknown_rules_topic_is_refused_with_its_reason() -> None:
    with pytest.raises(NotUnderstood) as caught:
        rules_request("规则 狐狸")
    assert caught.value.code == "words.rules_topic"


def test_a_deck_needs_a_villager_unless_the_house_says_otherwise() -> None:
    with pytest.raises(SetupError, match="需要至少一张村民牌"):
        make_setup(roles=NO_VILLAGER)
    assert Role.VILLAGER not in make_setup(roles=NO_VILLAGER, rules={"require_villager": False}).deck
    thief = {"狼人": 2, "预言家": 1, "女巫": 1, "猎人": 1, "守卫": 1, "白痴": 1, "盗贼": 1}
    assert make_setup(roles=thief).deck.count(Role.VILLAGER) == 2  # the thief's two villagers count


def test_set_up_advice_is_a_warning_not_a_refusal() -> None:
    setup = make_setup(roles=NO_VILLAGER, rules={"require_villager": False})
    assert setup.warnings() == ("guard_and_elder",)
    assert make_setup("经典8人").warnings() == ("little_girl",)
    assert make_setup("9人预女猎").warnings() == ()


@pytest.mark.parametrize(
    ("value", "deck"),
    [(True, NEW_MOON_DECK), (False, ()), (["wolves_ally"], ("wolves_ally",)), ("wolves_ally", ("wolves_ally",))],
)
def test_new_moon_takes_a_deck_or_on_off(value: Any, deck: tuple[str, ...]) -> None:
    assert Rules().with_overrides({"new_moon": value}).new_moon == deck


def test_new_moon_refuses_an_unknown_card() -> None:
    with pytest.raises(SetupError, match="未知的新月事件牌：full_moon"):
        Rules().with_overrides({"new_moon": ["full_moon"]})


def test_the_classic_preset_elects_after_the_speeches() -> None:
    assert make_setup("经典10人").rules.election_at == "after_speeches"
    assert Setup.build({Role.WEREWOLF: 2, Role.SEER: 1, Role.VILLAGER: 6}).rules.election_at == "before_deaths"
