"""Several ears at once (the microphone, the keypad, typed text): the first complete answer wins.

An ear can join later (`expect`, then `join`): `serve` takes keys and typed text at once and lets the
microphone join when the speech model has loaded (narrator/serve/device.py)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable, Sequence

from narrator.engine.prompts import Prompt
from narrator.listen.base import Context, Heard, MicMode, Playing, QueueEar, Recording, take


class First:
    def __init__(self, ears: Sequence[QueueEar]) -> None:
        if not ears:
            raise ValueError("First needs at least one ear")
        self.ears = list(ears)
        self.queue: queue.Queue[Heard | None] = queue.Queue()
        for ear in self.ears:
            ear.attach(self.queue)
        self._asked: tuple[Prompt, int] | None = None
        self._lock = threading.Lock()
        """Guards `ears` and what a joining ear is told (`join` runs on the thread that opened it)."""
        self._context: Context | None = None
        self._playing: Playing | None = None
        self._mode: MicMode | None = None
        """The mode the microphones were asked to record in (None: never asked; each keeps its own)."""
        self._expected = 0
        self._closed = False

    def _now(self) -> list[QueueEar]:
        with self._lock:
            return list(self.ears)

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if self._asked is None or self._asked[0] is not prompt or self._asked[1] != max_seat:
            self._asked = (prompt, max_seat)
            self._drain()
        context = Context(prompt, max_seat, time.monotonic())
        with self._lock:
            self._context = context
            ears = list(self.ears)
        for ear in ears:
            ear.begin(context)
        return take(self.queue, timeout_s, self.ended)

    def _drain(self) -> None:
        """A new prompt: speech heard for the previous one (decoded with its grammar) does not answer it;
        typed lines and keys are kept (a host may type ahead). Asked again for the same prompt (a loop
        polling in short slices), nothing is dropped."""
        kept: list[Heard | None] = []
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                break
            if item is None or item.source in ("text", "keypad"):
                kept.append(item)
        for item in kept:
            self.queue.put(item)

    def expect(self) -> None:
        """An ear will `join` (or `join(None)`: it could not open): until then the inputs have not all ended."""
        with self._lock:
            self._expected += 1

    def join(self, ear: QueueEar | None) -> bool:
        """The ear `expect` announced, now open (from any thread): it posts into the shared queue, follows what
        the others follow and listens for the question being asked. None: it will not come. False when this
        First was closed meanwhile (the ear is closed then)."""
        with self._lock:
            self._expected = max(0, self._expected - 1)
            if ear is not None and not self._closed:
                ear.attach(self.queue)
                ear.follow(self._playing)
                if self._mode is not None:
                    ear.set_mode(self._mode)
                if self._context is not None:
                    ear.begin(self._context)
                self.ears.append(ear)
                return True
        if ear is not None:
            ear.close()
        elif self.ended():
            self.queue.put(None)  # every input is gone now: wake a waiting `listen`
        return False

    def follow(self, playing: Playing | None) -> None:
        with self._lock:
            self._playing = playing
            ears = list(self.ears)
        for ear in ears:
            ear.follow(playing)

    def set_mode(self, mode: MicMode) -> None:
        with self._lock:
            self._mode = mode
            ears = list(self.ears)
        for ear in ears:
            ear.set_mode(mode)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            ears = list(self.ears)
        for ear in ears:
            ear.close()

    def ended(self) -> bool:
        with self._lock:
            return self._expected == 0 and all(ear.ended() for ear in self.ears)

    def microphones(self) -> list[Recording]:
        return [mic for ear in self._now() for mic in ear.microphones()]

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        asked = list(prompts)
        for ear in self._now():
            ear.check_words(asked, max_seat)
