"""The lobby's words the judge's script pre-renders (`Script.lobby_pieces`, for `voices build`): the boards
by what the judge calls them, and the commands the judge tells the host to say. They live on the judge's
floor because the script reads them; `narrator/serve/words.py` reads the host's words against them.

Everything is in simplified script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from narrator.common.numbers import chinese_number

COMMANDS: dict[str, tuple[str, ...]] = {
    "new_game": ("开始新游戏", "新游戏", "开新局"),  # and with the name first: Lobby._choices
    "start": ("开始", "开始吧", "开始游戏"),
    "more": ("更多", "还有呢", "还有"),
    "change_rules": ("改规则", "修改规则"),
    "rules_done": ("好了", "改好了", "就这些"),
    "again": ("再来一局", "再来"),
    "change_board": ("换板子", "换个板子"),
    "change_count": ("换人数", "改人数", "人数不对"),
    "recap_again": ("再说一遍复盘", "复盘"),
    "end": ("结束", "不玩了"),
    "go_on": ("继续", "继续吧", "对", "好", "好的", "是", "确认"),  # 继续吗？ is a yes/no question
    "drop": ("不", "不继续", "不用了", "不要", "不对", "算了"),
}
"""Command slug → the host's words for it, the first one being what the judge tells the host to say."""


@dataclass(frozen=True)
class Board:
    preset: str
    """The preset's full name (presets.yaml, `narrator play --preset`)."""
    players: int
    said: str
    """What the judge calls it in a list of boards for this count ("预女猎白", "标准局")."""

    def words(self) -> tuple[str, ...]:
        """Its short name, its full name, and the full name with the count said ("十二人预女猎白")."""
        spoken = re.sub(r"\d+", lambda m: chinese_number(int(m[0])), self.preset)
        return tuple(dict.fromkeys((self.said, self.preset, spoken)))


@cache
def all_boards() -> tuple[Board, ...]:
    """Every preset of narrator/data/presets.yaml as a board, in the order listed."""
    from narrator.judge.presets import preset_names, preset_roles

    out = []
    for name in preset_names():
        cards, _ = preset_roles(name)
        players = sum(cards.values())
        if "标准局" in name:
            said = "标准局"
        elif name.startswith("经典"):
            said = "经典"
        else:
            said = re.sub(r"^\d+人", "", name)
        out.append(Board(name, players, said))
    return tuple(out)
