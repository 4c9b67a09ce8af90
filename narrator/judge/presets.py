"""Presets (板子) from narrator/data/presets.yaml, and custom role lists, turned into checked set-ups."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import TypedDict

import yaml

from narrator.common.zh import to_hans
from narrator.engine.roles import Role, role_named
from narrator.engine.rules import CLASSIC_NIGHT_ORDER, Rules, Setup, SetupError


class Preset(TypedDict, total=False):
    roles: dict[str, int]
    """{card name: count}"""
    rules: dict[str, object]
    """Its rule overrides (`Rules.with_overrides` checks them)."""
    classic: bool
    """Played with `classic_rules` under its own overrides."""


class SeedRow(TypedDict):
    wolves: int
    villagers: int


class ClassicBox(TypedDict):
    cards: dict[str, int]
    specials: list[str]
    min_villagers: int


class PresetsFile(TypedDict):
    """narrator/data/presets.yaml (shipped with the package; tests/test_setup.py builds the presets)."""

    presets: dict[str, Preset]
    seed_table: dict[int, SeedRow]
    classic_rules: dict[str, object]
    classic_box: ClassicBox


@cache
def _data() -> PresetsFile:
    text = resources.files("narrator.data").joinpath("presets.yaml").read_text(encoding="utf-8")
    data: PresetsFile = yaml.safe_load(text)
    return data


def parse_roles(spec: dict[str, int]) -> dict[Role, int]:
    """{"狼人": 4, "预言家": 1} (any script, slug or alias) → {Role: count}."""
    out: Counter[Role] = Counter()
    for name, count in spec.items():
        role = role_named(str(name))
        if role is None:
            raise SetupError(f"不认识的身份牌：{name}")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise SetupError(f"{name} 的张数必须是非负整数，不是 {count!r}")
        out[role] += count
    return dict(out)


def preset_names() -> list[str]:
    d = _data()
    names = list(d["presets"])
    names += [f"{n}人标准局" for n in d["seed_table"]]
    names += [f"经典{n}人" for n in d["seed_table"]]
    return names


def classic_rules() -> dict[str, object]:
    """The classic rule set: presets.yaml's `classic_rules`, with the classic night order from the engine
    (kept in one place, CLASSIC_NIGHT_ORDER)."""
    return {"night_order": CLASSIC_NIGHT_ORDER, **_data()["classic_rules"]}


def preset_roles(name: str) -> tuple[dict[Role, int], dict[str, object]]:
    """A preset's cards and its rule overrides. The name may be written in either script (12人預女獵白)."""
    d = _data()
    name = to_hans(str(name).strip())
    if name in d["presets"]:
        entry = d["presets"][name]
        overrides = dict(entry.get("rules", {}))
        if entry.get("classic"):
            overrides = {**classic_rules(), **overrides}
        return parse_roles(entry["roles"]), overrides
    m = re.fullmatch(r"(\d+)人标准局", name)
    if m and int(m[1]) in d["seed_table"]:
        row = d["seed_table"][int(m[1])]
        return {Role.WEREWOLF: row["wolves"], Role.SEER: 1, Role.VILLAGER: row["villagers"]}, {}
    m = re.fullmatch(r"(?:经典|classic[-_ ]?)(\d+)人?", name)
    if m and int(m[1]) in d["seed_table"]:
        return classic_deck(int(m[1])), classic_rules()
    raise SetupError(f"没有叫 {name} 的板子；可用：{'、'.join(preset_names())}")


def classic_deck(players: int) -> dict[Role, int]:
    d = _data()
    box = parse_roles(d["classic_box"]["cards"])
    wolves = d["seed_table"][players]["wolves"]
    deck: Counter[Role] = Counter({Role.WEREWOLF: min(wolves, box[Role.WEREWOLF]), Role.SEER: 1})
    for name in d["classic_box"]["specials"]:
        role = role_named(name)
        assert role is not None
        if players - sum(deck.values()) - 1 >= d["classic_box"]["min_villagers"]:
            deck[role] += 1
    deck[Role.VILLAGER] = players - sum(deck.values())
    extra = 2 if deck[Role.THIEF] else 0
    if deck[Role.VILLAGER] + extra > box[Role.VILLAGER]:
        raise SetupError(f"经典盒子里的村民牌不够{players}人局")
    return dict(deck)


def make_setup(preset: str | None = None, roles: dict[str, int] | None = None,
               rules: Mapping[str, object] | None = None) -> Setup:
    """The set-up a scenario or the CLI asks for: a preset, or a custom role list, plus rule overrides."""
    if (preset is None) == (roles is None):
        raise SetupError("请给出 preset（板子名）或 roles（身份牌列表），二者选一")
    overrides: dict[str, object] = {}
    if preset is not None:
        counts, overrides = preset_roles(preset)
    else:
        assert roles is not None
        if not isinstance(roles, dict):
            raise SetupError("roles 应该是 {身份: 张数} 的形式")
        counts = parse_roles(roles)
    rules = dict(rules or {})
    if rules.pop("classic", False):
        overrides = {**classic_rules(), **overrides}
    return Setup.build(counts, Rules().with_overrides({**overrides, **rules}))
