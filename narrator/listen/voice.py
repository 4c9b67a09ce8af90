"""The voice ear: audio → endpointer (VAD) → Vosk with the prompt's grammar → Heard.

Audio arrives from a source (the microphone, a WAV file, a test) through `feed(samples, t)`. Never
hearing itself: the ear follows what the device is playing (`follow(playing)`: the Mixer's
`voiced_until()`, every line and cue from any caller until its last sample has left the device); frames
captured before that plus `tail_s` (the room's echo) are discarded, and the endpointer and the recogniser
are reset once it has passed, so nothing the judge said can start or finish an utterance. Audio heard
before the first question is discarded too (there is no grammar to hear it with). Only utterances that
started after the prompt began listening count (an older one was decoded with another prompt's grammar).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import numpy as np

from narrator.engine.prompts import Prompt
from narrator.listen.base import Context, Heard, Playing, QueueEar, Source
from narrator.listen.grammar import UNK, WAKE_KINDS, Grammar
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer
from narrator.listen.vad import Endpointer

ECHO_TAIL_S = 0.35
"""s. Default echo tail after the judge's last sample (a living room's reverberation, plus output latency)."""


class VoiceEar(QueueEar):
    source: Source = "voice"

    def __init__(self, recognizer: Recognizer, grammar: Grammar, endpointer: Endpointer, *,
                 tail_s: float = ECHO_TAIL_S, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.recognizer = recognizer
        self.grammar = grammar
        self.endpointer = endpointer
        self.tail_s = tail_s
        self.clock = clock
        self.playing: Playing | None = None
        self._held = False
        self._utt_start: float | None = None
        self._feed_lock = threading.Lock()
        self.on_end: Callable[[float], None] | None = None
        """Called with the end-of-speech time as soon as the VAD decides (for latency measurements)."""

    def begin(self, context: Context) -> None:
        """Listen for this prompt. Asked again for the same prompt (a loop polling in short slices), the
        utterance in progress goes on; a new prompt switches the grammar and drops it."""
        current = self.context
        if current is not None and current.prompt is context.prompt and current.max_seat == context.max_seat:
            return
        self.recognizer.set_grammar(self.grammar.json_for(context.prompt, context.max_seat))
        with self._feed_lock:
            self._utt_start = None
            self.endpointer.reset(self.endpointer._t)
            self.context = context

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        """Every prompt's phrases are words of the model (VocabularyError names the first that is not)."""
        for prompt in prompts:
            self.grammar.phrases_for(prompt, max_seat)

    def follow(self, playing: Playing | None) -> None:
        """Be deaf while `playing` plays the judge's voice, and for the echo tail after it."""
        self.playing = playing

    def held(self, t: float) -> bool:
        """True when audio captured until `t` (the ear's clock) may hold the judge's voice or its echo."""
        playing = self.playing
        return playing is not None and t < playing.voiced_until() + self.tail_s

    def feed(self, samples: np.ndarray, t: float) -> None:
        """Samples at 16 kHz whose first one was captured at `t` (the ear's clock)."""
        with self._feed_lock:
            end_t = t + len(samples) / SAMPLE_RATE
            if self.context is None:  # before the first question: nothing to hear it with
                return
            if self.held(end_t):
                self._held = True
                return
            if self._held:  # the judge has finished and its echo died away: start afresh
                self._held = False
                self._utt_start = None
                self.endpointer.reset(t)
                self.recognizer.reset()
            for event in self.endpointer.feed(samples, t):
                self._event(event.kind, event.t, event.audio)

    def flush(self) -> None:
        with self._feed_lock:
            for event in self.endpointer.flush():
                self._event(event.kind, event.t, event.audio)

    def _event(self, kind: str, t: float, audio: np.ndarray | None) -> None:
        if kind == "start":
            self.recognizer.reset()
            self._utt_start = t
        if audio is not None and self._utt_start is not None:
            self.recognizer.accept(audio)
        if kind == "end" and self._utt_start is not None:
            if self.on_end is not None:
                self.on_end(t)
            start, self._utt_start = self._utt_start, None
            heard = self.decode(start, t)
            ctx = self.context
            if heard is not None and ctx is not None:
                self.post(heard)

    def decode(self, start: float, end: float) -> Heard | None:
        """The recogniser's readings as host words; None when nothing was heard ([unk] or empty). Where
        people talk (a speech) only readings that are a command with the judge's name count, without it
        (`Grammar.command`) — and only when the best reading is one: a player's sentence whose best reading
        is "九号 三号 过" is his, even if a weaker reading is "法官 过"."""
        alternatives = []
        ctx = self.context
        for rank, (text, score) in enumerate(self.recognizer.final()):
            if ctx is None:
                words: str | None = self.grammar.host_words(text)
            else:
                words = self.grammar.command(text, ctx.prompt, ctx.max_seat)
            if words is None:
                if rank == 0 and ctx is not None and ctx.prompt.kind in WAKE_KINDS:
                    return None  # the best reading was not said to the judge
                continue  # a player's own words, not said to the judge
            raw_unk = UNK in text.split()
            alternatives.append((words + (" " + UNK if raw_unk and words else ""), score))
        if not alternatives:
            return None
        best = alternatives[0][0].replace(UNK, "").strip()
        if not best:
            return None
        return Heard(best, tuple(alternatives), self.source, start, end)
