"""systemd's service notification protocol (`sd_notify`): tell the unit `serve` is ready, what it is doing, that
it is stopping, and keep its watchdog fed.

The protocol is one datagram of "KEY=value" lines to the Unix socket named by $NOTIFY_SOCKET ("@…": Linux's
abstract namespace); without that variable (a terminal, a test, a user who runs `serve` by hand) every call does
nothing. Written here rather than taken from a package: the whole protocol is this one datagram, and the
package for it on the index (sdnotify 0.3.2, 2017) opens its socket when constructed and swallows every error
silently, where a readiness that cannot be told should be logged once (docs/device.md, "The unit").

The watchdog (`WatchdogSec=` in the unit, $WATCHDOG_USEC here) is fed by a thread at half the period, and only
while `alive()` says the device is alive: the thread runs Python, so a process stuck holding the interpreter
(a native call that never returns, a deadlock inside one) stops feeding it, and systemd restarts the unit; the
saved game comes back at the next power-on as after a power cut.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable

log = logging.getLogger("narrator.serve")


def notify(*states: str, env: dict[str, str] | None = None) -> bool:
    """Send `states` ("READY=1", "STATUS=…") to systemd; False when not under a notify unit or it failed."""
    where = (env if env is not None else os.environ).get("NOTIFY_SOCKET", "")
    if not where or not states:
        return False
    address = "\0" + where[1:] if where.startswith("@") else where
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall("\n".join(states).encode("utf-8"))
    except OSError as exc:
        log.warning("cannot tell systemd %s (%s): %s", states[0], where, exc)
        return False
    return True


def watchdog_period_s(env: dict[str, str] | None = None) -> float | None:
    """The unit's watchdog period in seconds ($WATCHDOG_USEC, for this process: $WATCHDOG_PID), or None."""
    env = env if env is not None else dict(os.environ)
    usec, pid = env.get("WATCHDOG_USEC", ""), env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1e6


class Watchdog:
    """Feeds systemd's watchdog every half period while `alive()`; `stop()` ends it."""

    def __init__(self, period_s: float, alive: Callable[[], bool]) -> None:
        self.period_s, self.alive = period_s, alive
        self.fed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="narrator-watchdog", daemon=True)

    @classmethod
    def start_if_asked(cls, alive: Callable[[], bool]) -> Watchdog | None:
        period = watchdog_period_s()
        if period is None:
            return None
        dog = cls(period, alive)
        dog._thread.start()
        return dog

    def _run(self) -> None:
        while not self._stop.wait(self.period_s / 2):
            if not self.alive():
                log.warning("watchdog: the device stopped answering; not feeding systemd's watchdog")
                return
            if notify("WATCHDOG=1"):
                self.fed += 1

    def stop(self) -> None:
        self._stop.set()
