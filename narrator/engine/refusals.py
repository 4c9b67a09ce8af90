"""Refusals as values: a stable code and the values its spoken line needs, never a sentence.

Codes are dotted (`<area>.<what>`: "witch.no_self_save", "seat.not_selectable"). The words live in the
judge's script (`refusals:` in narrator/data/script.<lang>.yaml), so a refusal is said in the game's script
and built from pieces the voice cache can hold. How values render there: an `int` is a seat ("七号") unless
its key is `n` (a count, "七"); a `Role` is the card's name; a tuple of ints is a list of seats; under the
key `heard` a `str` is the host's own words, said back as they are; any other `str` names a kind of answer
(`names.answers`). tests/test_refusals.py checks that every code built here has a line in both scripts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an answer is not taken: `code` picks the line, `values` fill its placeholders."""

    code: str
    values: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


DUEL_VOID = frozenset({"knight.not_knight", "knight.used", "knight.self", "knight.target_dead"})
"""A duel the judge refuses aloud: the whole table heard "N号决斗M号", so it hears why it is void (骑士: "N号不是
骑士，决斗无效"). A knight who lost his power with the village (`knight.no_power`) is told through the host:
saying so would tell the table that the elder was killed by the village."""


def refuse(code: str, **values: object) -> Refusal:
    """A refusal; always call it with a literal code, so the script test can find every code in the source."""
    return Refusal(code, MappingProxyType(values))
