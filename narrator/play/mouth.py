"""The live loop's output side: where the judge's lines go.

`PrintMouth` (`--table-device none`) prints them. `AudioMouth` speaks them through the voice (cache
first; a piece the cache lacks falls back to the offline espeak-ng voice) onto the table's stream, and the
host's lines onto the earpiece when there is one (else the host's console). `heard()` returns once the
room has heard everything queued — the loop listens only then. A device that fails (unplugged, the sound
server gone) raises `DeviceLost`; the loop keeps the game, tells the host and calls `reopen()` until the
device is back, printing the lines meanwhile.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from narrator.judge.lines import Line

if TYPE_CHECKING:
    from narrator.audio.pacing import PauseSpec
    from narrator.audio.playback import OutputConfig, Player
    from narrator.voice import Speaker

log = logging.getLogger(__name__)


class DeviceLost(RuntimeError):
    """An audio device stopped working; `which` is "table", "host" or "mic"."""

    def __init__(self, which: str, why: str) -> None:
        super().__init__(f"{which}: {why}")
        self.which, self.why = which, why


class Mouth(Protocol):
    def say(self, line: Line) -> None: ...
    def heard(self) -> None: ...
    def reopen(self) -> bool: ...
    def close(self) -> None: ...


Printer = Callable[[Line], None]


class PrintMouth:
    """Prints every line (the table's and the host's) instead of playing it."""

    def __init__(self, printer: Printer) -> None:
        self.printer = printer
        self.said: list[Line] = []

    def say(self, line: Line) -> None:
        self.said.append(line)
        self.printer(line)

    def heard(self) -> None:
        return None

    def reopen(self) -> bool:
        return True

    def close(self) -> None:
        return None


class AudioMouth:
    """Speaks through a `Player` (one long-lived stream per channel, the bed under the lines)."""

    def __init__(self, speaker: Speaker, make_player: Callable[[], Player], printer: Printer,
                 offline: Speaker | None = None) -> None:
        self.speaker, self.offline, self.printer = speaker, offline, printer
        self._make_player = make_player
        self.player: Player | None = None
        self.fallbacks = 0
        """Lines that the cache lacked and the offline voice spoke instead."""
        self.reopen_or_raise()

    def reopen_or_raise(self) -> None:
        try:
            self.player = self._make_player()
            self.player.start()
        except Exception as exc:  # PortAudioError, OSError: a device that is not there
            self.player = None
            raise DeviceLost("table", str(exc)) from exc

    def clip(self, line: Line) -> object:
        from narrator.voice import MissingPiece, VoiceError

        try:
            return self.speaker.line(line)
        except (MissingPiece, VoiceError) as exc:
            if self.offline is None:
                raise
            self.fallbacks += 1
            log.warning("voice cache lacks a piece of %r (%s): the offline voice says it", line.text, exc)
            return self.offline.line(line)

    def say(self, line: Line) -> None:
        import numpy as np

        if line.to == "all":
            self.printer(line)
        if self.player is None:
            if line.to == "host":
                self.printer(line)
            raise DeviceLost("table", "not open")
        clip = self.clip(line)
        assert isinstance(clip, np.ndarray)
        try:
            self.player.say(line, clip)
        except Exception as exc:
            raise DeviceLost("host" if line.to == "host" else "table", str(exc)) from exc

    def heard(self) -> None:
        if self.player is None:
            raise DeviceLost("table", "not open")
        try:
            self.player.wait_drained()
        except Exception as exc:
            raise DeviceLost("table", str(exc)) from exc

    def reopen(self) -> bool:
        self.close()
        try:
            self.reopen_or_raise()
        except DeviceLost:
            return False
        return True

    def close(self) -> None:
        if self.player is not None:
            try:
                self.player.close()
            except Exception as exc:  # closing a stream whose device is gone
                log.info("closing the audio output: %s", exc)
            self.player = None


def scaled_pacing(pace: float) -> dict[str, PauseSpec]:
    """The pacing table with every pause multiplied by `pace` (1: as written; 0.5: a brisk game)."""
    from dataclasses import replace

    from narrator.audio.pacing import load_pacing

    return {name: replace(spec, low_s=spec.low_s * pace, high_s=spec.high_s * pace,
                          mode_s=None if spec.mode_s is None else spec.mode_s * pace)
            for name, spec in load_pacing().items()}


def player_factory(table: OutputConfig, host: OutputConfig | None, seed: int,
                   pace: float = 1.0) -> Callable[[], Player]:
    from narrator.audio.beds import load_sounds
    from narrator.audio.mixer import Mixer
    from narrator.audio.pacing import Pacer
    from narrator.audio.playback import Player

    pacer = Pacer(seed, scaled_pacing(pace))

    def make() -> Player:
        return Player(Mixer(load_sounds()), table, host, pacer=pacer)

    return make
