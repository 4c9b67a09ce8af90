"""The speaker renders a Line from its pieces: each piece cached on its own, punctuation as silence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from voice_testkit import Counting, FakeVoice, tone

from narrator.judge.lines import Line
from narrator.judge.script import Script, seats
from narrator.voice import EspeakVoice, Gaps, MissingPiece, Speaker, VoiceCache, is_pause
from narrator.voice.loudness import normalise
from narrator.voice.pcm import silence, trim

DEATHS = Script("zh-Hans").line("events", "deaths_announced", seats=seats([3, 7]))


def test_the_line_under_test_has_seats_and_punctuation_pieces() -> None:
    assert DEATHS.pieces == ("昨晚死亡的是", "三号", "、", "七号", "。")


def test_a_line_is_its_pieces_trimmed_with_natural_gaps(tmp_path: Path, fake_voice: FakeVoice) -> None:
    gaps = Gaps(between_ms=50, list_ms=150)
    audio = Speaker(fake_voice, VoiceCache(tmp_path), gaps=gaps).line(DEATHS)
    assert fake_voice.calls == ["昨晚死亡的是", "三号", "七号"], "punctuation is never sent to the voice"
    first, three, seven = (trim(normalise(tone(t))) for t in fake_voice.calls)
    expected = np.concatenate([first, silence(50), three, silence(150), seven])  # the final "。" is pacing's
    np.testing.assert_array_equal(audio, expected)


def test_pause_pieces_and_their_lengths() -> None:
    assert all(is_pause(p) for p in ("、", "，", "。", "！", " ", "，、"))
    assert not any(is_pause(p) for p in ("七号", "，请确认", "PK"))
    gaps = Gaps()
    assert gaps.pause_ms("、") < gaps.pause_ms("，") < gaps.pause_ms("。")


def test_a_text_line_and_an_empty_line() -> None:
    speaker = Speaker(FakeVoice())
    assert len(speaker.line("七号")) == len(trim(normalise(tone("七号"))))
    assert len(speaker.line(Line(text="", pieces=()))) == 0


def test_the_same_settings_hit_the_cache_across_sessions(tmp_path: Path) -> None:
    first = Counting(EspeakVoice())
    Speaker(first, VoiceCache(tmp_path)).line(DEATHS)
    assert len(first.calls) == 3
    again = Counting(EspeakVoice())
    speaker = Speaker(again, VoiceCache(tmp_path))
    speaker.line(DEATHS)
    assert again.calls == [] and speaker.cache_hits == 3 and speaker.synthesized == 0


@pytest.mark.parametrize(
    "change", [{"voice": "cmn-latn-pinyin+m3"}, {"rate": "-10%"}, {"pitch": "+4Hz"}, {"volume": "+10%"}]
)
def test_changing_any_setting_renders_again(tmp_path: Path, change: dict[str, str]) -> None:
    Speaker(EspeakVoice(), VoiceCache(tmp_path)).line(DEATHS)
    changed = Counting(EspeakVoice(**change))
    Speaker(changed, VoiceCache(tmp_path)).line(DEATHS)
    assert changed.calls == ["昨晚死亡的是", "三号", "七号"]


def test_a_piece_said_twice_in_a_session_is_rendered_once(tmp_path: Path, fake_voice: FakeVoice) -> None:
    speaker = Speaker(fake_voice, VoiceCache(tmp_path))
    line = Script("zh-Hans").line("events", "night_resolved", seats=seats([3, 3]))
    speaker.line(line)
    speaker.line(line)
    assert fake_voice.calls.count("三号") == 1


def test_offline_names_the_missing_piece_and_never_asks_the_voice(tmp_path: Path, fake_voice: FakeVoice) -> None:
    cache = VoiceCache(tmp_path)
    Speaker(fake_voice, cache).line("昨晚死亡的是")
    fake_voice.calls.clear()
    offline = Speaker(fake_voice, cache, offline=True)
    with pytest.raises(MissingPiece, match="'三号'") as caught:
        offline.line(DEATHS)
    assert caught.value.piece == "三号" and caught.value.key == fake_voice.key
    assert "narrator voices build" in str(caught.value) and str(tmp_path) in str(caught.value)
    assert fake_voice.calls == []
    assert offline.missing(DEATHS.pieces) == ["三号", "七号"]


def test_offline_with_every_piece_cached_speaks(tmp_path: Path, fake_voice: FakeVoice) -> None:
    cache = VoiceCache(tmp_path)
    online = Speaker(fake_voice, cache).line(DEATHS)
    fake_voice.calls.clear()
    np.testing.assert_array_equal(Speaker(fake_voice, cache, offline=True).line(DEATHS), online)
    assert fake_voice.calls == []


def test_ensure_reports_whether_it_had_to_render(tmp_path: Path, fake_voice: FakeVoice) -> None:
    speaker = Speaker(fake_voice, VoiceCache(tmp_path))
    assert speaker.ensure("七号") is True
    assert speaker.ensure("七号") is False
    assert speaker.ensure("、") is False
    assert fake_voice.calls == ["七号"]


def test_a_cache_that_cannot_be_written_does_not_stop_the_game(
    tmp_path: Path, fake_voice: FakeVoice, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache should be")
    speaker = Speaker(fake_voice, VoiceCache(blocked))
    speaker.line(DEATHS)
    speaker.line(Script("zh-Hans").line("events", "deaths_announced", seats=seats([4])))
    assert len(speaker.line(DEATHS)) > 0
    (record,) = [r for r in caplog.records if "cannot write the voice cache" in r.getMessage()]
    assert record.exc_info is None
