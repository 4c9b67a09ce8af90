"""The voice cache: decoded float32 on disk, keyed by the voice's settings and the text, written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import numpy as np
import pytest
from voice_testkit import tone

from narrator.voice import CACHE_ENV, VoiceCache, default_cache_dir
from narrator.voice.cache import _hash

KEY = "espeak:cmn:rate=+0%:pitch=+0Hz:volume=+0%"


def test_a_piece_comes_back_exactly_as_it_went_in(tmp_path: Path) -> None:
    cache = VoiceCache(tmp_path)
    audio = tone("七号")
    assert cache.get(KEY, "七号") is None and not cache.has(KEY, "七号")
    path = cache.put(KEY, "七号", audio)
    assert path.suffix == ".npy" and path.is_relative_to(tmp_path)
    back = cache.get(KEY, "七号")
    assert back is not None and back.dtype == np.float32
    np.testing.assert_array_equal(back, audio)
    assert np.load(path).dtype == np.float32  # decoded audio on disk: a game never decodes MP3


def test_every_setting_and_the_text_are_part_of_the_key(tmp_path: Path) -> None:
    cache = VoiceCache(tmp_path)
    keys = [KEY, KEY.replace("rate=+0%", "rate=-10%"), KEY.replace("cmn", "cmn+m3"),
            KEY.replace("pitch=+0Hz", "pitch=-5Hz"), KEY.replace("volume=+0%", "volume=+5%"),
            "edge:zh-CN-YunyangNeural:rate=+0%:pitch=+0Hz:volume=+0%"]  # fmt: skip
    paths = {cache.path(k, t) for k in keys for t in ("七号", "八号")}
    assert len(paths) == len(keys) * 2
    assert cache.path(KEY, "七号") == VoiceCache(tmp_path).path(KEY, "七号")  # stable across sessions
    assert cache.path(KEY, "七号").stem == _hash(KEY, "七号")


def test_writes_are_atomic_and_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = VoiceCache(tmp_path)
    cache.put(KEY, "一号", tone("一号"))

    def crash(file: BinaryIO, arr: object, **kwargs: object) -> None:
        file.write(b"\x93NUMPY half a header")
        raise KeyboardInterrupt  # killed mid-write

    monkeypatch.setattr(np, "save", crash)
    with pytest.raises(KeyboardInterrupt):
        cache.put(KEY, "二号", tone("二号"))
    assert not cache.has(KEY, "二号")
    assert [p.name for p in tmp_path.rglob(".*")] == [], "no temporary files left behind"


def test_an_unreadable_piece_counts_as_missing_and_is_removed(tmp_path: Path) -> None:
    cache = VoiceCache(tmp_path)
    path = cache.put(KEY, "三号", tone("三号"))
    path.write_bytes(b"garbage")
    assert cache.get(KEY, "三号") is None
    assert not path.exists()


def test_voices_lists_what_the_cache_holds(tmp_path: Path) -> None:
    cache = VoiceCache(tmp_path)
    for text in ("一号", "二号"):
        cache.put(KEY, text, tone(text))
    cache.put("other", "一号", tone("一号"))
    listed = {v.key: v for v in cache.voices()}
    assert listed[KEY].pieces == 2 and listed["other"].pieces == 1
    assert listed[KEY].size_bytes > 2 * len(tone("一号")) * 4


def test_where_the_cache_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from platformdirs import user_cache_dir

    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert default_cache_dir() == Path(user_cache_dir("narrator")) / "voice"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env" / "voice"
    assert VoiceCache().directory == tmp_path / "env" / "voice"
    assert default_cache_dir(tmp_path / "arg") == tmp_path / "arg" / "voice"  # the argument wins
