"""A voice with a spare: when the primary cannot be reached, the fallback speaks for the rest of the session."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence

from narrator.voice.base import Audio, Labelled, Voice, VoiceUnavailable, synthesize_many

log = logging.getLogger(__name__)


def label(voice: Voice) -> str:
    """A voice's human name ("edge-tts (zh-CN-YunyangNeural)"), or its key."""
    return voice.label if isinstance(voice, Labelled) else voice.key


class FallbackVoice:
    """`primary` until it raises VoiceUnavailable once; then `fallback`, without retrying the primary.

    The switch is announced exactly once, through `warn` (default: a logging warning), never as a
    traceback. `key` is the key of the voice in use, so what is heard is what gets cached.
    Not thread-safe: one session speaks one line at a time.
    """

    def __init__(self, primary: Voice, fallback: Voice, warn: Callable[[str], None] | None = None) -> None:
        self.primary = primary
        self.fallback = fallback
        self.warn = warn or log.warning
        self.reason: str | None = None
        """Why the fallback is in use, or None while the primary is."""

    @property
    def using_fallback(self) -> bool:
        return self.reason is not None

    @property
    def active(self) -> Voice:
        return self.fallback if self.using_fallback else self.primary

    @property
    def key(self) -> str:
        return self.active.key

    @property
    def label(self) -> str:
        return label(self.active)

    def synthesize(self, text: str) -> Audio:
        if not self.using_fallback:
            try:
                return self.primary.synthesize(text)
            except VoiceUnavailable as exc:
                self.use_fallback(f"{label(self.primary)} is unreachable ({exc})")
        return self.fallback.synthesize(text)

    def synthesize_many(self, texts: Sequence[str]) -> Iterator[tuple[str, Audio]]:
        """As synthesize, for many texts (base.synthesize_many): the primary's until it is unreachable, then
        the fallback's for the texts it had not given yet."""
        given = 0
        if not self.using_fallback:
            try:
                for said in synthesize_many(self.primary, texts):
                    given += 1
                    yield said
            except VoiceUnavailable as exc:
                self.use_fallback(f"{label(self.primary)} is unreachable ({exc})")
        yield from synthesize_many(self.fallback, texts[given:])

    def use_fallback(self, reason: str) -> None:
        """Switch to the fallback for good, saying so once (later calls change nothing)."""
        if self.using_fallback:
            return
        self.reason = reason
        self.warn(f"{reason}; the judge speaks with {label(self.fallback)} for the rest of this session.")
