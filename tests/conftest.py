"""Shared pytest fixtures. Each section belongs to the tests that use it."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

# --- PulseAudio with null sinks (tests/audio) -------------------------------------------------------
# A real sound server with two virtual sinks, "room" (the table speaker) and "host" (the earpiece); each
# sink's ".monitor" source records exactly what was played into it. CI has pulseaudio installed, so a
# server that cannot be had is a failure with its reason, never a skip.

PULSE_SINKS = ("room", "host")


@dataclass
class PulseServer:
    sinks: tuple[str, ...] = PULSE_SINKS
    process: subprocess.Popen[bytes] | None = None
    """The daemon this session started, or None if one was already running."""
    loaded_modules: list[str] = field(default_factory=list)
    """Indices of the null-sink modules this session loaded (unloaded again at the end)."""


def _pactl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10, check=False)


@pytest.fixture(scope="session")
def pulse() -> Iterator[PulseServer]:
    """A PulseAudio server with null sinks `room` and `host`, started here if none is running."""
    for tool in ("pulseaudio", "pactl", "parec"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found: install the Debian packages pulseaudio and pulseaudio-utils (./dev)")
    server = PulseServer()
    if _pactl("info").returncode != 0:
        log = tempfile.TemporaryFile()  # noqa: SIM115 (must outlive this block: read if start-up fails)
        server.process = subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--log-target=stderr"],
            stdout=subprocess.DEVNULL, stderr=log,
        )
        deadline = time.monotonic() + 15
        while _pactl("info").returncode != 0:
            if server.process.poll() is not None or time.monotonic() > deadline:
                server.process.kill()
                log.seek(0)
                tail = log.read().decode(errors="replace")[-1500:]
                pytest.fail(f"could not start PulseAudio (exit {server.process.poll()}):\n{tail}")
            time.sleep(0.1)
    present = _pactl("list", "short", "sinks").stdout
    for sink in PULSE_SINKS:
        if not any(row.split("\t")[1:2] == [sink] for row in present.splitlines()):
            res = _pactl("load-module", "module-null-sink", f"sink_name={sink}")
            if res.returncode != 0:
                pytest.fail(f"could not create null sink {sink!r}: {res.stderr.strip()}")
            server.loaded_modules.append(res.stdout.strip())
    yield server
    for index in server.loaded_modules:
        _pactl("unload-module", index)
    if server.process is not None:
        server.process.terminate()
        server.process.wait(timeout=10)
