"""Typed answers: each line of a text stream (the console, a pipe) is one answer, heard as typed.

Input stays bytes until it is decoded once, line by line, as UTF-8 whatever the locale: a byte that is no
UTF-8 becomes U+FFFD (the parser refuses such a line: "看不懂这一行") and nothing else of the input is lost.
A line longer than the parser reads is kept only that long (it is refused as too long)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TextIO

from narrator.hostwords import MAX_CHARS
from narrator.listen.base import Context, Heard, QueueEar


def typed_lines(stream: TextIO) -> Iterable[str]:
    """The stream's lines, decoded once from its bytes (when it has them) with bad bytes as U+FFFD, each
    cut just past what the parser reads."""
    raw = getattr(stream, "buffer", None)
    for line in raw if raw is not None else stream:
        text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
        yield text[: MAX_CHARS + 1]


class TextEar(QueueEar):
    """Reads lines on a thread; a line typed before a prompt is kept for it (typing ahead is fine)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._pending: list[Heard] = []
        self._plock = threading.Lock()
        self._eof_pending = False
        self._thread = threading.Thread(target=self._run, name="narrator-text", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for raw in typed_lines(self.stream):
            text = raw.strip()
            if text:
                with self._plock:
                    heard = Heard(text, source="text")
                    if self.context is None:
                        self._pending.append(heard)
                    else:
                        self.post(heard)
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
