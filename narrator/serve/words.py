"""The lobby's words (`narrator serve`): what the host may say between games, read both ways.

* **Counts**: "十二个", "十二人", "十二" → 12, for every player count some board is made for.
* **Boards** for a count, from narrator/data/presets.yaml: each preset by its short name (the "12人" left off:
  "预女猎白"), its full name, "标准局" for the seed table, "经典" for the classic box; the most played on this
  device first (the saved games' presets), then in the order of presets.yaml.
* **Rule phrases** from the judge's own phrase table — `house_rules:` in the script, the one 规则 reads out —
  so a rule is heard in the words the judge says it ("女巫可以自救", "警长一票半", "没有警长"), plus the
  short sayings of `narrator.hostwords.rules_words.RULE_SAYINGS` ("不要警长", "屠城"); each maps to a switch
  of `narrator.engine.rules.Rules` and its value, and is read back as the table says it.
* **Commands** of the lobby (开始新游戏, 更多, 改规则, 再来一局 …) and those heard anywhere in it (大声点 …).

The boards and the commands themselves live on the judge's floor, in `narrator/judge/lobby_words.py` (the
judge's script pre-renders them); this module reads the host's words against them.

Everything is in simplified script; the host's words are folded to it first (either script may come in).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, fields
from functools import cache

from narrator.common.numbers import chinese_number
from narrator.common.zh import to_hans
from narrator.engine.rules import CLASSIC_NIGHT_ORDER, MAX_PLAYERS, MIN_PLAYERS, MODERN_NIGHT_ORDER, Rules
from narrator.hostwords.rules_words import RULE_SAYINGS
from narrator.judge.lobby_words import COMMANDS as COMMANDS
from narrator.judge.lobby_words import Board as Board
from narrator.judge.lobby_words import all_boards as all_boards

ANYTIME: dict[str, tuple[str, ...]] = {
    "louder": ("大声点", "大声一点", "声音大一点", "声音大点", "大一点", "大声", "响一点", "听不清"),
    "softer": ("小声点", "小声一点", "声音小一点", "声音小点", "小一点", "小声", "轻一点", "太吵了"),
    "slower": ("慢一点", "慢点", "说慢点", "说慢一点", "慢一些", "太快了"),
    "faster": ("快一点", "快点", "说快点", "说快一点", "快一些", "太慢了"),
    "shutdown": ("关机",),
    "calibrate": ("校准", "校准声音", "调一下声音"),
}
"""Heard at every lobby question: settings the device changes, 关机, and 校准 (the calibration by voice:
narrator/play/calibration.py)."""

ASK: dict[str, tuple[str, ...]] = {
    "help": ("你能做什么", "能做什么", "可以说什么", "怎么用", "帮助"),
    "status": ("现在在干什么", "现在在做什么", "现在到哪了", "到哪了"),
    "last_recap": ("上一局复盘", "上局复盘", "上一局怎么样"),
}
"""Heard at every lobby question and answered by the lobby itself (what can be said here, where it stands,
the last game's recap); the question is asked again after it."""

_PUNCT = re.compile(r"[\s，。、！？!?,.；;：:“”\"'‘’]+")


def clean(text: str) -> str:
    """The host's words as the tables hold them: simplified, without spaces or punctuation."""
    return _PUNCT.sub("", to_hans(text))


# ---- counts ---------------------------------------------------------------------------------------------

def count_words(n: int) -> tuple[str, ...]:
    said = chinese_number(n)
    return (f"{said}个", f"{said}人", f"{said}个人", said)


def counts() -> list[int]:
    """Player counts some board is made for, smallest first."""
    return sorted({b.players for b in all_boards()})


def read_count(words: str) -> int | None:
    """12 for "十二个" / "十二人" / "十二" / "12"; None when the words are no count."""
    words = clean(words)
    if words.isdigit():
        return int(words)
    for n in range(1, 100):
        if words in count_words(n):
            return n
    return None


# ---- boards ---------------------------------------------------------------------------------------------

def boards_for(players: int, played: Counter[str] | None = None) -> list[Board]:
    """The boards for `players`, the most played first (`played`: preset name → games), then as listed."""
    found = [b for b in all_boards() if b.players == players]
    order = {b.preset: i for i, b in enumerate(found)}
    played = played or Counter()
    return sorted(found, key=lambda b: (-played[b.preset], order[b.preset]))


def read_board(words: str, boards: Iterable[Board]) -> Board | None:
    words = clean(words)
    return next((b for b in boards if words in b.words()), None)


# ---- rules ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RulePhrase:
    key: str
    """The `house_rules` key ("witch_self_save.always"): what the judge says back."""
    switch: str
    value: object
    """The switch's value (`_value`): a bool, a number, a word, a night order."""


def _value(switch: str, raw: str) -> object:
    """A `house_rules` key's value as the switch holds it."""
    default = {f.name: f.default for f in fields(Rules)}[switch]
    if isinstance(default, bool):
        return raw == "true"
    if switch == "night_order":
        return {"modern": MODERN_NIGHT_ORDER, "classic": CLASSIC_NIGHT_ORDER}[raw]
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, int):
        return int(raw)
    return raw


@cache
def rule_phrases() -> dict[str, RulePhrase]:
    """Every rule phrase the host may say → its switch and value: the judge's `house_rules` lines (both
    scripts, folded to simplified; a line with a number in it is left out) and RULE_SAYINGS."""
    from narrator.judge.script import Script

    table = Script("zh-Hans").data["house_rules"]
    out: dict[str, RulePhrase] = {}
    heads: dict[str, list[RulePhrase]] = {}
    for key, text in table.items():
        switch, _, raw = str(key).partition(".")
        if not raw or "{n}" in str(text) or switch == "new_moon" or raw == "custom":
            continue
        phrase = RulePhrase(str(key), switch, _value(switch, raw))
        out[clean(str(text))] = phrase
        heads.setdefault(clean(str(text).split("，")[0]), []).append(phrase)
    for head, said in heads.items():  # "屠边，民或神全部出局狼人获胜": "屠边" alone, when it says one thing
        if len(said) == 1:
            out.setdefault(head, said[0])
    for saying, key in RULE_SAYINGS.items():
        switch, _, raw = key.partition(".")
        assert key in table, f"RULE_SAYINGS: {saying} names {key}, which house_rules lacks"
        out[clean(saying)] = RulePhrase(key, switch, _value(switch, raw))
    return out


def read_rule(words: str) -> RulePhrase | None:
    return rule_phrases().get(clean(words))


def spoken_rule_words() -> list[str]:
    """The rule phrases offered to the recogniser: the short ones (a grammar of whole sentences is slow to
    decode and no host says them word for word); the long lines are still understood when typed."""
    return [w for w in rule_phrases() if len(w) <= 8]


def clash(said: Iterable[RulePhrase], rules: Rules) -> tuple[RulePhrase, str] | None:
    """A rule the host said that the rules in force make pointless (a sheriff's rule with no sheriff, a
    self-explosion rule with no self-explosion): that rule and the switch that turned the other off."""
    from narrator.judge.rules_talk import EXPLODE_ONLY, SHERIFF_ONLY

    for phrase in said:
        if phrase.switch in SHERIFF_ONLY and not rules.sheriff:
            return phrase, "sheriff"
        if phrase.switch in EXPLODE_ONLY and not rules.self_explode:
            return phrase, "self_explode"
    return None


def commands(*slugs: str) -> list[str]:
    return [w for s in slugs for w in COMMANDS[s]]


def read_command(words: str, slugs: Iterable[str]) -> str | None:
    words = clean(words)
    for slug in slugs:
        if words in (ANYTIME.get(slug) or ASK.get(slug) or COMMANDS[slug]):
            return slug
    return None


PLAYER_RANGE = (MIN_PLAYERS, MAX_PLAYERS)
