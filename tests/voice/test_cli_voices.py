"""`narrator voices build` and `list`, and the promise behind them: a game never needs the network.

The slow tests build whole caches: once with edge-tts unplugged (the socket layer refuses every internet
connection, so edge-tts really tries and fails), once against a local server speaking edge-tts's protocol.
Then whole random games are rendered from those caches with the network unplugged.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result
from voice_testkit import Counting, Unplugged, game_lines, running_edge_server, unplug

from narrator.cli.main import app
from narrator.judge.script import LANGS, Script
from narrator.voice import (
    EdgeVoice,
    EspeakVoice,
    FallbackVoice,
    VoiceCache,
    default_cache_dir,
    is_pause,
    make_speaker,
    make_voice,
    pieces_to_build,
)

GAMES = 26  # one per preset
EDGE_KEY, ESPEAK_KEY = EdgeVoice().key, EspeakVoice().key


@dataclass
class Built:
    root: Path
    result: Result
    attempts: list[str]
    """Network attempts during the build."""
    requests: int = 0
    """Requests the local edge-tts server answered."""
    most_open: int = 0
    """The most connections to it open at once."""
    rebuild: Result | None = None


def build(root: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["voices", "build", "--cache-dir", str(root), *args])


@pytest.fixture(scope="module")
def offline_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("offline-build")
    with pytest.MonkeyPatch.context() as mp:
        unplugged = unplug(mp)
        return Built(root, build(root), list(unplugged.attempts))


@pytest.fixture(scope="module")
def edge_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("edge-build")
    with pytest.MonkeyPatch.context() as mp, running_edge_server(mp) as server:
        built = Built(root, build(root), [], len(server.requests), server.most_open)
        built.rebuild = build(root)
        assert len(server.requests) == built.requests, "the second build asked the server for nothing"
    return built


def cached(root: Path, key: str, lang: str = "zh-Hans") -> list[str]:
    cache = VoiceCache(default_cache_dir(root))
    return [p for p in pieces_to_build(lang) if cache.has(key, p)]


@pytest.mark.slow
def test_build_without_network_falls_back_to_espeak_and_says_so_once(offline_build: Built) -> None:
    out = offline_build.result.output
    assert offline_build.result.exit_code == 0, out
    assert out.count("⚠") == 1 and out.count("unreachable") == 1, out
    assert "edge-tts (zh-CN-YunyangNeural) is unreachable (cannot connect to speech.platform.bing.com:443" in out
    assert "the judge speaks with espeak-ng (cmn-latn-pinyin) for the rest of this session" in out
    assert "Traceback" not in out
    assert [a for a in offline_build.attempts if "bing.com" in a] == ["getaddrinfo speech.platform.bing.com"]


@pytest.mark.slow
def test_build_without_network_fills_the_cache_with_espeak(offline_build: Built) -> None:
    assert cached(offline_build.root, ESPEAK_KEY) == pieces_to_build("zh-Hans")
    assert cached(offline_build.root, EDGE_KEY) == []
    assert f"{len(pieces_to_build('zh-Hans'))} pieces of the zh-Hans script ready" in offline_build.result.output


@pytest.mark.slow
def test_a_game_from_the_cache_built_offline_never_touches_the_network(
    offline_build: Built, no_network: Unplugged
) -> None:
    said: list[str] = []
    voice = make_voice(warn=said.append)
    speaker = make_speaker(voice, cache_dir=offline_build.root)
    assert isinstance(voice, FallbackVoice) and voice.key == ESPEAK_KEY, "starts on the voice that was built"
    for line in game_lines("zh-Hans", GAMES):
        speaker.line(line)
    assert no_network.attempts == []
    assert speaker.synthesized == 0 and speaker.cache_hits > 0
    assert len(said) == 1 and "is not in the voice cache" in said[0]


@pytest.mark.slow
def test_build_with_edge_renders_every_piece_with_edge_once(edge_build: Built) -> None:
    assert edge_build.result.exit_code == 0, edge_build.result.output
    assert "⚠" not in edge_build.result.output
    assert cached(edge_build.root, EDGE_KEY) == pieces_to_build("zh-Hans")
    assert edge_build.requests == len(pieces_to_build("zh-Hans"))
    assert 1 < edge_build.most_open <= 4, "a few requests at a time: a build over the internet waits on round trips"
    assert edge_build.rebuild is not None and "(0 rendered now," in edge_build.rebuild.output


@pytest.mark.slow
@pytest.mark.parametrize("offline", [False, True])
def test_a_game_from_a_warm_edge_cache_makes_no_network_call(
    edge_build: Built, no_network: Unplugged, offline: bool
) -> None:
    said: list[str] = []
    voice = make_voice(warn=said.append)
    speaker = make_speaker(voice, cache_dir=edge_build.root, offline=offline)
    lines = game_lines("zh-Hans", GAMES)
    audio_s = sum(len(speaker.line(line)) for line in lines) / 24000
    assert no_network.attempts == [], "a cached game must never connect"
    assert said == [] and voice.key == EDGE_KEY
    assert speaker.synthesized == 0
    assert audio_s > len(lines) * 0.2


@pytest.mark.slow
def test_list_shows_the_backends_and_what_is_cached(edge_build: Built) -> None:
    result = CliRunner().invoke(app, ["voices", "list", "--cache-dir", str(edge_build.root)])
    assert result.exit_code == 0, result.output
    assert "zh-CN-YunyangNeural" in result.output and "espeak-ng" in result.output
    assert f"{EDGE_KEY}  {len(pieces_to_build('zh-Hans'))} pieces" in result.output
    assert "complete for: zh-Hans" in result.output


@pytest.mark.parametrize("lang", LANGS)
def test_the_build_covers_every_piece_a_game_says(lang: str) -> None:
    built = set(pieces_to_build(lang))
    said = {p for line in game_lines(lang, GAMES) for p in line.parts if not is_pause(p)}
    assert said - built == set()


def test_the_script_alone_knows_every_piece_a_game_says() -> None:
    fixed = set(Script("zh-Hans").fixed_pieces())
    said = {p for line in game_lines("zh-Hans", GAMES) for p in line.parts if not is_pause(p)}
    assert said - fixed == set()


def test_empty_cache_list_and_bad_settings(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["voices", "list", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 0 and "(empty: run `narrator voices build`)" in result.output
    result = build(tmp_path, "--rate", "fast")
    assert result.exit_code == 2 and "rate must look like '-10%'" in result.output
    result = build(tmp_path, "--backend", "espeak", "--voice", "zzzz")
    assert result.exit_code == 2 and "has no voice 'zzzz'" in result.output and "Traceback" not in result.output


def test_build_fails_when_the_cache_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("narrator.voice.bootstrap.pieces_to_build", lambda lang: ["七号", "八号"])
    (tmp_path / "voice").write_text("a file where the cache should be")
    said = Counting(EspeakVoice())
    monkeypatch.setattr("narrator.voice.make_voice", lambda *a, **k: said)
    result = build(tmp_path, "--backend", "espeak")
    assert result.exit_code == 2 and f"cannot write the voice cache {tmp_path / 'voice'}" in result.output
    assert said.calls == [], "found before anything is rendered"


def test_the_cli_imports_no_audio_or_network_code_until_a_command_runs() -> None:
    code = "import sys, narrator.cli.main; print(sorted(m for m in ('edge_tts', 'aiohttp', 'numpy', " \
           "'narrator.voice', 'platformdirs') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
