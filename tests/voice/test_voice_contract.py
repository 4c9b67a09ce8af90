"""One contract for every voice: the fake one the other tests use, espeak-ng, and edge-tts (against a local
server speaking its protocol). Plus what is particular to each real adapter."""

from __future__ import annotations

import asyncio
import re
import subprocess
from collections.abc import Callable

import numpy as np
import pytest
from voice_testkit import EdgeServer, FakeVoice, Unplugged

from narrator.audio import SAMPLE_RATE
from narrator.voice import EdgeVoice, EspeakVoice, Voice, VoiceError, VoiceUnavailable
from narrator.voice.pcm import duration_ms, read_wav, trim

Factory = Callable[..., Voice]
FACTORIES: dict[str, Factory] = {
    "fake": lambda **kw: FakeVoice(rate=kw.get("rate", "+0%")),
    "espeak": lambda **kw: EspeakVoice(**kw),
    "edge": lambda **kw: EdgeVoice(**kw),
}


@pytest.fixture(params=sorted(FACTORIES))
def make(request: pytest.FixtureRequest) -> Factory:
    if request.param == "edge":
        request.getfixturevalue("edge_server")
    return FACTORIES[request.param]


def test_a_voice_says_a_line_as_mono_float32_audio(make: Factory) -> None:
    voice = make()
    assert isinstance(voice, Voice)
    audio = voice.synthesize("狼人请睁眼。")
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert np.all(np.isfinite(audio)) and np.max(np.abs(audio)) <= 1.0
    assert np.sqrt(np.mean(audio**2)) > 0.01, "silent"
    assert 200 < duration_ms(trim(audio)) < 6000


def test_the_key_names_the_settings_not_the_text(make: Factory) -> None:
    voice = make()
    before = voice.key
    voice.synthesize("七号")
    assert voice.key == before and before
    assert make().key == before
    assert make(rate="-10%").key != before


# ---- espeak-ng ------------------------------------------------------------------------------------------


def test_espeak_gives_24khz_audio_of_plausible_length() -> None:
    voice = EspeakVoice()
    text = "请警长七号选择警左还是警右发言。"
    raw = subprocess.run(voice.command(), input=text.encode(), capture_output=True, check=True).stdout
    native, native_hz = read_wav(raw)
    audio = voice.synthesize(text)
    assert native_hz == 22050
    assert len(audio) == pytest.approx(len(native) * SAMPLE_RATE / native_hz, abs=1)
    speech_s = duration_ms(trim(audio)) / 1000
    assert 15 / 6 < speech_s < 15 / 1.5, "15 syllables at 1.5 to 6 a second"
    assert duration_ms(trim(voice.synthesize("七号"))) < speech_s * 1000 / 3


def test_espeak_rate_and_volume_change_the_sound() -> None:
    text = "天亮了，请大家睁眼。"
    slow, fast = EspeakVoice(rate="-30%").synthesize(text), EspeakVoice(rate="+50%").synthesize(text)
    assert len(trim(fast)) < 0.8 * len(trim(slow))
    quiet, loud = EspeakVoice(volume="-50%").synthesize(text), EspeakVoice(volume="+50%").synthesize(text)
    assert np.sqrt(np.mean(loud**2)) > 2 * np.sqrt(np.mean(quiet**2))


def test_espeak_reads_text_from_stdin_so_a_dash_is_not_an_option() -> None:
    assert len(EspeakVoice().synthesize("-v 七号")) > 0


def test_espeak_missing_or_failing_is_a_clear_voice_error() -> None:
    with pytest.raises(VoiceError, match="not found"):
        EspeakVoice(program="espeak-ng-that-is-not-installed").synthesize("七号")
    with pytest.raises(VoiceError, match="/bin/false failed"):
        EspeakVoice("cmn-latn-pinyin", program="/bin/false").synthesize("七号")


def test_settings_are_checked_up_front() -> None:
    for bad in ({"rate": "fast"}, {"pitch": "+5%"}, {"volume": "10"}):
        with pytest.raises(ValueError):
            EspeakVoice(**bad)
    with pytest.raises(ValueError, match="edge-tts voice name"):
        EdgeVoice("Yunyang")


# ---- edge-tts -------------------------------------------------------------------------------------------


def test_edge_sends_the_voice_and_its_settings_and_decodes_the_mp3(edge_server: EdgeServer) -> None:
    voice = EdgeVoice("zh-CN-YunjianNeural", rate="-10%", pitch="-5Hz", volume="+20%")
    audio = voice.synthesize("狼人请睁眼。")
    (request,) = edge_server.requests
    assert "(zh-CN, YunjianNeural)" in request
    assert "pitch='-5Hz' rate='-10%' volume='+20%'" in request
    assert "狼人请睁眼。" in request
    assert abs(duration_ms(audio) - 1000) < 120  # the server's 1 s MP3, decoded at SAMPLE_RATE


def test_edge_works_when_called_from_inside_an_event_loop(edge_server: EdgeServer) -> None:
    async def inside() -> np.ndarray:
        return EdgeVoice().synthesize("七号")

    assert len(asyncio.run(inside())) > SAMPLE_RATE // 2


def test_edge_without_a_network_is_unavailable_not_a_crash(no_network: Unplugged) -> None:
    with pytest.raises(VoiceUnavailable, match=re.escape("cannot connect to speech.platform.bing.com:443")):
        EdgeVoice().synthesize("七号")
    assert no_network.attempts, "edge-tts really tried to connect"


def test_edge_through_a_dead_proxy_is_unavailable(closed_port: int) -> None:
    with pytest.raises(VoiceUnavailable, match=re.escape(f"cannot connect to 127.0.0.1:{closed_port}")):
        EdgeVoice(proxy=f"http://127.0.0.1:{closed_port}").synthesize("七号")


def test_edge_through_a_proxy_that_never_answers_times_out(silent_proxy: int) -> None:
    with pytest.raises(VoiceUnavailable, match="no answer within 1 s"):
        EdgeVoice(proxy=f"http://127.0.0.1:{silent_proxy}", timeout_s=1).synthesize("七号")
