"""The live loop's input side, for `--input text`: each line of a text stream (standard input) is one
utterance of the host, so a whole game can be piped in. Lines are read on a background thread, so the loop
keeps checking for Ctrl-C and lost devices while it waits.

`Heard` and the `Ear` protocol are the listening port of CONTRACTS.md."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import IO, Literal, Protocol

from narrator.engine.prompts import Prompt


@dataclass(frozen=True, slots=True)
class Heard:
    text: str
    alternatives: tuple[tuple[str, float], ...] = ()
    source: Literal["voice", "keypad", "text", "file"] = "text"
    start_s: float | None = None
    end_s: float | None = None


class Ear(Protocol):
    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None: ...
    def hold_off(self, until_s: float) -> None: ...
    def close(self) -> None: ...


class InputEnded(EOFError):
    """The text stream ended (the piped game ran out of words)."""


class TextEar:
    """One utterance per line of `stream`; blank lines are skipped. `listen` returns None on timeout and
    raises InputEnded once the stream is exhausted."""

    def __init__(self, stream: IO[str], source: Literal["text", "keypad"] = "text") -> None:
        self.source = source
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._ended = False
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True, name="text-ear")
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        try:
            for raw in stream:
                text = raw.strip()
                if text:
                    self._lines.put(text)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if self._ended:
            raise InputEnded()
        try:
            text = self._lines.get(timeout=timeout_s)
        except queue.Empty:
            return None
        if text is None:
            self._ended = True
            raise InputEnded()
        return Heard(text, source=self.source)

    def hold_off(self, until_s: float) -> None:
        return None  # typed words are never the judge's own voice

    def close(self) -> None:
        return None
