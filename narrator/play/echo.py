"""Echo cancellation: PulseAudio's `module-echo-cancel` (WebRTC) between the table's speaker and the
microphone, so the ear hears the room minus the judge (measured in docs/benchmarks.md).

The canceller is a pair of PulseAudio devices: the judge plays into its sink `narrator_table` (whose master
is the real speaker: what is played there is the canceller's reference) and the ear records its source
`narrator_mic` (the real microphone minus that reference). `narrator setup` loads it — unasked wherever it
loads, or insisting with `--echo-cancel` — and writes `echo_cancel = "webrtc"` to the config's [audio]
(`--no-echo-cancel`: "off"); `play`, `resume` and `doctor` load it again when
the sound server has forgotten it (after a restart), and use those two devices instead of the table and
the microphone. WebRTC's own gain control stays off (it would move the microphone's volume mid-game), and
so does its noise suppression (the recogniser read the host's commands through it 2 times in 12, without
it 4 in 8: docs/benchmarks.md). Its high-pass filter off, its extended filter on, or the canceller at 16 kHz
read them no better (docs/benchmarks.md): the rest is its default.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

SINK = "narrator_table"
SOURCE = "narrator_mic"
METHODS = ("webrtc", "speex")
AEC_ARGS = {"webrtc": "analog_gain_control=0 digital_gain_control=0 noise_suppression=0"}


class EchoError(RuntimeError):
    """The canceller cannot be had (one sentence with the fix)."""


@dataclass(frozen=True)
class Devices:
    table: str
    mic: str


def _pactl(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("pactl") is None:
        raise EchoError("echo cancellation needs PulseAudio (or PipeWire's pulse server) and pactl: "
                        "install pulseaudio-utils, or run `narrator setup --no-echo-cancel`")
    return subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10, check=False)


def _pulse_name(spec: str, what: str) -> str | None:
    """The PulseAudio sink/source behind a device option: pulse:NAME → NAME, "default" → None (the
    server's default); an ALSA index or name cannot carry a canceller."""
    if spec in ("", "default"):
        return None
    if spec.startswith("pulse:") and spec.removeprefix("pulse:"):
        return spec.removeprefix("pulse:")
    raise EchoError(f"echo cancellation works on PulseAudio devices: give the {what} as pulse:NAME or "
                    f"\"default\", not {spec!r} (or run `narrator setup --no-echo-cancel`)")


def loaded() -> str | None:
    """The arguments of the narrator canceller the sound server runs, or None."""
    run = _pactl("list", "short", "modules")
    if run.returncode != 0:
        return None
    for row in run.stdout.splitlines():
        parts = row.split("\t")
        if len(parts) >= 3 and parts[1] == "module-echo-cancel" and f"sink_name={SINK}" in parts[2]:
            return parts[2]
    return None


def ensure(method: str, table: str, mic: str) -> Devices:
    """The canceller between `table` and `mic` (device options), loaded if the server lacks it; the
    devices to play into and record from."""
    if method not in METHODS:
        raise EchoError(f"echo_cancel must be one of {', '.join(METHODS)} (or \"\" for none), not {method!r}")
    args = [f"aec_method={method}", f"sink_name={SINK}", f"source_name={SOURCE}", "use_master_format=1"]
    sink, source = _pulse_name(table, "table's speaker"), _pulse_name(mic, "microphone")
    if sink:
        args.append(f"sink_master={sink}")
    if source:
        args.append(f"source_master={source}")
    if method in AEC_ARGS:
        args.append(f'aec_args="{AEC_ARGS[method]}"')
    current = loaded()
    if current is not None and current != " ".join(args):  # other devices or method: load it afresh
        unload()
        current = None
    if current is None:
        run = _pactl("load-module", "module-echo-cancel", *args)
        if run.returncode != 0:
            raise EchoError(f"PulseAudio could not load module-echo-cancel ({run.stderr.strip() or 'no reason'}): "
                            "is the sound server running and the table/mic there? (`narrator devices`)")
    return Devices(f"pulse:{SINK}", f"pulse:{SOURCE}")


def unload() -> None:
    run = _pactl("list", "short", "modules")
    for row in run.stdout.splitlines():
        parts = row.split("\t")
        if len(parts) >= 3 and parts[1] == "module-echo-cancel" and f"sink_name={SINK}" in parts[2]:
            _pactl("unload-module", parts[0])
