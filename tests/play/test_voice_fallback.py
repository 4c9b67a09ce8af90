"""A line the voice cache lacks is said by the offline voice (espeak-ng) instead of stopping the game."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from narrator.judge.lines import Line
from narrator.play.mouth import voice_line
from narrator.voice import EspeakVoice, MissingPiece, Speaker, VoiceCache


def test_a_cache_miss_falls_back_to_the_offline_voice(tmp_path: Path) -> None:
    cache = VoiceCache(tmp_path / "voice")
    cached_only = Speaker(EspeakVoice(), cache, offline=True)  # the game's voice, cache only
    line = Line("天黑请闭眼。", pieces=("天黑请闭眼", "。"))
    with pytest.raises(MissingPiece):
        cached_only.line(line)
    clip, fell_back = voice_line(cached_only, Speaker(EspeakVoice(), cache), line)
    assert fell_back and len(clip) > 0.3 * 24_000 and float(np.abs(clip).max()) > 0.05
    with pytest.raises(MissingPiece):
        voice_line(cached_only, None, Line("天亮了。"))
