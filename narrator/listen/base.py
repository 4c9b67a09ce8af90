"""The ear's port: what the host answered to a prompt, from any input (voice, keypad, typed text, a file).

`Heard` and `Ear` are the team contract (docs: /work/coord/CONTRACTS.md). Adapters post what they heard
into a queue; `listen` waits on it. Several adapters share one queue through `narrator.listen.first.First`,
so the first complete answer from any of them wins.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from narrator.engine.prompts import Prompt

if TYPE_CHECKING:
    import numpy as np

Source = Literal["voice", "keypad", "text", "file"]
MicMode = Literal["lobby", "game"]
"""How a microphone records (narrator/listen/mic.py `BLOCKS`): "game", blocks of 32 ms — the latency every game
answer was measured with; "lobby", blocks of 64 ms while the device waits for the host — half the wake-ups of
the sound server's and PortAudio's threads, half the ear's idle CPU. The ear hears the same 32 ms frames either
way; who asks for a mode: `serve`'s lobby and its games (narrator/serve/device.py)."""


@dataclass(frozen=True, slots=True)
class Heard:
    text: str
    """Best reading, the host's words ("七号", "救", "撤销")."""
    alternatives: tuple[tuple[str, float], ...] = ()
    """(text, score), best first (voice only)."""
    source: Source = "text"
    start_s: float | None = None
    """s, utterance start (the ear's clock)."""
    end_s: float | None = None
    """s, end of speech (the VAD's decision)."""


class Playing(Protocol):
    """What the device is playing (narrator.audio.mixer.Mixer): the ear's deaf window comes from it."""

    def voiced_until(self) -> float:
        """time.monotonic() when the judge's last line or cue has left the device; +inf while one plays
        or is queued; -inf when nothing was ever played."""
        ...


@runtime_checkable
class Replaying(Playing, Protocol):
    """What the device is playing, and what it played (the Mixer): the ear takes the sounds it listens through
    out of an utterance that overlapped one (narrator/listen/unmix.py)."""

    def heard_through(self, start: float, end: float, rate: int) -> np.ndarray | None:
        """What the table played, at `rate`, that left the device from `start` to `end` (time.monotonic) when a
        sound the ear listens through was among it; else None."""
        ...

    def through_between(self, start: float, end: float) -> bool:
        """Whether a sound the ear listens through left the device from `start` to `end` (time.monotonic)."""
        ...


class Recording(Protocol):
    """A microphone an ear records from (narrator.listen.mic.Microphone): the live loop watches it."""

    @property
    def alive(self) -> bool:
        """True while it records."""
        ...

    def restart(self) -> bool:
        """Open it again: True when it records again, False when it still cannot (try again later)."""
        ...

    def set_mode(self, mode: MicMode) -> None:
        """Record in `mode` from now on (a running stream is opened again; one that cannot be is lost: `alive`
        False, and the live loop reports it and `restart`s it, in this mode)."""
        ...


@runtime_checkable
class Ear(Protocol):
    """What the live loop, the dialogue and `serve` ask of an ear: every capability is a method here (the
    real adapters, `First`, the loop's `GuardedEar` and the tests' fakes alike), none is discovered."""

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None: ...
    def follow(self, playing: Playing | None) -> None: ...
    def close(self) -> None: ...

    def ended(self) -> bool:
        """True once every input of it has ended (the piped text ran out, the keypad was unplugged)."""
        ...

    def microphones(self) -> list[Recording]:
        """The microphones it records from (none for keys or typed text)."""
        ...

    def set_mode(self, mode: MicMode) -> None:
        """Its microphones record in `mode` from now on, and any that joins later too (keys and typed text:
        nothing to do)."""
        ...

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        """Raise narrator.listen.grammar.VocabularyError when a prompt's words are not all ones the speech
        model can hear (an ear without a model hears every word)."""
        ...


@dataclass(frozen=True, slots=True)
class Context:
    """What the ear is listening for right now (voice adapters build their grammar from it)."""

    prompt: Prompt
    max_seat: int
    since_s: float
    """Monotonic time the listening started: input older than this belongs to an earlier prompt."""


class ListenError(Exception):
    """The ear cannot start (one sentence with the fix)."""


class Closed(Exception):
    """The adapter's input ended (end of file, the keypad unplugged); said once, never a traceback."""


class QueueEar:
    """Shared machinery: `post` a Heard from any thread, `listen` takes the next one for this prompt.

    `listen` returns None on timeout, and also once every input has ended (`closed`), so a loop never
    hangs on a dead input. Subclasses override `begin(context)` to prepare for a prompt (the voice ear
    switches its grammar there) and `stop()` to release their input.
    """

    mic: Recording | None = None
    """The microphone it owns, if any (narrator.listen.mic.MicEar)."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Heard | None] = queue.Queue()
        self.context: Context | None = None
        self.closed = threading.Event()
        self._lock = threading.Lock()

    def attach(self, shared: queue.Queue[Heard | None]) -> None:
        """Post into a queue shared with other adapters (see First)."""
        self.queue = shared

    def post(self, heard: Heard) -> None:
        self.queue.put(heard)

    def end(self) -> None:
        """The input is gone: wake a waiting `listen`."""
        self.closed.set()
        self.queue.put(None)

    def begin(self, context: Context) -> None:
        self.context = context

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        self.begin(Context(prompt, max_seat, time.monotonic()))
        return take(self.queue, timeout_s, lambda: self.closed.is_set())

    def follow(self, playing: Playing | None) -> None:
        """Text and keys are not echoes of the judge: a host may type while it speaks."""

    def ended(self) -> bool:
        return self.closed.is_set()

    def microphones(self) -> list[Recording]:
        return [] if self.mic is None else [self.mic]

    def set_mode(self, mode: MicMode) -> None:
        if self.mic is not None:
            self.mic.set_mode(mode)

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        """Keys and typed text hear every word."""

    def stop(self) -> None:
        """Release the input (threads, devices)."""

    def close(self) -> None:
        self.stop()
        self.end()


def take(q: queue.Queue[Heard | None], timeout_s: float | None, ended: object) -> Heard | None:
    """The next Heard from `q`; None on timeout or when `ended()` says every input is gone."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            item = q.get(timeout=wait)
        except queue.Empty:
            return None
        if item is not None:
            return item
        if callable(ended) and ended():
            q.put(None)  # keep telling later callers
            return None
