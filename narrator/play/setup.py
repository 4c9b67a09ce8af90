"""`narrator setup`: prepare a device in one command, safe to run again — the speech model (the ear's
installer), the voice cache, the table/host/mic devices (each output gets a test tone, the microphone a
level meter), and the TOML config (narrator.play.config). Every step can be given by flags, so it runs
without questions (`--yes`)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from narrator.audio import SAMPLE_RATE

if TYPE_CHECKING:
    from narrator.play.config import Config

Echo = Callable[[str], None]


def tone(seconds: float = 0.8, hz: float = 880.0, level: float = 0.3) -> np.ndarray:
    """A soft sine with 20 ms fades: the test tone."""
    t = np.arange(int(seconds * SAMPLE_RATE), dtype=np.float32) / SAMPLE_RATE
    clip = (level * np.sin(2 * math.pi * hz * t)).astype(np.float32)
    fade = min(len(clip) // 2, int(0.02 * SAMPLE_RATE))
    ramp = np.linspace(0.0, 1.0, fade, dtype=np.float32)
    clip[:fade] *= ramp
    clip[len(clip) - fade:] *= ramp[::-1]
    return clip


def play_tone(spec: str) -> None:
    """Play the test tone on the output `spec` through the game's own player; raises on a bad device."""
    from narrator.audio.mixer import Mixer
    from narrator.audio.playback import OutputConfig, Player

    mixer = Mixer()
    with Player(mixer, OutputConfig.parse(None if spec == "default" else spec)) as player:
        mixer.enqueue(tone(), "all", 0.2)
        player.wait_drained(timeout_s=10)


@contextmanager
def _pulse_source(name: str | None) -> Iterator[None]:
    if name is None:
        yield
        return
    old = os.environ.get("PULSE_SOURCE")
    os.environ["PULSE_SOURCE"] = name
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PULSE_SOURCE", None)
        else:
            os.environ["PULSE_SOURCE"] = old


def mic_levels(spec: str, seconds: float = 3.0, block_s: float = 0.1) -> list[float]:
    """The microphone's loudness (dBFS) every `block_s` for `seconds`."""
    import sounddevice as sd

    device: int | str | None
    source = None
    if spec.startswith("pulse:"):
        device, source = "pulse", spec.removeprefix("pulse:") or None
    elif spec.isdigit():
        device = int(spec)
    else:
        device = None if spec == "default" else spec
    rate = 16_000
    with _pulse_source(source):
        audio = sd.rec(int(seconds * rate), samplerate=rate, channels=1, dtype="float32", device=device)
        sd.wait()
    block = int(block_s * rate)
    x = audio[:, 0]
    out = []
    for i in range(0, len(x) - block + 1, block):
        rms = float(np.sqrt(np.mean(x[i:i + block] ** 2)))
        out.append(20 * math.log10(max(rms, 1e-6)))
    return out


SILENT_DBFS = -70.0
"""dBFS. A microphone whose loudest moment stays below this heard nothing (a real one's own noise is louder):
muted, unplugged, or the wrong device."""


def mic_problem(levels: list[float]) -> str | None:
    """Why the microphone's levels say it hears nothing (one sentence with the fix), or None."""
    loudest = max(levels, default=-120.0)
    if loudest >= SILENT_DBFS:
        return None
    return (f"the microphone heard nothing (loudest {loudest:.0f} dBFS, silence is below {SILENT_DBFS:.0f}): "
            "unmute it or choose another with `narrator setup --mic DEVICE` (`narrator devices` lists them)")


def meter(levels: list[float]) -> str:
    """A one-line level meter: ▁▂▃▄▅▆▇█ from -60 to 0 dBFS."""
    bars = "▁▂▃▄▅▆▇█"
    return "".join(bars[min(7, max(0, int((db + 60) / 60 * 8)))] for db in levels)


def install_model(echo: Echo, from_zip: str | None) -> bool:
    """The ear's installer; True when a model is there afterwards."""
    from narrator.listen import models
    if models.find_model(models.MODEL_NAME) is not None and from_zip is None:
        echo(f"✓ speech model {models.MODEL_NAME} already installed")
        return True
    from pathlib import Path

    try:
        folder = models.install(models.user_models_dir(), from_zip=Path(from_zip) if from_zip else None)
    except models.InstallError as exc:
        told = str(exc)
        hint = "" if "--from-zip" in told else " (or `narrator model install --from-zip FILE` with a zip you have)"
        echo(f"✗ speech model: {told}{hint}")
        return False
    echo(f"✓ speech model installed in {folder}")
    return True


def echo_cancel(echo: Echo, config: Config, method: str | None = None) -> bool:
    """Load the echo canceller (the config's, or `method`) between the config's table and mic; True when it is
    there. Tried unasked (`method`, the config's not chosen yet), it is written to the config when it loads,
    and where it cannot be had the reason is said as a note, not a failure."""
    from narrator.play import echo as canceller

    chosen = method or config.audio.canceller or "webrtc"
    try:
        devices = canceller.ensure(chosen, config.audio.table, config.audio.mic)
    except canceller.EchoError as exc:
        if method is None:
            echo(f"✗ echo cancellation: {exc}")
            return False
        echo(f"· no echo cancellation here ({exc}): the ear is deaf while the judge speaks, and listens through "
             "the timer's cue without it")
        return True
    config.audio.echo_cancel = chosen
    echo(f"✓ echo cancellation ({chosen}): the judge plays into {devices.table}, "
         f"the ear records {devices.mic}")
    return True
