"""Where each line went (`Placed`): what the Conductor decides and what the Tape, the subtitles and the
tests read — the one type the timing core and its outputs share, below both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from narrator.judge.lines import Line


@dataclass(frozen=True, slots=True)
class Placed:
    """Where one line went: times in seconds from the conductor's start, on its channel."""

    line: Line
    start_s: float
    """s. The line's first sample (its cue, if it has one, else its speech)."""
    speech_s: float
    """s. The speech's first sample."""
    said_s: float
    """s. Just after the speech's last sample."""
    end_s: float
    """s. End of the pause (hold) after it."""
    phase: str
    """"pregame", "night3", "day2", …: which table stream the hold was drawn from."""
