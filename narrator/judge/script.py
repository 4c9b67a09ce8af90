"""The judge's script: the catalogue in narrator/data/script.<lang>.yaml, and seat phrases."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import yaml

from narrator.common.numbers import chinese_number
from narrator.common.zh import LANGS as LANGS  # re-exported: the scripts a game can be played in
from narrator.common.zh import to_script
from narrator.engine.answers import Answer
from narrator.engine.refusals import Refusal
from narrator.engine.roles import Role
from narrator.judge.lines import Line
from narrator.judge.readings import reading

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def _template(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`text` split at its placeholders: the literal runs (one more than the names) and the names between."""
    parts = _PLACEHOLDER.split(text)
    return tuple(parts[::2]), tuple(parts[1::2])


def spoken_number(n: int) -> str:
    """90 → 九十, 120 → 一百二十, 105 → 一百零五 (speech seconds go past 99); 1000 and more as digits."""
    if n < 100:
        return chinese_number(n)
    if n >= 1000:
        return str(n)
    hundreds, rest = divmod(n, 100)
    head = chinese_number(hundreds) + "百"
    if rest == 0:
        return head
    if rest < 10:
        return head + "零" + chinese_number(rest)
    return head + ("一" if rest < 20 else "") + chinese_number(rest)


@dataclass(frozen=True, slots=True)
class Entry:
    text: str
    to: str = "all"
    pause: str = "short"
    cue: str | None = None
    bed: str | None = None


DEFAULT_JUDGE_NAME = "法官"
"""What the judge calls itself and tells the host to call it ({judge}) unless configured otherwise."""


class Script:
    """One language's catalogue. `line(section, key, **values)` renders a Line with its pieces."""

    def __init__(self, lang: str = "zh-Hans") -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown script {lang!r}; choose one of {', '.join(LANGS)}")
        self.lang = lang
        self.data = _load(lang)
        names = self.data["names"]
        self.seat_suffix: str = names["seat_suffix"]
        self.joiner: str = names["list_joiner"]
        made = _made(lang)  # shared by every Script of this language: a game's Session makes its own Script
        self._entries: dict[tuple[str, ...], Entry] = made.entries
        self._fixed: dict[tuple[str, ...], Line] = made.fixed
        self._seats: dict[int, str] = made.seats

    def entry(self, section: str, key: str) -> Entry:
        return self._entry((section, key))

    def _entry(self, path: tuple[str, ...]) -> Entry:
        """The entry at `path` in the catalogue, made once (an Entry is frozen: every line shares it)."""
        entry = self._entries.get(path)
        if entry is None:
            raw: Any = self.data
            for name in path:
                raw = raw[name]
            entry = self._entries[path] = Entry(text=raw) if isinstance(raw, str) else Entry(**raw)
        return entry

    def has(self, section: str, key: str) -> bool:
        return key in self.data.get(section, {})

    def keys(self, section: str) -> list[str]:
        return list(self.data[section])

    @property
    def voted_for(self) -> str:
        """The word between voters and their target in a vote breakdown (投)."""
        return str(self.data["names"]["voted_for"])

    def number(self, n: int) -> str:
        return chinese_number(n)

    def count(self, n: int) -> str:
        """A count before a measure word: 两张, 两个 (but 十二名)."""
        return str(self.data["names"]["two"]) if n == 2 else chinese_number(n)

    def seat(self, seat: int) -> str:
        phrase = self._seats.get(seat)
        if phrase is None:
            phrase = self._seats[seat] = chinese_number(seat) + self.seat_suffix
        return phrase

    def role(self, slug: str) -> str:
        return str(self.data["names"]["roles"][slug])

    def camp(self, slug: str) -> str:
        return str(self.data["names"]["camps"][slug])

    def seer_result(self, slug: str) -> str:
        results = self.data["names"]["seer_results"]
        return str(results[slug]) if slug in results else self.role(slug)

    def votes(self, amount: float) -> str:
        """Votes counted as a table says them: 五票, 两票, 八票半, 半票 (a weight is a whole or half vote)."""
        names = self.data["names"]
        whole = int(amount)
        if amount - whole not in (0, 0.5):
            raise ValueError(f"votes come in halves: {amount}")
        half = str(names["half"]) if amount != whole else ""
        if whole == 0 and half:
            return half + str(names["votes_unit"])
        count = str(names["two"]) if whole == 2 else chinese_number(whole)
        return count + str(names["votes_unit"]) + half

    def line(self, section: str, key: str, **values: object) -> Line:
        if values:
            return self.render(self.entry(section, key), f"{section}.{key}", **values)
        return self._fixed_line((section, key))

    def _fixed_line(self, path: tuple[str, ...]) -> Line:
        """The line at `path` when it takes no values: rendered once (a Line is frozen: every game shares it)."""
        line = self._fixed.get(path)
        if line is None:
            line = self._fixed[path] = self.render(self._entry(path), ".".join(path))
        return line

    def refusal(self, refusal: Refusal) -> Line:
        """Why an answer was not taken, to the host, in this script (`refusals.<code>`).

        Values render as refusals.py says: ints are seats (counts under `n` / `n_*`), roles their names,
        `heard` the host's own words, other strings kinds of answer, answers the judge's reading of them.
        """
        values = {key: self._refusal_value(key, value) for key, value in refusal.values.items()}
        line = self.render(self.entry("refusals", refusal.code), f"refusals.{refusal.code}", **values)
        return Line(line.text, "host", line.pieces, line.key, line.pause, line.cue, line.bed)

    def _refusal_value(self, key: str, value: object) -> object:
        if key == "heard":
            return to_script(str(value), self.lang)  # the host's own words, in the game's script
        if isinstance(value, Role):
            return self.role(value.value)
        if isinstance(value, int) and not isinstance(value, bool):
            return self.count(value) if key == "n" or key.startswith("n_") else Seat(value)
        if isinstance(value, str):
            return self.data["names"]["answers"][value]
        if isinstance(value, Answer):
            slug, values = reading(value)
            raw = self.data["names"]["readings"][slug]
            said = {k: self._refusal_value(k, v) for k, v in values.items()}
            return Pieces(self.render(Entry(raw), f"names.readings.{slug}", **said).pieces)
        if isinstance(value, tuple):
            if all(isinstance(v, str) for v in value):
                joiner = self.data["names"]["answers_joiner"]
            elif all(isinstance(v, Answer) for v in value):
                joiner = self.data["names"]["readings_joiner"]
            else:
                joiner = self.joiner
            return Joined(joiner, [self._refusal_value(key, v) for v in value])
        raise TypeError(f"a refusal value cannot be said: {key}={value!r}")

    def step_line(self, step: str, part: str, **values: object) -> Line:
        if values:
            return self.render(self._entry(("steps", step, part)), f"steps.{step}.{part}", **values)
        return self._fixed_line(("steps", step, part))

    def render(self, entry: Entry, key: str, **values: object) -> Line:
        literals, names = _template(entry.text)
        pieces: list[str] = []
        for literal, name in zip(literals, names, strict=False):  # one literal more than names: the tail
            if literal:
                pieces.append(literal)
            pieces.extend(self._render(values[name]))
        if literals[-1]:
            pieces.append(literals[-1])
        return Line(
            text="".join(pieces), to="host" if entry.to == "host" else "all", pieces=tuple(pieces),
            key=key, pause=entry.pause, cue=entry.cue, bed=entry.bed,
        )

    def _render(self, value: object) -> list[str]:
        """Seats become seat phrases (one piece each, so each is cached once); text stays as it is."""
        if isinstance(value, Seat):
            return [self.seat(value.n)]
        if isinstance(value, Pieces):
            return [p for v in value for p in self._render(v)]
        if isinstance(value, Joined):
            out: list[str] = []
            for i, v in enumerate(value.items):
                if i:
                    out.append(value.joiner)
                out.extend(self._render(v))
            return out
        if isinstance(value, tuple | list):
            return self._render(Joined(self.joiner, list(value)))
        return [str(value)]

    def fixed_pieces(self, max_seat: int = 18) -> list[str]:
        """Every piece a game can need that does not depend on the game: for pre-rendering the voice."""
        pieces: set[str] = set()
        for section in ("steps", "events", "prompts", "timer", "refusals", "terminations", "listening", "play",
                        "lobby", *SEED_SECTIONS):
            for value in self.data[section].values():
                for raw in _texts(value):
                    pieces.update(p for p in _PLACEHOLDER.split(raw)[::2] if p)
        pieces.update(self.seat(n) for n in range(1, max_seat + 1))
        # counts: 本局十二名玩家, 共四人; a thief's deck holds two cards more (共二十张牌)
        pieces.update(self.number(n) for n in range(1, max_seat + 3))
        # Numbers in the house rules (本局规则：每人发言九十秒): speech times in steps of ten seconds up to 300 s
        # (other values are rendered when first said).
        pieces.update(spoken_number(n) for n in range(10, 301, 10))
        pieces.add(self.voted_for)
        pieces.add(DEFAULT_JUDGE_NAME)  # {judge} (another name, --judge-name, is rendered when first said)
        names = self.data["names"]
        for group in ("roles", "camps", "seer_results", "answers"):
            pieces.update(str(v) for v in names[group].values())
        for raw in names["readings"].values():
            pieces.update(p for p in _PLACEHOLDER.split(raw)[::2] if p)
        pieces.update((names["answers_joiner"], names["readings_joiner"], names["two"]))
        pieces.update(self.votes(x / 2) for x in range(0, 2 * max_seat + 8))
        pieces.add(self.joiner)
        pieces.update(self.lobby_pieces())
        return sorted(pieces)

    def lobby_pieces(self) -> set[str]:
        """What the lobby of `narrator serve` says besides its lines: the board names and the words it tells
        the host to say (narrator/judge/lobby_words.py)."""
        from narrator.judge.lobby_words import COMMANDS, all_boards

        said = {b.said for b in all_boards()} | {ws[0] for ws in COMMANDS.values()}
        return {to_script(x, self.lang) for x in said}


SEED_SECTIONS = ("warnings", "house_rules", "rules_topics", "new_moon_cards")  # issue 11's sections


@dataclass(frozen=True, slots=True)
class Seat:
    n: int


class Pieces(tuple[object, ...]):
    """Seats and words for one placeholder, joined as they are (no list joiner)."""


@dataclass(frozen=True, slots=True)
class Joined:
    """Values for one placeholder, said with `joiner` between them (the list joiner, or 还是 …)."""

    joiner: str
    items: Sequence[object]


def seats(values: Iterable[int]) -> tuple[Seat, ...]:
    return tuple(Seat(v) for v in values)


def _texts(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        if "text" in value:
            yield str(value["text"])
        else:
            for v in value.values():
                yield from _texts(v)


@dataclass(frozen=True)
class _Made:
    """What a language's Scripts build as they go and share: entries, lines without values, seat phrases."""

    entries: dict[tuple[str, ...], Entry] = field(default_factory=dict)
    fixed: dict[tuple[str, ...], Line] = field(default_factory=dict)
    seats: dict[int, str] = field(default_factory=dict)


@cache
def _made(lang: str) -> _Made:
    return _Made()


@cache
def _load(lang: str) -> dict[str, Any]:
    text = resources.files("narrator.data").joinpath(f"script.{lang}.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml: 10x
    return data
