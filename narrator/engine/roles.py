"""Roles (身份), camps (阵营) and their names as the rule texts write them."""

from __future__ import annotations

from enum import StrEnum

from narrator.zh import to_hans


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
}

WOLF_CARDS = frozenset({Role.WEREWOLF, Role.WHITE_WOLF_KING, Role.WOLF_BEAUTY})
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
    }
)
# 民: villagers and the little girl. 丘比特 is good but neither god nor villager (屠边 counting).
FOLK = frozenset({Role.VILLAGER, Role.LITTLE_GIRL})
UNIQUE_CARDS = frozenset(set(Role) - {Role.WEREWOLF, Role.VILLAGER})


def role_named(name: str) -> Role | None:
    """The role a name (any script, slug or alias) stands for, or None."""
    name = name.strip()
    return ALIASES.get(name) or ALIASES.get(to_hans(name))
