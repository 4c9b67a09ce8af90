"""Peak memory of `narrator render` / `narrator demo` against the length of the game.

    .venv/bin/python scripts/bench_render_memory.py [--backend espeak] [--scenario FILE ...]

Each game is rendered by the real CLI in a child process (so nothing of this script counts); its peak
resident set size is the child's ru_maxrss (resource.getrusage(RUSAGE_CHILDREN), Linux: KiB), read after
the child exits. The voice cache is warmed by a first run that is not counted, so the figures are those of
a machine whose cache is built (`narrator voices build`). Prints one row per game: length of the audio,
peak RSS, and the WAV bytes written. Target (issue 6 item 13): ≤ 200 MB for any game length.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(args: list[str]) -> float:
    """MB. Peak RSS of `narrator ARGS`, run as the only child of a small middle process (so the figure
    is the CLI's alone, not this script's or an earlier run's)."""
    code = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    runner = "import sys; from narrator.cli.main import app; sys.argv = ['narrator', *sys.argv[1:]]; app()"
    proc = subprocess.run([sys.executable, "-c", code, sys.executable, "-c", runner, *args],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"narrator {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    return int(proc.stdout.split()[-1]) / 1024


def long_game(path: Path) -> Path:
    """A long game (about 13 nights of 18 players): every night the wolves kill a villager, every day
    everyone abstains, until the wolves win by the side."""
    seats = ["狼人"] * 4 + ["预言家"] + ["村民"] * 13
    answers = []
    for night, victim in enumerate(range(6, 19), start=1):
        answers += [f"[wolves.kill, {victim}号]", f"[seer.check, {1 + night % 4}号]"]
        if night == 1:
            answers.append("[sheriff.run, 没有]")
        if victim < 18:
            answers.append("[vote.exile, 全部弃票]")
    lines = ["preset: 18人标准局", f"seats: [{', '.join(seats)}]", "answers:"]
    lines += [f"  - {a}" for a in answers] + ["expect: {winner: wolves}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def seconds(wav: Path) -> float:
    with wave.open(str(wav)) as w:
        frames: int = w.getnframes()
        rate: int = w.getframerate()
    return frames / rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="espeak")
    parser.add_argument("--scenario", action="append", type=Path, default=[],
                        help="Render these scenarios too (default: a test scenario and a generated long game).")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        scenarios = opts.scenario or [ROOT / "tests/scenarios/087_12_standard_good_wins.yaml",
                                      long_game(tmp / "long_18_players_13_nights.yaml")]
        cache = ["--backend", opts.backend, "--cache-dir", str(tmp / "cache")]
        games: list[tuple[str, list[str], Path]] = [("demo", ["demo", "-o", str(tmp / "demo.wav"), *cache],
                                                     tmp / "demo.wav")]
        for path in scenarios:
            out = tmp / f"{path.stem}.wav"
            games.append((path.stem, ["render", str(path), "-o", str(out), *cache], out))
        print(f"{'game':<40} {'audio':>8} {'peak RSS':>10} {'WAV bytes':>12}")
        for name, args, out in games:
            measure(args)  # warm the voice cache
            mb = measure(args)
            size = out.stat().st_size + out.with_name(out.stem + ".host.wav").stat().st_size
            minutes, secs = divmod(round(seconds(out)), 60)
            print(f"{name:<40} {minutes:>5}:{secs:02d} {mb:>7.0f} MB {size:>12,}")


if __name__ == "__main__":
    main()
