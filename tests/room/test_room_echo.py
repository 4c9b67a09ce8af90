"""Echo cancellation in the room (tests/room/roomkit.py): `narrator setup --echo-cancel` puts PulseAudio's
WebRTC canceller between the table's speaker and the microphone, `doctor` finds it (and loads it again when
the sound server forgot it), and in the room it takes the judge's voice out of what the ear records while
the host's voice goes through. The measured figures are in docs/benchmarks.md (scripts/bench_room.py)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from roomkit import Recorder, Room, erle_db, espeak, play, starts_s
from typer.testing import CliRunner

from narrator.audio import SAMPLE_RATE
from narrator.audio.beds import builtin_sounds, decode_file
from narrator.audio.mixer import Mixer
from narrator.audio.playback import OutputConfig, Player
from narrator.audio.resample import resample
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
        try:
            mixer.enqueue(judge, "all", 0.3)  # the canceller converges on the first line …
            mixer.enqueue(judge, "all", 0.3)  # … and is measured on the second
            player.wait_drained(timeout_s=30)
            play(host).wait(timeout=30)
            time.sleep(0.3)
        finally:
            a, b = raw.stop(), out_.stop()
            player.close()

        # Where each sound lies is read off the recordings themselves (each recorder and player starts late by
        # its own amount when the machine is busy): the two judge lines and the host in the microphone's
        # recording, the host in the canceller's output (he goes through it), which aligns the two.
        rate = 16_000
        spoken = resample(judge, SAMPLE_RATE, rate)
        host_clip = decode_file(host)
        said = resample(host_clip, SAMPLE_RATE, rate)
        host_at = starts_s(a, said, rate)[0]
        first, second = starts_s(a[: int(host_at * rate)], spoken, rate, count=2)
        shift = starts_s(b, said, rate)[0] - host_at  # the canceller's output against the microphone

        def cut(x: np.ndarray, s: float, d: float) -> np.ndarray:
            return x[max(0, int(s * rate)): int((s + d) * rate)]

        span, host_span = len(spoken) / rate, len(said) / rate
        erle = erle_db(cut(a, second, span), cut(b, second + shift, span))
        assert erle > 20, f"the judge's voice {erle:.1f} dB down (lines at {first:.2f} and {second:.2f} s)"
        host_change = erle_db(cut(a, host_at, host_span), cut(b, host_at + shift, host_span), floor_db=-45)
        assert abs(host_change) < 6, f"the host's voice changed by {host_change:.1f} dB (at {host_at:.2f} s)"

        code, out = invoke("setup", "--yes", "--skip-voices", "--skip-model", "--no-test", "--no-echo-cancel")
        assert code == 0 and echo.loaded() is None, out
        code, out = invoke("doctor")
        assert "no echo cancellation" in out and "fix: narrator setup --echo-cancel" in out
        code, out = invoke("setup", "--yes", "--skip-voices", "--skip-model", "--no-test")  # off stays off
        assert code == 0 and echo.loaded() is None and "echo cancellation" not in out, out

        # A device set up without a word about it gets the canceller wherever it loads.
        (tmp_path / "config" / "config.toml").unlink()
        code, out = invoke("setup", "--yes", "--skip-voices", "--skip-model", "--no-test", "--input", "voice",
                           "--table", "pulse:table", "--mic", "pulse:air.monitor")
        assert code == 0 and "✓ echo cancellation (webrtc)" in out and echo.loaded() is not None, out
        assert 'echo_cancel = "webrtc"' in (tmp_path / "config" / "config.toml").read_text(encoding="utf-8")
    finally:
        echo.unload()
