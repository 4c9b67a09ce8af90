"""The voice ear: audio → endpointer (VAD) → Vosk with the prompt's grammar → Heard.

Audio arrives from a source (the microphone, a WAV file, a test) through `feed(samples, t)`. Never
hearing itself: the ear follows what the device is playing (`follow(playing)`: the Mixer's
`voiced_until()`, every line and cue from any caller until its last sample has left the device, but the
speech timer's "还剩十五秒。" and the table's "请稍等。", said while the host may be talking:
mixer.LISTENED_THROUGH, below); frames captured before that plus `tail_s` (the room's echo) are discarded,
and the endpointer and the recogniser are reset once it has passed, so nothing the judge said can start or
finish an utterance. Audio heard before the first question is discarded too (there is no grammar to hear it
with). Only utterances that started after the prompt began listening count (an older one was decoded with
another prompt's grammar).

End of turn by meaning (narrator/listen/turn.py): once the host has been silent for the endpointer's short
`complete_closed_s` (counted in frames under `complete_off`), the recogniser gives its readings of the
utterance so far (`Recognizer.peek`); when the best one is already a whole legal answer to the prompt whose
last word begins no longer word the utterance ends there, instead of after the long `trailing_s`; one whose
last word may grow (여섯 of 여섯째) after `complete_s`. Where several seats are asked it ends that early only
when every reading is that same answer, else it is asked again after `complete_many_s`. When it is not, the
utterance goes on.

An utterance over a line the ear listens through (mixer.LISTENED_THROUGH) in which nothing was heard is decoded
again from the microphone's audio minus what the table played (narrator/listen/unmix.py), when the device knows
it (`follow` a `Replaying` port: the Mixer). Where people talk (a speech: the timer's cue) a command needs the
judge's name, which the judge's own words never hold, so the ear listens through the cue whole. Elsewhere (the
table's 请稍等, said on a clock of its own while the host may be answering a night step) the judge's words could
pass for an answer — the Korean stand-in reads 请稍等 alone as 좋아요 (是) or as seats, even 25 dB down with the
table taken out, and an answer heard through it gains the line's words (一号 四号 继续 没有) — so there the ear is
deaf to such a line (`cut_in`), but an utterance under way when it begins is not dropped as at other lines: it
ends there and is read as far as it went (the read-back or "还差一个" mends a seat cut short).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TypedDict

import numpy as np

from narrator.engine.prompts import Prompt
from narrator.listen.base import Context, Heard, Playing, QueueEar, Replaying, Source
from narrator.listen.grammar import UNK, WAKE_KINDS, Grammar
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer
from narrator.listen.turn import Turn
from narrator.listen.unmix import MARGIN_S, MicHistory, subtract
from narrator.listen.vad import Endpointer

ECHO_TAIL_S = 0.35
"""s. Default echo tail after the judge's last sample (a living room's reverberation, plus output latency)."""


class VoiceOptions(TypedDict, total=False):
    """VoiceEar's keyword options, as an ear built on it passes them on (MicEar, FileEar)."""

    tail_s: float
    clock: Callable[[], float]


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
        self._asked = 0
        """How many of the short silences' marks the recogniser was asked at in this silence already."""
        self._wait = 0.0
        """s of short silence the last reading asked needed (`Turn.silence`): no asking again before it."""
        self._turn: Turn | None = None
        self._feed_lock = threading.Lock()
        self.on_end: Callable[[float], None] | None = None
        """Called with the end-of-speech time as soon as the VAD decides (for latency measurements)."""
        self._kept: list[np.ndarray] | None = None
        self._utt_audio: list[np.ndarray] = []
        self._mic = MicHistory(rate=SAMPLE_RATE)
        """The last seconds of audio fed: an utterance over the cue is decoded again from it (`_unmixed`)."""

    def begin(self, context: Context) -> None:
        """Listen for this prompt. Asked again for the same prompt (a loop polling in short slices), the
        utterance in progress goes on; a new prompt switches the grammar and drops it."""
        current = self.context
        if current is not None and current.prompt is context.prompt and current.max_seat == context.max_seat:
            return
        self.recognizer.set_grammar(self.grammar.json_for(context.prompt, context.max_seat))
        turn = Turn(self.grammar, context.prompt, context.max_seat)
        with self._feed_lock:
            self._turn = turn
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

    def keep(self, into: list[np.ndarray] | None) -> None:
        """Append each utterance's audio (16 kHz, the endpointer's pre-roll included) to `into` when it ends,
        whatever it was read as — a calibration hears them again with other grammars
        (narrator/listen/calibrate.py); None stops."""
        with self._feed_lock:
            self._kept, self._utt_audio = into, []

    def held(self, t: float) -> bool:
        """True when audio captured until `t` (the ear's clock) may hold the judge's voice or its echo."""
        playing = self.playing
        return playing is not None and t < playing.voiced_until() + self.tail_s

    def cut_in(self, start: float, end: float) -> bool:
        """True when a line `voiced_until` leaves out (mixer.LISTENED_THROUGH: 请稍等) is out of the device, or its
        echo, between `start` and `end` (the ear's clock) at a prompt whose answer needs no name: there the ear is
        deaf to it (read as the host's, 请稍等 alone passes for 是 or seats), and an utterance under way when it
        begins ends there and is read as far as it went. At a speech the ear listens through such a line."""
        playing, ctx = self.playing, self.context
        return isinstance(playing, Replaying) and ctx is not None and ctx.prompt.kind not in WAKE_KINDS and \
            playing.through_between(start - self.tail_s, end)

    def feed(self, samples: np.ndarray, t: float) -> None:
        """Samples at 16 kHz whose first one was captured at `t` (the ear's clock)."""
        with self._feed_lock:
            end_t = t + len(samples) / SAMPLE_RATE
            self._mic.add(samples, t)
            if self.context is None:  # before the first question: nothing to hear it with
                return
            cut = self.cut_in(t, end_t)
            if cut and self._utt_start is not None:
                for event in self.endpointer.cut():  # 请稍等 began while he spoke: his words so far are read
                    self._end(event.t)
            if cut or self.held(end_t):
                self._held = True
                return
            if self._held:  # the judge has finished and its echo died away: start afresh
                self._held = False
                self._utt_start = None
                self.endpointer.reset(t)
                self.recognizer.reset()
            frame = self.endpointer.frame
            for i in range(0, len(samples), frame):  # frame by frame: the recogniser is fed before each check
                for event in self.endpointer.feed(samples[i : i + frame], t + i / SAMPLE_RATE):
                    self._event(event.kind, event.t, event.audio)
                self._end_if_complete()

    def _end_if_complete(self) -> None:
        """At each short silence in an utterance (frames under `complete_off`: `complete_closed_s`,
        `complete_s`, and `complete_many_s` where several seats are asked), end the utterance now if its
        reading needs no more silence than this (`Turn.silence`, narrator/listen/turn.py: a closed whole
        answer the least, several seats the most unless every reading agrees). The recogniser is asked once
        per mark, and not before the silence its last reading needed."""
        ep, turn, cfg = self.endpointer, self._turn, self.endpointer.cfg
        still = ep.still_s
        marks = {cfg.complete_closed_s, cfg.complete_s} | ({cfg.complete_many_s} if turn is not None and turn.many
                                                           else set())
        stage = sum(still >= mark - 1e-9 for mark in marks)
        if not stage:
            self._asked, self._wait = 0, 0.0
            return
        if turn is None or self._utt_start is None or not ep.speaking:
            return
        if ep.speech_s > cfg.complete_within_s:  # talk, not an answer: the long silence ends it
            return
        if self._asked >= stage or still < self._wait - 1e-9:
            return
        self._asked = stage
        readings = self.recognizer.peek()
        need = turn.silence(readings, cfg)
        if need is not None and still >= need - 1e-9:
            for event in ep.cut():  # the recogniser's final readings are the ones just peeked at
                self._end(event.t)
        else:
            self._wait = need or 0.0

    def flush(self) -> None:
        with self._feed_lock:
            for event in self.endpointer.flush():
                self._event(event.kind, event.t, event.audio)

    def _event(self, kind: str, t: float, audio: np.ndarray | None) -> None:
        if kind == "start":
            self.recognizer.reset()
            self._utt_start = t
            self._asked, self._wait = 0, 0.0
            self._utt_audio = []
        if audio is not None and self._utt_start is not None:
            self.recognizer.accept(audio)
            if self._kept is not None:
                self._utt_audio.append(audio)
        if kind == "end" and self._utt_start is not None:
            self._end(t)

    def _end(self, t: float) -> None:
        """The utterance ended at `t`: decode it and post what it says."""
        if self.on_end is not None:
            self.on_end(t)
        start, self._utt_start = self._utt_start, None
        if start is None:
            return
        if self._kept is not None and self._utt_audio:
            self._kept.append(np.concatenate(self._utt_audio))
            self._utt_audio = []
        heard = self.decode(start, t)
        if heard is None and (unmixed := self._unmixed(start, t)) is not None:
            self.recognizer.reset()  # heard over the cue, and nothing in it: again without the cue
            self.recognizer.accept(unmixed)
            heard = self.decode(start, t)
        if heard is not None and self.context is not None:
            self.post(heard)

    def _unmixed(self, start: float, end: float) -> np.ndarray | None:
        """The utterance's audio minus what the table played, when it overlapped a sound the ear listens
        through and the device knows what it played (narrator/listen/unmix.py); else None."""
        playing = self.playing
        if not isinstance(playing, Replaying):
            return None
        start -= self.endpointer.cfg.preroll_s  # the recogniser heard the pre-roll too
        table = playing.heard_through(start - MARGIN_S, end + MARGIN_S, SAMPLE_RATE)
        mic = None if table is None else self._mic.between(start, end)
        return None if table is None or mic is None else subtract(mic, table, SAMPLE_RATE)

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
