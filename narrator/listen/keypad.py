"""A silent channel: a keyboard or USB numeric keypad answers every prompt (and works at any time).

KEYPAD_HELP below is the map, printed in `--help` and the README. Keys become the host's words for the
prompt being asked, then go through the same parser as speech; a key that means nothing is ignored.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

from narrator.engine.answers import Ballots, Pass, Seats, VoteResult, YesNo
from narrator.engine.prompts import Prompt
from narrator.listen.base import Context, Heard, QueueEar

if TYPE_CHECKING:
    from narrator.listen.evkeys import KeyReader

KEYPAD_HELP = """\
Keypad (a keyboard or USB numeric keypad; end each answer with Enter):
  7 Enter        seat 7;  3.5 Enter (or 3 5): seats 3 and 5
  0 Enter        no / nobody ("不救", "没有", "空刀"; "平安日" at a vote)
  * Enter        yes / done ("救", "过"); "确认" to a read-back "…对吗？"
  1.2.5+7 Enter  votes: 1, 2, 5 vote for 7 (+ is "投"; 1.2+7.3.4+5 two groups)
  7 Enter        at a vote: 7 is out;  3.5 Enter at a vote: 3 and 5 tie
  /              say the last line again ("重复")
  -              pause / go on ("暂停" / "继续")
  Backspace      rub out a key; on an empty line: take back an answer ("撤销")"""

ENTER = {"\r", "\n"}
DIGIT_KEYS = frozenset("0123456789")
"""Only these are digits: other bytes a keyboard or a pipe may send ("²" is a digit to str.isdigit) are ignored."""
MAX_KEYS = 64
"""Keys kept of one answer (18 voters and a target, separated, is about 45); more are ignored."""
BACKSPACE = {"\x7f", "\x08"}
SEPARATORS = {".", " ", ","}


def keys_to_words(keys: str, prompt: Prompt) -> str:
    """The host's words for a line typed on the keypad at this prompt ("" when it means nothing)."""
    keys = keys.strip()
    if not keys:
        return ""
    own = prompt.info.get("keys")
    if own is not None:  # the lobby of `narrator serve` numbers its choices: "1" is the first one said
        return str(own.get(keys, "确认" if keys == "*" else ""))
    accepts = prompt.accepts
    if keys == "*":
        if YesNo in accepts:
            return "是"
        if Pass in accepts:
            return "过"
        return "确认"
    if keys == "0":
        if YesNo in accepts:
            return "不是"
        if VoteResult in accepts:
            return "平安日"
        return "没有"
    if "+" in keys and Ballots in accepts:
        return _ballots(keys)
    groups = _numbers(keys)
    if not groups:
        return ""
    seats = " ".join(f"{n}号" for n in groups)
    if Seats not in accepts and VoteResult in accepts:
        return seats + (" 出局" if len(groups) == 1 else " 平票")
    return seats


def _numbers(keys: str) -> list[str]:
    out: list[str] = []
    current = ""
    for k in keys:
        if k in DIGIT_KEYS:
            current += k
        elif k in SEPARATORS:
            if current:
                out.append(current)
            current = ""
        else:
            return []
    return [*out, current] if current else out


def _ballots(keys: str) -> str:
    """"1.2.5+7.3.4+5" → "1 2 5 投 7 3 4 投 5": after +, the first number is the target."""
    words: list[str] = []
    for i, part in enumerate(keys.split("+")):
        nums = _numbers(part)
        if i == 0:
            words += nums
        else:
            if not nums:
                return ""
            words += ["投", nums[0] + "号", *nums[1:]]
    return " ".join(words)


class KeypadEar(QueueEar):
    """Reads keys on a thread: from a byte stream, the terminal in cbreak mode (the default), or a USB keypad
    through the Linux input layer (`device`: "auto", a path or part of a name; narrator/listen/evkeys.py).
    "auto" is the terminal when there is one, else the first numeric keypad plugged in."""

    def __init__(self, stream: BinaryIO | None = None, raw_terminal: bool = True, device: str | None = None) -> None:
        super().__init__()
        self.stream = stream
        self.raw_terminal = raw_terminal and stream is None
        if device in ("", "terminal") or stream is not None or (device == "auto" and sys.stdin.isatty()):
            device = None
        self.device = device
        self.reader: KeyReader | None = None
        self.buffer = ""
        self.on_keys: Callable[[str], None] | None = None
        """Told the keys pressed since the last Enter after each key (the host's console shows them)."""
        self.paused = False
        self._pending: list[str] = []
        self._plock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="narrator-keypad", daemon=True)
        self._thread.start()

    def key(self, k: str) -> None:
        """One key press (also for tests and for a console that reads keys itself)."""
        with self._plock:
            if k in ENTER:
                line, self.buffer = self.buffer, ""
                if line.strip():
                    self._line(line)
            elif k in BACKSPACE:
                if self.buffer:
                    self.buffer = self.buffer[:-1]
                else:
                    self._word("撤销")
            elif k == "/":
                self._word("重复")
            elif k == "-":
                self._word("继续" if self.paused else "暂停")
                self.paused = not self.paused
            elif (k in DIGIT_KEYS or k in SEPARATORS or k in "*+") and len(self.buffer) < MAX_KEYS:
                self.buffer += k
            shown = self.on_keys
        if shown is not None:
            shown(self.buffer)

    def _line(self, line: str) -> None:
        if self.context is None:
            self._pending.append(line)
            return
        words = keys_to_words(line, self.context.prompt)
        if words:
            self.post(self._heard(words))

    def _word(self, word: str) -> None:
        if self.context is None:
            self._pending.append("\0" + word)
            return
        self.post(self._heard(word))

    def _heard(self, words: str) -> Heard:
        """Keys from the terminal carry the time they were pressed (as typed lines do: narrator/play/ears.py
        drops those from before the question); keys from a given stream (a pipe, a test) do not."""
        typed = time.monotonic() if self.stream is None else None
        return Heard(words, source="keypad", start_s=typed, end_s=typed)

    def _eof(self) -> None:
        with self._plock:
            if self.context is None:
                self._pending.append("\0\0")
            else:
                self.end()

    def begin(self, context: Context) -> None:
        """Keys pressed before the first prompt answer it, in the order pressed."""
        with self._plock:
            self.context = context
            pending, self._pending = self._pending, []
            for item in pending:
                if item == "\0\0":
                    self.end()
                elif item.startswith("\0"):
                    self._word(item[1:])
                else:
                    self._line(item)

    def _run(self) -> None:
        if self.device is not None:
            from narrator.listen import evkeys

            if not evkeys.available():  # no input layer here (no /dev/input, no evdev): no keypad can come
                evkeys.log.info("keypad: no Linux input layer here (/dev/input, python evdev): no keypad")
                self._eof()
                return
            self.reader = evkeys.KeyReader(self.device, self.key, self.closed)
            self.reader.run()
            return
        if self.stream is not None:
            while chunk := self.stream.read(1):
                self.key(chunk.decode("latin-1"))
            self._eof()
            return
        self._run_terminal()

    def _run_terminal(self) -> None:
        if not sys.stdin.isatty():
            self.end()
            return
        import termios
        import tty

        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            while not self.closed.is_set():
                data = os.read(fd, 1)
                if not data:
                    break
                self.key(data.decode("latin-1"))
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
        self._eof()
