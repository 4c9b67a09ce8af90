"""A line the judge says, as data: what the voice renders and the mixer places."""

from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Literal

from narrator.engine.values import quick_init

Audience = Literal["all", "host"]


@quick_init  # built for every line said: through its slots (narrator/engine/values.py)
@dataclass(frozen=True, slots=True)
class Line:
    """One spoken line.

    `pieces` are the fragments the text is assembled from (fixed phrases and seat phrases such as "七号"),
    each rendered and cached on its own so a line with seats in it never needs the network.
    """

    text: str
    """What is said, in the game's script (simplified or traditional)."""
    to: Audience = "all"
    """"all": the table speaker; "host": the host channel only (earpiece or console). Never both."""
    pieces: tuple[str, ...] = ()
    """Fragments whose concatenation is `text`; empty means the whole text is one piece."""
    key: str = ""
    """Catalogue key the line came from (e.g. "step.witch.open"), for pacing and tests."""
    pause: str = "short"
    """Pacing class of the silence after the line (see narrator/data/pacing.yaml)."""
    cue: str | None = None
    """A sound cue played before the line: "dawn", "bell", "tick" (see narrator/audio/beds.py)."""
    bed: str | None = None
    """Switch the background bed when this line starts: "night", "day", or "off"; None keeps it."""
    words: int = 0
    """A table line that may hide secret host words (a night step's question, an exile, a skill call): how
    many; the table waits for that many answers of the host, asked or not (narrator/judge/host_words.py)."""
    public_ask: bool = False
    """A host question every game asks alike at this point (the wolves'): the Conductor measures the host's
    answer time on these only, so the table's waits never follow a secret question (host_words.py)."""
    confirms: int = 0
    """Of its `words`, those whose question may be an irreversible one that takes nobody (the wolves' kill, the
    witch's poison, a shot, a take), where a typed 过 is read back and confirmed: the table waits for one
    read-back more at each, asked or not (narrator/judge/host_words.py)."""
    gestures: int = 0
    """Of `words`, those the host answers with a gesture at the table (the hunter's shot status, a night-1 wake
    that only identifies): no question is asked for them, so none needs a repair (host_words.questions)."""

    @property
    def parts(self) -> tuple[str, ...]:
        return self.pieces or (self.text,)

    def replaced(self, **changes: Any) -> Line:
        """`dataclasses.replace(self, **changes)`, at a fraction of its cost (the judge marks many lines)."""
        values = list(_values(self))
        for name, value in changes.items():
            values[_INDEX[name]] = value
        return Line(*values)


_NAMES = tuple(f.name for f in fields(Line))
_INDEX = {name: i for i, name in enumerate(_NAMES)}
_values = attrgetter(*_NAMES)
