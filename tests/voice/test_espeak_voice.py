"""The offline voice speaks Chinese: chosen from what the installed espeak-ng offers, checked by its phonemes,
and a voice it cannot speak Chinese with is refused up front. The cache key names voice and version."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner
from voice_testkit import Counting, EdgeServer

from narrator.cli.main import app
from narrator.voice import EdgeVoice, EspeakVoice, FallbackVoice, Speaker, VoiceCache, VoiceError, espeak_voices
from narrator.voice.bootstrap import pieces_to_build
from narrator.voice.cache import _hash

SCENARIO = Path(__file__).parents[1] / "scenarios" / "001_witch_saves_first_night.yaml"


SEPARATOR = "鳄鱼"
"""A word no piece of the script says, read between two lines to mark where one line's phonemes end."""


def espeak_x(voice: str, text: str) -> str:
    """`espeak-ng -v VOICE -q -x` of `text`, every line of it a clause of its own (-l)."""
    return subprocess.run(["espeak-ng", "-v", voice, "-q", "-x", "-l", "100000", "--stdin"], input=text.encode(),
                          capture_output=True, check=True).stdout.decode()  # fmt: skip


def phonemes(voice: str, lines: list[str]) -> list[str]:
    """`espeak-ng -v VOICE -q -x` of each line, in one run: every line is a clause of its own and espeak-ng
    goes back to the voice's language at the end of each clause, so a switch shows in the line that made it;
    SEPARATOR between two lines tells where one ends. One process instead of one per line (~25× faster);
    test_one_run_reads_each_line_as_a_run_of_its_own checks that it reads each line as a run of its own does."""
    assert not any(SEPARATOR in line or "\n" in line for line in lines)
    mark = espeak_x(voice, SEPARATOR).strip()
    read: list[str] = []
    current: list[str] = []
    for row in espeak_x(voice, "".join(f"{line}\n{SEPARATOR}\n" for line in lines)).splitlines():
        if row.strip() == mark:
            read.append("\n".join(current))
            current = []
        else:
            current.append(row)
    assert not "".join(current).strip() and len(read) == len(lines), "a line's phonemes look like the separator's"
    return read


def test_the_default_voice_is_the_mandarin_one_espeak_ng_offers() -> None:
    offered = subprocess.run(["espeak-ng", "--voices=cmn"], capture_output=True, text=True, check=True).stdout
    languages = [row.split()[1] for row in offered.splitlines()[1:]]
    voice = EspeakVoice().settings.voice
    assert voice in languages
    if "cmn-latn-pinyin" in languages:
        assert voice == "cmn-latn-pinyin"


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_every_piece_of_the_script_is_read_as_chinese_without_a_language_switch(lang: str) -> None:
    voice = EspeakVoice().settings.voice
    pieces = [p for p in pieces_to_build(lang) if re.search(r"[\u4e00-\u9fff]", p)]
    assert len(pieces) > 200
    said = phonemes(voice, pieces)
    switched = [(p, s) for p, s in zip(pieces, said, strict=True) if re.search(r"\([a-z]+\)", s)]
    assert switched == [], f"{len(switched)} pieces switch language, e.g. {switched[:3]}"
    assert all(s.strip() for s in said)


@pytest.mark.parametrize("voice", ["cmn-latn-pinyin", "cmn"])
def test_one_run_reads_each_line_as_a_run_of_its_own(voice: str) -> None:
    """The check above reads every piece in one espeak-ng run; here a sample of pieces (those with a clause
    mark inside first: they make several clauses) read one run each gives the same phonemes, switches too."""
    pieces = [p for p in pieces_to_build("zh-Hans") if re.search(r"[\u4e00-\u9fff]", p)]
    sample = sorted(pieces, key=lambda p: not re.search(r"[，。？！、]", p.strip("，。？！、”")))[:12] + pieces[::150]
    alone = [subprocess.run(["espeak-ng", "-v", voice, "-q", "-x", "--stdin"], input=p.encode(),
                            capture_output=True, check=True).stdout.decode() for p in sample]  # fmt: skip
    assert [s.split() for s in phonemes(voice, sample)] == [s.split() for s in alone]


def test_the_plain_cmn_voice_would_fail_that_check() -> None:
    """The check above can fail: espeak-ng 1.51's `cmn` spells Chinese as English pinyin."""
    if espeak_voices.reads_chinese("cmn"):
        pytest.skip("this espeak-ng's cmn voice reads Chinese")  # a later espeak-ng may fix it
    assert "(en)" in phonemes("cmn", ["天黑请闭眼"])[0]


@pytest.mark.parametrize(("voice", "says"), [("klingon", "does not speak Chinese"), ("cmn", "switches to (en)"),
                                             ("en", "says one word for every character"),
                                             ("de", "says one word for every character"),
                                             ("zzzz", "has no voice 'zzzz'"), ("cmn-latn-pinyin+nope", "no variant")])
def test_a_voice_that_cannot_speak_the_script_is_refused(voice: str, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        EspeakVoice(voice)


def test_the_cli_refuses_such_a_voice_in_one_sentence_before_rendering(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["render", str(SCENARIO), "-o", str(tmp_path / "g.wav"), "--backend",
                                      "espeak", "--voice", "klingon", "--cache-dir", str(tmp_path / "c")])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "klingon" in lines[0] and "cmn-latn-pinyin" in lines[0], result.output
    assert not (tmp_path / "g.wav").exists() and not (tmp_path / "c").exists()


def test_the_key_names_the_voice_and_the_release_that_renders_it() -> None:
    release = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=True).stdout
    assert f"espeak-ng={release.split(':')[1].split()[0]}" in EspeakVoice().key
    assert ":cmn-latn-pinyin:" in EspeakVoice().key or ":cmn-latn-pinyin:" not in EspeakVoice("yue").key
    from importlib.metadata import version

    assert EdgeVoice().key.endswith(f":edge-tts={version('edge-tts')}")


def test_pieces_made_with_another_voice_or_release_are_made_again(tmp_path: Path) -> None:
    voice = Counting(EspeakVoice())
    cache = VoiceCache(tmp_path)
    current = voice.key
    for stale in (current.replace(":cmn-latn-pinyin:", ":cmn:"), current.replace("espeak-ng=", "espeak-ng=0.")):
        cache.put(stale, "七号", EspeakVoice().synthesize("三号"))  # a wrong clip under an old key
    Speaker(voice, cache).line("七号")
    assert voice.calls == ["七号"] and cache.has(current, "七号")
    assert cache.path(current, "七号").stem == _hash(current, "七号")


def test_an_edge_voice_that_does_not_speak_chinese_is_refused() -> None:
    with pytest.raises(ValueError, match="does not speak Chinese"):
        EdgeVoice("en-US-GuyNeural")
    assert EdgeVoice("zh-TW-HsiaoChenNeural").settings.voice == "zh-TW-HsiaoChenNeural"


def test_an_edge_voice_the_service_does_not_have_is_an_error_not_a_fallback(edge_server: EdgeServer) -> None:
    edge_server.mp3 = b""  # the service answers, and sends no audio: what it does for a voice it lacks
    with pytest.raises(VoiceError, match="does not have that voice"):
        EdgeVoice("zh-CN-NoSuchVoiceNeural").synthesize("七号")
    said: list[str] = []
    voice = FallbackVoice(EdgeVoice("zh-CN-NoSuchVoiceNeural"), EspeakVoice(), warn=said.append)
    with pytest.raises(VoiceError):
        voice.synthesize("七号")
    assert said == [] and not voice.using_fallback


def test_a_voice_is_judged_by_its_phonemes_whatever_its_name() -> None:
    """`en` switches no language, yet says "Chinese letter" for every character: it does not read Chinese."""
    said = phonemes("en", [espeak_voices.PROBE])[0]
    assert "(" not in said and len(set(said.split())) == 1, said
    assert not espeak_voices.reads_chinese("en")
    assert "en" not in espeak_voices.chinese()
    assert espeak_voices.reads_chinese(espeak_voices.choose() or "")


def test_the_cli_refuses_the_english_voice_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["render", str(SCENARIO), "-o", str(tmp_path / "g.wav"), "--backend",
                                      "espeak", "--voice", "en", "--cache-dir", str(tmp_path / "c")])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "'en'" in lines[0] and "every character" in lines[0], result.output


def test_many_pieces_at_once_are_each_what_one_run_says() -> None:
    """A voice build renders pieces a few espeak-ng processes at a time: in order, each as alone."""
    voice = EspeakVoice()
    texts = ["天黑请闭眼。", "七号", "、", "预言家请睁眼。", "十二号", "七号"]
    together = list(voice.synthesize_many(texts))
    assert [t for t, _ in together] == texts
    assert all(np.array_equal(audio, voice.synthesize(t)) for t, audio in together)
