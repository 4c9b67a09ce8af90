"""Playback pieces that need no sound server: device specs, host-line routing, the callback, lazy import."""

from __future__ import annotations

import io
import math
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest
from audio_testkit import voiced_burst
from rich.console import Console

from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer
from narrator.audio.pacing import Pacer
from narrator.audio.playback import OutputConfig, Player, _Channel
from narrator.judge.lines import Line


@pytest.mark.parametrize(
    ("spec", "device", "sink"),
    [(None, None, None), ("", None, None), ("3", 3, None), ("pulse:room", "pulse", "room"),
     ("pulse:", "pulse", None), ("USB Audio", "USB Audio", None)],
)
def test_output_spec_parsing(spec: str | None, device: int | str | None, sink: str | None) -> None:
    cfg = OutputConfig.parse(spec, blocksize=128)
    assert (cfg.device, cfg.pulse_sink, cfg.blocksize) == (device, sink, 128)


def test_host_lines_without_an_earpiece_go_to_the_console_only() -> None:
    buf = io.StringIO()
    mixer = Mixer(builtin_sounds())
    player = Player(mixer, pacer=Pacer(seed=1), console=Console(file=buf, width=100))
    ticket = player.say(Line("狼人刀了谁？[空刀请说空刀]", to="host", pause="none"), voiced_burst(0.5))
    assert ticket is None
    assert mixer.is_drained()  # nothing was queued on either channel
    assert "狼人刀了谁？[空刀请说空刀]" in buf.getvalue()  # printed verbatim, not parsed as markup


def test_say_draws_the_pause_from_the_pacer() -> None:
    mixer = Mixer(builtin_sounds())
    player = Player(mixer, pacer=Pacer(seed=4))
    ticket = player.say(Line("预言家请睁眼。", pause="eyes_open"), np.zeros(100, np.float32))
    assert ticket is not None
    expected = Pacer(seed=4).draw("eyes_open")
    assert mixer.pending_frames("all") == 100 + round(expected * 24000)
    with pytest.raises(ValueError, match="pacer"):
        Player(Mixer(builtin_sounds())).say(Line("x"), np.zeros(1, np.float32))


def test_callback_counts_underflows_and_survives_errors() -> None:
    mixer = Mixer(builtin_sounds())
    mixer.enqueue(voiced_burst(0.1), "all")
    ch = _Channel.__new__(_Channel)  # the callback alone, without opening a stream
    ch.underflows = ch.calls = ch.frames = 0
    ch.error = None
    ch.mixer, ch.channel, ch.stream = mixer, "all", SimpleNamespace(latency=0.05)
    ch._pull = mixer.pull_public_into
    out = np.full((240, 1), 9.0, np.float32)
    ch._callback(out, 240, None, SimpleNamespace(output_underflow=True))
    ch._callback(out, 240, None, SimpleNamespace(output_underflow=False))
    assert (ch.underflows, ch.calls, ch.frames) == (1, 2, 480)
    assert np.all(np.abs(out) <= 1.0)
    assert mixer.voiced_until() == math.inf  # the burst is still playing: the ear is deaf
    for _ in range(10):
        ch._callback(out, 240, SimpleNamespace(outputBufferDacTime=10.03, currentTime=10.0),
                     SimpleNamespace(output_underflow=False))
    # Out of the device 30 ms (PortAudio's figure) after the block that held its last sample was written.
    stamped = time.monotonic()
    assert stamped - 0.02 < mixer.voiced_until() < stamped + 0.03

    def broken(_: np.ndarray) -> None:
        raise ZeroDivisionError("boom")

    ch._pull = broken
    ch._callback(out, 240, None, SimpleNamespace(output_underflow=False))
    assert np.all(out == 0) and isinstance(ch.error, ZeroDivisionError)
    player = Player(mixer)
    player._channels["all"] = ch
    with pytest.raises(RuntimeError, match="audio callback failed"):
        player.check()


def test_sounddevice_is_imported_lazily() -> None:
    code = ("import sys, narrator.audio.playback, narrator.audio.render, narrator.audio.mixer; "
            "print('sounddevice' in sys.modules, 'pydub' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
