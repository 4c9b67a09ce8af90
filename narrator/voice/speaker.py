"""The speaker: a judge's Line rendered piece by piece, each piece cached on its own.

A line with seats in it ("请" + "七号" + "发言。") is assembled from pieces that `narrator voices build`
rendered in advance, so it never needs the network. Punctuation-only pieces ("、", "，") are not spoken:
they become a short silence. Each spoken piece is trimmed of the silence the voice put around it, and
pieces are joined with short, natural gaps. The pause *after* a line is not ours: pacing owns it.
Every piece a voice renders is brought to one loudness with its peaks under −1 dBFS (voice.loudness)
before it is cached, so the edge-tts and espeak-ng voices sound equally loud and never clip.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from narrator.judge.lines import Line
from narrator.voice.base import Audio, MissingPiece, Voice, synthesize_many
from narrator.voice.cache import VoiceCache
from narrator.voice.loudness import normalise, volume_db
from narrator.voice.pcm import silence, trim

log = logging.getLogger(__name__)

_LIST_MARKS = frozenset("、,")
_CLAUSE_MARKS = frozenset("，；：;:")


def is_pause(piece: str) -> bool:
    """A piece of nothing but punctuation and spaces: silence, not speech."""
    return all(unicodedata.category(ch)[0] in "PZ" for ch in piece)


@dataclass(frozen=True, slots=True)
class Gaps:
    """The silences inside a line."""

    between_ms: float = 50.0
    """ms. Between two spoken pieces ("请" | "七号"), so they run on like one phrase."""
    list_ms: float = 150.0
    """ms. For a "、" piece, between the items of a list of seats."""
    clause_ms: float = 250.0
    """ms. For a "，" (or "；", "：") piece."""
    stop_ms: float = 400.0
    """ms. For any other punctuation piece ("。", "！")."""
    trim_margin_ms: float = 20.0
    """ms. Sound kept either side of a spoken piece when its leading and trailing silence is trimmed."""

    def pause_ms(self, piece: str) -> float:
        """ms. The silence a punctuation-only piece stands for."""
        marks = set(piece.strip())
        if not marks:
            return self.between_ms
        if marks <= _LIST_MARKS:
            return self.list_ms
        if marks <= _LIST_MARKS | _CLAUSE_MARKS:
            return self.clause_ms
        return self.stop_ms


class Speaker:
    """Renders lines with `voice` through `cache`.

    offline=True is cache-only: a piece that is not cached raises MissingPiece naming it, and the voice
    (and so the network) is never used.
    """

    def __init__(
        self, voice: Voice, cache: VoiceCache | None = None, *, offline: bool = False, gaps: Gaps | None = None,
        remembered_pieces: int = 512, loudness: bool = True,
    ) -> None:  # fmt: skip
        self.voice = voice
        self.cache = cache
        self.offline = offline
        self.gaps = gaps or Gaps()
        self.loudness = loudness
        """Normalise each rendered piece (voice.loudness): on for every game; off to hear the raw voice."""
        self.remembered_pieces = remembered_pieces
        """How many pieces are also kept in memory (a game repeats seats and phrases all the time)."""
        self.synthesized = 0
        """Pieces this speaker had the voice render (cache misses)."""
        self.cache_hits = 0
        """Pieces this speaker found in the cache."""
        self._memory: dict[tuple[str, str], Audio] = {}
        self._cache_broken = False

    def line(self, line: Line | str) -> Audio:
        """A whole line as one clip: its pieces, trimmed, with the gaps between them."""
        parts = line.parts if isinstance(line, Line) else (line,)
        spoken: list[Audio] = []
        gap_ms: float | None = None  # silence owed before the next spoken piece
        for part in parts:
            if not part:
                continue
            if is_pause(part):
                gap_ms = self.gaps.pause_ms(part) if gap_ms is None else max(gap_ms, self.gaps.pause_ms(part))
                continue
            clip = trim(self.piece(part), margin_ms=self.gaps.trim_margin_ms)
            if spoken:
                spoken.append(silence(self.gaps.between_ms if gap_ms is None else gap_ms))
            spoken.append(clip)
            gap_ms = None
        return np.concatenate(spoken) if spoken else silence(0)

    def piece(self, text: str) -> Audio:
        """One piece as the voice says it (not trimmed): from memory, the cache, or the voice."""
        if is_pause(text):
            return silence(self.gaps.pause_ms(text))
        audio, _ = self._fetch(text)
        return audio

    def ensure(self, text: str) -> bool:
        """Make sure `text` is cached with this voice; True if the voice had to render it now."""
        if is_pause(text):
            return False
        return self._fetch(text)[1]

    def missing(self, pieces: Iterable[str]) -> list[str]:
        """The spoken pieces among `pieces` that the cache lacks for the voice's current key."""
        key = self.voice.key
        return [p for p in pieces if not is_pause(p) and (self.cache is None or not self.cache.has(key, p))]

    def _fetch(self, text: str) -> tuple[Audio, bool]:
        key = self.voice.key
        remembered = self._memory.get((key, text))
        if remembered is not None:
            return remembered, False
        audio = self.cache.get(key, text) if self.cache is not None else None
        if audio is None:
            if self.offline:
                raise self._not_cached(text)
            return self._rendered(text, self.voice.synthesize(text)), True
        self.cache_hits += 1
        self._remember(key, text, audio)
        return audio, False

    def ensure_all(self, pieces: Iterable[str], advance: Callable[[], object] = lambda: None) -> None:
        """ensure() for each of `pieces`, the missing ones rendered in one go (voice.synthesize_many: edge-tts
        fetches many at once and decodes them in batches); `advance()` once per distinct piece as it is done."""
        missing = []
        for piece in dict.fromkeys(pieces):
            if self.missing([piece]):
                missing.append(piece)
            else:
                advance()
        if missing and self.offline:
            raise self._not_cached(missing[0])
        for text, audio in synthesize_many(self.voice, missing):
            self._rendered(text, audio)
            advance()

    def _not_cached(self, text: str) -> MissingPiece:
        return MissingPiece(text, self.voice.key, str(self.cache.directory) if self.cache else "no cache configured")

    def _rendered(self, text: str, audio: Audio) -> Audio:
        """A piece the voice has just rendered: brought to loudness, cached and remembered."""
        self.synthesized += 1
        key = self.voice.key  # after: a FallbackVoice may have switched, and we cache what was said
        if self.loudness:
            audio = normalise(audio, volume_db(self.voice))
        self._store(key, text, audio)
        self._remember(key, text, audio)
        return audio

    def _remember(self, key: str, text: str, audio: Audio) -> None:
        if len(self._memory) >= self.remembered_pieces:
            self._memory.pop(next(iter(self._memory)))
        self._memory[(key, text)] = audio

    def _store(self, key: str, text: str, audio: Audio) -> None:
        """Cache a rendered piece. A cache that cannot be written (disk full, read-only) must not stop the
        game: say so once and keep speaking from memory."""
        if self.cache is None or self._cache_broken:
            return
        try:
            self.cache.put(key, text, audio)
        except OSError as exc:
            self._cache_broken = True
            log.warning("cannot write the voice cache in %s (%s); pieces are not saved this session",
                        self.cache.directory, exc)
