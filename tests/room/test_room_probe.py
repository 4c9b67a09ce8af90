"""The room's probe (roomkit.Room(probe=True)), the instrument of the room latency benchmark
(scripts/bench_room.py start): the host's mouth, the table, the earpiece and the microphone are four
channels of one sink, so one recording times them all on one sample clock. Checked here: each sink lands on
its own column, the microphone hears the host a few ms after his mouth and the table ~20 ms after the
speaker, and the earpiece is not in the room."""

from __future__ import annotations

import time

import pytest
from roomkit import PROBE, RATE, SPEAKER_DELAY_MS, Room, espeak, lag_s, play, probe_recorder, sound_spans

pytestmark = pytest.mark.slow


def test_one_recording_times_the_host_the_table_and_the_microphone(pulse: object) -> None:
    words = espeak("시작", "ko")
    with Room(echo_cancel=None, probe=True):
        recorder = probe_recorder()
        time.sleep(0.3)
        play(words, sink="voice").wait(timeout=30)  # the host
        time.sleep(0.3)
        play(words, sink="table").wait(timeout=30)  # the judge's speaker
        time.sleep(0.3)
        play(words, sink="earpiece").wait(timeout=30)  # the host's ear only
        time.sleep(0.3)
        rec = recorder.stop()
    mouth, table, earpiece, mic = (sound_spans(rec[:, i], RATE) for i in range(len(PROBE)))
    assert len(mouth) == len(table) == len(earpiece) == 1
    assert mouth[0][1] < table[0][0] and table[0][1] < earpiece[0][0]  # each on its own column, in order
    assert len(mic) == 2  # the host and the speaker, not the earpiece
    a, b = round(mouth[0][0] * RATE), round((mouth[0][1] + 0.3) * RATE)
    assert 0.0 < lag_s(rec[a:b, 0], rec[a:b, list(PROBE).index("air")], RATE) < 0.05  # mouth → microphone
    speaker_delay = mic[1][0] - table[0][0]
    assert abs(speaker_delay - SPEAKER_DELAY_MS / 1000) < 0.015, speaker_delay
