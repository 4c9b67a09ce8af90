"""Ctrl-C during a live game: the first press pauses and asks, a second one saves and exits cleanly.

The signal handler counts presses and raises `Quit` on the second. Every accepted answer is already on
disk, and an answer whose journal write a Quit cuts short was never accepted (the Session drops it, the
journal drops a torn last line), so quitting loses nothing.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


class Quit(BaseException):
    """The host pressed Ctrl-C twice: save and exit. A BaseException, like KeyboardInterrupt, so no
    `except Exception` on the way (a line being played, a device being opened) takes it for a failure."""


class Interrupts:
    def __init__(self) -> None:
        self.presses = 0
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
            raise Quit()

    @property
    def paused(self) -> bool:
        return self.presses == 1

    def resume(self) -> None:
        self.presses = 0
