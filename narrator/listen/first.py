"""Several ears at once (the microphone, the keypad, typed text): the first complete answer wins."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterable, Sequence

from narrator.engine.prompts import Prompt
from narrator.listen.base import Context, Heard, Playing, QueueEar, Recording, take


class First:
    def __init__(self, ears: Sequence[QueueEar]) -> None:
        if not ears:
            raise ValueError("First needs at least one ear")
        self.ears = list(ears)
        self.queue: queue.Queue[Heard | None] = queue.Queue()
        for ear in self.ears:
            ear.attach(self.queue)
        self._asked: tuple[Prompt, int] | None = None

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if self._asked is None or self._asked[0] is not prompt or self._asked[1] != max_seat:
            self._asked = (prompt, max_seat)
            self._drain()
        context = Context(prompt, max_seat, time.monotonic())
        for ear in self.ears:
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

    def follow(self, playing: Playing | None) -> None:
        for ear in self.ears:
            ear.follow(playing)

    def close(self) -> None:
        for ear in self.ears:
            ear.close()

    def ended(self) -> bool:
        return all(ear.ended() for ear in self.ears)

    def microphones(self) -> list[Recording]:
        return [mic for ear in self.ears for mic in ear.microphones()]

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        asked = list(prompts)
        for ear in self.ears:
            ear.check_words(asked, max_seat)
