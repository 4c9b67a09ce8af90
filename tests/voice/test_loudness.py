"""Loudness: every piece a voice renders is at one loudness with its peaks at most −1 dBFS, so the edge-tts and
espeak-ng voices sound alike in level and nothing clips (real rendered pieces; edge-tts through the local
server, sending speech mastered hot as neural voices are)."""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
import pytest
from voice_testkit import EdgeServer, mp3_of

from narrator.judge.script import Script, seats
from narrator.voice import EdgeVoice, EspeakVoice, Speaker, VoiceCache
from narrator.voice.bootstrap import pieces_to_build
from narrator.voice.loudness import PEAK_DBFS, TARGET_LUFS, loudness_lufs, normalise, peak_dbfs

LINES = ["天黑请闭眼。", "预言家请睁眼。你今晚要查验谁？", "昨晚是平安夜。", "好人阵营胜利。"]


def test_raw_espeak_is_neither_at_the_target_nor_under_the_ceiling() -> None:
    """What the normalisation fixes: espeak-ng's own clips peak above full scale and spread over ~9 LU."""
    raw = [EspeakVoice().synthesize(t) for t in ("警徽移交给", "十二号", "了。", "是")]
    assert max(peak_dbfs(a) for a in raw) > 0
    levels = [loudness_lufs(a) for a in raw]
    assert max(levels) - min(levels) > 6


def test_every_rendered_piece_of_the_script_is_at_the_target_and_under_the_ceiling(tmp_path: Path) -> None:
    speaker = Speaker(EspeakVoice(), VoiceCache(tmp_path))
    pieces = pieces_to_build("zh-Hans")[::6]  # every sixth piece: ~60 real pieces, seats and phrases alike
    speaker.ensure_all(pieces)  # rendered as `voices build` renders them: a few espeak-ng processes at a time
    assert speaker.synthesized == len(pieces)
    levels = []
    for piece in pieces:
        audio = speaker.piece(piece)  # what was rendered, normalised, remembered and cached
        assert peak_dbfs(audio) <= PEAK_DBFS, piece
        levels.append(loudness_lufs(audio))
    assert all(TARGET_LUFS - 3 <= x <= TARGET_LUFS + 0.1 for x in levels), sorted(levels)[:3]
    assert abs(statistics.median(levels) - TARGET_LUFS) < 0.5
    cached = VoiceCache(tmp_path).get(speaker.voice.key, pieces[0])
    assert cached is not None and peak_dbfs(cached) <= PEAK_DBFS, "the cache holds the normalised piece"


def test_edge_and_espeak_lines_are_equally_loud(tmp_path: Path, edge_server: EdgeServer) -> None:
    hot = EspeakVoice("yue").synthesize("狼人请睁眼，请确认你的同伴。")
    edge_server.mp3 = mp3_of(np.clip(hot * (0.999 / np.abs(hot).max()) * 1.6, -1, 1))  # mastered to 0 dBFS
    edge, espeak = Speaker(EdgeVoice(), VoiceCache(tmp_path)), Speaker(EspeakVoice(), VoiceCache(tmp_path))
    raw_edge = EdgeVoice().synthesize("x")
    assert peak_dbfs(raw_edge) > -0.5 and abs(loudness_lufs(raw_edge) - TARGET_LUFS) > 4, "really different"
    for text in LINES:
        a, b = edge.line(text), espeak.line(text)
        assert peak_dbfs(a) <= PEAK_DBFS and peak_dbfs(b) <= PEAK_DBFS
        assert abs(loudness_lufs(a) - loudness_lufs(b)) < 1.5, text


def test_a_whole_line_of_pieces_keeps_the_level_and_the_ceiling(tmp_path: Path) -> None:
    line = Script("zh-Hans").line("events", "deaths_announced", seats=seats((3, 7)))
    audio = Speaker(EspeakVoice(), VoiceCache(tmp_path)).line(line)
    assert len(line.pieces) > 3
    assert peak_dbfs(audio) <= PEAK_DBFS and abs(loudness_lufs(audio) - TARGET_LUFS) < 2


def test_volume_moves_the_level_from_the_target(tmp_path: Path) -> None:
    plain = Speaker(EspeakVoice(), VoiceCache(tmp_path)).line("昨晚是平安夜。")
    quiet = Speaker(EspeakVoice(volume="-50%"), VoiceCache(tmp_path)).line("昨晚是平安夜。")
    assert loudness_lufs(quiet) == pytest.approx(loudness_lufs(plain) - 6.0, abs=0.5)


def test_silence_and_a_peaky_sound() -> None:
    assert not np.any(normalise(np.zeros(2400, np.float32)))
    click = np.zeros(24000, np.float32)
    click[100] = 0.9
    click[5000:7000] = 0.01 * np.sin(np.arange(2000))
    assert peak_dbfs(normalise(click)) <= PEAK_DBFS  # the ceiling wins over the target
