"""Vosk, language-neutral: a model, a per-prompt grammar, and N-best readings with their scores.

vosk 0.3.45 facts designed around: a grammar word missing from the model is dropped silently (so
`Grammar` checks every token with `vosk_model_find_word` first); the grammar is passed as JSON with
ensure_ascii=False; in grammar mode a word's `conf` is nearly always 1.0, so the doubt signal is the
score gap between alternatives (`SetMaxAlternatives`), judged by the dialogue after parsing them. Word
times (`SetWords`) mark the pauses between words in a reading (`PAUSE`).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

SAMPLE_RATE = 16_000
"""Hz: what the small Vosk models are trained on; every input is brought to this rate, mono."""
PAUSE = "<pause>"
"""Written into a reading between two words with `PAUSE_S` or more of silence between them (Vosk's word
times): where people talk the judge's name after a pause begins a new breath, whatever was before it."""
PAUSE_S = 0.3


class ModelError(Exception):
    """The model folder cannot be loaded (one sentence naming the folder and the fix)."""


def load_model(path: Path) -> Any:
    """A vosk.Model from a model folder; ModelError (never a Kaldi crash) when it is not one. Vosk says
    nothing: its log level is off, and what OpenFst writes to the standard error while the model loads
    ("ERROR: Fst::Read: Can't open file …/Gr.fst" for the lean copy, which has no Gr.fst on purpose) is
    dropped."""
    import vosk

    vosk.SetLogLevel(-1)
    if not (path / "am" / "final.mdl").is_file() and not (path / "final.mdl").is_file():
        raise ModelError(f"{path} is not a Vosk model folder (no am/final.mdl): "
                         "run `narrator model install` or pass the right --model folder")
    try:
        with _quiet_stderr():
            return vosk.Model(str(path))
    except Exception as e:  # vosk raises a bare Exception when Kaldi refuses the folder
        raise ModelError(f"the speech model in {path} cannot be loaded ({e}): reinstall it with "
                         "`narrator model install`") from None


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 points at /dev/null meanwhile (native code writes there, not to sys.stderr)."""
    try:
        saved = os.dup(2)
    except OSError:  # no standard error at all
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def knows(model: Any, word: str) -> bool:
    return int(model.vosk_model_find_word(word)) != -1


class Recognizer:
    """One utterance at a time: `accept` audio, then `final()` gives [(text, score)], best first."""

    def __init__(self, model: Any, max_alternatives: int = 5) -> None:
        self.model = model
        self.max_alternatives = max_alternatives
        self._grammar = ""
        self._rec: Any = None
        self._lock = threading.Lock()
        self._cache: dict[str, Any] = {}
        self._heard: list[bytes] = []
        """The utterance's audio so far (after `peek` the decoder is given it again, when more comes)."""
        self._peeked: dict[str, Any] | None = None
        """What `peek` read, while the decoder has not been given the utterance again."""

    def set_grammar(self, grammar_json: str) -> None:
        """Switch to this grammar (kept per grammar: a recogniser is built once per distinct grammar)."""
        import vosk

        with self._lock:
            if grammar_json == self._grammar and self._rec is not None:
                return
            rec = self._cache.get(grammar_json)
            if rec is None:
                rec = vosk.KaldiRecognizer(self.model, SAMPLE_RATE, grammar_json)
                rec.SetMaxAlternatives(self.max_alternatives)
                rec.SetWords(True)  # word times: the pauses between words
                if len(self._cache) > 64:
                    self._cache.clear()
                self._cache[grammar_json] = rec
            else:
                rec.Reset()
            self._grammar, self._rec = grammar_json, rec
            self._heard, self._peeked = [], None

    def accept(self, samples: np.ndarray) -> None:
        """Float samples in [-1, 1] at 16 kHz."""
        pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
        with self._lock:
            if self._rec is None:
                raise RuntimeError("Recognizer.accept before set_grammar")
            if self._peeked is not None:  # the utterance goes on after a peek: the decoder hears it again
                self._peeked = None
                self._rec.AcceptWaveform(b"".join(self._heard))
            self._rec.AcceptWaveform(pcm)
            self._heard.append(pcm)

    def final(self) -> list[tuple[str, float]]:
        """The utterance's readings (text, score), best first; the recogniser is ready for the next. Right
        after `peek`, the readings it gave (nothing decoded again)."""
        with self._lock:
            if self._rec is None:
                return []
            raw = self._peeked if self._peeked is not None else json.loads(self._rec.FinalResult())
            self._heard, self._peeked = [], None
        return readings(raw)

    def peek(self) -> list[tuple[str, float]]:
        """The readings of the utterance so far, as `final` would give them if it ended now; the utterance
        may go on (Vosk's partial result lags the audio by up to half a second, its final result does not:
        the decoder finishes here, and is given the utterance's audio again if more of it comes)."""
        with self._lock:
            if self._rec is None:
                return []
            if self._peeked is None:
                self._peeked = json.loads(self._rec.FinalResult())
            raw = self._peeked
        return readings(raw)

    def reset(self) -> None:
        with self._lock:
            if self._rec is not None:
                self._rec.Reset()
            self._heard, self._peeked = [], None


def readings(raw: dict[str, Any]) -> list[tuple[str, float]]:
    """Vosk's result JSON → [(text, score)]: the N-best list with alternatives, else the single text."""
    if "alternatives" in raw:
        out = [(_paused(a), float(a.get("confidence", 0.0))) for a in raw["alternatives"]]
    else:
        out = [(_paused(raw), 0.0)]
    return [(t, s) for t, s in out]


def _paused(reading: dict[str, Any]) -> str:
    """The reading's text, with PAUSE between words that `PAUSE_S` of silence or more separate."""
    words = reading.get("result")
    if not isinstance(words, list) or not words:
        return str(reading.get("text", "")).strip()
    out: list[str] = []
    for before, word in zip([None, *words], words, strict=False):
        if before is not None and float(word.get("start", 0.0)) - float(before.get("end", 0.0)) >= PAUSE_S:
            out.append(PAUSE)
        out.append(str(word.get("word", "")))
    return " ".join(out)
