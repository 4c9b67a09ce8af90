"""The command line's game: a preset or a role list ("狼人*4,预言家,…"), `--players`, `--rule key=value`,
turned into a checked `Setup`, and the line that tells the host which cards to shuffle and deal.

Every mistake is a `SetupError` whose message says what is wrong in one sentence (the CLI prints it and
exits 2)."""

from __future__ import annotations

import re
from collections import Counter

from narrator.engine.roles import Role
from narrator.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Setup, SetupError

DEFAULT_PRESET = "12人预女猎白"
_ITEM = re.compile(r"^\s*(?P<name>[^*×xX\s\d]+)\s*(?:[*×xX]\s*(?P<n>\d+))?\s*$")
_SPLIT = re.compile(r"[,，、;；\s]+")


def parse_role_list(spec: str) -> dict[str, int]:
    """"狼人*4,预言家,村民×4" → {"狼人": 4, "预言家": 1, "村民": 4}; names are checked by `make_setup`."""
    out: Counter[str] = Counter()
    items = [s for s in _SPLIT.split(spec) if s]
    if not items:
        raise SetupError("--roles 是空的；例如 --roles \"狼人*4,村民*4,预言家,女巫,猎人,白痴\"")
    for item in items:
        m = _ITEM.match(item)
        if m is None:
            raise SetupError(f"--roles 里看不懂“{item}”；每一项写成 身份 或 身份*张数，例如 狼人*4")
        n = int(m["n"]) if m["n"] else 1
        if n == 0:
            raise SetupError(f"--roles 里“{item}”的张数是零")
        out[m["name"]] += n
    return dict(out)


RuleValue = bool | int | float | str | list[str]
"""A rule's value as typed at `--rule` (checked by `Rules.with_overrides`)."""


def parse_rule_value(text: str) -> RuleValue:
    """A rule's value as typed: true/false, an integer, a decimal, a comma list (night_order), or a word."""
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if re.fullmatch(r"-?\d+", low):
        return int(low)
    if re.fullmatch(r"-?\d+\.\d+", low):
        return float(low)
    if "," in text:
        return [s.strip() for s in text.split(",") if s.strip()]
    return text.strip()


def parse_rules(items: list[str]) -> dict[str, RuleValue]:
    """["witch_self_save=first_night", "sheriff=false"] → {...}; keys and values are checked by `Rules`."""
    out: dict[str, RuleValue] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise SetupError(f"--rule 要写成 key=value，例如 --rule witch_self_save=first_night，不是 {item!r}")
        out[key.strip()] = parse_rule_value(value)
    return out


def game_setup(preset: str | None = None, players: int | None = None, roles: str | None = None,
               rules: list[str] | None = None) -> tuple[Setup, str]:
    """The checked set-up and its name (the preset's, or "自定义N人局")."""
    from narrator.judge.presets import make_setup

    if preset is not None and roles is not None:
        raise SetupError("--preset 和 --roles 只能选一个")
    if players is not None and not MIN_PLAYERS <= players <= MAX_PLAYERS:  # the range, not 40 presets
        raise SetupError(f"玩家人数必须在{MIN_PLAYERS}到{MAX_PLAYERS}人之间，现在是{players}人")
    overrides = parse_rules(rules or [])
    if roles is not None:
        setup = make_setup(roles=parse_role_list(roles), rules=overrides)
        name = f"自定义{setup.players}人局"
    else:
        if preset is None:
            preset = DEFAULT_PRESET if players in (None, 12) else f"{players}人标准局"
        setup = make_setup(preset=preset, rules=overrides)
        name = preset
    if players is not None and players != setup.players:
        raise SetupError(f"{name}是{setup.players}人局，不是{players}人；去掉 --players 或换一个板子")
    return setup, name


def dealt_cards(setup: Setup) -> list[tuple[Role, int]]:
    """The cards the host shuffles, in the deck's order (wolves, villagers, gods), with counts."""
    counts = Counter(setup.deck)
    return [(role, counts[role]) for role in dict.fromkeys(setup.deck)]
