"""House rules (房规) as switches, and the game set-up (who plays which deck under which rules).

Every switch has the modern Chinese table default (seed 002); the `classic` preset flips the flags that
The Werewolves of Miller's Hollow differs on. Variants are flags, never forked code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from narrator.engine.roles import UNIQUE_CARDS, WOLF_CARDS, Role

# Steps of cards not in the deck are left out, so the modern roles' steps (docs/rule-book.md) sit in both
# orders without changing a classic game.
MODERN_NIGHT_ORDER: tuple[str, ...] = (
    "thief", "cupid", "lovers", "half_blood", "wild_child",
    "magician", "nightmare", "dreamcatcher",
    "guard", "wolves", "wolf_beauty", "demon", "witch", "mech_wolf", "seer", "psychic", "gargoyle",
    "gravekeeper", "witcher", "raven", "piper", "charmed",
    "hunter", "black_wolf_king", "idiot", "elder", "scapegoat", "little_girl", "knight",
)  # fmt: skip
CLASSIC_NIGHT_ORDER: tuple[str, ...] = (
    "thief", "cupid", "lovers", "half_blood", "wild_child",
    "magician", "nightmare", "dreamcatcher",
    "guard", "seer", "psychic", "gargoyle", "wolves", "wolf_beauty", "demon", "witch", "mech_wolf",
    "gravekeeper", "witcher", "raven", "piper", "charmed",
    "hunter", "black_wolf_king", "idiot", "elder", "scapegoat", "little_girl", "knight",
)  # fmt: skip

# 新月 (New Moon, seed 000:250) event cards the engine can play; `new_moon: true` in a preset or scenario means
# this whole deck, or name the cards: `new_moon: [wolves_ally]`.
NEW_MOON_DECK: tuple[str, ...] = ("wolves_ally",)

# Steps taken on night 1 only. The others are called every night (identification happens on night 1).
FIRST_NIGHT_ONLY = frozenset(
    {"thief", "cupid", "lovers", "wild_child", "idiot", "elder", "scapegoat", "little_girl", "half_blood", "knight"}
)

# Which card makes a night step part of the game. A step whose card is in the deck is called every night
# it applies, even when its player is dead or the card lies buried under the thief's cards.
STEP_CARD: dict[str, Role] = {
    "thief": Role.THIEF,
    "cupid": Role.CUPID,
    "lovers": Role.CUPID,
    "wild_child": Role.WILD_CHILD,
    "guard": Role.GUARD,
    "wolves": Role.WEREWOLF,
    "wolf_beauty": Role.WOLF_BEAUTY,
    "witch": Role.WITCH,
    "seer": Role.SEER,
    "raven": Role.RAVEN,
    "piper": Role.PIPER,
    "charmed": Role.PIPER,
    "hunter": Role.HUNTER,
    "idiot": Role.IDIOT,
    "elder": Role.ELDER,
    "scapegoat": Role.SCAPEGOAT,
    "little_girl": Role.LITTLE_GIRL,
    # --- modern roles ---
    "half_blood": Role.HALF_BLOOD,
    "magician": Role.MAGICIAN,
    "nightmare": Role.NIGHTMARE,
    "dreamcatcher": Role.DREAMCATCHER,
    "demon": Role.DEMON,
    "mech_wolf": Role.MECH_WOLF,
    "psychic": Role.PSYCHIC,
    "gargoyle": Role.GARGOYLE,
    "gravekeeper": Role.GRAVEKEEPER,
    "witcher": Role.WITCHER,
    "black_wolf_king": Role.BLACK_WOLF_KING,
    "knight": Role.KNIGHT,
}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every house-rule switch of docs/rule-book.md, defaults first."""

    win: Literal["side", "city", "parity"] = "side"  # 屠边 / 屠城 / parity (classic)
    wolf_kill_first: bool = True  # 狼刀在先
    call_dead_roles: bool = True  # dead or absent roles still have their step called, so silence leaks nothing
    self_explode: bool = True  # 自爆
    seer_sees: Literal["camp", "role"] = "camp"
    witch_self_save: Literal["never", "first_night", "always", "unless_guard"] = "never"
    witch_one_potion_per_night: bool = True
    hunter_shoots_on: Literal["wolves_or_exile", "any_death", "wolves_exile_shot"] = "wolves_or_exile"
    guard_and_save: Literal["dies", "lives"] = "dies"  # 同守同救
    guard_protects_little_girl: bool = False
    thief_must_take_wolf: Literal["both", "any"] = "both"
    elder_takes_idiot: bool = False
    raven_votes: int = 1
    sheriff: bool = True  # 警长 / 村长
    sheriff_weight: float = 1.5
    reveal_on_death: Literal["none", "role"] = "none"
    last_words: Literal["first_night_and_day", "always", "never"] = "first_night_and_day"
    speech_seconds: int = 90
    exile_tie: Literal["pk_then_none", "none", "pk_then_random", "sheriff_decides", "pk_then_offstage",
                       "pk_until_out"] = "pk_then_none"
    badge_lost_on: Literal["second_explode", "first_explode"] = "second_explode"
    tell_shoot_status: bool = True
    require_seer: bool = True  # custom decks must hold a seer (the seed table always has one)
    night_order: tuple[str, ...] = MODERN_NIGHT_ORDER
    # --- modern roles (docs/rule-book.md) ---
    black_wolf_king_shoots_on: Literal["wolves_exile_shot", "wolves_or_exile"] = "wolves_exile_shot"
    knight_duel_silences: bool = True  # a dueled 狼王 cannot shoot, a dueled 狼美人 takes nobody
    duel_wolf_last_words: bool = False
    dreamcatcher_must_choose: bool = True
    dream_link_by_day: bool = False  # the sleepwalker dies when the 摄梦人 dies by day
    fear_blocks_shot: bool = True
    magician_swap_limit: Literal["once_per_game", "not_consecutive", "not_same_pair", "free"] = "once_per_game"
    magician_witch_sees: Literal["named", "swapped"] = "named"
    mech_wolf_psychic_sees: Literal["card", "learned"] = "card"
    half_blood_counts_as: Literal["folk", "none"] = "folk"
    demon: Literal["pandakill", "offline"] = "pandakill"
    spirit_knight_reflects: Literal["once", "always"] = "once"
    end_at_once: bool = False  # the game ends the moment a camp has won, pending shots and badges skipped
    # --- script (issue 6) ---
    # 请举手投票 / 三，二，一，请出手 (everyone at once, H1); seed rules: 逐个点名举手 (H6), 闭眼投票 (H9)
    vote_call: Literal["hands", "countdown", "by_target", "eyes_closed"] = "hands"
    # --- seed rules --- (issue 11: the points where the seed texts disagree, docs/seed-coverage.md row in brackets)
    election_at: Literal["before_deaths", "after_speeches"] = "before_deaths"  # G1 / G2 (classic)
    election_voters: Literal["non_candidates", "everyone"] = "non_candidates"  # G3 警下投票 / G4
    election_eyes_closed: bool = True  # G6 闭眼上警
    election_offstage_pk: bool = False  # G9 场外PK and a third vote after the second tie
    election_speech_from: Literal["lowest", "highest"] = "lowest"  # F7 号码最小 / 最大
    sheriff_order: Literal["sheriff_side", "dead_side"] = "sheriff_side"  # F8 警左警右 / 单死时死左死右
    no_sheriff_order: Literal["after_last_death", "smaller_dead"] = "after_last_death"  # F9
    exile_last_words_days: int = 0  # F11: exiled players have last words on the first N days (0: always)
    explode_last_words: bool = False  # I2 / I3 自爆留遗言（指刀）
    self_explode_until: Literal["speeches", "vote_end"] = "speeches"  # I4 / I5
    witch_potions: Literal["two", "one"] = "two"  # D6 / D15 要不救人，要不杀人
    idiot_counts_as: Literal["god", "folk"] = "god"  # D27 白痴算神还是民（屠边）
    lovers_kill_each_other: bool = False  # D31 恋人之间永远不能互杀
    cupid_two_wolves: Literal["wolves", "good"] = "wolves"  # D33 丘比特连了两狼帮狼人
    wolf_beauty_charms: Literal["good", "anyone"] = "good"  # D67 只能魅惑好人
    wolf_king_takes: Literal["anyone", "good"] = "anyone"  # D64 任意一名玩家 / D65 平民或神民
    little_girl_savable: bool = False  # D37 被发现的小女孩立即死亡，解药救不了
    badge_on_explode: Literal["pass", "lost"] = "pass"  # D52 警长因任何原因死亡可以移交警徽
    thief_may_keep: bool = True  # D38 可以不换 / D41 必须选择一张
    thief_pair: Literal["any", "no_wolf_pairs"] = "any"  # D39 / A12 底牌不能是盗贼+狼或两狼（法官调控）
    require_villager: bool = True  # A5b 村民是必须要使用的
    lovers_close_at_nightfall: bool = False  # B2 天黑请闭眼，情侣请闭眼
    seer_thumb_up: Literal["good", "wolf"] = "good"  # C8 大拇指朝上为好人 / 朝上表示是狼人
    new_moon: tuple[str, ...] = ()  # A16 新月: the event deck, one card turned each morning; () = no New Moon

    def with_overrides(self, overrides: Mapping[str, object]) -> Rules:
        """These rules with some switches changed; unknown switches or values raise SetupError."""
        known = {f.name: f for f in fields(self)}
        clean: dict[str, Any] = {}  # by name: each switch's own type is _coerce's to check
        for name, value in overrides.items():
            if name not in known:
                raise SetupError(f"未知的房规开关 {name!r}；可用：{', '.join(sorted(known))}")
            clean[name] = _coerce(name, value, getattr(self, name))
        return replace(self, **clean)


CHOICES: dict[str, tuple[str, ...]] = {
    "win": ("side", "city", "parity"),
    "seer_sees": ("camp", "role"),
    "witch_self_save": ("never", "first_night", "always", "unless_guard"),
    "hunter_shoots_on": ("wolves_or_exile", "any_death", "wolves_exile_shot"),
    "guard_and_save": ("dies", "lives"),
    "thief_must_take_wolf": ("both", "any"),
    "reveal_on_death": ("none", "role"),
    "last_words": ("first_night_and_day", "always", "never"),
    "exile_tie": ("pk_then_none", "none", "pk_then_random", "sheriff_decides", "pk_then_offstage", "pk_until_out"),
    "badge_lost_on": ("second_explode", "first_explode"),
    # --- modern roles ---
    "black_wolf_king_shoots_on": ("wolves_exile_shot", "wolves_or_exile"),
    "magician_swap_limit": ("once_per_game", "not_consecutive", "not_same_pair", "free"),
    "magician_witch_sees": ("named", "swapped"),
    "mech_wolf_psychic_sees": ("card", "learned"),
    "half_blood_counts_as": ("folk", "none"),
    "demon": ("pandakill", "offline"),
    "spirit_knight_reflects": ("once", "always"),
    "vote_call": ("hands", "countdown", "by_target", "eyes_closed"),
    # --- seed rules ---
    "election_at": ("before_deaths", "after_speeches"),
    "election_voters": ("non_candidates", "everyone"),
    "election_speech_from": ("lowest", "highest"),
    "sheriff_order": ("sheriff_side", "dead_side"),
    "no_sheriff_order": ("after_last_death", "smaller_dead"),
    "self_explode_until": ("speeches", "vote_end"),
    "witch_potions": ("two", "one"),
    "idiot_counts_as": ("god", "folk"),
    "cupid_two_wolves": ("wolves", "good"),
    "wolf_beauty_charms": ("good", "anyone"),
    "wolf_king_takes": ("anyone", "good"),
    "badge_on_explode": ("pass", "lost"),
    "thief_pair": ("any", "no_wolf_pairs"),
    "seer_thumb_up": ("good", "wolf"),
}


# Every whole-number switch's range (low, high, what its 0 means): a number outside it is one no table would
# say, and the judge reads these aloud (每人发言90秒). A game of 18 players lasts fewer than 18 days.
NUMBER_RANGES: dict[str, tuple[int, int, str]] = {
    "speech_seconds": (0, 600, "0：不限时"),
    "raven_votes": (0, 3, "0：诅咒不加票"),
    "exile_last_words_days": (0, 18, "0：被放逐的都有遗言"),
}


def _coerce(name: str, value: object, default: object) -> object:
    if name in CHOICES:
        if value not in CHOICES[name]:
            raise SetupError(f"房规 {name} 只能是 {' / '.join(CHOICES[name])}，不是 {value!r}")
        return value
    if name == "new_moon":
        if isinstance(value, bool):
            cards = NEW_MOON_DECK if value else ()
        else:
            cards = _names(name, value, "wolves_ally，或 true / false")
        unknown = [c for c in cards if c not in NEW_MOON_DECK]
        if unknown:
            raise SetupError(f"未知的新月事件牌：{', '.join(unknown)}；可用：{', '.join(NEW_MOON_DECK)}")
        return cards
    if name == "night_order":
        order = _names(name, value, "guard,wolves,witch,seer")
        unknown = [s for s in order if s not in STEP_CARD]
        if unknown:
            raise SetupError(f"夜晚顺序里有未知的步骤：{', '.join(unknown)}；可用（逗号分隔，按顺序）："
                             f"{', '.join(STEP_CARD)}")
        return order
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise SetupError(f"房规 {name} 只能是 true 或 false，不是 {value!r}")
        return value
    if name == "sheriff_weight":
        if not isinstance(value, int | float) or value not in (1.5, 2, 2.0):
            raise SetupError(f"警长票权只能是 1.5 或 2，不是 {value!r}")
        return float(value)
    if name in NUMBER_RANGES:
        low, high, zero = NUMBER_RANGES[name]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise SetupError(f"房规 {name} 要在{low}到{high}之间（{zero}），不是 {value!r}")
        return value
    return value


def _names(name: str, value: object, example: str) -> tuple[str, ...]:
    """A switch that takes a list of names (steps, event cards): a list of words, or words split by commas;
    None is none."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(x.strip() for x in value.split(",") if x.strip())
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise SetupError(f"房规 {name} 要写成名字的列表（逗号分隔），例如 {example}，不是 {value!r}")


class SetupError(ValueError):
    """The deck or the rules cannot make a game; the message says why, in words the judge can say."""


MIN_PLAYERS = 8
MAX_PLAYERS = 18


@dataclass(frozen=True, slots=True)
class Setup:
    """A game before the deal: how many seats, which cards, which rules."""

    players: int
    deck: tuple[Role, ...]
    """Every card in the game; with a thief two more than `players` (two extra 村民 join, two stay face down)."""
    rules: Rules = field(default_factory=Rules)

    @classmethod
    def build(
        cls, roles: dict[Role, int] | list[Role], rules: Rules | None = None, players: int | None = None
    ) -> Setup:
        """A checked set-up. `roles` counts the cards dealt to players; the thief's two extra villagers are
        added here. Raises SetupError with the reason."""
        counts = +Counter(roles)
        dealt = sum(counts.values())
        if players is not None and players != dealt:
            raise SetupError(f"牌数不对：{players}名玩家需要{players}张身份牌，现在有{dealt}张")
        if not MIN_PLAYERS <= dealt <= MAX_PLAYERS:
            raise SetupError(f"玩家人数必须在{MIN_PLAYERS}到{MAX_PLAYERS}人之间，现在是{dealt}人")
        for role, n in counts.items():
            if role in UNIQUE_CARDS and n > 1:
                raise SetupError(f"{role.zh}只能有一张，现在有{n}张")
        if not any(counts[r] for r in WOLF_CARDS):
            raise SetupError("至少要有一张狼人牌")
        rules = rules or Rules()
        if rules.require_seer and not (counts[Role.SEER] or counts[Role.PSYCHIC]):  # 通灵师 checks too
            raise SetupError("需要一张预言家牌（可用房规 require_seer: false 取消）")
        if dealt - sum(counts[r] for r in WOLF_CARDS) < 1:
            raise SetupError("至少要有一名好人")
        if rules.require_villager and not counts[Role.VILLAGER] and not counts[Role.THIEF]:
            raise SetupError("需要至少一张村民牌（可用房规 require_villager: false 取消）")
        # Each card is identified in its own night step (白狼王 with the wolves): a card the night order never
        # calls would silently play as a 村民.
        called = {STEP_CARD[s] for s in rules.night_order}
        for role in counts:
            needs = {Role.WEREWOLF} if role in WOLF_CARDS else set()
            if role not in (Role.VILLAGER, Role.WEREWOLF, Role.WHITE_WOLF_KING, Role.BLOOD_MOON, Role.SPIRIT_KNIGHT):
                needs.add(role)
            for missing in sorted(needs - called, key=list(Role).index):
                raise SetupError(f"夜晚顺序里没有{missing.zh}的步骤")
        # The thief's swap decides who holds which card, so no one is identified before he wakes.
        cards = set(counts) | ({Role.WEREWOLF} if any(counts[r] for r in WOLF_CARDS) else set())
        first = next(s for s in rules.night_order if STEP_CARD[s] in cards)
        if counts[Role.THIEF] and first != "thief":
            raise SetupError("夜晚顺序里盗贼必须第一个睁眼")
        deck = list(counts.elements())
        if counts[Role.THIEF]:
            deck += [Role.VILLAGER, Role.VILLAGER]
        order = list(Role)
        deck.sort(key=order.index)
        return cls(players=dealt, deck=tuple(deck), rules=rules)

    def warnings(self) -> tuple[str, ...]:
        """Advice the seeds give about this deck (said to the host, never refused): codes of `warnings:` in
        the judge's script."""
        cards = set(self.deck)
        out = []
        if {Role.GUARD, Role.ELDER} <= cards:
            out.append("guard_and_elder")  # 002:18 守卫和长老不建议同时使用
        if Role.LITTLE_GIRL in cards:
            out.append("little_girl")  # 002:104 主持人很难控制，建议不加此角色
        return tuple(out)

    def steps(self) -> tuple[str, ...]:
        """The night steps this deck calls, in order."""
        cards = set(self.deck)
        if cards & WOLF_CARDS:
            cards.add(Role.WEREWOLF)  # the wolves wake together whichever wolf cards are in play
        return tuple(s for s in self.rules.night_order if STEP_CARD[s] in cards)
