"""The one place that turns options into real adapters: the voice and its cache, the audio output, the
journal store and the clock. CLI commands (and `narrator play`) call these and stay thin; tests pass the
fakes instead (RecordingOut, FakeClock, MemoryStore). Heavy imports happen inside each function, so
`narrator --help` stays instant. The Ear is wired by the listening code (narrator/listen)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.clock import Clock, SystemClock
from narrator.journal import FileStore, JournalStore, MemoryStore

if TYPE_CHECKING:
    from rich.console import Console

    from narrator.audio.playback import Player
    from narrator.voice import Speaker


def speaker(backend: str, voice: str | None = None, *, rate: str = "+0%", lang: str = "zh-Hans",
            cache_dir: Path | None = None, offline: bool = False,
            warn: Callable[[str], None] | None = None) -> Speaker:
    """The game's speaker: `backend` ("edge" falling back to espeak-ng, or "espeak") with `voice` and
    `rate`, through the voice cache. Bad settings raise ValueError."""
    from narrator.voice import make_speaker, make_voice

    spoken = make_voice(backend, voice, rate=rate, warn=warn)
    return make_speaker(spoken, cache_dir=cache_dir, lang=lang, offline=offline)


def player(device: str | None, host_device: str | None = None, *, seed: int | None = None,
           console: Console | None = None) -> Player:
    """A live Player (not started) on `device` ("default"/None, an index, a name, or pulse:SINK), with the
    host's lines on `host_device` (else printed on `console`). With `seed` the player draws each line's
    pause itself; without, the caller times the lines (the Conductor does)."""
    from narrator.audio.mixer import Mixer
    from narrator.audio.pacing import Pacer
    from narrator.audio.playback import OutputConfig, Player

    public = OutputConfig.parse(None if device == "default" else device)
    host = OutputConfig.parse(host_device) if host_device else None
    return Player(Mixer(), public, host, pacer=None if seed is None else Pacer(seed), console=console)


def journal(path: Path | None) -> JournalStore:
    """The journal file at `path` (fsynced per answer), or a journal kept in memory when there is none."""
    return MemoryStore() if path is None else FileStore(path)


def clock() -> Clock:
    return SystemClock()
