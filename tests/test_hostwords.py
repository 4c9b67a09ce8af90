"""The host's words -> typed answers (narrator.hostwords).

Tables pin every form the parser promises, in both scripts, the readings chosen for inputs that could go
either way, and the sentences said back when it refuses. Property tests render random seat lists and vote
records the ways a host or Vosk would write them and check they come back unchanged.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from narrator.common.numbers import chinese_number as zh_number
from narrator.engine.answers import (
    Answer,
    Ballots,
    Cards,
    Direction,
    Pass,
    Seats,
    SelfExplode,
    TakeCard,
    VoteResult,
    YesNo,
)
from narrator.engine.roles import ALIASES, Role
from narrator.hostwords import Ambiguous, NotUnderstood, parse, phrases
from narrator.hostwords import _lexicon as lex
from narrator.hostwords._text import to_simplified
from narrator.judge.script import Script

W, V, SEER = Role.WEREWOLF, Role.VILLAGER, Role.SEER
HUNTER, GUARD, WITCH = Role.HUNTER, Role.GUARD, Role.WITCH
ALL_TYPES = frozenset({Seats, YesNo, Pass, SelfExplode, Cards, TakeCard, Ballots, VoteResult, Direction})
SCRIPT = Script("zh-Hans")


# ---------------------------------------------------------------- seats


@pytest.mark.parametrize(
    ("text", "seats"),
    [
        ("七号", (7,)),
        ("警徽给五号", (5,)),
        ("移交給五號", (5,)),
        ("七號", (7,)),
        ("七 号", (7,)),
        ("七 號", (7,)),
        ("7号", (7,)),
        ("７号", (7,)),
        ("7", (7,)),
        ("七", (7,)),
        ("  七号。", (7,)),
        ("，七号！", (7,)),
        ("幺号", (1,)),
        ("幺", (1,)),
        ("两号", (2,)),
        ("兩號", (2,)),
        ("二号", (2,)),
        ("十", (10,)),
        ("十号", (10,)),
        ("十一号", (11,)),
        ("十二号", (12,)),
        ("十二號", (12,)),
        ("十 二 号", (12,)),
        ("十 二 號", (12,)),
        ("十二 号", (12,)),
        ("十八", (18,)),
        ("十 八", (18,)),
        ("12号", (12,)),
        ("１２号", (12,)),
        ("18", (18,)),
        ("07号", (7,)),
        ("第七号", (7,)),
        ("七号位", (7,)),
        ("七号玩家", (7,)),
        ("刀七号", (7,)),
        ("刀 七 号", (7,)),
        ("验 十二 号", (12,)),
        ("驗十二號", (12,)),
        ("守护三号", (3,)),
        ("守護三號", (3,)),
        ("开枪带走五号", (5,)),
        ("開槍帶走五號", (5,)),
        ("毒 九 号 吧", (9,)),
        ("就是七号", (7,)),
        # several seats in one breath
        ("三号 五号 七号", (3, 5, 7)),
        ("三號 五號 七號", (3, 5, 7)),
        ("三号五号七号", (3, 5, 7)),
        ("3、5、7", (3, 5, 7)),
        ("3，5，7", (3, 5, 7)),
        ("3,5,7", (3, 5, 7)),
        ("3 5 7", (3, 5, 7)),
        ("3号和5号", (3, 5)),
        ("三号跟五号", (3, 5)),
        ("连 三号 和 十二号", (3, 12)),
        ("連三號與十二號", (3, 12)),
        # Chinese digits never group by themselves: no one says 三五七 for a number
        ("三五七号", (3, 5, 7)),
        ("一 二 号", (1, 2)),
        ("一二号", (1, 2)),
        ("十二十三号", (12, 13)),
        # 十 + digit joins even across a Vosk space; digit + space + 十 does not
        ("十 二 五", (12, 5)),
        ("五 十", (5, 10)),
        ("五十", (50,)),
        ("二十", (20,)),
        ("二十 三", (23,)),
        ("九十九号", (99,)),
        # one seat repeated for emphasis counts once (a seat again among others is refused: below)
        ("七号，七号", (7,)),
    ],
)
def test_seats(text: str, seats: tuple[int, ...]) -> None:
    assert parse(text, {Seats}) == Seats(seats)


@pytest.mark.parametrize(
    "text",
    [
        "空刀",
        "空 刀",
        "不用",
        "没有",
        "沒有",
        "没人",
        "沒人",
        "没有人",
        "無人",
        "不开枪",
        "不開槍",
        "不 开 枪",
        "撕警徽",
        "撕掉 警徽",
        "不给",
        "放弃",
        "放棄",
        "不守",
        "空守",
        "不毒",
        "不验",
        "不驗",
        "空刀。",
        "空刀了",
        "过",  # the guard's step: 过 is 空守
        "没有人退水",  # the sheriff's withdrawals
        "没人退水",
        "不退水",
        "0",  # typed, as on the keypad
    ],
)
def test_nobody(text: str) -> None:
    assert parse(text, {Seats}) == Seats(())


# ---------------------------------------------------------------- yes / no


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        ("救", True),
        ("救人", True),
        ("救 吧", True),
        ("不救", False),
        ("不 救", False),
        ("不救了", False),
        ("不要救", False),
        ("用", True),
        ("用药", True),
        ("用藥", True),
        ("不用", False),
        ("不用了", False),
        ("翻牌", True),
        ("翻", True),
        ("不翻", False),
        ("不翻牌", False),
        ("要", True),
        ("不要", False),
        ("是", True),
        ("是的", True),
        ("不是", False),
        ("好", True),
        ("好的", True),
        ("好了", True),
        ("可以", True),
        ("对", True),
        ("對", True),
        ("對的", True),
        ("否", False),
        ("确认", True),
        ("確認", True),
        ("不可以", False),
        ("没有", False),
        ("沒有", False),
        ("救。", True),
        ("救 救", True),
    ],
)
def test_yesno(text: str, yes: bool) -> None:
    assert parse(text, {YesNo}) == YesNo(yes)


# ---------------------------------------------------------------- pass / self-explode


@pytest.mark.parametrize(
    "text",
    ["过", "過", "过了", "過了", "好了", "结束", "結束", "结束了", "说完了", "說完了", "发言结束", "發言結束",
     "发言 结束", "我说完了", "完毕", "下一位", "过。", "嗯 过"],
)  # fmt: skip
def test_pass(text: str) -> None:
    assert parse(text, {Pass}) == Pass()
    assert parse(text, {Pass, SelfExplode}) == Pass()


@pytest.mark.parametrize(
    ("text", "seat"),
    [
        ("三号自爆", 3),
        ("三號自爆", 3),
        ("三号自爆了", 3),
        ("三 号 自爆", 3),
        ("3号自爆", 3),
        ("十二号自爆", 12),
        ("十 二 號 自爆 了", 12),
        ("自爆 三号", 3),
        ("三号狼人自爆", 3),
        ("三号爆了", 3),
    ],
)
def test_self_explode(text: str, seat: int) -> None:
    assert parse(text, {Pass, SelfExplode}) == SelfExplode(seat)


def test_self_explode_only_when_accepted() -> None:
    with pytest.raises(NotUnderstood):
        parse("三号自爆", {Pass})
    with pytest.raises(NotUnderstood):
        parse("三号自爆", {Seats})


# ---------------------------------------------------------------- cards


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        ("狼人 村民", (W, V)),
        ("狼人村民", (W, V)),
        ("狼人和预言家", (W, SEER)),
        ("狼人和預言家", (W, SEER)),
        ("狼人、预言家", (W, SEER)),
        ("两张村民", (V, V)),
        ("兩張村民", (V, V)),
        ("两张 村民", (V, V)),
        ("两个狼人", (W, W)),
        ("两张都是村民", (V, V)),
        ("两张牌都是村民", (V, V)),
        ("兩張牌都是村民", (V, V)),
        ("两张牌是狼人和村民", (W, V)),
        ("一张狼人一张村民", (W, V)),
        ("獵人 守衛", (HUNTER, GUARD)),
        ("猎人 守卫", (HUNTER, GUARD)),
        ("女巫", (WITCH,)),
        ("白狼王 狼美人", (Role.WHITE_WOLF_KING, Role.WOLF_BEAUTY)),
        ("白狼 狼", (Role.WHITE_WOLF_KING, W)),
        ("平民 先知", (V, SEER)),
        ("盜賊 白癡", (Role.THIEF, Role.IDIOT)),
        ("樂師 烏鴉", (Role.PIPER, Role.RAVEN)),
        ("底牌是狼人和村民", (W, V)),
    ],
)
def test_cards(text: str, roles: tuple[Role, ...]) -> None:
    assert parse(text, {Cards}) == Cards(roles)


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_cards_every_alias(name: str) -> None:
    assert parse(name, {Cards}) == Cards((ALIASES[name],))


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("狼人", W),
        ("拿狼人", W),
        ("要预言家", SEER),
        ("要預言家", SEER),
        ("拿 预言家 那张", SEER),
        ("换成村民", V),
        ("換成村民", V),
        ("不换", None),
        ("不換", None),
        ("不拿", None),
        ("保留", None),
        ("不要", None),
        ("都不要", None),
        ("不 换", None),
    ],
)
def test_take_card(text: str, role: Role | None) -> None:
    assert parse(text, {TakeCard}) == TakeCard(role)


# ---------------------------------------------------------------- ballots


@pytest.mark.parametrize(
    ("text", "votes"),
    [
        ("1 2 5 9 投 7号，3 4 投 5号", {1: 7, 2: 7, 5: 7, 9: 7, 3: 5, 4: 5}),
        ("1 2 5 9 投 7號，3 4 投 5號", {1: 7, 2: 7, 5: 7, 9: 7, 3: 5, 4: 5}),
        ("一 二 五 九 投 七号", {1: 7, 2: 7, 5: 7, 9: 7}),
        ("一 二 五 九 投 七號", {1: 7, 2: 7, 5: 7, 9: 7}),
        ("一二五九投七号", {1: 7, 2: 7, 5: 7, 9: 7}),
        ("1 2 5 9 投给 7号；3 4 投给 5号", {1: 7, 2: 7, 5: 7, 9: 7, 3: 5, 4: 5}),
        ("1 2 投給 7號", {1: 7, 2: 7}),
        ("1号 2号 投票给 7号", {1: 7, 2: 7}),
        ("1 2 投票給 7", {1: 7, 2: 7}),
        ("1 2 票 7号", {1: 7, 2: 7}),
        ("1 2 投 7 3 4 投 5", {1: 7, 2: 7, 3: 5, 4: 5}),
        ("1 2 投 7号 3 4 投 5号 6 8 弃票", {1: 7, 2: 7, 3: 5, 4: 5}),
        ("1 2 投 7号 3 4 投 5号 6 8 棄票", {1: 7, 2: 7, 3: 5, 4: 5}),
        ("6 8 弃票，1 2 投 7号", {1: 7, 2: 7}),
        ("6 8 弃票", {}),
        ("全部弃票", {}),
        ("十 十二 投 三号", {10: 3, 12: 3}),
        ("十 二 投 三号", {12: 3}),
        ("十一 十二 投 十八 号", {11: 18, 12: 18}),
        ("7号投7号", {7: 7}),
        ("二 十 投 三", {2: 3, 10: 3}),
        ("十 投 三", {10: 3}),
        ("1号 二号 投 七號", {1: 7, 2: 7}),
        ("1 2 投 给 7", {1: 7, 2: 7}),
        ("1、2、5、9 投 7号；3、4 投 5号", {1: 7, 2: 7, 5: 7, 9: 7, 3: 5, 4: 5}),
    ],
)
def test_ballots(text: str, votes: dict[int, int]) -> None:
    answer = parse(text, {Ballots, VoteResult})
    assert isinstance(answer, Ballots)
    assert answer.as_dict() == votes


def test_ballots_keep_the_order_said() -> None:
    assert parse("5 1 投 7号，3 投 2号", {Ballots}) == Ballots(((5, 7), (1, 7), (3, 2)))


# ---------------------------------------------------------------- vote results


@pytest.mark.parametrize(
    ("text", "result"),
    [
        ("七号出局", VoteResult(7)),
        ("七號出局", VoteResult(7)),
        ("七 号 出局", VoteResult(7)),
        ("7号出局了", VoteResult(7)),
        ("七号当选", VoteResult(7)),
        ("七號當選", VoteResult(7)),
        ("七号 被放逐", VoteResult(7)),
        ("七号 被 放逐", VoteResult(7)),
        ("放逐七号", VoteResult(7)),
        ("十二号出局", VoteResult(12)),
        ("三号 七号 平票", VoteResult(None, (3, 7))),
        ("三號 七號 平票", VoteResult(None, (3, 7))),
        ("三号和七号平票", VoteResult(None, (3, 7))),
        ("3 7 平票", VoteResult(None, (3, 7))),
        ("三号 七号 十号 平票", VoteResult(None, (3, 7, 10))),
        ("三号 七号 pk", VoteResult(None, (3, 7))),
        ("没有人出局", VoteResult(None)),
        ("沒有人出局", VoteResult(None)),
        ("没有 人 出局", VoteResult(None)),
        ("平安日", VoteResult(None)),
        ("无人出局", VoteResult(None)),
        ("無人出局", VoteResult(None)),
        ("流局", VoteResult(None)),
        ("无人当选", VoteResult(None)),
        ("無人當選", VoteResult(None)),
    ],
)
def test_vote_result(text: str, result: VoteResult) -> None:
    assert parse(text, {Ballots, VoteResult}) == result
    assert parse(text, {VoteResult}) == result


# ---------------------------------------------------------------- direction


@pytest.mark.parametrize(
    ("text", "side"),
    [
        ("警左", "left"),
        ("警右", "right"),
        ("左", "left"),
        ("右", "right"),
        ("从左边", "left"),
        ("從左邊", "left"),
        ("从右边", "right"),
        ("從右邊", "right"),
        ("左边", "left"),
        ("警长左手边开始发言", "left"),
        ("警長右手邊開始發言", "right"),
        ("警 右", "right"),
    ],
)
def test_direction(text: str, side: str) -> None:
    assert parse(text, {Direction}) == Direction(side)  # type: ignore[arg-type]


# ---------------------------------------------------------------- what the prompt accepts decides


@pytest.mark.parametrize(
    ("text", "accepts", "answer"),
    [
        ("不用", {Seats}, Seats(())),
        ("不用", {YesNo}, YesNo(False)),
        ("没有", {Seats}, Seats(())),
        ("没有", {YesNo}, YesNo(False)),
        ("没有", {VoteResult}, VoteResult(None)),
        ("好了", {Pass}, Pass()),
        ("好了", {YesNo}, YesNo(True)),
        ("七号", {Seats, YesNo}, Seats((7,))),
        ("救", {Seats, YesNo}, YesNo(True)),
        ("过", {Pass, SelfExplode}, Pass()),
        ("七号出局", {Ballots, VoteResult}, VoteResult(7)),
        ("不要", {TakeCard}, TakeCard(None)),
        ("不要", {YesNo}, YesNo(False)),
        ("七号", ALL_TYPES - {Ballots, VoteResult, SelfExplode}, Seats((7,))),
        ("狼人", {TakeCard, Seats}, TakeCard(W)),
        ("0", {YesNo}, YesNo(False)),
        ("0", {VoteResult}, VoteResult(None)),
        ("十号退水", {Seats}, Seats((10,))),
        ("十号，三号退出竞选", {Seats}, Seats((10, 3))),
    ],
)
def test_accepts_decides(text: str, accepts: set[type], answer: Answer) -> None:
    assert parse(text, accepts) == answer


@pytest.mark.parametrize(
    ("text", "accepts", "reason"),
    [
        ("不用", {Seats, YesNo}, "听不出是“没有人”还是“不是”，请换个说法。"),
        ("没有", {Seats, YesNo, VoteResult}, "听不出是“没有人”还是“不是”还是“没有人出局”，请换个说法。"),
        ("狼人", {Cards, TakeCard}, "听不出是“狼人”还是“拿狼人”，请换个说法。"),
        ("好了", {Pass, YesNo}, "听不出是“是”还是“过”，请换个说法。"),
    ],
)
def test_two_readings_are_ambiguous(text: str, accepts: set[type], reason: str) -> None:
    with pytest.raises(Ambiguous) as caught:
        parse(text, accepts)
    assert SCRIPT.refusal(caught.value.refusal).text == reason


# ---------------------------------------------------------------- refusals and what is said back


@pytest.mark.parametrize(
    ("text", "accepts", "kind", "reason"),
    [
        ("", {Seats}, NotUnderstood, "没听到内容，请再说一遍。"),
        ("，。 ", {Seats}, NotUnderstood, "没听到内容，请再说一遍。"),
        ("零号", {Seats}, NotUnderstood, "没有零号，请再说一遍座位号。"),
        ("〇号", {Seats}, NotUnderstood, "没有零号，请再说一遍座位号。"),
        ("0号", {Seats}, NotUnderstood, "没有零号，请再说一遍座位号。"),
        ("十号退水", {Pass, SelfExplode}, NotUnderstood, "退水要等竞选发言结束以后：那时法官会问有没有人退水。"),
        ("四号自爆", {Ballots, VoteResult}, NotUnderstood, "投票时不能自爆，请说几号投几号，或者几号出局。"),
        ("四號自爆", {Ballots}, NotUnderstood, "投票时不能自爆，请说几号投几号。"),
        ("三号自爆", {Pass}, NotUnderstood, "现在不能自爆，请说“过”。"),
        ("自曝", {Seats}, NotUnderstood, "现在不能自爆，请说座位号。"),
        ("357号", {Seats}, NotUnderstood, "没有这么大的座位号，请再说一遍座位号。"),
        ("一百号", {Seats}, NotUnderstood, "没听懂“百”，请说座位号。"),
        ("刀", {Seats}, NotUnderstood, "没听清座位号，请再说一遍。"),
        ("号", {Seats}, NotUnderstood, "没听清座位号，请再说一遍。"),
        ("救", {Seats}, NotUnderstood, "没听懂“救”，请说座位号。"),
        ("七号 八号 hello", {Seats}, NotUnderstood, "没听懂“hello”，请说座位号。"),
        ("空刀 七号", {Seats}, Ambiguous, "既说了没有人，又说了座位号，请再说一遍。"),
        # a seat again among others, a word after the seats: a seat word misheard, refused (never dropped)
        ("4号 9号 10号 12号 4号", {Seats}, NotUnderstood, "四号说了两次，请把座位号重新说一遍。"),
        ("3 5 3", {Seats}, NotUnderstood, "三号说了两次，请把座位号重新说一遍。"),
        ("1号 3号 6号 4号 是", {Seats}, NotUnderstood, "座位号后面多了“是”，请只说座位号。"),
        ("七号 刀", {Seats}, NotUnderstood, "座位号后面多了“刀”，请只说座位号。"),
        ("救 不救", {YesNo}, Ambiguous, "既说了要又说了不要，请再说一遍。"),
        ("七号", {YesNo}, NotUnderstood, "这里不用说座位号，请说是或者不是。"),
        ("嗯", {YesNo}, NotUnderstood, "没听清，请说是或者不是。"),
        ("七号过", {Pass}, NotUnderstood, "发言结束只说“过”就好，不用说座位号。"),
        ("七號過", {Pass, SelfExplode}, NotUnderstood, "发言结束只说“过”就好，不用说座位号。"),
        ("自爆", {Pass, SelfExplode}, NotUnderstood, "几号自爆？请说座位号。"),
        ("三号 五号 自爆", {SelfExplode}, Ambiguous, "只能一个人自爆，请再说是几号。"),
        ("三号", {Pass, SelfExplode}, NotUnderstood, "没听懂，请说“过”，或者几号自爆。"),
        ("两张", {Cards}, NotUnderstood, "没听清牌的身份，请再说一遍。"),
        ("两张牌是狼人", {Cards}, NotUnderstood, "说了两张，却听到一个身份，请再说一遍。"),
        ("狼人 七号", {Cards}, NotUnderstood, "这里不用说座位号，请说牌的身份。"),
        ("狼人 巫师", {Cards}, NotUnderstood, "没听懂“巫师”，请说牌的身份。"),
        ("狼人 村民", {TakeCard}, Ambiguous, "只能拿一张牌，请说拿哪一张。"),
        ("不换 狼人", {TakeCard}, Ambiguous, "既说了不换，又说了身份，请再说一遍。"),
        ("拿", {TakeCard}, NotUnderstood, "没听清拿哪张牌，请说身份，或者不换。"),
        ("1 2 投 7 1 投 5", {Ballots}, NotUnderstood, "一号投了两次，请再说一遍。"),
        ("一 二 投 七 二 投 五", {Ballots, VoteResult}, NotUnderstood, "二号投了两次，请再说一遍。"),
        ("3 3 投 7", {Ballots}, NotUnderstood, "三号投了两次，请再说一遍。"),
        ("6 弃票 6 投 7", {Ballots}, NotUnderstood, "六号投了两次，请再说一遍。"),
        ("1 2 投 7 8", {Ballots}, NotUnderstood, "八号投给谁没听清，请再说一遍。"),
        ("1 2 投", {Ballots}, NotUnderstood, "投给几号没听清，请再说一遍。"),
        ("1 2 投 投 7", {Ballots}, NotUnderstood, "投给几号没听清，请再说一遍。"),
        ("投 7号", {Ballots}, NotUnderstood, "谁投的票没听清，请再说一遍。"),
        ("弃票", {Ballots}, NotUnderstood, "谁弃的票没听清，请再说一遍。"),
        ("全部弃票 1 投 2", {Ballots}, Ambiguous, "既说了都弃票，又说了座位号，请再说一遍。"),
        ("0 投 7", {Ballots}, NotUnderstood, "没有零号，请再说一遍座位号。"),
        ("七号", {Ballots}, NotUnderstood, "没听清谁投了谁，请按“几号投几号”说。"),
        ("七号", {Ballots, VoteResult}, NotUnderstood, "没听懂，请说几号投几号，或者几号出局。"),
        ("1 2 投 7号 7号出局", {Ballots, VoteResult}, NotUnderstood, "没听懂，请说几号投几号，或者几号出局。"),
        ("出局", {VoteResult}, NotUnderstood, "几号出局？请说座位号。"),
        ("三号 七号 出局", {VoteResult}, Ambiguous, "只能一个人出局，请再说是几号。"),
        ("三号 平票", {VoteResult}, NotUnderstood, "平票至少要两个人，请说是哪几号平票。"),
        ("三号 七号 平票 出局", {VoteResult}, Ambiguous, "是出局还是平票？请再说一遍。"),
        ("没有人出局 七号", {VoteResult}, Ambiguous, "既说了没有人出局，又说了座位号或平票，请再说一遍。"),
        ("左 右", {Direction}, Ambiguous, "既说了左又说了右，请再说一遍。"),
        ("三号", {Direction}, NotUnderstood, "这里不用说座位号，请说警左或者警右。"),
        ("上", {Direction}, NotUnderstood, "没听懂“上”，请说警左或者警右。"),
    ],
)
def test_refusals(text: str, accepts: set[type], kind: type[NotUnderstood], reason: str) -> None:
    with pytest.raises(kind) as caught:
        parse(text, accepts)
    assert SCRIPT.refusal(caught.value.refusal).text == reason
    assert str(caught.value) == caught.value.code
    assert isinstance(caught.value, ValueError)


def test_refusals_are_plain_public_types() -> None:
    """Internal subclasses do not leak: callers see exactly NotUnderstood or Ambiguous."""
    with pytest.raises(NotUnderstood) as caught:
        parse("hello", {Seats})
    assert type(caught.value) is NotUnderstood


@pytest.mark.parametrize("accepts", [set(), {int}, {Seats, str}])
def test_accepts_must_be_answer_types(accepts: set[type]) -> None:
    with pytest.raises(TypeError):
        parse("七号", accepts)


# ---------------------------------------------------------------- phrases for the recogniser


def test_phrases_for_seats() -> None:
    words = phrases({Seats}, 12)
    assert words[:3] == ["一号", "二号", "三号"]
    for expected in ("十二号", "十二", "七", "幺号", "两号", "空刀", "不用", "不开枪", "不守"):
        assert expected in words
    assert "十三号" not in words
    assert len(words) == len(set(words))


@pytest.mark.parametrize(
    ("accepts", "expected", "absent"),
    [
        ({YesNo}, ["救", "不救", "用", "不用", "翻牌", "不翻", "是", "不是", "否"], ["一号", "过"]),
        ({Pass, SelfExplode}, ["过", "好了", "发言结束", "自爆", "七号"], ["救"]),
        ({Ballots, VoteResult}, ["投", "投给", "弃票", "出局", "平票", "平安日", "十八号"], ["十九号"]),
        ({Cards}, ["狼人", "村民", "预言家", "两张"], ["一号", "villager"]),
        ({TakeCard}, ["拿", "不换", "保留", "狼人"], ["预言家" + "号"]),
        ({Direction}, ["警左", "警右", "左", "右", "从左边"], ["一号"]),
    ],
)
def test_phrases_per_prompt(accepts: set[type], expected: list[str], absent: list[str]) -> None:
    words = phrases(accepts, 18)
    assert set(expected) <= set(words)
    assert not set(absent) & set(words)
    assert len(words) == len(set(words))


@pytest.mark.parametrize("accepts", [{Seats}, {YesNo}, {Pass, SelfExplode}, {Cards}, {TakeCard},
                                     {Ballots, VoteResult}, {Direction}])  # fmt: skip
def test_phrases_are_all_understood(accepts: set[type]) -> None:
    """Every offered word is simplified and, alone or after a seat, is understood by that prompt or is a
    word that only makes sense with a seat (刀, 投, 出局…) - never an unknown word."""
    for word in phrases(accepts, 18):
        assert to_simplified(word) == word
        for text in (word, "七号 " + word, "一 二 " + word + " 七号"):
            try:
                parse(text, accepts)
            except NotUnderstood as refused:
                assert refused.code != "words.unknown", (word, text, refused.refusal)


@given(st.integers(1, 99))
def test_seat_words_parse_back(max_seat: int) -> None:
    words = phrases({Seats}, max_seat)
    for n in (1, max_seat, (1 + max_seat) // 2):
        assert parse(f"{zh_number(n)}号", {Seats}) == Seats((n,))
        assert f"{zh_number(n)}号" in words


@pytest.mark.parametrize("max_seat", [0, 100, -1])
def test_phrases_reject_silly_tables(max_seat: int) -> None:
    with pytest.raises(ValueError):
        phrases({Seats}, max_seat)


@pytest.mark.parametrize(("n", "zh"), [(1, "一"), (9, "九"), (10, "十"), (11, "十一"), (18, "十八"),
                                       (20, "二十"), (23, "二十三"), (99, "九十九")])  # fmt: skip
def test_zh_number(n: int, zh: str) -> None:
    assert zh_number(n) == zh


# ---------------------------------------------------------------- word lists


LEXICONS = {
    "seats": lex.SEATS,
    "yesno": lex.YESNO,
    "pass": lex.PASS,
    "self_explode": lex.SELF_EXPLODE,
    "ballots": lex.BALLOTS,
    "vote_result": lex.VOTE_RESULT,
    "cards": lex.CARDS,
    "take_card": lex.TAKE_CARD,
    "direction": lex.DIRECTION,
}


@pytest.mark.parametrize("name", sorted(LEXICONS))
def test_lexicons_are_kept_simplified(name: str) -> None:
    """Readers only ever see folded text, so a word list entry in any other form could never match."""
    assert [w for w in LEXICONS[name] if to_simplified(w) != w] == []


# Every word of the lists above as OpenCC writes it in traditional script (Taiwan and Hong Kong forms).
TRADITIONAL = str.split(
    "一個 一張 下一個 不對 不帶 不帶人 不換 不換了 不殺 不用換 不用藥 不用解藥 "
    "不發動 不連 不選 不開 不開槍 不驗 二張 保留原來的 全員棄票 全棄票 全部棄權 "
    "全部棄票 兩個 兩張 分別是 原來的 右手邊 右邊 守衛 守衞 守護 守護者 完畢 對 "
    "對的 左手邊 左邊 帶走 張 從 從右 從右邊 從左 從左邊 我說完了 我説完了 我過 "
    "投票給 投給 換 換成 換牌 放棄 查驗 棄 棄權 棄票 樂師 殺 沒了 沒人 沒人出局 "
    "沒人投票 沒人當選 沒投 沒有 沒有人 沒有人出局 沒有人投票 沒有人當選 沒有出局 "
    "烏鴉 無人 無人出局 無人當選 然後 獵人 用藥 用解藥 當選 當選了 當選警長 發動 "
    "發言 發言完了 發言完畢 發言結束 白癡 盜賊 確定 確認 票給 空槍 空驗 結束 "
    "結束了 與 號 說完 說完了 説完 説完了 誰都不 請 講完了 警長 警長右手邊 "
    "警長左手邊 這張 連 過 過了 選 選擇 還有 邊 那個 那張 都棄權 都棄票 長老 "
    "開始 開槍 開槍帶走 預言家 額 驗 丘位元"
)


@pytest.mark.parametrize("word", TRADITIONAL)
def test_traditional_words_fold_into_the_lists(word: str) -> None:
    assert any(to_simplified(word) in table for table in LEXICONS.values())


@pytest.mark.parametrize("config", ["s2t", "s2tw", "s2hk"])
def test_every_listed_word_in_traditional_script_folds_back(config: str) -> None:
    """A host may type any word in 繁體 (standard, Taiwan or Hong Kong forms): OpenCC's conversion of each
    word of every list is read as that word."""
    import opencc

    convert = opencc.OpenCC(config).convert
    for name, table in LEXICONS.items():
        lost = [w for w in table if to_simplified(convert(w)) not in table]
        assert not lost, (name, config, lost)


def test_aliases_fold_without_clashes() -> None:
    for name, role in ALIASES.items():
        assert lex.ROLE_WORDS[to_simplified(name)] is role


# ---------------------------------------------------------------- properties: render, then read back

seat_lists = st.lists(st.integers(1, 18), min_size=1, max_size=8, unique=True)


def zh_run_is_unambiguous(nums: list[int], spaced: bool) -> bool:
    """Whether bare Chinese numerals in a row read back as themselves.

    Two documented readings make some rows mean something else: 十 followed by a digit is one number
    ("十 五" is 15, not 10 and 5), and without spaces a digit followed by 十 is a multiple of ten ("三十二"
    is 32). A host saying such rows aloud would put 号 between them.
    """
    for a, b in itertools.pairwise(nums):
        if a == 10 and b < 10:
            return False
        if not spaced and a < 10 <= b:
            return False
    return True


def render_seat(n: int, style: str) -> str:
    match style:
        case "arabic":
            return str(n)
        case "fullwidth":
            return "".join(chr(ord(d) - ord("0") + ord("０")) for d in str(n))
        case "zh":
            return zh_number(n)
        case "zh_vosk":  # Vosk splits every character: 十 二
            return " ".join(zh_number(n))
        case _:  # colloquial: 1 and 2 as 幺 and 两
            return {1: "幺", 2: "两"}.get(n, zh_number(n))


SEAT_STYLES = ["arabic", "fullwidth", "zh", "zh_vosk", "colloquial"]


@given(
    seats=seat_lists,
    style=st.sampled_from(SEAT_STYLES),
    mark=st.sampled_from(["号", "號", " 号", ""]),
    sep=st.sampled_from([" ", "，", "、", ", ", "；", " 和 ", ""]),
    around=st.sampled_from([("", ""), ("  ", "。"), ("，", "！"), ("刀 ", ""), ("", " 吧")]),
)
def test_seat_lists_read_back(
    seats: list[int], style: str, mark: str, sep: str, around: tuple[str, str]
) -> None:
    if not mark and style in ("arabic", "fullwidth"):
        assume(sep != "")  # "12" is twelve
    elif not mark:
        assume(zh_run_is_unambiguous(seats, spaced=sep != ""))
    body = sep.join(render_seat(n, style) + mark for n in seats)
    text = around[0] + body + around[1]
    assert parse(text, {Seats}) == Seats(tuple(seats)), text
    assert parse(text, {Seats, YesNo, Pass}) == Seats(tuple(seats)), text


@st.composite
def vote_records(draw: st.DrawFn) -> tuple[list[tuple[list[int], int]], list[int]]:
    """Groups of (voters, target) with every voter named once, and the seats that said 弃票."""
    people = draw(st.permutations(range(1, 19)))
    n_voters = draw(st.integers(1, 12))
    n_abstain = draw(st.integers(0, 3))
    voters, abstainers = list(people[:n_voters]), list(people[n_voters : n_voters + n_abstain])
    groups: list[tuple[list[int], int]] = []
    while voters:
        size = draw(st.integers(1, len(voters)))
        groups.append((voters[:size], draw(st.integers(1, 18))))
        voters = voters[size:]
    return groups, abstainers


@given(
    record=vote_records(),
    style=st.sampled_from(SEAT_STYLES),
    voter_mark=st.sampled_from(["", "号", " 号"]),
    target_mark=st.sampled_from(["号", " 号", "號", ""]),
    verb=st.sampled_from(["投", "投给", "投票给", "票", "投給"]),
    group_sep=st.sampled_from(["，", "；", " ", "。", ", "]),
    abstain_first=st.booleans(),
)
def test_vote_records_read_back(
    record: tuple[list[tuple[list[int], int]], list[int]],
    style: str,
    voter_mark: str,
    target_mark: str,
    verb: str,
    group_sep: str,
    abstain_first: bool,
) -> None:
    groups, abstainers = record
    zh = style not in ("arabic", "fullwidth")
    if zh and not voter_mark:
        for voters, _ in groups:
            assume(zh_run_is_unambiguous(voters, spaced=True))
        assume(zh_run_is_unambiguous(abstainers, spaced=True))
    if zh and not target_mark and group_sep == " ":
        # a bare target runs straight into the next group's first voter
        for (_, target), (voters, _) in itertools.pairwise(groups):
            assume(zh_run_is_unambiguous([target, voters[0]], spaced=True))
        if groups and abstainers and not abstain_first:
            assume(zh_run_is_unambiguous([groups[-1][1], abstainers[0]], spaced=True))

    def seats(nums: list[int], mark: str) -> str:
        return " ".join(render_seat(n, style) + mark for n in nums)

    clauses = [f"{seats(voters, voter_mark)} {verb} {render_seat(target, style)}{target_mark}"
               for voters, target in groups]  # fmt: skip
    if abstainers:
        abstain = f"{seats(abstainers, voter_mark)} 弃票"
        clauses = [abstain, *clauses] if abstain_first else [*clauses, abstain]
    text = group_sep.join(clauses)
    expected = tuple((voter, target) for voters, target in groups for voter in voters)
    assert parse(text, {Ballots, VoteResult}) == Ballots(expected), text


@given(
    seats=st.lists(st.integers(1, 18), min_size=2, max_size=4, unique=True),
    style=st.sampled_from(SEAT_STYLES),
)
def test_vote_results_read_back(seats: list[int], style: str) -> None:
    marked = " ".join(render_seat(n, style) + "号" for n in seats)
    assert parse(f"{marked} 平票", {Ballots, VoteResult}) == VoteResult(None, tuple(seats))
    first = render_seat(seats[0], style) + "号"
    assert parse(f"{first} 出局", {Ballots, VoteResult}) == VoteResult(seats[0])


_CHARS = {ch for table in LEXICONS.values() for word in table if not word.isascii() for ch in word}
WORDY = "".join(sorted(_CHARS))


@given(
    text=st.text(alphabet=WORDY + "0123456789 ，、。號過abc十百", max_size=20),
    accepts=st.sets(st.sampled_from(sorted(ALL_TYPES, key=lambda t: t.__name__)), min_size=1),
)
def test_anything_either_parses_to_an_accepted_type_or_is_refused(text: str, accepts: set[type]) -> None:
    try:
        answer = parse(text, accepts)
    except NotUnderstood as refused:
        assert SCRIPT.refusal(refused.refusal).text
        assert type(refused) in (NotUnderstood, Ambiguous)
    else:
        assert type(answer) in accepts
        assert parse(text, accepts) == answer


def test_tokenising_is_linear_in_the_length_of_the_text() -> None:
    """A long run of unknown characters is one token, built once (it used to grow by string concatenation:
    a 1,000,000-character line took 112 s). Timed in the thread's own CPU time, which a busy machine does
    not stretch (the wall clock of a worker waiting for a core did: a ratio of 39 seen once)."""
    import time

    from narrator.hostwords._text import clean, tokens

    def seconds(n: int) -> float:
        chars = clean("猫" * n)
        start = time.thread_time()
        [token] = tokens(chars, {"号": "hao"})
        assert token.kind == "unk" and len(token.text) == n
        return time.thread_time() - start

    small, large = min(seconds(20_000) for _ in range(3)), min(seconds(200_000) for _ in range(3))
    assert large < 25 * small  # ten times the text: about ten times the time, far from a hundred
