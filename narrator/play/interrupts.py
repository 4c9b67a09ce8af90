"""Ctrl-C during a live game: the first press pauses and asks, a second one saves and exits cleanly.

The signal handler never interrupts a journal write: it only counts presses, and raises `Quit` on the
second press unless the loop is inside a `shielded()` block (then at its end). Every accepted answer is
already on disk, so quitting loses nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Quit(Exception):
    """The host pressed Ctrl-C twice: save and exit."""


class Interrupts:
    def __init__(self) -> None:
        self.presses = 0
        self._critical = 0
        self._pending = False
        self._old: object = None

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)

    def uninstall(self) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)  # type: ignore[arg-type]
            self._old = None

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.press()

    def press(self) -> None:
        self.presses += 1
        if self.presses >= 2:
            if self._critical:
                self._pending = True
            else:
                raise Quit()

    @property
    def paused(self) -> bool:
        return self.presses == 1

    def resume(self) -> None:
        self.presses = 0

    @contextmanager
    def shielded(self) -> Iterator[None]:
        """No Quit inside (a journal write); a second press during it quits right after."""
        self._critical += 1
        try:
            yield
        finally:
            self._critical -= 1
            if not self._critical and self._pending:
                self._pending = False
                raise Quit()
