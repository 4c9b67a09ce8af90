"""Typed answers: each line of a text stream (the console, a pipe) is one answer, heard as typed."""

from __future__ import annotations

import threading
from typing import TextIO

from narrator.listen.base import Context, Heard, QueueEar


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
        for raw in self.stream:
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
