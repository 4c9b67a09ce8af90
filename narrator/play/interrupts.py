"""Ctrl-C, SIGTERM and SIGHUP during a live game: the first Ctrl-C pauses and asks, a second one saves and
exits cleanly; SIGTERM (a shutdown, `kill`) and SIGHUP (the terminal closed) save and exit at once.

The signal handler counts presses and raises `Quit` on the second (or on SIGTERM / SIGHUP, with the
signal's exit code: 143 / 129). Every accepted answer is already on disk, and an answer whose journal write
a Quit cuts short was never accepted (the Session drops it, the journal drops a torn last line), so
quitting loses nothing.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


class Quit(BaseException):
    """The host pressed Ctrl-C twice (code 130), or the process was told to stop: save and exit. A
    BaseException, like KeyboardInterrupt, so no `except Exception` on the way (a line being played, a
    device being opened) takes it for a failure."""

    def __init__(self, code: int = 130, why: str = "Ctrl-C") -> None:
        super().__init__(why)
        self.code, self.why = code, why


STOPS = {signal.SIGTERM: (143, "SIGTERM"), signal.SIGHUP: (129, "SIGHUP")}


class Interrupts:
    def __init__(self) -> None:
        self.presses = 0
        self._old: dict[int, object] = {}

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, *STOPS):
                self._old[signum] = signal.signal(signum, self._handler)

    def uninstall(self) -> None:
        for signum, old in self._old.items():
            signal.signal(signum, old)  # type: ignore[arg-type]
        self._old.clear()

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if signum in STOPS:
            raise Quit(*STOPS[signal.Signals(signum)])
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
