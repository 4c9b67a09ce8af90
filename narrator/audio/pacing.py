"""Pauses as data: named pacing classes (narrator/data/pacing.yaml) and seeded draws from them.

    pacer = Pacer(seed=7)
    pacer.draw("eyes_open")   # -> e.g. 3.84 (seconds)

The Pacer deliberately knows nothing about the game: it is never told who is alive. A dead or absent role's
night step uses the same words and the same pacing class as a live one, so the draw comes from the same
distribution and the silence cannot tell the table whether anyone opened their eyes.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml

Dist = Literal["uniform", "triangular", "fixed"]


class PacingError(ValueError):
    """pacing.yaml is malformed, or a line names a pacing class that does not exist."""


@dataclass(frozen=True, slots=True)
class PauseSpec:
    """One pacing class: the distribution of the silence after a line."""

    name: str
    dist: Dist
    low_s: float
    """s. Smallest possible pause."""
    high_s: float
    """s. Largest possible pause (equal to low_s for "fixed")."""
    mode_s: float | None = None
    """s. Most likely pause (triangular only)."""

    def sample(self, rng: random.Random) -> float:
        if self.dist == "fixed":
            return self.low_s
        if self.dist == "uniform":
            return rng.uniform(self.low_s, self.high_s)
        return rng.triangular(self.low_s, self.high_s, self.mode_s)

    @property
    def mean_s(self) -> float:
        """s. Expected pause."""
        if self.dist == "triangular" and self.mode_s is not None:
            return (self.low_s + self.mode_s + self.high_s) / 3.0
        return (self.low_s + self.high_s) / 2.0


def _spec(name: str, raw: object) -> PauseSpec:
    if not isinstance(raw, Mapping):
        raise PacingError(f"pacing class {name!r}: expected a mapping, got {raw!r}")
    try:
        dist = raw["dist"]
        if dist == "fixed":
            spec = PauseSpec(name, "fixed", float(raw["s"]), float(raw["s"]))
        elif dist == "uniform":
            spec = PauseSpec(name, "uniform", float(raw["low"]), float(raw["high"]))
        elif dist == "triangular":
            spec = PauseSpec(name, "triangular", float(raw["low"]), float(raw["high"]), float(raw["mode"]))
        else:
            raise PacingError(f"pacing class {name!r}: unknown dist {dist!r} (uniform, triangular, fixed)")
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, PacingError):
            raise
        raise PacingError(f"pacing class {name!r}: bad or missing field ({exc})") from exc
    mode = spec.low_s if spec.mode_s is None else spec.mode_s
    if not 0.0 <= spec.low_s <= mode <= spec.high_s or spec.high_s > 120.0:
        raise PacingError(f"pacing class {name!r}: need 0 <= low <= mode <= high <= 120 s, got {raw!r}")
    return spec


def _read(path: Path | None) -> Any:
    """The parsed table: a given file read anew each time, the packaged one parsed once per process. The
    loaders below only read what this returns."""
    return _packaged() if path is None else yaml.safe_load(Path(path).read_text(encoding="utf-8"))


@functools.cache
def _packaged() -> Any:
    """narrator/data/pacing.yaml, part of the installed package. Every Conductor reads four sections of it:
    parsed each time (pure-Python YAML), that was ~50 ms of CPU per Conductor, a game's or a test's."""
    return yaml.safe_load(resources.files("narrator").joinpath("data/pacing.yaml").read_text(encoding="utf-8"))


def load_pacing(path: Path | None = None) -> dict[str, PauseSpec]:
    """Read and validate a pacing table (default: the packaged narrator/data/pacing.yaml)."""
    data = _read(path)
    classes = data.get("classes") if isinstance(data, Mapping) else None
    if not isinstance(classes, Mapping) or not classes:
        raise PacingError("pacing table needs a non-empty 'classes:' mapping")
    return {str(name): _spec(str(name), raw) for name, raw in classes.items()}


def load_night1(path: Path | None = None) -> dict[str, str]:
    """The `night1:` replacements of a pacing table: class → class used instead on night 1."""
    data = _read(path)
    classes = load_pacing(path)
    raw = data.get("night1") or {}
    if not isinstance(raw, Mapping):
        raise PacingError("night1: must map a pacing class to the class used instead on night 1")
    for a, b in raw.items():
        if str(a) not in classes or str(b) not in classes:
            raise PacingError(f"night1: {a} → {b}: both must be pacing classes")
    return {str(a): str(b) for a, b in raw.items()}


def load_line_classes(path: Path | None = None) -> dict[str, str]:
    """The `lines:` section of a pacing table: a line's catalogue key → the class of its hold."""
    data = _read(path)
    classes = load_pacing(path)
    raw = data.get("lines") or {}
    if not isinstance(raw, Mapping):
        raise PacingError("lines: must map a line's key (e.g. steps.witch.ask_first) to a pacing class")
    for key, name in raw.items():
        if str(name) not in classes:
            raise PacingError(f"lines: {key} → {name}: {name!r} is not a pacing class")
    return {str(a): str(b) for a, b in raw.items()}


@dataclass(frozen=True, slots=True)
class HostWords:
    """The `host_words:` section of a pacing table: how long the table waits for the host's secret words
    (narrator/audio/conductor.py; docs/architecture.md, "Fair play with a slow host")."""

    word_s: float
    """s. Host speech one host word may need (his question, what he is shown, a read-back)."""
    floor_s: float
    """s. The answer time assumed before the host answers, and the least ever counted: every host who answers
    within it is counted alike (the holds are drawn long enough for him)."""
    step_s: float
    """s. The host's measured answer time is rounded up to a multiple of this."""
    bound_s: float
    """s. The stated bound: the table waits in silence for at most `words × (word_s + bound_s)` after a line;
    past it the table hears the neutral "请稍等" (whoever was asked, the same at every step)."""
    most_s: float = 60.0
    """s. The longest answer time counted (a host who paused the game is not taken for a slow one)."""
    repair_s: float = 10.0
    """s. The judge's host lines one repair may need (a refusal, a choice, "还差一个", an offer of one seat):
    each such repair at a question counts this and the host's next try."""
    read_back_s: float = 4.0
    """s. The same for a read-back ("七号，对吗？", `listening.read_back*`): the repair a voice ear makes at
    every spoken seat, a short line, counts this instead of `repair_s`."""
    repairs: int = 2
    """The repairs per question the table waits for in silence (the stated bound, with `bound_s` per try); a
    host measured to need more hears "请稍等" at every step alike."""


def load_host_words(path: Path | None = None) -> HostWords:
    """Read and validate the `host_words:` section of a pacing table."""
    data = _read(path)
    raw = data.get("host_words") if isinstance(data, Mapping) else None
    if not isinstance(raw, Mapping):
        raise PacingError("pacing table needs a 'host_words:' mapping")
    try:
        words = HostWords(float(raw["word_s"]), float(raw["floor_s"]), float(raw["step_s"]),
                          float(raw["bound_s"]), float(raw.get("most_s", 60.0)), float(raw.get("repair_s", 10.0)),
                          read_back_s=float(raw.get("read_back_s", 4.0)), repairs=int(raw.get("repairs", 2)))
    except (KeyError, TypeError, ValueError) as exc:
        raise PacingError(f"host_words: bad or missing field ({exc})") from exc
    if not (0 <= words.word_s <= 60 and 0 <= words.floor_s <= words.bound_s <= words.most_s <= 300
            and words.step_s > 0 and 0 <= words.read_back_s <= words.repair_s <= 60 and 0 <= words.repairs <= 10):
        raise PacingError(f"host_words: need 0 <= word_s <= 60, 0 <= floor_s <= bound_s <= most_s <= 300, "
                          f"step_s > 0, 0 <= read_back_s <= repair_s <= 60 and 0 <= repairs <= 10, "
                          f"got {dict(raw)}")
    return words


def sub_seed(seed: int, stream: str) -> int:
    """A seed of its own for one named stream of draws (e.g. "table.night2"), stable across runs."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{stream}".encode()).digest()[:8], "big")


class Pacer:
    """Seeded pause draws. The same seed and the same sequence of class names give the same pauses."""

    def __init__(self, seed: int | None = None, table: Mapping[str, PauseSpec] | None = None) -> None:
        self.table: Mapping[str, PauseSpec] = load_pacing() if table is None else dict(table)
        self._rng = random.Random(seed)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.table)

    def spec(self, name: str) -> PauseSpec:
        try:
            return self.table[name]
        except KeyError:
            known = ", ".join(sorted(self.table))
            raise PacingError(f"unknown pacing class {name!r}; pacing.yaml has: {known}") from None

    def draw(self, name: str) -> float:
        """s. One pause from class `name`."""
        return self.spec(name).sample(self._rng)
