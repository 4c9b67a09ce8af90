"""The one place that turns options into real adapters: the voice and its cache, the audio output and
its sounds, the ear (microphone, keypad, typed text), the journal store and the clock. CLI commands (and
`narrator play`, through narrator/play/run.py) call these and stay thin; tests pass the fakes instead
(RecordingOut, FakeClock, MemoryStore). Heavy imports happen inside each function, so `narrator --help`
stays instant and a game answered by keys never imports a speech decoder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.common.clock import Clock, SystemClock
from narrator.session.journal import FileStore, JournalStore, MemoryStore

if TYPE_CHECKING:
    from rich.console import Console

    from narrator.audio.beds import SoundBank
    from narrator.audio.mixer import Mixer
    from narrator.audio.playback import Player
    from narrator.listen.base import QueueEar
    from narrator.listen.first import First
    from narrator.listen.setup import EarOptions
    from narrator.listen.text import Typed
    from narrator.voice import Speaker


def speaker(backend: str, voice: str | None = None, *, rate: str = "+0%", lang: str = "zh-Hans",
            cache_dir: Path | None = None, offline: bool = False,
            warn: Callable[[str], None] | None = None) -> Speaker:
    """The game's speaker: `backend` ("edge" falling back to espeak-ng, or "espeak") with `voice` and
    `rate`, through the voice cache. Bad settings raise ValueError."""
    from narrator.voice import make_speaker, make_voice

    spoken = make_voice(backend, voice, rate=rate, warn=warn)
    return make_speaker(spoken, cache_dir=cache_dir, lang=lang, offline=offline)


def offline_speaker(*, rate: str = "+0%", cache_dir: Path | None = None) -> Speaker:
    """espeak-ng through the same voice cache: what says a line the game's voice cannot (a phrase its
    cache lacks while the network is out of reach)."""
    from narrator.voice import EspeakVoice, Speaker, VoiceCache, default_cache_dir

    return Speaker(EspeakVoice(rate=rate), VoiceCache(default_cache_dir(cache_dir)))


def sounds(cache_dir: Path | None = None) -> SoundBank:
    """The music beds and cues (user files or the built-in ones), kept decoded next to the voice cache."""
    from narrator.audio.sounds import cached_sounds
    from narrator.voice import default_cache_dir

    return cached_sounds(default_cache_dir(cache_dir).parent)


def player(device: str | None, host_device: str | None = None, *, seed: int | None = None,
           console: Console | None = None, mixer: Mixer | None = None) -> Player:
    """A live Player (not started) on `device` ("default"/None, an index, a name, or pulse:SINK), with the
    host's lines on `host_device` (else printed on `console`). With `seed` the player draws each line's
    pause itself; without, the caller times the lines (the Conductor does). `mixer`: the one to play
    (a reopened player keeps its bed and queues); default a new one with the built-in sounds."""
    from narrator.audio.mixer import Mixer
    from narrator.audio.pacing import Pacer
    from narrator.audio.playback import OutputConfig, Player

    public = OutputConfig.parse(None if device == "default" else device)
    # The earpiece answers the host (read-backs, "还差一个"): PortAudio's low latency there (20 ms against
    # the table's 50: docs/benchmarks.md, "End of turn by meaning"); a hiccup is a click in one ear, not in
    # the table's night bed.
    host = OutputConfig.parse(host_device, latency="low") if host_device else None
    return Player(mixer or Mixer(), public, host, pacer=None if seed is None else Pacer(seed), console=console)


def ear(inputs: Sequence[str], *, mic: str | None = None, model: Path | None = None, pack: str = "zh",
        judge_name: str | None = None, max_seat: int = 18, stdin: Typed | None = None,
        cache_dir: Path | None = None, keypad: str = "auto", drop_forms: str = "") -> First:
    """Every input in `inputs` ("voice", "keypad", "text"), started; the first complete answer wins.
    Keys and typed text alone never import the speech decoder. The speech model (`model`, default the
    installed Chinese one) is loaded without the language model the grammar replaces
    (narrator/listen/lean.py; the lean copy is kept under the cache root). ListenError says why it cannot
    start."""
    import sys

    from narrator.listen.first import First

    if "voice" not in inputs:
        from narrator.listen.keypad import KeypadEar
        from narrator.listen.text import TextEar

        ears: list[QueueEar] = [KeypadEar(device=keypad)] if "keypad" in inputs else []
        if "text" in inputs:
            ears.append(TextEar(stdin or sys.stdin))
        return First(ears)  # ValueError when `inputs` names none of them
    from narrator.listen.setup import open_ear

    return open_ear(_voice_options(mic=mic, model=model, pack=pack, judge_name=judge_name, max_seat=max_seat,
                                   cache_dir=cache_dir, drop_forms=drop_forms, keypad="keypad" in inputs,
                                   text="text" in inputs, stdin=stdin, keypad_device=keypad))


def voice_ear(*, mic: str | None = None, model: Path | None = None, pack: str = "zh", judge_name: str | None = None,
              max_seat: int = 18, cache_dir: Path | None = None, drop_forms: str = "") -> QueueEar:
    """The microphone's ear alone, recording, as `ear` opens it among the others (`serve` opens it after its
    ready line: narrator/serve/device.py). ListenError says why it cannot start."""
    from narrator.listen.setup import open_voice

    return open_voice(_voice_options(mic=mic, model=model, pack=pack, judge_name=judge_name, max_seat=max_seat,
                                     cache_dir=cache_dir, drop_forms=drop_forms))


def _voice_options(*, mic: str | None, model: Path | None, pack: str, judge_name: str | None, max_seat: int,
                   cache_dir: Path | None, drop_forms: str, keypad: bool = False, text: bool = False,
                   stdin: Typed | None = None, keypad_device: str | None = None) -> EarOptions:
    """The ear's options with the voice: the speech model (`model`, default the installed Chinese one) loaded
    without the language model the grammar replaces (narrator/listen/lean.py; the lean copy is kept under the
    cache root)."""
    from narrator.listen.lean import grammar_only
    from narrator.listen.models import MODEL_NAME, find_model, model_dirs
    from narrator.listen.setup import EarOptions
    from narrator.voice.cache import default_cache_dir

    folder = model or find_model(MODEL_NAME, model_dirs())
    if folder is not None:
        model = grammar_only(folder, default_cache_dir(cache_dir).parent / "models")
    return EarOptions(voice=True, mic=None if mic == "default" else mic, model=model, pack=pack, judge_name=judge_name,
                      max_seat=max_seat, drop_forms=drop_forms, keypad=keypad, text=text, stdin=stdin,
                      keypad_device=keypad_device)


def journal(path: Path | None) -> JournalStore:
    """The journal file at `path` (fsynced per answer), or a journal kept in memory when there is none."""
    return MemoryStore() if path is None else FileStore(path)


def clock() -> Clock:
    return SystemClock()
