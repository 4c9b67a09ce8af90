"""Echo cancellation in the room (tests/room/roomkit.py): `narrator setup --echo-cancel` puts PulseAudio's
WebRTC canceller between the table's speaker and the microphone, `doctor` finds it (and loads it again when
the sound server forgot it), and in the room it takes the judge's voice out of what the ear records while
the host's voice goes through. The measured figures are in docs/benchmarks.md (scripts/bench_room.py)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from roomkit import Recorder, Room, erle_db, espeak, play, wav_seconds
from typer.testing import CliRunner

from narrator.audio import SAMPLE_RATE
from narrator.audio.beds import builtin_sounds, decode_file
from narrator.audio.mixer import Mixer
from narrator.audio.playback import OutputConfig, Player
from narrator.cli.main import app
from narrator.play import echo

pytestmark = pytest.mark.slow


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


@pytest.mark.parametrize("room", [None], indirect=True)
def test_setup_loads_the_canceller_doctor_checks_it_and_it_takes_the_judge_out(
        room: Room, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    try:
        code, out = invoke("setup", "--yes", "--skip-voices", "--skip-model", "--no-test", "--input", "voice",
                           "--table", "pulse:table", "--mic", "pulse:air.monitor", "--echo-cancel")
        assert code == 0, out
        assert "✓ echo cancellation (webrtc)" in out and 'echo_cancel = "webrtc"' in (
            tmp_path / "config" / "config.toml").read_text(encoding="utf-8")
        assert echo.loaded() is not None
        echo.unload()  # the sound server restarted: doctor (and play) load it again
        code, out = invoke("doctor")
        assert "✓ echo cancellation webrtc: table pulse:narrator_table, mic pulse:narrator_mic" in out, out
        assert echo.loaded() is not None

        # The judge plays into the canceller's sink through the game's own Player (one stream, the night bed
        # under the lines); the microphone hears it 20 ms later with reflections.
        judge = decode_file(espeak("天黑请闭眼。狼人请睁眼。狼人请相互确认身份。", "cmn"))
        host = espeak("멈춤 반복", "ko")
        mixer = Mixer(builtin_sounds())
        player = Player(mixer, OutputConfig(device="pulse", pulse_sink=echo.SINK))
        player.start(ready_timeout_s=10)
        mixer.switch_bed("night")
        raw, out_ = Recorder("air.monitor"), Recorder(echo.SOURCE)
        t0 = max(raw.t0, out_.t0)
        try:
            mixer.enqueue(judge, "all", 0.3)  # the canceller converges on the first line …
            player.wait_drained(timeout_s=30)
            second = time.monotonic() - t0 + player.output_latency_s
            mixer.enqueue(judge, "all", 0.3)  # … and is measured on the next
            player.wait_drained(timeout_s=30)
            host_at = time.monotonic() - t0
            play(host).wait(timeout=30)
            time.sleep(0.3)
        finally:
            a, b = raw.stop(), out_.stop()
            player.close()
        span = len(judge) / SAMPLE_RATE

        def cut(x: np.ndarray, s: float, d: float) -> np.ndarray:
            return x[int(s * 16_000): int((s + d) * 16_000)]

        assert erle_db(cut(a, second, span), cut(b, second, span)) > 20  # the judge's voice: at least 20 dB down
        host_span = wav_seconds(host) + 0.2
        host_change = erle_db(cut(a, host_at, host_span), cut(b, host_at, host_span), floor_db=-45)
        assert abs(host_change) < 6  # the host goes through

        code, out = invoke("setup", "--yes", "--skip-voices", "--skip-model", "--no-test", "--no-echo-cancel")
        assert code == 0 and echo.loaded() is None, out
        code, out = invoke("doctor")
        assert "no echo cancellation" in out and "fix: narrator setup --echo-cancel" in out
    finally:
        echo.unload()
