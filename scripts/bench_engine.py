#!/usr/bin/env python3
"""Engine benchmark: complete random games per second on one core, through the Session.

Each game is `play_random(setup, seed)`: a random deal, then random legal answers from the AutoHost until
the game ends, each submitted to a Session (prompt → answer → events; the journal store off, the judge's
lines not taken, as a loop that does not speak). Seeds run 0, 1, 2 … in every repeat, so runs are
reproducible and comparable. The process is pinned to one CPU where the OS allows it, and timed by its own
CPU time (time.process_time), so other work on a shared machine does not count against the engine. Each
preset is run `--repeat` times; the median and the best are reported.

`--journal DIR` measures the same games with the journal on: a FileStore in DIR (a real file, flushed and
fsynced per answer, as `narrator play` writes it), timed by the wall clock, because the time goes to the
disk, not the CPU.

    .venv/bin/python scripts/bench_engine.py                 # the four 12-player presets
    .venv/bin/python scripts/bench_engine.py --seconds 10 --repeat 5 --preset 9人预女猎
    .venv/bin/python scripts/bench_engine.py --journal . --seconds 5
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.judge.presets import make_setup
from narrator.session.journal import FileStore
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


def run(preset: str, seconds: float, min_games: int, journal: Path | None = None) -> Result:
    """Games played back to back for at least `seconds` (CPU time; wall time with a journal) and at least
    `min_games` games. With `journal`, each game writes its own journal file there (deleted after)."""
    setup = make_setup(preset)
    games = answers = events = 0
    gc.collect()
    clock = time.process_time if journal is None else time.perf_counter
    start = clock()
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        if journal is None:
            session = play_random(setup, games)
        else:
            path = journal / f"bench-{games}.jsonl"
            store = FileStore(path)
            session = play_random(setup, games, store=store)
            store.close()
            path.unlink()
        games += 1
        answers += len(session.answers)
        events += len(session.game.journal)
        elapsed = clock() - start
    return Result(games, elapsed, answers, events)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--preset", action="append", help="preset name (repeatable); default: four 12-player presets")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per repeat (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="repeats per preset (default 3)")
    parser.add_argument("--min-games", type=int, default=500, help="at least this many games per repeat")
    parser.add_argument("--warmup", type=int, default=200, help="games played first and not timed")
    parser.add_argument("--journal", type=Path, metavar="DIR",
                        help="journal every answer into a file in DIR (fsync per answer), timed by the wall clock")
    args = parser.parse_args()
    if args.journal is not None:
        return journal_figures(args)
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


def journal_figures(args: argparse.Namespace) -> int:
    """Games/s and answers/s with the journal on a real file, per preset."""
    pinned = pin_one_core()
    print(f"Python {platform.python_version()} on {platform.system()}, CPU {cpu_name()}, {pinned}")
    with tempfile.TemporaryDirectory(dir=args.journal) as tmp:
        where = Path(tmp)
        fs = subprocess.run(["df", "-T", str(where)], capture_output=True, text=True, check=False).stdout
        print(f"journal files in {args.journal.resolve()} ({' '.join(fs.splitlines()[-1].split()[:2])})")
        print(f"{args.repeat} × ≥{args.seconds:g} wall s per preset; fsync per answer")
        print("preset | games/s median | answers/s median | ms per answer | answers/game")
        for preset in args.preset or DEFAULT_PRESETS:
            results = [run(preset, args.seconds, min(args.min_games, 20), where) for _ in range(args.repeat)]
            best = sorted(results, key=lambda r: r.rate)[len(results) // 2]
            per_answer = best.seconds / best.answers * 1000
            print(f"{preset} | {best.rate:.1f} | {best.answers / best.seconds:.0f} | {per_answer:.2f} | "
                  f"{best.answers / best.games:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
