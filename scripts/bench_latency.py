#!/usr/bin/env python3
"""Audio latency benchmark: from "line requested" to its first sample handed to the output stream.

For each of --lines iterations, with the night bed playing: wait a random 0-30 ms (so requests land at
random points of the callback period), enqueue a cached 20 ms clip on the idle public channel
(Ticket.enqueued_at, perf_counter in the caller's thread), and wait for the audio callback to hand the
clip's first sample to PortAudio (Ticket.started_at, perf_counter inside the callback). Reports p50, p95,
p99 and max of the difference, the underflow count, the stream's own output latency (what PortAudio
adds after the callback before the sample is audible) and the CPU cost of mixing one block.

It plays through PulseAudio into the null sink "room" (device "pulse", PULSE_SINK=room) and starts a
PulseAudio server with that sink if none is running:

    python scripts/bench_latency.py                       # defaults: the Player's blocksize/latency
    python scripts/bench_latency.py --blocksize 480 --latency 0.1 --lines 1000
    python scripts/bench_latency.py --rest 3 --lines 20   # the first line after serve's lobby rested its stream
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.audio import SAMPLE_RATE
from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer
from narrator.audio.playback import OutputConfig, Player


def ensure_pulse(sink: str) -> tuple[subprocess.Popen[bytes] | None, str | None]:
    """Make sure a PulseAudio server with null sink `sink` exists. Returns the daemon if we started one
    and the index of the sink module if we loaded it, to undo both afterwards."""
    started, module = None, None
    if subprocess.run(["pactl", "info"], capture_output=True).returncode != 0:
        started = subprocess.Popen(["pulseaudio", "--daemonize=no", "--exit-idle-time=-1"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(150):
            if subprocess.run(["pactl", "info"], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            sys.exit("could not start PulseAudio")
    sinks = subprocess.run(["pactl", "list", "short", "sinks"], capture_output=True, text=True).stdout
    if f"\t{sink}\t" not in sinks:
        module = subprocess.run(["pactl", "load-module", "module-null-sink", f"sink_name={sink}"], check=True,
                                capture_output=True, text=True).stdout.strip()
    return started, module


def pull_cost_us(blocksize: int, blocks: int = 5000) -> float:
    """µs. Mean cost of one callback's mix (speech over the ducked night bed), without a stream."""
    mixer = Mixer(builtin_sounds())
    mixer.enqueue(np.full(blocks * blocksize, 0.1, np.float32), "all", bed="night")
    out = np.empty(blocksize, np.float32)
    t0 = time.perf_counter()
    for _ in range(blocks):
        mixer.pull_public_into(out)
    return (time.perf_counter() - t0) / blocks * 1e6


def measure(lines: int, cfg: OutputConfig, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    mixer = Mixer(builtin_sounds())
    mixer.switch_bed("night")  # the callback mixes a looping, ducked bed like in a game
    clip = (0.1 * np.sin(2 * np.pi * 440 * np.arange(SAMPLE_RATE // 50) / SAMPLE_RATE)).astype(np.float32)
    player = Player(mixer, cfg)
    player.start(ready_timeout_s=10.0)
    delays: list[float] = []
    try:
        for _ in range(lines):
            while not mixer.is_drained("all"):
                time.sleep(0.001)
            time.sleep(rng.uniform(0.0, 0.03))
            ticket = mixer.enqueue(clip, "all")
            while ticket.started_at is None:
                time.sleep(0.0002)
            delays.append(ticket.started_at - ticket.enqueued_at)
        stream_latency = player.output_latency_s
        underflows = player.underflows
    finally:
        player.close()
    ms = sorted(d * 1000 for d in delays)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"lines": lines, "blocksize": cfg.blocksize, "latency": str(cfg.latency),
            "p50_ms": round(q[49], 2), "p95_ms": round(q[94], 2), "p99_ms": round(q[98], 2),
            "max_ms": round(ms[-1], 2), "underflows": underflows,
            "stream_output_latency_ms": round(stream_latency * 1000, 1),
            "mix_cost_us_per_block": round(pull_cost_us(cfg.blocksize), 1)}


def measure_rest(lines: int, cfg: OutputConfig, rest_s: float, idle_s: float = 20.0) -> dict[str, object]:
    """The first line after `serve`'s lobby rested its streams (`Player.rest`) against the same line on a
    stream that kept writing silence: ms from the enqueue to the callback handing its first sample over
    (`lines` of each, no bed; the stream's own output latency follows in both cases); then this process's
    CPU over `idle_s` with nothing to play, the stream awake and resting (% of one core)."""
    mixer = Mixer(builtin_sounds())
    clip = (0.1 * np.sin(2 * np.pi * 440 * np.arange(SAMPLE_RATE // 50) / SAMPLE_RATE)).astype(np.float32)
    player = Player(mixer, cfg)
    player.start(ready_timeout_s=10.0)
    handed: dict[str, list[float]] = {"awake": [], "rested": []}
    try:
        for i in range(2 * lines):
            kind = "rested" if i % 2 else "awake"
            assert player.wait_drained(10.0)
            time.sleep(0.2)
            if kind == "rested":
                while not player.rest():
                    time.sleep(0.01)
            time.sleep(rest_s)
            ticket = mixer.enqueue(clip, "all")  # the mixer's waker starts a resting player's streams
            while ticket.started_at is None:
                time.sleep(0.0002)
            handed[kind].append(1000 * (ticket.started_at - ticket.enqueued_at))
        underflows = player.underflows
        assert player.wait_drained(10.0)
        time.sleep(0.5)
        cpu: dict[str, float] = {}
        for kind in ("awake", "rested"):  # the process's CPU while nothing plays: the stream writing silence or not
            if kind == "rested":
                while not player.rest():
                    time.sleep(0.01)
            c0, w0 = time.process_time(), time.monotonic()
            time.sleep(idle_s)
            cpu[kind] = 100 * (time.process_time() - c0) / (time.monotonic() - w0)
    finally:
        player.close()
    out: dict[str, object] = {"lines": lines, "rest_s": rest_s, "underflows": underflows,
                              "idle_cpu_awake_pct": round(cpu["awake"], 2),
                              "idle_cpu_rested_pct": round(cpu["rested"], 2)}
    for kind, ms in handed.items():
        ms.sort()
        out[f"{kind}_handed_over_p50_ms"] = round(statistics.median(ms), 1)
        out[f"{kind}_handed_over_max_ms"] = round(ms[-1], 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = OutputConfig()
    ap.add_argument("--lines", type=int, default=500)
    ap.add_argument("--blocksize", type=int, default=default.blocksize, help="frames per callback")
    ap.add_argument("--latency", default=str(default.latency), help='seconds, or "low"/"high"')
    ap.add_argument("--sink", default="room", help="PulseAudio sink to play into")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--rest", type=float, default=None, metavar="S",
                    help="instead: the first line after the streams rested S seconds (serve's lobby) against the "
                         "same line on a stream kept awake, --lines of each")
    args = ap.parse_args()
    latency: float | str = args.latency if args.latency in ("low", "high") else float(args.latency)
    daemon, module = ensure_pulse(args.sink)
    try:
        cfg = OutputConfig(device="pulse", pulse_sink=args.sink, blocksize=args.blocksize, latency=latency)
        result = (measure(args.lines, cfg, args.seed) if args.rest is None
                  else measure_rest(args.lines, cfg, args.rest))
    finally:
        if module is not None:
            subprocess.run(["pactl", "unload-module", module], capture_output=True)
        if daemon is not None:
            daemon.terminate()
            daemon.wait(timeout=10)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>26}: {value}")
        if args.rest is None:
            verdict = "meets" if float(str(result["p95_ms"])) <= 30.0 else "MISSES"
            print(f"{'target':>26}: p95 <= 30 ms ({verdict})")


if __name__ == "__main__":
    main()
