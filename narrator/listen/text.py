"""Typed answers: each line of a text stream (the console, a pipe) is one answer, heard as typed.

The stream is read as bytes and each line decoded once, on its own: a byte sequence that is not UTF-8
becomes U+FFFD in that line only (the parser refuses it as unreadable: "看不懂这一行"), and every other
line — the ones before and after it in the same chunk too — is heard as typed, whatever the locale. A line
is kept only up to just past the longest answer the parser reads (`hostwords.MAX_CHARS`); the rest of it
is skipped unread, so a runaway line costs no time and is refused as too long. A terminal's control
sequences in a line (a pasted clear-screen or colour, an arrow key) are taken out: they are never heard, and
never echoed to the host's screen.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Iterator
from typing import BinaryIO, Protocol, TextIO, runtime_checkable

from narrator.hostwords import MAX_CHARS
from narrator.listen.base import Context, Heard, QueueEar

LINE_BYTES = 4 * (MAX_CHARS + 2)
"""Bytes kept of one line: more than MAX_CHARS characters of up to four bytes each, even when the last
character was cut in two."""


CONTROL = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])?"
                     r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""A terminal's control sequences (CSI such as a clear screen, a colour or an arrow key; OSC; two-byte
escapes) and the other control and direction characters: never part of an answer, never shown."""


def without_controls(text: str) -> str:
    """`text` as typed, less its control sequences and characters (a tab counts as a space): what the
    console shows of what the host typed and what is read as his answer."""
    return CONTROL.sub("", text.replace("\t", " "))


Typed = TextIO | BinaryIO | Iterable[str]
"""Where typed text comes from: a text or byte stream (sys.stdin, a pipe, a file), or any iterable of lines
(the console's TypedLine)."""


@runtime_checkable
class ReadsLines(Protocol):
    def readline(self, size: int = -1, /) -> str | bytes: ...


@runtime_checkable
class Buffered(Protocol):
    """A text stream over a byte stream (sys.stdin and its .buffer)."""

    @property
    def buffer(self) -> object: ...


@runtime_checkable
class SaysTyped(Protocol):
    """A line source that says whether a person types it as the game goes (the console's TypedLine)."""

    @property
    def interactive(self) -> bool: ...


@runtime_checkable
class MayBeATerminal(Protocol):
    def isatty(self) -> bool: ...


def _ends_line(raw: str | bytes) -> bool:
    return raw.endswith(b"\n") if isinstance(raw, bytes) else raw.endswith("\n")


def lines(stream: Typed) -> Iterator[str]:
    """Each line of `stream`, stripped, decoded on its own (errors replaced), cut to MAX_CHARS + 1.

    A text stream is read through its byte buffer (sys.stdin.buffer) when it has one, so that no locale
    decodes it first; a plain text stream (io.StringIO) is read as it is, and so is any other iterable of
    lines (the console's TypedLine, which decodes the keys as they come)."""
    under = stream.buffer if isinstance(stream, Buffered) else None
    source = under if isinstance(under, ReadsLines) else stream
    if not isinstance(source, ReadsLines):  # a line source of its own (the console's TypedLine): its lines
        for item in source:
            text = item.decode("utf-8", errors="replace") if isinstance(item, bytes) else item
            yield without_controls(text).strip()[: MAX_CHARS + 1]
        return
    while True:
        raw = source.readline(LINE_BYTES)
        if not raw:
            return
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        if len(raw) == LINE_BYTES and not _ends_line(raw):  # cut short: skip the rest unread
            while (more := source.readline(LINE_BYTES)) and not _ends_line(more):
                pass
            text = text.rstrip("\ufffd")  # a character cut in two is not unreadable input
        yield without_controls(text).strip()[: MAX_CHARS + 1]


def typed_at_a_terminal(stream: object) -> bool:
    """True for a terminal (or a line source that says it is typed: `interactive`), False for a pipe or file."""
    if isinstance(stream, SaysTyped):
        return bool(stream.interactive)
    try:
        return bool(stream.isatty()) if isinstance(stream, MayBeATerminal) else False
    except (OSError, ValueError):  # closed
        return False


class TextEar(QueueEar):
    """Reads lines on a thread; a line piped before a prompt is kept for it (a whole game can be piped in).
    A line typed at a terminal (the stream is one, or says `interactive`: the host's console) carries the
    time it was typed (`Heard.end_s`, time.monotonic): the loop drops lines typed before its question was
    asked, with one note (narrator/play/ears.py)."""

    def __init__(self, stream: TextIO | BinaryIO | Iterable[str]) -> None:
        super().__init__()
        self.stream = stream
        self.interactive = typed_at_a_terminal(stream)
        self._pending: list[Heard] = []
        self._plock = threading.Lock()
        self._eof_pending = False
        self._thread = threading.Thread(target=self._run, name="narrator-text", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for text in lines(self.stream):
                if text:
                    with self._plock:
                        typed = time.monotonic() if self.interactive else None
                        heard = Heard(text, source="text", start_s=typed, end_s=typed)
                        if self.context is None:
                            self._pending.append(heard)
                        else:
                            self.post(heard)
        except (OSError, ValueError):  # the stream was closed under us: the same as its end
            pass
        with self._plock:
            if self.context is None:
                self._eof_pending = True
            else:
                self.end()

    def begin(self, context: Context) -> None:
        with self._plock:
            self.context = context
            for heard in self._pending:
                self.post(heard)
            self._pending.clear()
            if self._eof_pending:
                self.end()
