"""Roles (身份), camps (阵营) and their names as the rule texts write them."""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum

from narrator.common.zh import to_hans


class Camp(StrEnum):
    GOOD = "good"  # 好人阵营
    WOLVES = "wolves"  # 狼人阵营
    LOVERS = "lovers"  # 人狼恋 third camp
    PIPER = "piper"  # 乐师/吹笛者 plays alone


class Role(StrEnum):
    """A card. The value is the stable slug used in prompt kinds and data files."""

    WEREWOLF = "wolves"  # 狼人
    WHITE_WOLF_KING = "wolf_king"  # 白狼王
    WOLF_BEAUTY = "wolf_beauty"  # 狼美人
    VILLAGER = "villager"  # 村民
    SEER = "seer"  # 预言家
    WITCH = "witch"  # 女巫
    HUNTER = "hunter"  # 猎人
    GUARD = "guard"  # 守卫
    IDIOT = "idiot"  # 白痴
    CUPID = "cupid"  # 丘比特
    THIEF = "thief"  # 盗贼
    LITTLE_GIRL = "little_girl"  # 小女孩
    ELDER = "elder"  # 长老
    SCAPEGOAT = "scapegoat"  # 替罪羊
    PIPER = "piper"  # 乐师 / 吹笛者
    WILD_CHILD = "wild_child"  # 野孩子
    RAVEN = "raven"  # 乌鸦
    # --- modern roles (docs/rule-book.md) ---
    BLACK_WOLF_KING = "black_wolf_king"  # 狼王 / 黑狼王 (shoots on death; `wolf_king` is 白狼王)
    NIGHTMARE = "nightmare"  # 梦魇
    GARGOYLE = "gargoyle"  # 石像鬼
    MECH_WOLF = "mech_wolf"  # 机械狼
    DEMON = "demon"  # 恶魔
    BLOOD_MOON = "blood_moon"  # 血月使徒
    SPIRIT_KNIGHT = "spirit_knight"  # 恶灵骑士
    KNIGHT = "knight"  # 骑士
    GRAVEKEEPER = "gravekeeper"  # 守墓人
    PSYCHIC = "psychic"  # 通灵师
    DREAMCATCHER = "dreamcatcher"  # 摄梦人
    WITCHER = "witcher"  # 猎魔人
    MAGICIAN = "magician"  # 魔术师
    HALF_BLOOD = "half_blood"  # 混血儿

    @property
    def zh(self) -> str:
        return ZH_NAME[self]

    @property
    def is_wolf_card(self) -> bool:
        return self in WOLF_CARDS

    @property
    def is_god(self) -> bool:
        return self in GODS


ZH_NAME: dict[Role, str] = {
    Role.WEREWOLF: "狼人",
    Role.WHITE_WOLF_KING: "白狼王",
    Role.WOLF_BEAUTY: "狼美人",
    Role.VILLAGER: "村民",
    Role.SEER: "预言家",
    Role.WITCH: "女巫",
    Role.HUNTER: "猎人",
    Role.GUARD: "守卫",
    Role.IDIOT: "白痴",
    Role.CUPID: "丘比特",
    Role.THIEF: "盗贼",
    Role.LITTLE_GIRL: "小女孩",
    Role.ELDER: "长老",
    Role.SCAPEGOAT: "替罪羊",
    Role.PIPER: "乐师",
    Role.WILD_CHILD: "野孩子",
    Role.RAVEN: "乌鸦",
    # --- modern roles ---
    Role.BLACK_WOLF_KING: "狼王",
    Role.NIGHTMARE: "梦魇",
    Role.GARGOYLE: "石像鬼",
    Role.MECH_WOLF: "机械狼",
    Role.DEMON: "恶魔",
    Role.BLOOD_MOON: "血月使徒",
    Role.SPIRIT_KNIGHT: "恶灵骑士",
    Role.KNIGHT: "骑士",
    Role.GRAVEKEEPER: "守墓人",
    Role.PSYCHIC: "通灵师",
    Role.DREAMCATCHER: "摄梦人",
    Role.WITCHER: "猎魔人",
    Role.MAGICIAN: "魔术师",
    Role.HALF_BLOOD: "混血儿",
}

# Every name a host, a preset or a rule text may use for a card (simplified, traditional, alternates).
ALIASES: dict[str, Role] = {
    **{zh: role for role, zh in ZH_NAME.items()},
    **{role.value: role for role in Role},
    "狼": Role.WEREWOLF,
    "普通狼人": Role.WEREWOLF,
    "白狼": Role.WHITE_WOLF_KING,
    "白狼王": Role.WHITE_WOLF_KING,
    "平民": Role.VILLAGER,
    "民": Role.VILLAGER,
    "先知": Role.SEER,
    "預言家": Role.SEER,
    "獵人": Role.HUNTER,
    "守衛": Role.GUARD,
    "守护者": Role.GUARD,
    "守護者": Role.GUARD,
    "白癡": Role.IDIOT,
    "小偷": Role.THIEF,
    "盜賊": Role.THIEF,
    "長老": Role.ELDER,
    "替罪羔羊": Role.SCAPEGOAT,
    "吹笛者": Role.PIPER,
    "吹笛人": Role.PIPER,
    "樂師": Role.PIPER,
    "烏鴉": Role.RAVEN,
    "狼美女": Role.WOLF_BEAUTY,
    "丘位元": Role.CUPID,  # Taiwan
    # --- modern roles: docs/rule-book.md's aliases (none of 狼王/黑狼王/狼枪 means 白狼王) ---
    "黑狼王": Role.BLACK_WOLF_KING,
    "狼枪": Role.BLACK_WOLF_KING,
    "暗黑狼王": Role.BLACK_WOLF_KING,
    "狼槍": Role.BLACK_WOLF_KING,
    "噩梦之影": Role.NIGHTMARE,
    "夢魘": Role.NIGHTMARE,
    "噩夢之影": Role.NIGHTMARE,
    "混子": Role.HALF_BLOOD,
    "混混": Role.HALF_BLOOD,
    "混血兒": Role.HALF_BLOOD,
    "机械狼人": Role.MECH_WOLF,
    "機械狼": Role.MECH_WOLF,
    "機械狼人": Role.MECH_WOLF,
    "魔镜少女": Role.PSYCHIC,
    "通靈師": Role.PSYCHIC,
    "魔鏡少女": Role.PSYCHIC,
    "墓守者": Role.GRAVEKEEPER,
    "恶夜骑士": Role.SPIRIT_KNIGHT,
    "惡靈騎士": Role.SPIRIT_KNIGHT,
    "惡夜騎士": Role.SPIRIT_KNIGHT,
    "赤月使徒": Role.BLOOD_MOON,
    "騎士": Role.KNIGHT,
    "攝夢人": Role.DREAMCATCHER,
    "獵魔人": Role.WITCHER,
    "魔術師": Role.MAGICIAN,
    "惡魔": Role.DEMON,
}

WOLF_CARDS = frozenset(
    {
        Role.WEREWOLF,
        Role.WHITE_WOLF_KING,
        Role.WOLF_BEAUTY,
        # --- modern roles ---
        Role.BLACK_WOLF_KING,
        Role.NIGHTMARE,
        Role.GARGOYLE,
        Role.MECH_WOLF,
        Role.DEMON,
        Role.BLOOD_MOON,
        Role.SPIRIT_KNIGHT,
    }
)
GODS = frozenset(
    {
        Role.SEER,
        Role.WITCH,
        Role.HUNTER,
        Role.GUARD,
        Role.IDIOT,
        Role.ELDER,
        Role.RAVEN,
        Role.SCAPEGOAT,
        # --- modern roles ---
        Role.KNIGHT,
        Role.GRAVEKEEPER,
        Role.PSYCHIC,
        Role.DREAMCATCHER,
        Role.WITCHER,
        Role.MAGICIAN,
    }
)
# 民: villagers and the little girl. 丘比特 is good but neither god nor villager (屠边 counting).
FOLK = frozenset({Role.VILLAGER, Role.LITTLE_GIRL})
UNIQUE_CARDS = frozenset(set(Role) - {Role.WEREWOLF, Role.VILLAGER})
# --- modern roles ---
# Wolf cards that never wake with the pack (the offline 恶魔 too, see State.lone_wolf): they take the kill
# once every pack wolf is dead.
LONE_WOLVES = frozenset({Role.GARGOYLE, Role.MECH_WOLF})
# Cards identified inside the wolves' step on night 1 (the pandakill 恶魔 too), as 白狼王 is: every wolf who
# meets the pack is a wolf from its first step (the 狼美人 too, though her own step comes after it).
PACK_IDENTIFIED = (
    Role.WEREWOLF, Role.WHITE_WOLF_KING, Role.WOLF_BEAUTY, Role.BLACK_WOLF_KING, Role.BLOOD_MOON, Role.SPIRIT_KNIGHT,
)


def pack_cards(deck: Collection[Role], demon: str) -> tuple[Role, ...]:
    """The cards the host identifies inside the wolves' step on night 1, in the order he is asked: those of
    `PACK_IDENTIFIED` in the deck, and the 恶魔 when he plays with the pack (`demon` = "pandakill")."""
    cards = tuple(role for role in PACK_IDENTIFIED if role in deck)
    return (*cards, Role.DEMON) if demon == "pandakill" and Role.DEMON in deck else cards


def told_apart(deck: Collection[Role], demon: str) -> tuple[Role, ...]:
    """The pack's cards the host must tell apart from the plain wolves (白狼王, 狼美人, 狼王 …): each shows
    itself at the table's cue on night 1 (the judge's "白狼王请示意身份。"), dealt or not."""
    return tuple(role for role in pack_cards(deck, demon) if role is not Role.WEREWOLF)


# Wolf cards that may not self-explode, and that the wolves may not pick (自刀).
NO_EXPLODE = frozenset({Role.WOLF_BEAUTY, Role.GARGOYLE, Role.MECH_WOLF, Role.DEMON, Role.SPIRIT_KNIGHT})


def role_named(name: str) -> Role | None:
    """The role a name (any script, slug or alias) stands for, or None."""
    name = name.strip()
    return ALIASES.get(name) or ALIASES.get(to_hans(name))
