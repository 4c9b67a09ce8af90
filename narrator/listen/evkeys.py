"""A USB keypad with no terminal: its keys read through the Linux input layer (`evdev`), the device grabbed so
they never reach a console or another program.

Which keypad (`audio.keypad` in the config, `narrator setup --keypad`): "auto" — the terminal when `narrator`
runs on one, else the first *numeric keypad* the input layer has (keypad digit keys and no letter keys, so a
full keyboard is never taken by surprise) —, "terminal", or an input device: its path (/dev/input/by-id/…,
stable across replugging, or /dev/input/eventN) or part of its name. `narrator devices` lists them.

`KeyReader` turns the device's key-down events into the keypad's characters (the same as a terminal sends:
digits, ".", "*", "+", "-", "/", Enter, Backspace) whatever NumLock says, and hands them to the ear one by one. A
keypad that is not there yet, or is pulled out, is waited for (one log line) and taken again when it comes
back; only closing the ear ends the reader.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("narrator.keypad")

BY_ID = Path("/dev/input/by-id")
INPUT = Path("/dev/input")
RETRY_S = 2.0
"""How often a missing keypad is looked for again."""
POLL_S = 0.5
"""How long one wait for a key lasts before the reader checks it is still wanted."""

_NAMES = {
    **{f"KEY_KP{d}": str(d) for d in range(10)}, **{f"KEY_{d}": str(d) for d in range(10)},
    "KEY_KPDOT": ".", "KEY_DOT": ".", "KEY_KPCOMMA": ",", "KEY_COMMA": ",", "KEY_SPACE": " ",
    "KEY_KPENTER": "\n", "KEY_ENTER": "\n", "KEY_KPASTERISK": "*", "KEY_KPPLUS": "+", "KEY_KPMINUS": "-",
    "KEY_MINUS": "-", "KEY_KPSLASH": "/", "KEY_SLASH": "/", "KEY_BACKSPACE": "\x7f",
}
"""Key names → the characters a terminal sends for them (narrator/listen/keypad.py reads those)."""


class KeypadProblem(ValueError):
    """The keypad asked for cannot be read; one sentence with the fix."""


def available() -> bool:
    try:
        import evdev  # noqa: F401
    except ImportError:
        return False
    return INPUT.is_dir()


def key_chars() -> dict[int, str]:
    """Key code → character, from evdev's names."""
    from evdev import ecodes

    return {getattr(ecodes, name): ch for name, ch in _NAMES.items() if hasattr(ecodes, name)}


@dataclass(frozen=True)
class InputDevice:
    path: str
    """/dev/input/by-id/… when the device has one (stable), else /dev/input/eventN."""
    name: str
    numeric: bool
    """A numeric keypad: keypad digits, no letters."""


def keypads() -> list[InputDevice]:
    """Every input device with digit keys (numeric keypads first), or [] where there is no input layer."""
    if not available():
        return []
    import evdev
    from evdev import ecodes

    stable = {}
    if BY_ID.is_dir():
        for link in sorted(BY_ID.iterdir()):
            if link.name.endswith("-event-kbd"):
                stable[os.path.realpath(link)] = str(link)
    found = []
    for path in evdev.list_devices():
        try:
            device = evdev.InputDevice(path)
        except OSError:  # not readable (not in the input group) or gone meanwhile
            continue
        try:
            keys = set(device.capabilities().get(ecodes.EV_KEY, []))
            name = device.name
        finally:
            device.close()
        pad_digits = {getattr(ecodes, f"KEY_KP{d}") for d in range(10)}
        digits = {getattr(ecodes, f"KEY_{d}") for d in range(10)}
        letters = {getattr(ecodes, f"KEY_{c}") for c in "QWERTYASDFZX"}
        if not keys & (pad_digits | digits):
            continue
        numeric = pad_digits <= keys and not keys & letters
        found.append(InputDevice(stable.get(os.path.realpath(path), path), name, numeric))
    return sorted(found, key=lambda d: (not d.numeric, d.path))


def find(spec: str) -> InputDevice | None:
    """The device `spec` names ("auto": the first numeric keypad; a path; part of a name), None if absent."""
    devices = keypads()
    if spec == "auto":
        return next((d for d in devices if d.numeric), None)
    if spec.startswith("/"):
        real = os.path.realpath(spec)
        return next((d for d in devices if os.path.realpath(d.path) == real), None)
    return next((d for d in devices if spec.lower() in d.name.lower()), None)


def check(spec: str) -> str:
    """A short description of the keypad `spec` names, or KeypadProblem saying why it cannot be read."""
    if not available():
        raise KeypadProblem("no Linux input layer here (/dev/input, python evdev)")
    if spec.startswith("/") and os.path.exists(spec) and not os.access(spec, os.R_OK):
        raise KeypadProblem(f"keypad {spec}: not readable by this user; add the user to the input group "
                            "(sudo adduser $USER input, then log in again)")
    found = find(spec)
    if found is None:
        what = "no numeric keypad is plugged in" if spec == "auto" else f"no keypad {spec!r}"
        raise KeypadProblem(f"{what} (or it is not readable: the input group); `narrator devices` lists them")
    return f"{found.path} ({found.name})"


class KeyReader:
    """Reads the keypad `spec` names on a thread and calls `key(ch)` for each key pressed."""

    def __init__(self, spec: str, key: Callable[[str], None], closed: threading.Event,
                 open_device: Callable[[str], Any] | None = None) -> None:
        self.spec, self.key, self.closed = spec, key, closed
        self.open_device = open_device or _open
        self.device: Any = None
        self.grabbed = threading.Event()
        """Set while a keypad is held (tests wait on it)."""

    def run(self) -> None:
        told = False
        while not self.closed.is_set():
            try:
                self.device = self.open_device(self.spec)
            except (OSError, KeypadProblem) as exc:
                if not told:
                    log.warning("keypad: %s; waiting for it", exc)
                    told = True
                self.closed.wait(RETRY_S)
                continue
            log.info("keypad: reading %s", getattr(self.device, "path", self.spec))
            told = False
            try:
                self._read()
            except OSError as exc:  # unplugged: ENODEV
                log.warning("keypad: %s went away (%s); waiting for it", self.spec, exc.strerror or exc)
            finally:
                self.grabbed.clear()
                _release(self.device)
                self.device = None

    def _read(self) -> None:
        from evdev import ecodes

        chars = key_chars()
        device = self.device
        device.grab()  # its keys reach no console and no other program while narrator reads them
        self.grabbed.set()
        while not self.closed.is_set():
            ready, _, _ = select.select([device.fd], [], [], POLL_S)
            if not ready:
                continue
            for event in device.read():
                if event.type == ecodes.EV_KEY and event.value == 1 and event.code in chars:
                    self.key(chars[event.code])


def _open(spec: str) -> Any:
    import evdev

    if not INPUT.is_dir():
        raise KeypadProblem("no /dev/input")
    found = find(spec)
    if found is None:
        raise KeypadProblem("no numeric keypad is plugged in" if spec == "auto" else f"no keypad {spec!r}")
    return evdev.InputDevice(found.path)


def _release(device: Any) -> None:
    for step in ("ungrab", "close"):
        with contextlib.suppress(OSError, AttributeError):
            getattr(device, step)()
