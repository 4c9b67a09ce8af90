"""The mixer: queues, ducking ramps, bed loop and crossfades, channel isolation, real-time discipline."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from audio_testkit import SR, constant_bank, host_tone, tone_level, voiced_burst

from narrator.audio.beds import SoundBank, builtin_sounds
from narrator.audio.mixer import Mixer, MixerConfig
from narrator.judge.lines import Line

LEVEL = 0.1  # constant bed value: with silent speech, public output / LEVEL is the bed gain itself
CFG = MixerConfig(duck_db=-12.0, attack_s=0.08, release_s=0.30, bed_crossfade_s=0.5)
DUCK = 10 ** (-12 / 20)


def silent(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SR), np.float32)


def pull_all(mixer: Mixer, frames: int, block: int = 240) -> tuple[np.ndarray, np.ndarray]:
    pubs, hosts = [], []
    for a in range(0, frames, block):
        p, h = mixer.pull(min(block, frames - a))
        pubs.append(p)
        hosts.append(h)
    return np.concatenate(pubs), np.concatenate(hosts)


def bed_running(config: MixerConfig = CFG, bank: SoundBank | None = None) -> Mixer:
    """A mixer whose constant night bed has fully faded in."""
    mixer = Mixer(bank or constant_bank(LEVEL), config)
    mixer.switch_bed("night")
    pull_all(mixer, SR)
    return mixer


def test_duck_reaches_the_configured_depth_with_ramps_not_steps() -> None:
    mixer = bed_running()
    start = mixer.frames_played("all")
    t = mixer.enqueue(silent(1.0), "all", pause_after_s=1.0)
    out, _ = pull_all(mixer, 2 * SR)
    gain = out / LEVEL
    assert (t.speech_frame, t.end_frame) == (start, start + 2 * SR)
    attack, release = int(0.08 * SR), int(0.30 * SR)
    # Fully ducked from the end of the attack to the end of the speech, exactly the configured depth.
    np.testing.assert_allclose(gain[attack : SR], DUCK, atol=1e-5)
    assert 20 * np.log10(np.median(gain[attack:SR])) == pytest.approx(-12.0, abs=0.01)
    # Attack: linear from 1 to the duck over 80 ms, no jump larger than one ramp step.
    att = gain[:attack]
    assert np.all(np.diff(att) < 0)
    assert att[attack // 2] == pytest.approx(1 - (1 - DUCK) / 2, abs=0.01)
    # Release: back to 1 over 300 ms after the speech ends.
    rel = gain[SR : SR + release + 1]
    assert np.all(np.diff(rel) >= 0)
    assert rel[release // 2] == pytest.approx(1 - (1 - DUCK) / 2, abs=0.01)
    np.testing.assert_allclose(gain[SR + release + 1 :], 1.0, atol=1e-6)
    step = np.max(np.abs(np.diff(gain)))
    assert step <= (1 - DUCK) / attack * 1.01  # never a step


def test_known_speech_is_ducked_from_its_first_sample() -> None:
    # Speech queued behind a pause: the attack starts early so the bed is down when the voice starts.
    mixer = bed_running()
    mixer.enqueue(silent(0.5), "all", pause_after_s=1.0)
    t2 = mixer.enqueue(silent(0.5), "all", pause_after_s=0.0)
    start = mixer.frames_played("all")
    gain = pull_all(mixer, 2 * SR)[0] / LEVEL
    assert t2.speech_frame is not None
    s2 = t2.speech_frame - start
    assert gain[s2] == pytest.approx(DUCK, abs=1e-5)
    assert gain[s2 - int(0.08 * SR) - 1] == pytest.approx(1.0, abs=1e-5)  # and not earlier than needed


def test_duck_depth_is_configurable_and_zero_disables_it() -> None:
    for db in (-6.0, -20.0, 0.0):
        mixer = bed_running(MixerConfig(duck_db=db, bed_crossfade_s=0.5))
        mixer.enqueue(silent(1.0), "all")
        gain = pull_all(mixer, SR)[0] / LEVEL
        assert 20 * np.log10(gain[SR // 2]) == pytest.approx(db, abs=0.01)


def test_gain_never_steps_through_a_busy_schedule() -> None:
    rng = np.random.default_rng(0)
    mixer = bed_running()
    for _ in range(30):
        mixer.enqueue(silent(rng.uniform(0.0, 0.4)), "all", pause_after_s=rng.uniform(0.0, 0.3))
    gain = pull_all(mixer, 10 * SR, block=173)[0] / LEVEL
    assert np.max(np.abs(np.diff(gain))) <= (1 - DUCK) / (0.08 * SR) * 1.01
    assert gain.min() >= DUCK - 1e-6


def test_bed_crossfade_is_equal_power_and_gradual() -> None:
    sounds = dict(builtin_sounds().sounds)
    sounds["night"] = np.full(SR, LEVEL, np.float32)
    sounds["day"] = np.zeros(SR, np.float32)
    mixer = bed_running(bank=SoundBank(sounds))
    mixer.switch_bed("day")
    out = pull_all(mixer, SR)[0] / LEVEL
    fade = int(0.5 * SR)
    # The night bed alone is audible: it follows cos(pi/2 * u) down to silence over the crossfade.
    assert out[fade // 2] == pytest.approx(np.sin(np.pi / 4), abs=0.002)
    assert np.all(np.diff(out[: fade + 1]) <= 1e-7)
    assert np.max(np.abs(np.diff(out))) < 5.0 / fade
    np.testing.assert_array_equal(out[fade + 1 :], 0.0)
    assert mixer.bed == "day"


def test_bed_off_fades_out_and_back_in_without_restarting_the_loop() -> None:
    mixer = bed_running()
    mixer.switch_bed("off")
    out = pull_all(mixer, SR)[0]
    assert out[0] == pytest.approx(LEVEL, abs=1e-3) and np.all(out[int(0.51 * SR) :] == 0)
    assert mixer.bed == "off"
    mixer.switch_bed("night")
    back = pull_all(mixer, SR)[0]
    assert back[0] < 1e-3 and back[-1] == pytest.approx(LEVEL)


def test_bed_loops_sample_exact_in_the_mixer() -> None:
    sounds = dict(builtin_sounds().sounds)
    loop = (np.arange(1000) / 1000 * LEVEL).astype(np.float32)
    sounds["night"] = loop
    mixer = Mixer(SoundBank(sounds), MixerConfig(bed_crossfade_s=0.001))
    mixer.switch_bed("night")
    out = pull_all(mixer, 5300, block=333)[0]
    np.testing.assert_array_equal(out[100:], np.tile(loop, 6)[100:5300])


def test_cue_then_speech_then_pause_are_placed_back_to_back() -> None:
    bank = builtin_sounds()
    mixer = Mixer(bank, CFG)
    speech = voiced_burst(0.5)
    t = mixer.enqueue(speech, "all", pause_after_s=0.25, cue="tick")
    out = pull_all(mixer, SR)[0]
    tick = bank["tick"]
    assert (t.start_frame, t.speech_frame, t.end_frame) == (0, len(tick), len(tick) + len(speech) + SR // 4)
    np.testing.assert_array_equal(out[: len(tick)], tick)  # no bed yet, so exactly the cue...
    np.testing.assert_array_equal(out[len(tick) : len(tick) + len(speech)], speech)  # ...then the speech
    assert np.all(out[t.end_frame :] == 0) and t.done and mixer.is_drained()


def test_host_lines_never_reach_the_public_output() -> None:
    def run(with_secret: bool) -> tuple[np.ndarray, np.ndarray]:
        mixer = Mixer(builtin_sounds(), CFG)
        mixer.enqueue(voiced_burst(1.0), "all", 0.5, bed="night")
        if with_secret:
            mixer.enqueue(host_tone(1.0), "host", 0.2, cue="tick")
            mixer.enqueue_line(Line("预言家查验了谁？", to="host"), host_tone(0.5), 0.0)
        mixer.enqueue(voiced_burst(0.8), "all", 0.5)
        return pull_all(mixer, 4 * SR)

    plain, _ = run(False)
    public, host = run(True)
    np.testing.assert_array_equal(public, plain)  # bit for bit: host items change nothing in public
    assert tone_level(public, 7000.0) < 1e-5
    assert tone_level(host, 7000.0) > 0.25
    # The host channel has no bed either: after the host items it is digital silence.
    assert np.all(host[int(1.8 * SR) :] == 0)


def test_output_does_not_depend_on_block_size() -> None:
    def run(block: int) -> np.ndarray:
        mixer = Mixer(builtin_sounds(), MixerConfig(max_block=1024))
        mixer.enqueue(voiced_burst(0.7), "all", 0.3, cue="dawn", bed="night")
        mixer.enqueue(voiced_burst(0.4), "all", 0.1, bed="day")
        mixer.enqueue(voiced_burst(0.4), "all", 0.0, bed="off")
        return pull_all(mixer, 6 * SR, block)[0]

    ref = run(240)
    for block in (1, 7, 1000, 5000):
        np.testing.assert_allclose(run(block)[: len(ref)], ref, atol=2e-7)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"channel": "table"}, "channel"),
        ({"channel": "host", "bed": "night"}, "public only"),
        ({"bed": "dusk"}, "beds are"),
        ({"cue": "gong"}, "unknown cue"),
        ({"pause_after_s": -1.0}, "pause_after_s"),
        ({"pause_after_s": float("nan")}, "pause_after_s"),
    ],
)
def test_enqueue_refuses_bad_requests(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Mixer(builtin_sounds()).enqueue(silent(0.1), **kwargs)  # type: ignore[arg-type]


def test_enqueue_refuses_stereo() -> None:
    with pytest.raises(ValueError, match="mono"):
        Mixer(builtin_sounds()).enqueue(np.zeros((100, 2), np.float32))


def test_pull_allocates_nothing_per_block() -> None:
    """Nor does the block's stamp (a store into the mixer's ring)."""
    mixer = Mixer(builtin_sounds(), MixerConfig(max_block=4096))
    mixer.enqueue(voiced_burst(2.0), "all", 0.5, cue="bell", bed="night")
    mixer.enqueue(voiced_burst(2.0), "all", 0.5, bed="day")  # crossfade while ducked: every code path
    out = np.empty(4096, np.float32)
    mixer.pull_public_into(out)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(20):  # what the Player's callback does per block: the pull, then the block's stamp
            frame = mixer.frames_played("all")
            mixer.pull_public_into(out)
            mixer.stamp("all", frame, 100.0 + i * 0.17, now=100.0)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    # A single block-sized temporary would be 16 KiB (float32) or 32 KiB (float64).
    assert peak < 4096, f"pull allocated {peak} bytes at peak"


def test_what_is_playing_is_every_line_and_cue_until_its_last_sample_left_the_device() -> None:
    """The ear's one truth: a timer cue alone, a host line, a table line — whoever queued them — count until
    their last sample is out of the device (the player's stamp), the bed never does."""
    mixer = Mixer(builtin_sounds())
    mixer.switch_bed("night")
    assert mixer.voiced_until(now=0.0) == -math.inf  # not played live: nothing to be deaf to
    mixer.stamp("all", 0, 100.0, now=100.0)
    mixer.pull(SR)  # a second of night bed
    assert mixer.voiced_until(now=100.5) == -math.inf
    mixer.enqueue(np.zeros(0, np.float32), "all", 0.0, cue="tick")  # a timer cue alone, no speech
    assert mixer.voiced_until(now=100.5) == math.inf  # queued: deaf from now on
    cue = mixer.cue_frames("tick")
    mixer.stamp("all", mixer.frames_played("all"), 101.0, now=100.9)
    mixer.pull(cue + SR // 2)
    assert mixer.voiced_until(now=101.0) == pytest.approx(101.0 + cue / SR)
    mixer.stamp("host", mixer.frames_played("host"), 103.0, now=103.0)
    mixer.enqueue(voiced_burst(0.5), "host", 1.0)  # the earpiece counts too; its pause after does not
    assert mixer.voiced_until(now=103.0) == math.inf
    mixer.pull(SR * 2)
    assert mixer.voiced_until(now=103.0) == pytest.approx(103.5)
    mixer.enqueue(voiced_burst(0.5), "all", 0.0)
    assert mixer.voiced_until(now=103.0) == math.inf
    # A player that stopped stamping (its device gone) plays nothing; a closed one neither.
    assert mixer.voiced_until(now=100.9 + 10.0) == pytest.approx(103.5)
    mixer.unstamp("all")
    mixer.unstamp("host")
    assert mixer.voiced_until(now=104.0) == -math.inf


@pytest.mark.parametrize(("section", "key"), [("timer", "speech.warning"), ("events", "please_wait")])
def test_the_ear_listens_through_the_lines_said_while_the_host_talks(section: str, key: str) -> None:
    """"还剩十五秒。" and "请稍等。" (LISTENED_THROUGH) are left out of what the ear is deaf to — the cue is said in a
    speech, 请稍等 while the host answers a slow step — while the line before it still counts until its last
    sample is out."""
    from narrator.audio.mixer import LISTENED_THROUGH
    from narrator.judge.script import Script

    script = Script("zh-Hans")
    warning = script.line(section, key)
    assert warning.key in LISTENED_THROUGH and script.line("timer", "speech.timeout").key not in LISTENED_THROUGH
    mixer = Mixer(builtin_sounds())
    mixer.stamp("all", 0, 100.0, now=100.0)
    mixer.enqueue_line(script.line("timer", "speech.timeout"), voiced_burst(0.5), 0.0)  # another line: deaf
    mixer.enqueue_line(warning, voiced_burst(1.0), 0.0)
    assert mixer.voiced_until(now=100.0) == math.inf
    mixer.pull(SR // 2)  # the first line has been played; the cue is playing
    assert mixer.voiced_until(now=100.0) == pytest.approx(100.5)
    mixer.pull(SR)
    assert mixer.voiced_until(now=100.0) == pytest.approx(100.5)  # the cue never counted


def test_the_mixer_says_when_a_line_listened_through_left_the_device() -> None:
    """`through_between`: the span the table's 请稍等 left the device, from the player's stamp — while it plays
    and after; not before it, nor for a line the ear is deaf to anyway."""
    from narrator.judge.script import Script

    script = Script("zh-Hans")
    mixer = Mixer(builtin_sounds())
    mixer.stamp("all", 0, 100.0, now=100.0)
    mixer.enqueue_line(script.line("timer", "speech.timeout"), voiced_burst(0.5), 0.5)  # deaf to it: not counted
    mixer.enqueue_line(script.line("events", "please_wait"), voiced_burst(1.0), 0.0)  # from 101.0 to 102.0
    mixer.pull(SR)
    assert not mixer.through_between(99.0, 101.0)
    mixer.pull(SR // 2)
    assert mixer.through_between(101.4, 101.5) and mixer.through_between(105.0, 106.0)  # still playing
    mixer.pull(SR)
    assert mixer.through_between(101.9, 102.1)
    assert not mixer.through_between(102.05, 103.0) and not mixer.through_between(100.0, 100.9)


def test_what_the_table_played_over_the_cue_is_kept_for_the_ear() -> None:
    """The ear takes the cue out of an utterance that overlapped it (narrator/listen/unmix.py): the mixer gives
    what the table played, sample for sample, from the stretch's time on the player's clock — only where a
    listened-through line lay, only what is still in its history and has been handed out."""
    from narrator.audio.mixer import HISTORY_S
    from narrator.judge.script import Script

    script = Script("zh-Hans")
    mixer = Mixer(builtin_sounds())
    mixer.switch_bed("day")
    assert mixer.heard_through(99.0, 101.0) is None  # not played live
    mixer.stamp("all", 0, 100.0, now=100.0)
    mixer.enqueue_line(script.line("timer", "speech.timeout"), voiced_burst(0.5), 0.5)  # a line the ear is deaf to
    first, _ = mixer.pull(SR)
    assert mixer.heard_through(100.0, 101.0) is None  # no cue among it: nothing to take out
    mixer.enqueue_line(script.line("timer", "speech.warning"), voiced_burst(1.0), 0.0)
    cue, _ = mixer.pull(SR * 2)
    played = np.concatenate([first, cue])
    got = mixer.heard_through(100.8, 101.6)  # the end of the line's pause, the start of the cue
    assert got is not None
    np.testing.assert_array_equal(got, played[round(0.8 * SR) : round(1.6 * SR)])
    got = mixer.heard_through(101.5, 104.0)  # reaching past what was handed out: ends there
    assert got is not None
    np.testing.assert_array_equal(got, played[round(1.5 * SR) :])
    at16k = mixer.heard_through(101.0, 102.0, 16_000)
    assert at16k is not None and len(at16k) == 16_000
    mixer.pull(round(HISTORY_S * SR))  # the cue is out of the history
    assert mixer.heard_through(101.0, 102.0) is None


def test_each_block_of_the_table_is_placed_where_it_played_gaps_included() -> None:
    """The device underflowed (80 ms of silence) in the middle of the cue: every block after the gap left later
    than the frames before it say. The Player stamps every block, late by its callback's wake-up (0-4 ms; now
    and then one on time), never early; what the mixer gives the ear is what left the device, sample for
    sample, the gap silent — not (as with the last stamp alone) the whole stretch 80 ms early before the gap."""
    from narrator.audio.mixer import placed
    from narrator.judge.script import Script

    rng = np.random.default_rng(7)
    mixer = Mixer(builtin_sounds())
    mixer.switch_bed("day")
    device = np.zeros(4 * SR, np.float32)  # what left the device, on the ear's clock (t = 100 + index / SR)
    gap_at, gap = round(1.5 * SR), round(0.08 * SR)
    for i in range(3 * SR // 240):
        frame = mixer.frames_played("all")
        if frame == SR:
            mixer.enqueue_line(Script("zh-Hans").line("timer", "speech.warning"), voiced_burst(1.0), 0.0)
        block, _ = mixer.pull(240)
        at = frame + (gap if frame >= gap_at else 0)
        device[at : at + 240] = block
        late = rng.uniform(0.0, 0.004) if i % 10 else 0.0  # one callback in ten runs at once
        mixer.stamp("all", frame, 100.0 + at / SR + late, now=100.0)
    got = mixer.heard_through(100.9, 102.9)
    assert got is not None
    np.testing.assert_array_equal(got, device[round(0.9 * SR) : round(2.9 * SR)])
    assert not got[round(0.6 * SR) + 1 : round(0.68 * SR)].any()  # the gap: the device played nothing
    frames = np.arange(40) * 240.0
    late = np.tile([0.0, 0.003, 0.001, 0.004], 10)  # the last stamps before the gap late: not a gap of their own
    gap = np.where(np.arange(40) >= 20, 0.06, 0.0)
    _, leaves = placed(frames, frames / SR + gap + late)
    np.testing.assert_allclose(leaves - frames / SR, gap)
