"""A USB keypad with no terminal (narrator/listen/evkeys.py): its keys reach the ear through the Linux input
layer, the device grabbed, whatever NumLock says; a keypad pulled out is waited for and taken again.

With /dev/uinput (a kernel with the uinput module, as root or in the input group) a virtual numeric keypad
and a virtual full keyboard are made with `evdev.UInput`: "auto" takes the keypad, never the keyboard, and a
game prompt is answered by its keys. Where there is no /dev/uinput (a container, a VM kernel without the
module) those tests are skipped with that reason, and the reader is driven by a device of the test's own
that hands it real `evdev.InputEvent`s through a pipe."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

evdev = pytest.importorskip("evdev", reason="python evdev is not installed (Linux only)")

from evdev import InputEvent, ecodes  # noqa: E402

from narrator.engine.answers import Seats  # noqa: E402
from narrator.engine.prompts import Prompt  # noqa: E402
from narrator.listen import evkeys  # noqa: E402
from narrator.listen.keypad import KeypadEar  # noqa: E402

UINPUT = Path("/dev/uinput")
KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
NO_UINPUT = "no /dev/uinput here (kernel without the uinput module, or not root): no virtual keypad can be made"


def key_events(*names: str) -> list[InputEvent]:
    """Each key pressed and released, with the SYN reports and a repeat (value 2) as a real keypad sends."""
    out = []
    for name in names:
        code = getattr(ecodes, name)
        out += [InputEvent(0, 0, ecodes.EV_MSC, ecodes.MSC_SCAN, 458840), InputEvent(0, 0, ecodes.EV_KEY, code, 1),
                InputEvent(0, 0, ecodes.EV_SYN, ecodes.SYN_REPORT, 0), InputEvent(0, 0, ecodes.EV_KEY, code, 2),
                InputEvent(0, 0, ecodes.EV_KEY, code, 0), InputEvent(0, 0, ecodes.EV_SYN, ecodes.SYN_REPORT, 0)]
    return out


class PipeDevice:
    """A keypad of the test's own: `fd` is a pipe's read end (for select); `read()` hands out queued events;
    pulled out, it raises ENODEV as a real one does."""

    def __init__(self, batches: list[list[InputEvent]]) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.fd = self.read_fd
        self.batches = batches
        self.grabs = 0
        self.unplugged = False
        self.path = "/dev/input/by-id/usb-test-event-kbd"

    def grab(self) -> None:
        self.grabs += 1

    def ungrab(self) -> None:
        if self.unplugged:
            raise OSError(19, "No such device")

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def send(self) -> None:
        os.write(self.write_fd, b"x")

    def read(self) -> list[InputEvent]:
        os.read(self.read_fd, 1)
        batch = self.batches.pop(0)
        if not batch:
            self.unplugged = True
            raise OSError(19, "No such device")
        return batch


def wait_for(check: Any, what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_keys_are_read_grabbed_and_a_keypad_pulled_out_is_taken_again() -> None:
    first = PipeDevice([key_events("KEY_KP1", "KEY_KP2", "KEY_KPDOT", "KEY_KP5", "KEY_KPENTER"), []])
    second = PipeDevice([key_events("KEY_KPASTERISK", "KEY_ENTER", "KEY_BACKSPACE", "KEY_KPSLASH", "KEY_KPMINUS",
                                    "KEY_KPPLUS", "KEY_NUMLOCK", "KEY_A")])
    devices = [first, None, second]
    opened: list[str] = []

    def open_device(spec: str) -> Any:
        opened.append(spec)
        device = devices.pop(0) if devices else None
        if device is None:
            raise evkeys.KeypadProblem("no numeric keypad is plugged in")
        return device

    keys: list[str] = []
    closed = threading.Event()
    reader = evkeys.KeyReader("auto", keys.append, closed, open_device=open_device)
    old_retry, evkeys.RETRY_S = evkeys.RETRY_S, 0.05
    thread = threading.Thread(target=reader.run, daemon=True)
    try:
        thread.start()
        wait_for(reader.grabbed.is_set, "the keypad was never grabbed")
        first.send()
        wait_for(lambda: len(keys) == 5, f"keys read: {keys}")
        assert keys == ["1", "2", ".", "5", "\n"]  # key-downs only: no repeat, no release, whatever NumLock says
        first.send()  # pulled out: ENODEV
        wait_for(lambda: second.grabs == 1, "the keypad plugged in again was never taken")
        second.send()
        wait_for(lambda: len(keys) == 11, f"keys read: {keys}")
        assert keys[5:] == ["*", "\n", "\x7f", "/", "-", "+"]  # NumLock and letters mean nothing
        assert first.grabs == 1 and opened == ["auto", "auto", "auto"]  # looked for again while it was out
    finally:
        closed.set()
        evkeys.RETRY_S = old_retry
        thread.join(5)
    assert not thread.is_alive()  # closing the ear ends the reader


def test_without_an_input_layer_the_keypad_is_an_input_that_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evkeys, "available", lambda: False)
    ear = KeypadEar(device="/dev/input/event99")
    assert ear.listen(KILL, 12, timeout_s=10) is None and ear.closed.is_set()  # as a terminal's end of file


@pytest.mark.skipif(not UINPUT.exists(), reason=NO_UINPUT)
def test_a_virtual_keypad_answers_a_prompt_and_a_keyboard_is_never_taken_by_auto() -> None:
    pad_keys = [getattr(ecodes, f"KEY_KP{d}") for d in range(10)] + [
        ecodes.KEY_KPENTER, ecodes.KEY_KPDOT, ecodes.KEY_KPASTERISK, ecodes.KEY_KPPLUS, ecodes.KEY_KPMINUS,
        ecodes.KEY_KPSLASH, ecodes.KEY_BACKSPACE, ecodes.KEY_NUMLOCK]
    board_keys = [getattr(ecodes, f"KEY_{c}") for c in "QWERTYASDFZX1234567890"] + [ecodes.KEY_ENTER]
    with evdev.UInput({ecodes.EV_KEY: board_keys}, name="narrator-test keyboard") as board, \
            evdev.UInput({ecodes.EV_KEY: pad_keys}, name="narrator-test keypad") as pad:
        time.sleep(0.5)  # udev makes the nodes
        found = {d.name: d for d in evkeys.keypads()}
        assert found["narrator-test keypad"].numeric and not found["narrator-test keyboard"].numeric
        assert "narrator-test keypad" in evkeys.check("narrator-test keypad")
        ear = KeypadEar(device="narrator-test keypad")
        try:
            wait_for(lambda: ear.reader is not None and ear.reader.grabbed.is_set(), "never grabbed")
            for code in (ecodes.KEY_KP7, ecodes.KEY_KPENTER):
                pad.write(ecodes.EV_KEY, code, 1)
                pad.write(ecodes.EV_KEY, code, 0)
                pad.syn()
            heard = ear.listen(KILL, 12, timeout_s=10)
            assert heard is not None and heard.text == "7号" and heard.source == "keypad"
        finally:
            ear.close()
        del board
