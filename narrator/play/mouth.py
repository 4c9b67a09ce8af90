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
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from narrator.judge.lines import Line

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np

    from narrator.audio.conductor import Conductor
    from narrator.audio.mixer import Mixer
    from narrator.audio.pacing import HostWords, PauseSpec
    from narrator.audio.playback import Player
    from narrator.common.clock import Clock
    from narrator.listen.base import Playing
    from narrator.voice import Speaker

log = logging.getLogger(__name__)


class DeviceLost(RuntimeError):
    """An audio device stopped working; `which` is "table", "host" or "mic"."""

    def __init__(self, which: str, why: str) -> None:
        super().__init__(f"{which}: {why}")
        self.which, self.why = which, why


@runtime_checkable
class Mouth(Protocol):
    """Where the live loop's lines go: every capability the loop and `serve` use is here (the real mouths
    and the tests' fakes alike), none is discovered."""

    playing: Playing | None
    """What the device plays (the ear follows it: narrator.listen.base.Playing); None when nothing is played."""
    conductor: Conductor | None
    """The timing core the lines go through (the speech timer, "请稍等"); None when lines are only printed."""

    def say(self, line: Line) -> None: ...
    def heard(self) -> None: ...
    def reopen(self) -> bool: ...
    def close(self) -> None: ...

    def show(self, line: Line) -> None:
        """Print the line on the host's console only (the speaker is lost: the host reads the table's out)."""
        ...

    @property
    def has_earpiece(self) -> bool:
        """True while the host's lines reach an earpiece of their own."""
        ...

    def set_volume(self, gain: float) -> None:
        """The table's loudness, as a factor (大声点 / 小声点 in `serve`); a printing mouth has none."""
        ...

    def cue_host(self, cue: str) -> bool:
        """Play the sound `cue` on the host's channel alone (serve's listening tick); False when nothing is
        played (a printing mouth, a lost speaker). ValueError: the sound bank has no such cue."""
        ...

    def rest(self) -> bool:
        """Stop the output streams while nothing plays (`serve`'s lobby waiting for an answer; never a game):
        the next line starts them again. True while resting; False when something still plays or nothing is
        played at all (a printing mouth)."""
        ...


Printer = Callable[[Line], None]


class PrintMouth:
    """Prints every line (the table's and the host's) instead of playing it."""

    def __init__(self, printer: Printer) -> None:
        self.printer = printer
        self.said: list[Line] = []
        self.playing: Playing | None = None
        self.conductor: Conductor | None = None

    def say(self, line: Line) -> None:
        self.said.append(line)
        self.printer(line)

    def heard(self) -> None:
        return None

    def reopen(self) -> bool:
        return True

    def close(self) -> None:
        return None

    def show(self, line: Line) -> None:
        self.printer(line)

    @property
    def has_earpiece(self) -> bool:
        return False

    def set_volume(self, gain: float) -> None:
        """Nothing is played."""

    def cue_host(self, cue: str) -> bool:
        return False

    def rest(self) -> bool:
        return False


class AudioMouth:
    """Speaks through the Conductor (the timing core: the fair night shape, table / host scheduling, holds)
    onto a `Player` (one long-lived stream per channel, the bed under the lines)."""

    def __init__(self, speaker: Speaker, make_player: Callable[[Mixer | None], Player], printer: Printer,
                 offline: Speaker | None = None, *, seed: int = 0, pacing: Mapping[str, PauseSpec] | None = None,
                 host_words: HostWords | None = None, clock: Clock | None = None) -> None:
        from narrator.audio.conductor import Conductor
        from narrator.audio.pacing import load_host_words, load_line_classes, load_night1
        from narrator.common.clock import SystemClock

        self.speaker, self.offline, self.printer = speaker, offline, printer
        self._make_player = make_player
        self.player: Player | None = None
        self._mixer: Mixer | None = None
        """The mixer of the last player opened: a reopened player keeps it (what is playing lives there)."""
        self.fallbacks = 0
        """Lines that the cache lacked and the offline voice spoke instead."""
        self.conductor: Conductor | None = None
        self.reopen_or_raise()
        assert self.player is not None
        self.playing: Playing | None = self.player.mixer  # a reopened player keeps this mixer
        on_host = None if self.player.has_host_output else printer
        self.conductor = Conductor(self.player.mixer, clock or SystemClock(), self.clip, seed=seed, pacing=pacing,
                                   night1=load_night1(), line_classes=load_line_classes(),
                                   host_words=host_words or load_host_words(), player=self.player, on_host=on_host)

    def reopen_or_raise(self) -> None:
        mixer = self.player.mixer if self.player is not None else self._mixer
        try:
            self.player = self._make_player(mixer)
            self._mixer = self.player.mixer
            # Not waiting for the device to report it consumes: the first line is queued at once and
            # starts the moment the stream runs.
            self.player.start(ready_timeout_s=None)
        except Exception as exc:  # PortAudioError, OSError: a device that is not there
            self.player = None
            raise DeviceLost("table", str(exc)) from exc
        if self.conductor is not None:
            self.conductor.player = self.player

    def clip(self, line: Line) -> np.ndarray:
        clip, fell_back = voice_line(self.speaker, self.offline, line)
        self.fallbacks += fell_back
        return clip

    def say(self, line: Line) -> None:
        if line.to == "all":
            self.printer(line)
        if self.player is None:
            if line.to == "host":
                self.printer(line)
            raise DeviceLost("table", "not open")
        assert self.conductor is not None
        try:
            self.conductor.say([line])
        except Exception as exc:
            raise DeviceLost("host" if line.to == "host" else "table", str(exc)) from exc

    def heard(self) -> None:
        if self.player is None:
            raise DeviceLost("table", "not open")
        assert self.conductor is not None
        self._check_streams()
        try:
            self.conductor.ready()
        except Exception as exc:
            raise DeviceLost("table", str(exc)) from exc
        self._check_streams()

    def _check_streams(self) -> None:
        """A stream PortAudio stopped (the speaker unplugged, its sound server or sink gone) is a lost device."""
        assert self.player is not None
        stopped = self.player.stopped()
        if stopped:
            which = "table" if "all" in stopped else "host"
            raise DeviceLost(which, "the stream stopped playing (the device is gone)")

    def reopen(self) -> bool:
        self.close()
        try:
            self.reopen_or_raise()
        except DeviceLost:
            return False
        return True

    def show(self, line: Line) -> None:
        self.printer(line)

    @property
    def has_earpiece(self) -> bool:
        return self.player is not None and self.player.has_host_output

    def set_volume(self, gain: float) -> None:
        if self.player is not None:
            self.player.mixer.volume = gain

    def cue_host(self, cue: str) -> bool:
        import numpy as np

        if self.player is None:
            return False
        self.player.mixer.enqueue(np.zeros(0, np.float32), "host", 0.0, cue=cue)
        return True

    def rest(self) -> bool:
        return self.player is not None and self.player.rest()

    def close(self) -> None:
        if self.player is not None:
            try:
                self.player.close()
            except Exception as exc:  # closing a stream whose device is gone
                log.info("closing the audio output: %s", exc)
            self.player = None


def voice_line(speaker: Speaker, offline: Speaker | None, line: Line) -> tuple[np.ndarray, bool]:
    """The line in the game's voice; a piece its cache lacks (or a voice that fails) makes the offline
    voice say the whole line instead. Returns the clip and whether it fell back."""
    from narrator.voice import MissingPiece, VoiceError

    try:
        return speaker.line(line), False
    except (MissingPiece, VoiceError) as exc:
        if offline is None:
            raise
        log.warning("voice cache lacks a piece of %r (%s): the offline voice says it", line.text, exc)
        return offline.line(line), True


def scaled_pacing(pace: float) -> dict[str, PauseSpec] | None:
    """The pacing table with every pause multiplied by `pace` (1: as written; 0.5: a brisk game)."""
    from dataclasses import replace

    from narrator.audio.pacing import load_pacing

    if pace == 1.0:
        return None
    return {name: replace(spec, low_s=spec.low_s * pace, high_s=spec.high_s * pace,
                          mode_s=None if spec.mode_s is None else spec.mode_s * pace)
            for name, spec in load_pacing().items()}


def scaled_host_words(pace: float) -> HostWords | None:
    """The host's words' wait at the same pace as `scaled_pacing` (the bound on his answer time stays)."""
    from dataclasses import replace

    from narrator.audio.pacing import load_host_words

    if pace == 1.0:
        return None
    words = load_host_words()
    return replace(words, word_s=words.word_s * pace, floor_s=words.floor_s * pace, step_s=words.step_s * pace,
                   repair_s=words.repair_s * pace, read_back_s=words.read_back_s * pace)
