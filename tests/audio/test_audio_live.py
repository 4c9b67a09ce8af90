"""Real audio: a short night played through sounddevice into PulseAudio null sinks and recorded back.

The table speaker is the null sink "room", the host's earpiece the null sink "host"; parec records each
sink's monitor. The recording of "room" is compared with the offline render of the same items through
the same mixer (alignment by cross-correlation), then checked for: speech where the lines are, the bed
under them ducked by the configured depth, and no trace of the host's line.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from audio_testkit import (
    HOST_TONE_HZ,
    SR,
    Mixed,
    MonitorRecorder,
    align,
    band_levels,
    espeak,
    fit_gains,
    host_tone,
    mix_offline,
    rms_db,
    tone_level,
)

from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer, MixerConfig
from narrator.audio.playback import OutputConfig, Player
from narrator.judge.lines import Line

pytestmark = pytest.mark.slow

CONFIG = MixerConfig(duck_db=-12.0, bed_crossfade_s=0.5)
NIGHT = Line("天黑请闭眼。", key="night_fell", bed="night")
OPEN = Line("预言家请睁眼。", key="step.seer.open")
CLOSE = Line("预言家请闭眼。", key="step.seer.close")
ASK = Line("预言家查验了谁？", to="host", key="prompt.seer.check")
PAUSE_S = 1.6


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Line, np.ndarray, float]]:
    tmp: Path = tmp_path_factory.mktemp("espeak")
    public = [(line, espeak(line.text, tmp), PAUSE_S) for line in (NIGHT, OPEN, CLOSE)]
    # The host line plays at the same time as the first public line: the hardest case for a leak.
    return [public[0], (ASK, host_tone(1.2), 0.0), *public[1:]]


def play_and_record(items: list[tuple[Line, np.ndarray, float]], host_out: bool) -> dict[str, np.ndarray]:
    """Play the items live and record both sinks. An output underflow inserts silence into the sink (a
    starved machine, not a mixing error), so a take with underflows is retried; three in a row fail."""
    # A roomier buffer than the Player's default: the test checks the mix, not the latency.
    room = OutputConfig(device="pulse", pulse_sink="room", blocksize=480, latency=0.2)
    host = OutputConfig(device="pulse", pulse_sink="host", blocksize=480, latency=0.2)
    for _ in range(3):
        recorders = {sink: MonitorRecorder(f"{sink}.monitor") for sink in ("room", "host")}
        mixer = Mixer(builtin_sounds(), CONFIG)
        player = Player(mixer, room, host if host_out else None)
        try:
            player.start(ready_timeout_s=10.0)
            for line, clip, pause in items:
                player.say(line, clip, pause)
            assert player.wait_drained(timeout_s=30.0)
            underflows = player.underflows
        finally:
            player.close()
        recorded = {sink: rec.stop() for sink, rec in recorders.items()}
        if underflows == 0:
            return recorded
    pytest.fail(f"{underflows} output underflows on each of 3 takes: the machine is too busy to play audio")


def expected(items: list[tuple[Line, np.ndarray, float]], **config: float) -> Mixed:
    """What the room should hear: the same items through a fresh mixer, no fade tail."""
    cfg = MixerConfig(**{**CONFIG.__dict__, **config})
    return mix_offline([it for it in items if it[0].to == "all"], Mixer(builtin_sounds(), cfg), tail_s=0.0)


def test_a_night_through_pulseaudio(pulse: object, night: list[tuple[Line, np.ndarray, float]]) -> None:
    rec = play_and_record(night, host_out=True)
    want = expected(night)
    room, corr = align(rec["room"], want.public)
    assert corr > 0.95, f"room recording does not match the mix (correlation {corr:.3f})"

    # Windows: during each line's speech, and the bed-only stretch after it (past the duck's release).
    clip_s = {line.key: len(clip) / SR for line, clip, _ in night}
    during, between = [], []
    for placed in want.timeline:
        end = placed.speech_s + clip_s[placed.line.key]
        during.append(slice(int((placed.speech_s + 0.15) * SR), int((end - 0.05) * SR)))
        between.append(slice(int((end + 0.45) * SR), int((placed.end_s - 0.15) * SR)))

    # Speech energy sits where the lines are. (1) Model-free: in the speech band (1-3.5 kHz) every line
    # window has frames 20 dB above the typical level between lines. (2) With the bed removed (the
    # ducked bed rendered alone), what is left is speech, and it is inside the line windows only.
    gap_level = np.median(np.concatenate([band_levels(room[w]) for w in between]))
    for placed, w in zip(want.timeline, during, strict=True):
        assert np.max(band_levels(room[w])) > gap_level + 20, placed.line.key
    silent_speech = [(line, np.zeros_like(clip), p) for line, clip, p in night]
    ducked_bed = expected(silent_speech).public
    residual = room - ducked_bed
    inside = np.zeros(len(residual), bool)
    for placed in want.timeline:
        inside[int(placed.speech_s * SR) : int((placed.speech_s + clip_s[placed.line.key]) * SR)] = True
    for placed, w in zip(want.timeline, during, strict=True):
        assert rms_db(residual[w]) > rms_db(residual[~inside]) + 25, placed.line.key

    # The bed is under the speech, ducked by the configured depth: fit the recording as
    # g_bed * (undocked bed) + g_speech * (speech) in windows during the lines and between them.
    bed = expected(silent_speech, duck_db=0.0).public
    speech_only = want.public - ducked_bed
    for s_in, s_out in zip(during[1:], between[1:], strict=True):  # the first one is in the bed's fade-in
        g_in = fit_gains(room[s_in], bed[s_in], speech_only[s_in])[0]
        g_out = fit_gains(room[s_out], bed[s_out], speech_only[s_out])[0]
        assert g_out == pytest.approx(1.0, abs=0.25), "bed level between lines"
        assert g_in > 0.1, "the bed keeps playing under the speech"
        assert 20 * np.log10(g_in / g_out) == pytest.approx(CONFIG.duck_db, abs=2.0)

    # The secret line reached the earpiece and nothing of it reached the table.
    on_host = tone_level(rec["host"], HOST_TONE_HZ)
    on_room = tone_level(rec["room"], HOST_TONE_HZ)
    assert on_host > 0.2, f"host line missing from host.monitor ({on_host:.4f})"
    assert on_room < on_host / 1000, f"host signature on room.monitor: {on_room:.2e} vs {on_host:.2e}"


def test_without_an_earpiece_host_lines_are_never_played(
    pulse: object, night: list[tuple[Line, np.ndarray, float]], capsys: pytest.CaptureFixture[str]
) -> None:
    rec = play_and_record(night, host_out=False)
    _, corr = align(rec["room"], expected(night).public)
    assert corr > 0.95
    assert tone_level(rec["room"], HOST_TONE_HZ) < 1e-4
    assert tone_level(rec["host"], HOST_TONE_HZ) < 1e-4
    assert ASK.text in capsys.readouterr().err  # shown on the host's console instead


def test_a_missing_earpiece_fails_start_and_closes_the_table_stream(pulse: object) -> None:
    player = Player(Mixer(builtin_sounds()), OutputConfig(device="pulse", pulse_sink="room"),
                    OutputConfig(device=9999))
    with pytest.raises(Exception, match=r"9999|[Dd]evice"):
        player.start()
    assert player.output_latency_s == 0.0  # no stream left open


def test_a_resting_player_stops_its_streams_and_the_next_line_starts_them(pulse: object) -> None:
    """`serve`'s lobby rests its streams while it waits (nothing queued, no bed): PortAudio stops calling back,
    nothing is reported lost, and the next line — from the mixer, whoever queues it — starts them again and
    is heard whole on the table's sink."""
    room = OutputConfig(device="pulse", pulse_sink="room", blocksize=480, latency=0.2)
    mixer = Mixer(builtin_sounds(), CONFIG)
    player = Player(mixer, room, OutputConfig(device="pulse", pulse_sink="host"))
    line = Line("好的，十二人。", key="lobby.players.said")
    try:
        player.start(ready_timeout_s=10.0)
        mixer.switch_bed("day")
        assert not player.rest()  # a bed plays: the table hears it
        mixer.switch_bed("off")
        assert player.wait_drained(timeout_s=10.0)
        deadline = time.monotonic() + 10.0  # the bed fades out, the duck recovers
        while not player.rest():
            assert time.monotonic() < deadline, "never quiet after the bed went off"
            time.sleep(0.05)
        calls = {name: ch.calls for name, ch in player._channels.items()}
        time.sleep(0.3)
        assert {name: ch.calls for name, ch in player._channels.items()} == calls  # no callback while resting
        assert player.resting and player.stopped() == []  # stopped on purpose: no device is lost
        recorder = MonitorRecorder("room.monitor")
        time.sleep(0.3)
        ticket = player.say(line, host_tone(1.0), 0.2)  # the mixer's waker starts the streams
        assert not player.resting and player.stopped() == []
        assert player.wait_drained(timeout_s=10.0) and ticket is not None and ticket.done
        underflows = player.underflows
    finally:
        player.close()
    recorded = recorder.stop()
    assert mixer.waker is None  # closed: nothing left to wake
    if underflows == 0:  # a starved machine inserts silence: the level is then no proof either way
        assert tone_level(recorded, HOST_TONE_HZ) == pytest.approx(0.3, abs=0.06)
