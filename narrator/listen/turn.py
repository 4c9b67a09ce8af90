"""End of turn by meaning as well as by silence.

The endpointer (narrator/listen/vad.py) ends an utterance after `EndpointConfig.trailing_s` of silence: long
enough for a host who pauses between seats. But when what the recogniser has read so far (its final
readings of the utterance up to the short silence: `VoiceEar`) is already a whole, legal answer to the
prompt — 开始, 救, 法官，过, the one seat asked for, the wolves' four seats, a control word — nothing the host
could add would make it another answer, and the turn ends after the much shorter `EndpointConfig.complete_s`.
An incomplete reading (two seats of four, a bare number that may be the start of 十一号, a phrase of the
lobby that a longer one begins with, a vote record that may go on, 规则 without its topic, anything with a
word the grammar does not hold) keeps the long silence. A whole answer whose last word is no start of a
longer word of the prompt (`closed`: 세븐, 개시 — not 여섯 of 여섯째, 오 of 오호, 十 of 十二) ends after the
still shorter `complete_closed_s`; several seats end that early only when every reading agrees (`settled`),
else after `complete_many_s` (`Turn.silence` says which).
Measured through the room: docs/benchmarks.md, "End of turn by meaning".

`Turn` is built per prompt by the voice ear (`VoiceEar.begin`) from the prompt's own grammar.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from narrator.engine.answers import Ballots, Cards, Seats, VoteResult
from narrator.engine.prompts import Prompt
from narrator.hostwords import Ambiguous, NotUnderstood, parse
from narrator.listen.grammar import CONTROLS, START, START_CONTROLS, UNK, Grammar
from narrator.listen.recognizer import PAUSE
from narrator.listen.vad import EndpointConfig

GROWING = (Ballots, VoteResult, Cards)
"""Answers that may go on after any complete part ("一号二号投三号" … "四号投五号"): never ended early."""


class Turn:
    """Whether a partial reading is already a complete legal answer to one prompt."""

    def __init__(self, grammar: Grammar, prompt: Prompt, max_seat: int) -> None:
        self.grammar = grammar
        self.prompt = prompt
        self.max_seat = max_seat
        phrases = grammar.phrases_for(prompt, max_seat)
        self.prefixes = proper_prefixes(phrases)
        self.stems = stems(phrases)
        """Words of this prompt that begin a longer one (여섯 of 여섯째): a reading ending in one is not `closed`."""
        controls = START_CONTROLS if prompt is START else CONTROLS
        self.controls = frozenset(controls)
        self.many = Seats in prompt.accepts and prompt.max_seats > 1
        """Its answer has several seats: the host pauses between them (the longer short silence)."""

    def complete(self, reading: str) -> bool:
        """True when `reading` (the recogniser's words so far) is a whole legal answer here."""
        return self.whole(reading) is not None

    def whole(self, reading: str) -> str | None:
        """The host words `reading` says when it is a whole legal answer here (spaces dropped), else None."""
        tokens = [t for t in reading.split() if t != PAUSE]
        if not tokens or self._open(tokens):
            return None
        words = self.grammar.command(reading, self.prompt, self.max_seat)
        if words is None or not words or not self.means_whole(words):
            return None
        return "".join(words.split())

    def closed(self, reading: str) -> bool:
        """A whole legal answer whose last word no longer word of this prompt begins with: no syllable the
        host may still be saying could make it another word ("여섯" may be 여섯째 still being said, "十" 十二)."""
        tokens = [t for t in reading.split() if t != PAUSE]
        return bool(tokens) and tokens[-1] not in self.stems and self.complete(reading)

    def silence(self, readings: Sequence[tuple[str, float]], cfg: EndpointConfig) -> float | None:
        """s of short silence after which the utterance read as `readings` (the N-best, best first) ends; None
        when it is no whole answer (the long silence ends it). `complete_closed_s` for a `closed` answer,
        `complete_s` for one whose last word may grow; where several seats are asked those only when every
        reading agrees (`settled`), else `complete_many_s`."""
        if not readings or not self.complete(readings[0][0]):
            return None
        if self.many and not self.settled(readings):
            return cfg.complete_many_s
        return cfg.complete_closed_s if self.closed(readings[0][0]) else cfg.complete_s

    def settled(self, readings: Sequence[tuple[str, float]]) -> bool:
        """Every reading the recogniser gives (its N-best) is the same whole answer: none that stops short or
        says other seats. Where several seats are asked the turn ends at the first short silence only then
        (a misread seat can make four of three said, the fourth still to come)."""
        said = {self.whole(text) for text, _ in readings}
        return bool(said) and None not in said and len(said) == 1

    def _open(self, tokens: list[str]) -> bool:
        """The reading ends in the middle of something: a word the grammar does not hold ([unk], filler, a
        raw piece no host word maps back to), or tokens that begin a longer phrase ("열" of "열 하나")."""
        last = tokens[-1]
        if last == UNK or last in self.grammar.pack.filler:
            return True
        return any(tuple(tokens[i:]) in self.prefixes for i in range(len(tokens)))

    def means_whole(self, words: str) -> bool:
        """Host words that are a whole answer here: a control, a start word, one of the prompt's own words
        (the lobby), or an answer the host could not extend."""
        pack = self.grammar.pack
        flat = "".join(words.split())
        if pack.control(flat) in self.controls:
            return True
        prompt = self.prompt
        if prompt is START:
            return flat in ("".join(w.split()) for w in pack.start)
        own = prompt.info.get("words")
        if own is not None:
            return flat in ("".join(w.split()) for w in own)
        try:
            answer = parse(words, prompt.accepts)
        except (NotUnderstood, Ambiguous):
            return False
        if type(answer) not in prompt.accepts or isinstance(answer, GROWING):
            return False
        if isinstance(answer, Seats):
            return whole_seats(answer.seats, prompt)
        return True


def whole_seats(seats: tuple[int, ...], prompt: Prompt) -> bool:
    """All the seats the prompt asks for, each once and selectable; or nobody where nobody is legal."""
    if not seats:
        return prompt.min_seats == 0
    if len(set(seats)) != len(seats) or len(seats) != prompt.max_seats:
        return False
    return not prompt.seats or all(s in prompt.seats for s in seats)


def proper_prefixes(phrases: Iterable[str]) -> frozenset[tuple[str, ...]]:
    """Every proper beginning (in words) of every phrase, a whole phrase too when a longer one begins with it
    ("七" of "七 号", "十" of "十 一 号", the lobby's 预女猎 of 预女猎白)."""
    whole = {tuple(p.split()) for p in phrases}
    return frozenset(words[:i] for words in whole for i in range(1, len(words)))



def stems(phrases: Iterable[str]) -> frozenset[str]:
    """Every word of `phrases` that a longer word of them begins with (여섯 of 여섯째, 오 of 오호, 十 of 十二)."""
    words = {w for p in phrases for w in p.split()}
    return frozenset(w for w in words if any(len(u) > len(w) and u.startswith(w) for u in words))
