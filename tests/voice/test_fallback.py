"""FallbackVoice: edge-tts unreachable (a real failed connection) → espeak-ng for the rest of the session,
announced exactly once, and what is heard is what is cached."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from voice_testkit import Counting, FakeVoice, Unplugged, tone

from narrator.judge.script import Script, seats
from narrator.voice import EdgeVoice, EspeakVoice, FallbackVoice, Speaker, VoiceCache, make_voice
from narrator.voice.base import Audio, VoiceUnavailable

PIECES = ["昨晚死亡的是", "三号", "七号", "天亮了，请大家睁眼。", "三号"]


def test_unreachable_edge_falls_back_once_and_for_good(no_network: Unplugged) -> None:
    said: list[str] = []
    espeak = Counting(EspeakVoice())
    voice = FallbackVoice(EdgeVoice(), espeak, warn=said.append)
    assert voice.key.startswith("edge:")
    for piece in PIECES:
        assert len(voice.synthesize(piece)) > 0
    assert len(said) == 1, said
    assert "edge-tts (zh-CN-YunyangNeural) is unreachable" in said[0]
    assert "cannot connect to speech.platform.bing.com:443" in said[0]
    assert "espeak-ng (cmn-latn-pinyin) for the rest of this session" in said[0]
    assert espeak.calls == PIECES
    assert voice.using_fallback and voice.key == espeak.key
    assert len([a for a in no_network.attempts if "bing.com" in a]) == 1, "the primary is not retried"


def test_the_default_warning_is_one_log_record_without_a_traceback(
    closed_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    voice = FallbackVoice(EdgeVoice(proxy=f"http://127.0.0.1:{closed_port}"), EspeakVoice())
    with caplog.at_level(logging.WARNING):
        for piece in PIECES:
            voice.synthesize(piece)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert f"cannot connect to 127.0.0.1:{closed_port}" in record.getMessage()


def test_what_is_heard_is_what_is_cached(tmp_path: Path, no_network: Unplugged) -> None:
    voice = make_voice(warn=lambda _: None)
    assert isinstance(voice, FallbackVoice)
    edge_key, espeak_key = voice.primary.key, voice.fallback.key
    cache = VoiceCache(tmp_path)
    line = Script("zh-Hans").line("events", "deaths_announced", seats=seats([3, 7]))
    Speaker(voice, cache).line(line)
    for piece in ("昨晚死亡的是", "三号", "七号"):
        assert cache.has(espeak_key, piece) and not cache.has(edge_key, piece)


def test_other_errors_are_not_swallowed() -> None:
    class Broken(FakeVoice):
        def synthesize(self, text: str) -> Audio:
            raise ZeroDivisionError("a bug, not the network")

    said: list[str] = []
    voice = FallbackVoice(Broken("edge"), FakeVoice("spare"), warn=said.append)
    with pytest.raises(ZeroDivisionError):
        voice.synthesize("七号")
    assert not voice.using_fallback and said == []


def test_a_working_primary_is_used_and_nothing_is_said(fake_voice: FakeVoice) -> None:
    said: list[str] = []
    spare = FakeVoice("spare")
    voice = FallbackVoice(fake_voice, spare, warn=said.append)
    voice.synthesize("七号")
    assert fake_voice.calls == ["七号"] and spare.calls == [] and said == []
    assert voice.key == fake_voice.key


class DropsAfter(FakeVoice):
    """A voice that says the first `n` texts it is given together, then cannot be reached."""

    def __init__(self, n: int) -> None:
        super().__init__("drops")
        self.n = n

    def synthesize(self, text: str) -> Audio:
        raise VoiceUnavailable("gone")

    def synthesize_many(self, texts: list[str]) -> Iterator[tuple[str, Audio]]:
        for text in texts[: self.n]:
            self.calls.append(text)
            yield text, tone(text)
        raise VoiceUnavailable("the line dropped")


def test_rendering_many_falls_back_mid_way_and_caches_each_piece_under_the_voice_that_said_it(
    tmp_path: Path,
) -> None:
    said: list[str] = []
    primary, fallback = DropsAfter(2), FakeVoice("spare")
    voice = FallbackVoice(primary, fallback, warn=said.append)
    speaker = Speaker(voice, VoiceCache(tmp_path))
    pieces = ["三号", "七号", "天亮了", "昨晚死亡的是", "三号"]
    done: list[None] = []
    speaker.ensure_all(pieces, lambda: done.append(None))
    assert primary.calls == ["三号", "七号"] and fallback.calls == ["天亮了", "昨晚死亡的是"]
    assert len(said) == 1 and "is unreachable (the line dropped)" in said[0]
    cache = VoiceCache(tmp_path)
    assert [p for p in pieces if cache.has(primary.key, p)] == ["三号", "七号", "三号"]
    assert [p for p in pieces if cache.has(fallback.key, p)] == ["天亮了", "昨晚死亡的是"]
    assert len(done) == 4 and speaker.synthesized == 4, "once per distinct piece"
    speaker.ensure_all(pieces)  # a second build: what the primary said is missing for the voice now in use
    assert fallback.calls == ["天亮了", "昨晚死亡的是", "三号", "七号"] and speaker.synthesized == 6
    assert speaker.missing(pieces) == [] and primary.calls == ["三号", "七号"], "the primary is not retried"
