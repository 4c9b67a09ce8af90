#!/usr/bin/env python3
"""Engine benchmark: complete random games per second on one core.

Each game is `play_random(setup, seed)`: a random deal, then random legal answers from the AutoHost until
the game ends, through the public Game API (prompt → answer → events, journal kept). Seeds run 0, 1, 2 …
in every repeat, so runs are reproducible and comparable. The process is pinned to one CPU where the OS
allows it, and timed by its own CPU time (time.process_time), so other work on a shared machine does not
count against the engine. Each preset is run `--repeat` times; the median and the best are reported.

    .venv/bin/python scripts/bench_engine.py                 # the two 12-player presets
    .venv/bin/python scripts/bench_engine.py --seconds 10 --repeat 5 --preset 9人预女猎
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.presets import make_setup
from narrator.sim.autohost import play_random

DEFAULT_PRESETS = ("12人预女猎白", "12人白狼王守卫", "12人机械狼通灵师", "12人狼美骑士")
TARGET = 1000.0  # games per second


@dataclass
class Result:
    games: int
    seconds: float
    """CPU seconds."""
    answers: int
    events: int

    @property
    def rate(self) -> float:
        return self.games / self.seconds


def cpu_name() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        out = ""
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def pin_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def run(preset: str, seconds: float, min_games: int) -> Result:
    """Games played back to back for at least `seconds` of CPU time and at least `min_games` games."""
    setup = make_setup(preset)
    games = answers = events = 0
    gc.collect()
    clock = time.process_time
    start = clock()
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        game = play_random(setup, games)
        games += 1
        answers += len(game.answers)
        events += len(game.journal)
        elapsed = clock() - start
    return Result(games, elapsed, answers, events)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--preset", action="append", help="preset name (repeatable); default: the 12-player two")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per repeat (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="repeats per preset (default 3)")
    parser.add_argument("--min-games", type=int, default=500, help="at least this many games per repeat")
    parser.add_argument("--warmup", type=int, default=200, help="games played first and not timed")
    args = parser.parse_args()
    pinned = pin_one_core()
    print(f"Python {platform.python_version()} ({platform.python_implementation()}) on {platform.system()}")
    print(f"CPU {cpu_name()}, {os.cpu_count()} logical CPUs, {pinned}")
    print(f"{args.repeat} × ≥{args.seconds:g} CPU s per preset, after {args.warmup} warm-up games")
    print("preset | games/s median | games/s best | games | answers/game | events/game")
    missed = False
    for preset in args.preset or DEFAULT_PRESETS:
        setup = make_setup(preset)
        for seed in range(args.warmup):
            play_random(setup, 1_000_000 + seed)
        results = [run(preset, args.seconds, args.min_games) for _ in range(args.repeat)]
        rates = [r.rate for r in results]
        games = sum(r.games for r in results)
        answers = sum(r.answers for r in results)
        events = sum(r.events for r in results)
        median = statistics.median(rates)
        print(f"{preset} | {median:.0f} | {max(rates):.0f} | {games} | {answers / games:.1f} | {events / games:.1f}")
        missed |= median < TARGET
    print(f"target: median ≥ {TARGET:.0f} games/s per preset: {'MISSED' if missed else 'met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
