"""Audio devices by the names the user writes ("default", an index, part of a name, pulse:SINK, "none"),
checked before a game starts so a device that is not there is one clear sentence, not a crash mid-game."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass


class DeviceProblem(ValueError):
    """The device cannot be used; the message says which and what to do (in English: it is the operator's
    problem, see docs/architecture.md "Languages")."""


ROLES = {"table": "the table's speaker", "host": "the host's earpiece", "mic": "the microphone"}
"""What each configured device is for, as the messages about it name it."""


@dataclass(frozen=True)
class Device:
    index: int
    name: str
    inputs: int
    outputs: int


def all_devices(refresh: bool = True) -> list[Device]:
    """Every PortAudio device (raises DeviceProblem when there is no audio system at all). PortAudio lists
    the devices once, when it starts; `refresh` restarts it so that a device plugged in (or a sound server
    started) since then is seen. Only call it with refresh while no stream is open."""
    try:
        import sounddevice as sd

        if refresh:
            sd._terminate()
            sd._initialize()
        found = sd.query_devices()
    except (OSError, Exception) as exc:  # PortAudio missing, or its init failed
        raise DeviceProblem(f"no audio system ({exc}); install libportaudio2 and check the sound card") from exc
    return [Device(i, str(d["name"]), int(d["max_input_channels"]), int(d["max_output_channels"]))
            for i, d in enumerate(found)]


def pulse_sinks(sources: bool = False) -> list[str]:
    if shutil.which("pactl") is None:
        return []
    what = "sources" if sources else "sinks"
    res = subprocess.run(["pactl", "list", "short", what], capture_output=True, text=True, timeout=10, check=False)
    return [row.split("\t")[1] for row in res.stdout.splitlines() if "\t" in row]


NO_DEVICE = {
    "table": "to play without a speaker, the table's lines shown on this screen: `narrator play --table-device "
             "none` (`narrator setup --table none` keeps it)",
    "host": "without an earpiece the host's lines are shown on this screen: `--host-device none` (`narrator "
            "setup --host none` keeps it)",
    "mic": "answer without a microphone: `narrator play --input keypad,text` (`narrator setup --input "
           "keypad,text` keeps it)",
}
"""What to do when the machine has no device of a kind at all: play without it."""


def check_device(spec: str, key: str, *, needs_input: bool = False) -> str:
    """A short description of the device `spec` names, or DeviceProblem. `key`: table, host or mic."""
    role = ROLES[key]
    fix = "`narrator setup` chooses another, `narrator devices` lists them"
    if spec in ("", "none"):
        return "none"
    if spec.startswith("pulse:"):
        sink = spec.removeprefix("pulse:")
        names = pulse_sinks(sources=needs_input)
        if sink and sink not in names:
            raise DeviceProblem(f"{role}: PulseAudio has no {sink!r} (it has: {', '.join(names) or 'none'}); {fix}")
        spec = "pulse"
    devices = all_devices()
    usable = [d for d in devices if (d.inputs if needs_input else d.outputs) > 0]
    if spec == "default":
        if not usable:
            raise DeviceProblem(f"{role}: this machine has no {'input' if needs_input else 'output'} device "
                                f"(`narrator devices` lists what it has); {NO_DEVICE[key]}")
        return "default"
    if spec.isdigit():
        match = [d for d in usable if d.index == int(spec)]
    else:
        match = [d for d in usable if spec.lower() in d.name.lower()]
    if not match:
        raise DeviceProblem(f"{role}: no device {spec!r}; {fix}")
    return f"{match[0].index} {match[0].name}"
