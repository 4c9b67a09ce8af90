"""Set-ups: every preset builds; a custom role list or a rule switch that cannot make a game is refused with
a SetupError whose message says why, in words the judge can say."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from narrator.engine.roles import Role
from narrator.engine.rules import Rules, Setup, SetupError
from narrator.judge.presets import make_setup, preset_names

NINE = {"狼人": 3, "村民": 3, "预言家": 1, "女巫": 1, "猎人": 1}


@pytest.mark.parametrize(
    ("roles", "rules", "reason"),
    [
        ({"狼人": 3, "村民": 2, "预言家": 1}, None, "玩家人数必须在8到18人之间，现在是6人"),
        ({"狼人": 4, "村民": 15, "预言家": 1}, None, "玩家人数必须在8到18人之间，现在是20人"),
        ({"村民": 8, "预言家": 1}, None, "至少要有一张狼人牌"),
        ({"狼人": 3, "村民": 6}, None, "需要一张预言家牌"),
        ({"狼人": 3, "村民": 4, "预言家": 2}, None, "预言家只能有一张，现在有2张"),
        ({"狼人": 2, "白狼王": 2, "村民": 4, "预言家": 1}, None, "白狼王只能有一张，现在有2张"),
        ({"狼人": 3, "村民": 5, "狐狸": 1}, None, "不认识的身份牌：狐狸"),
        ({"狼人": 3, "村民": -1, "预言家": 1}, None, "村民 的张数必须是非负整数"),
        ({"狼人": 3, "村民": "四", "预言家": 1}, None, "村民 的张数必须是非负整数"),
        ({"狼人": 9}, {"require_seer": False}, "至少要有一名好人"),
        (NINE, {"wolf_first": True}, "未知的房规开关 'wolf_first'"),
        (NINE, {"win": "all"}, "房规 win 只能是 side / city / parity，不是 'all'"),
        (NINE, {"witch_self_save": "sometimes"}, "房规 witch_self_save 只能是 never / first_night / always"),
        (NINE, {"exile_tie": "random"}, "房规 exile_tie 只能是"),
        (NINE, {"self_explode": "yes"}, "房规 self_explode 只能是 true 或 false"),
        (NINE, {"sheriff_weight": 3}, "警长票权只能是 1.5 或 2"),
        (NINE, {"raven_votes": -1}, "房规 raven_votes 要在0到3之间"),
        (NINE, {"night_order": ["wolves", "seer", "dancer"]}, "夜晚顺序里有未知的步骤：dancer"),
        (NINE, {"night_order": ["wolves", "seer", "hunter"]}, "夜晚顺序里没有女巫的步骤"),
    ],
)
def test_invalid_custom_set_up_is_refused_with_its_reason(
    roles: dict[str, Any], rules: dict[str, Any] | None, reason: str
) -> None:
    with pytest.raises(SetupError) as caught:
        make_setup(roles=roles, rules=rules)
    assert reason in str(caught.value)


def test_wrong_card_count_for_the_table() -> None:
    with pytest.raises(SetupError, match="牌数不对：10名玩家需要10张身份牌，现在有9张"):
        Setup.build({Role.WEREWOLF: 3, Role.VILLAGER: 3, Role.SEER: 1, Role.WITCH: 1, Role.HUNTER: 1}, players=10)


@pytest.mark.parametrize(
    ("preset", "roles", "reason"),
    [
        ("9人预女猎", {"狼人": 3}, "二者选一"),
        (None, None, "二者选一"),
        ("13人预女猎守", None, "没有叫 13人预女猎守 的板子"),
        ("20人标准局", None, "没有叫 20人标准局 的板子"),
    ],
)
def test_preset_or_roles_but_not_both(preset: str | None, roles: dict[str, int] | None, reason: str) -> None:
    with pytest.raises(SetupError, match=reason):
        make_setup(preset, roles)


def test_a_seer_is_only_required_while_require_seer_is_on() -> None:
    setup = make_setup(roles={"狼人": 2, "村民": 6}, rules={"require_seer": False})
    assert Counter(setup.deck) == {Role.WEREWOLF: 2, Role.VILLAGER: 6}


def test_custom_list_takes_any_script_and_alias() -> None:
    setup = make_setup(roles={"狼人": 3, "平民": 4, "先知": 1, "獵人": 1, "守衛": 1, "吹笛者": 1})
    assert setup.players == 11
    assert Counter(setup.deck)[Role.VILLAGER] == 4 and Role.PIPER in setup.deck and Role.GUARD in setup.deck


def test_thief_brings_two_face_down_villagers() -> None:
    setup = make_setup(roles={"狼人": 3, "村民": 3, "预言家": 1, "女巫": 1, "盗贼": 1})
    assert setup.players == 9 and len(setup.deck) == 11
    assert Counter(setup.deck)[Role.VILLAGER] == 5


def test_rule_overrides_keep_the_other_defaults() -> None:
    setup = make_setup("9人预女猎", rules={"win": "city", "sheriff_weight": 2})
    assert setup.rules == Rules(win="city", sheriff_weight=2.0)


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_builds(name: str) -> None:
    setup = make_setup(name)
    assert 8 <= setup.players <= 18
    assert any(r.is_wolf_card for r in setup.deck)
    assert Role.SEER in setup.deck or Role.PSYCHIC in setup.deck  # 12人机械狼通灵师: the 通灵师 checks


def test_named_presets_hold_the_cards_rules_md_lists() -> None:
    def cards(name: str) -> Counter[Role]:
        return Counter(make_setup(name).deck)

    w, v, seer, witch, hunter = Role.WEREWOLF, Role.VILLAGER, Role.SEER, Role.WITCH, Role.HUNTER
    assert cards("12人预女猎白") == {w: 4, v: 4, seer: 1, witch: 1, hunter: 1, Role.IDIOT: 1}
    assert cards("12人预女猎守") == {w: 4, v: 4, seer: 1, witch: 1, hunter: 1, Role.GUARD: 1}
    assert cards("12人白狼王守卫") == {Role.WHITE_WOLF_KING: 1, w: 3, v: 4, seer: 1, witch: 1, hunter: 1, Role.GUARD: 1}
    assert cards("9人预女猎") == {w: 3, v: 3, seer: 1, witch: 1, hunter: 1}
    assert cards("18人标准局") == {w: 4, seer: 1, v: 13}


def test_classic_games_use_the_classic_rules() -> None:
    rules = make_setup("经典12人").rules
    assert (rules.seer_sees, rules.sheriff_weight, rules.exile_tie, rules.reveal_on_death, rules.win) == (
        "role", 2.0, "none", "role", "parity",
    )
    assert rules.night_order.index("seer") < rules.night_order.index("wolves")
    assert make_setup("9人预女猎").rules == Rules()


def test_every_number_rule_has_a_range_and_says_it() -> None:
    """A number the judge would read aloud ("每人发言…秒") is one a person would say: every number switch
    has a range, and a value outside it is refused naming the range (docs/rules.md)."""
    from dataclasses import fields

    from narrator.engine.rules import CHOICES, NUMBER_RANGES

    numbers = {f.name for f in fields(Rules) if isinstance(f.default, int) and not isinstance(f.default, bool)}
    assert not numbers & set(CHOICES)
    assert numbers == set(NUMBER_RANGES), "every number switch needs a range"
    for name, (low, high, _) in NUMBER_RANGES.items():
        assert low <= getattr(Rules(), name) <= high
        Rules().with_overrides({name: low}), Rules().with_overrides({name: high})
        for bad in (high + 1, low - 1, 99999999999999999999):
            with pytest.raises(SetupError, match=f"房规 {name} 要在{low:g}到{high:g}之间"):
                Rules().with_overrides({name: bad})
    with pytest.raises(SetupError, match="房规 speech_seconds 要在0到600之间（0：不限时），不是 99999999999999999999"):
        Rules().with_overrides({"speech_seconds": 99999999999999999999})
