"""`narrator setup` (non-interactive: every step by flags) and `narrator doctor` (each problem with its fix;
the exit code says whether a game can start)."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from narrator.cli.main import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audio"))
from audio_testkit import MonitorRecorder, tone_level

QUIET = ["--yes", "--skip-voices", "--skip-model"]


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def config(home: Path) -> dict[str, object]:
    return tomllib.loads((home / "config" / "config.toml").read_text(encoding="utf-8"))


def test_setup_writes_the_config_and_is_safe_to_run_again(home: Path) -> None:
    code, out = invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "text", "--backend", "espeak")
    assert code == 0, out
    assert config(home) == {"audio": {"table": "none", "host": "", "mic": "default", "echo_cancel": "",
                                      "keypad": "auto"},
                            "voice": {"backend": "espeak", "name": "", "volume": "0", "pace": "1"},
                            "game": {"lang": "zh-Hans", "input": "text", "read_back": "irreversible", "judge_name": "",
                                     "seat_doubt": "always", "doubt_gap": "3", "drop_forms": ""},
                            "web": {"listen": "auto"}}
    code, out = invoke("setup", *QUIET, "--no-test", "--lang", "zh-Hant")
    assert code == 0, out
    again = config(home)
    assert again["game"]["lang"] == "zh-Hant" and again["game"]["input"] == "text" and again["audio"]["table"] == "none"  # type: ignore[index]


def test_setup_reports_a_device_that_is_not_there(home: Path) -> None:
    code, out = invoke("setup", *QUIET, "--no-test", "--input", "text", "--table", "no-such-speaker-xyz")
    assert code == 1
    assert "no device 'no-such-speaker-xyz'" in out and "run `narrator setup` again" in out
    code, out = invoke("setup", *QUIET, "--input", "telepathy")
    assert code == 2 and "unknown input telepathy" in out


def test_a_machine_without_speakers_is_told_how_to_play_anyway(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No sound card: `play` and `setup` name `none` (the table's lines on this screen) beside `narrator devices`,
    and `setup` says when and why it leaves the microphone alone."""
    monkeypatch.setattr("narrator.play.devices.all_devices", lambda: [])
    code, out = invoke("play", "--input", "text")
    assert code == 2 and "no output device" in out, out
    assert "--table-device none" in out and "`narrator devices`" in out, out
    code, out = invoke("setup", *QUIET, "--no-test", "--input", "text", "--table", "default", "--backend", "espeak")
    assert code == 1 and "--table none" in out, out
    assert "microphone: not used (input text does not listen)" in out, out
    assert "`narrator setup --input voice,keypad --mic DEVICE`" in out, out


def test_doctor_says_ready_or_each_problem_with_its_fix(home: Path) -> None:
    code, out = invoke("doctor")
    assert "no config at" in out and "fix: narrator setup" in out
    invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "text", "--backend", "espeak")
    code, out = invoke("doctor", "--cache-dir", str(home / "empty-cache"))
    assert code == 0, out
    assert "lines missing for zh-Hans" in out and "fix: narrator voices build --lang zh-Hans" in out
    assert "ready for a game" in out
    cfg = home / "config" / "config.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('table = "none"', 'table = "no-such-speaker-xyz"'))
    code, out = invoke("doctor")
    assert code == 1 and "no device 'no-such-speaker-xyz'" in out and "fix: narrator setup --table DEVICE" in out
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('table = "no-such-speaker-xyz"', 'table = "none"')
                   .replace('input = "text"', 'input = "voice,text"'))
    code, out = invoke("doctor")
    assert code == 1 and "fix: narrator model install" in out
    cfg.write_text("[audio\ntable = 3")
    code, out = invoke("doctor")
    assert code == 1 and "not a readable TOML file" in out and "run `narrator setup`" in out


@pytest.mark.slow
def test_setup_plays_a_test_tone_on_each_chosen_speaker(pulse: object, home: Path) -> None:
    room, host = MonitorRecorder("room.monitor"), MonitorRecorder("host.monitor")
    try:
        code, out = invoke("setup", *QUIET, "--table", "pulse:room", "--host", "pulse:host", "--input", "text")
    finally:
        heard_room, heard_host = room.stop(), host.stop()
    assert code == 0, out
    assert config(home)["audio"] == {"table": "pulse:room", "host": "pulse:host", "mic": "default", "echo_cancel": "",
                                     "keypad": "auto"}
    for heard in (heard_room, heard_host):
        assert tone_level(heard, 880.0) > 0.1, tone_level(heard, 880.0)  # the tone is 0.3 full scale
    assert np.abs(heard_room).max() > 0.05


def test_a_failed_model_step_keeps_the_inputs_that_work_and_says_its_fix_once(home: Path) -> None:
    bogus = home / "model.zip"
    bogus.write_bytes(b"not a model")
    code, out = invoke("setup", "--yes", "--skip-voices", "--no-test", "--model-zip", str(bogus),
                       "--input", "voice,keypad", "--table", "none")
    assert code == 1, out
    [failed] = [line for line in out.splitlines() if line.startswith("✗ speech model")]
    assert failed.count("--from-zip") == 1 and failed.count("nothing was installed") == 1, failed
    assert config(home)["game"]["input"] == "keypad"  # type: ignore[index]
    assert "input=keypad until the speech model is installed" in out
    code, out = invoke("doctor")
    assert not any(line.startswith("✗") and "speech model" in line for line in out.splitlines()), out


@pytest.mark.slow
def test_a_silent_microphone_is_not_ticked(pulse: object, home: Path) -> None:
    """The monitor of a sink nobody plays to records digital silence (−120 dBFS): that is no microphone."""
    code, out = invoke("setup", *QUIET, "--input", "voice,keypad", "--table", "none", "--mic", "pulse:room.monitor")
    assert code == 1, out
    assert "✗ the microphone heard nothing (loudest -120 dBFS" in out and "✓ mic" not in out


def test_the_level_check_itself() -> None:
    from narrator.play.setup import mic_problem

    assert mic_problem([-120.0] * 30) is not None and mic_problem([]) is not None
    assert mic_problem([-90.0, -48.0, -75.0]) is None  # a quiet room's noise is well above digital silence
def test_doctor_tells_how_to_measure_the_ear_and_shows_the_last_measurement(home: Path) -> None:
    from narrator.listen.measure import Report, save_last

    invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "voice", "--backend", "espeak")
    _, out = invoke("doctor")
    assert "the ear was never measured in this room" in out and "fix: narrator model test PHRASES.yaml" in out
    clean, noisy = Report(None), Report(10.0)
    for outcome in ("correct", "correct", "correct", "wrong"):
        clean.add("wolves.kill", outcome, "七号", "七号")
    for outcome in ("correct", "again"):
        noisy.add("witch.save", outcome, "救", "救")
    save_last(home / "data", Path("my-room.yaml"), [clean, noisy])
    _, out = invoke("doctor")
    assert "last `narrator model test`" in out and "my-room.yaml" in out, out
    assert "clean: 75% right, 25% wrong; SNR 10 dB: 50% right, 0% wrong" in out


def test_the_keypad_is_chosen_by_setup_checked_by_doctor_and_listed_by_devices(home: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A USB keypad the input layer has (the listing stands in for /dev/input here): `setup --keypad` takes it by
    part of its name, `doctor` finds it; one that is not plugged in is a problem with its fix; a full keyboard
    is listed but never taken by "auto"."""
    from narrator.listen import evkeys

    pad = evkeys.InputDevice("/dev/input/by-id/usb-Keypad_Co-event-kbd", "Keypad Co USB Numeric Keypad", True)
    board = evkeys.InputDevice("/dev/input/event3", "AT Translated Set 2 keyboard", False)
    monkeypatch.setattr(evkeys, "available", lambda: True)
    monkeypatch.setattr(evkeys, "keypads", lambda: [pad, board])
    code, out = invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "keypad", "--keypad", "numeric")
    assert code == 0, out
    assert f"✓ keypad: numeric → {pad.path} ({pad.name})" in out
    assert config(home)["audio"]["keypad"] == "numeric"  # type: ignore[index]
    code, out = invoke("doctor")
    assert f"✓ keypad: numeric → {pad.path}" in out
    code, out = invoke("devices")
    assert "Inputs — keypads:" in out and f"{pad.path}  {pad.name}  (numeric keypad)" in out
    assert f"{board.path}  {board.name}\n" in out  # listed, not numeric
    assert "Outputs (" in out and "Inputs — microphones:" in out
    assert evkeys.find("auto") == pad

    monkeypatch.setattr(evkeys, "keypads", lambda: [board])  # the keypad unplugged: auto never takes a keyboard
    assert evkeys.find("auto") is None
    code, out = invoke("doctor")
    assert "✗ keypad: no keypad 'numeric'" in out and "fix: plug it in, or `narrator setup --keypad auto`" in out
    code, out = invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "keypad", "--keypad", "auto")
    assert code == 0 and "⚠ keypad: no numeric keypad is plugged in" in out  # auto waits for one: no failure
    code, out = invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "keypad", "--keypad", "gamepad")
    assert code == 1 and "✗ no keypad 'gamepad'" in out


def test_setup_calibrates_the_host_voice_on_the_microphone_the_game_uses(home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`setup --calibrate` runs the calibration by voice (narrator/play/calibration.py; its rules are tested in
    tests/listen/test_calibrate_by_voice.py, through the room in tests/room/test_room_calibrate.py) on the
    config's microphone, the judge's lines printed, and keeps what it wrote; --no-calibrate skips it."""
    from narrator.listen.setup import EarOptions
    from narrator.play import calibration

    runs: list[EarOptions] = []

    def run(opts: EarOptions, say: object, echo: object, config: object) -> object:
        runs.append(opts)
        config.game.drop_forms = "一号:일호"  # type: ignore[attr-defined]
        return object()

    monkeypatch.setattr(calibration, "run", run)
    monkeypatch.setattr("narrator.play.devices.check_device", lambda value, key, needs_input=False: value)
    code, out = invoke("setup", *QUIET, "--no-test", "--table", "none", "--input", "voice,keypad",
                       "--mic", "pulse:desk", "--calibrate", "--keypad", "terminal")
    assert code == 0, out
    assert [o.mic for o in runs] == ["pulse:desk"]
    assert config(home)["game"]["drop_forms"] == "一号:일호"  # type: ignore[index]
    code, out = invoke("setup", *QUIET, "--no-test", "--table", "none", "--no-calibrate")
    assert code == 0 and len(runs) == 1, out
