"""Benchmark of `narrator serve` on a Pi-sized budget: one core, 1 GiB of memory, no swap.

    python scripts/bench_device.py [--runs 5] [--idle-s 60] [--idle-runs 1] [--settle-s 30] [--pace 0.05] [--cpu 1]
                                   [--skip-game] [--model-only] [--no-model]

Every `serve` it starts is pinned to one core (`sched_setaffinity`, as `taskset -c CPU`) and put in a cgroup
(v1 `memory` controller, or v2 `memory.max`) limited to 1 GiB; the machine has no swap (checked: /proc/swaps).
The runs use the table's speaker `pulse:room` and espeak-ng from a voice cache built first (scripts/bench_play.py's
set-up), the web server on 127.0.0.1 (`--web-listen 127.0.0.1:0`), and are measured as the unit sees them:

1. **Power-on → ready**: spawn to the READY=1 that `serve` sends systemd (a $NOTIFY_SOCKET of the bench's own),
   right after its ready line is handed to the speaker; and the CPU time the process used until then (what a
   quiet core would spend, whatever the machine's load). With a model, also spawn → "the voice joined" on
   `serve`'s stderr: the microphone joins the typed input once the model has loaded, after READY=1.
2. **Idle in the lobby**: from the voice's joining (without a model: READY=1) + `--settle-s` (the ready line, the
   no-host line — the bench's standard output goes nowhere — and their holds, ≈ 10 s of silence each, have
   played: the table's streams rest then), `--idle-s` seconds waiting for 开始新游戏 with nothing said: CPU time of
   the whole process (every thread: /proc/PID/stat utime + stime) over the wall time, in % of one core, and the
   resident memory at the end (VmRSS) and the cgroup's peak. With a model each idle run is printed as it ends,
   with the load average then and the microphone's blocks in the lobby as `serve` logged them (64 ms).
3. **A whole game by text**: the lobby, the built-in demo game (12 players, three nights) piped in, 结束, 关机;
   peak resident memory and CPU from the child's `wait4` rusage, and whether the cgroup's limit was ever hit.

Each with the Korean stand-in model (`--input voice,text --model ko --grammar ko --mic pulse:host.monitor`: the
microphone hears the silent `host` sink) and without a model (`--input text`). Not a timed test.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "play"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_play import MODEL, VOICE, bench_home  # noqa: E402
from play_testkit import demo_scenario  # noqa: E402

from narrator.play.scripted import host_script  # noqa: E402

LIMIT = 1 << 30
LOBBY = ["开始新游戏", "十二个", "预女猎白", "开始"]
TICK = os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def memory_cgroup(limit: int = LIMIT) -> Iterator[Path]:
    """A fresh memory cgroup limited to `limit` bytes (v1 or v2); removed afterwards."""
    v1 = Path("/sys/fs/cgroup/memory")
    base = v1 if v1.is_dir() else Path("/sys/fs/cgroup")
    group = base / f"narrator-bench-{os.getpid()}"
    group.mkdir()
    try:
        (group / ("memory.limit_in_bytes" if base == v1 else "memory.max")).write_text(str(limit))
        if base == v1 and (group / "memory.swappiness").exists():
            (group / "memory.swappiness").write_text("0")
        yield group
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def peak(group: Path) -> tuple[float, int]:
    """(the cgroup's peak MB, how often it hit its limit)."""
    for name, fails in (("memory.max_usage_in_bytes", "memory.failcnt"), ("memory.peak", "")):
        if (group / name).exists():
            hits = int((group / fails).read_text()) if fails else 0
            return int((group / name).read_text()) / 2**20, hits
    return float("nan"), 0


def confined(group: Path, cpu: int):  # type: ignore[no-untyped-def]
    def enter() -> None:
        (group / "cgroup.procs").write_text(str(os.getpid()))
        os.sched_setaffinity(0, {cpu})

    return enter


def command(*extra: str, cache: Path) -> list[str]:
    return [sys.executable, "-m", "narrator.cli.main", "serve", "--table-device", "pulse:room", "--input", "text",
            *VOICE, "--cache-dir", str(cache), "--seed", "2026", "--web-listen", "127.0.0.1:0", *extra]


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Log:
    """`serve`'s stderr, read on a thread: when each line came (s since the spawn)."""

    def __init__(self, stream: IO[str], t0: float) -> None:
        self.lines: list[tuple[float, str]] = []
        self._thread = threading.Thread(target=self._read, args=(stream, t0), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str], t0: float) -> None:
        for line in stream:
            self.lines.append((time.monotonic() - t0, line.rstrip()))

    def when(self, *texts: str, timeout_s: float = 120.0) -> tuple[float, str]:
        """The first line holding any of `texts` (waiting for it): (s since the spawn, the line)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for at, line in list(self.lines):
                if any(text in line for text in texts):
                    return at, line
            time.sleep(0.02)
        return float("nan"), ""


def ready_and_idle(cmd: list[str], env: dict[str, str], group: Path, cpu: int,
                   idle_s: float, voice: bool, settle_s: float) -> tuple[float, float, float, float, float]:
    """(s to READY=1, CPU s to READY=1, % of a core idle in the lobby, resident MB after idling, s to the
    voice's joining — nan without a model). The idle window starts once the voice has joined."""
    with tempfile.TemporaryDirectory() as tmp, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        where = str(Path(tmp) / "notify")
        sock.bind(where)
        sock.settimeout(120)
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, env={**env, "NOTIFY_SOCKET": where}, preexec_fn=confined(group, cpu))
        assert proc.stderr is not None
        log = Log(proc.stderr, t0)
        try:
            while b"READY=1" not in sock.recv(4096):
                pass
            ready, ready_cpu = time.monotonic() - t0, cpu_s(proc.pid)
            joined = float("nan")
            if voice:
                joined, line = log.when("the voice joined", "the voice cannot listen")
                if "cannot" in line:
                    sys.exit(f"serve: {line}")
            if idle_s <= 0:
                return ready, ready_cpu, float("nan"), rss_mb(proc.pid), joined
            # the web server's and mDNS's start, the ready line and the no-host line and their holds (the
            # lobby's "action" pauses: ≈ 10 s of the table's time to answer each, played as silence)
            time.sleep(settle_s)
            c0, w0 = cpu_s(proc.pid), time.monotonic()
            time.sleep(idle_s)
            used = cpu_s(proc.pid) - c0
            if voice:  # the lobby's microphone blocks (narrator/listen/mic.py BLOCKS), as serve logged them
                _, blocks = log.when("ms blocks for the", timeout_s=0.1)
                print(f"  idle {100 * used / idle_s:.2f} % (load {os.getloadavg()[0]:.1f}); "
                      f"{blocks.partition('microphone: ')[2] or 'the microphone never changed its blocks'}")
            return ready, ready_cpu, 100 * used / (time.monotonic() - w0), rss_mb(proc.pid), joined
        finally:
            proc.terminate()
            proc.wait(30)


def game(cmd: list[str], env: dict[str, str], group: Path, cpu: int, words: str) -> tuple[float, float, float, int]:
    """(peak resident MB, wall s, CPU s, exit code) of one whole game."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            text=True, env=env, preexec_fn=confined(group, cpu))
    assert proc.stdin is not None
    proc.stdin.write(words)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    return (usage.ru_maxrss / 1024, time.monotonic() - t0, usage.ru_utime + usage.ru_stime,
            os.waitstatus_to_exitcode(status))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--idle-s", type=float, default=60.0)
    ap.add_argument("--idle-runs", type=int, default=1, help="how many of the runs also idle in the lobby")
    ap.add_argument("--settle-s", type=float, default=30.0,
                    help="s from READY=1 (with a model: from the voice's joining) before the idle window: what the "
                         "lobby says at power-on and its holds have played")
    ap.add_argument("--pace", type=float, default=0.05)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--skip-game", action="store_true")
    ap.add_argument("--model-only", action="store_true")
    ap.add_argument("--no-model", action="store_true")
    args = ap.parse_args()
    swaps = Path("/proc/swaps").read_text().splitlines()[1:]
    print(f"swap: {swaps if swaps else 'none'}; load average {os.getloadavg()[0]:.1f} at the start")
    words = "\n".join([*LOBBY, *host_script(demo_scenario()).utterances, "结束", "关机", "确认"]) + "\n"
    runs = [("without a model", []), ("with the Korean model", MODEL)]
    if args.model_only:
        runs = runs[1:]
    if args.no_model:
        runs = runs[:1]
    loads: list[float] = []
    with bench_home() as (env, cache):
        for label, extra in runs:
            with memory_cgroup() as group:
                got = []
                for i in range(args.runs):
                    got.append(ready_and_idle(command(*extra, cache=cache), env, group, args.cpu,
                                              args.idle_s if i < args.idle_runs else 0, bool(extra),
                                              args.settle_s))
                    loads.append(os.getloadavg()[0])
                readies, cpus = [r for r, _, _, _, _ in got], [c for _, c, _, _, _ in got]
                print(f"{label}: power-on → READY=1: median {statistics.median(readies):.2f} s, max "
                      f"{max(readies):.2f} s over {args.runs} runs (load {os.getloadavg()[0]:.1f}); CPU time to "
                      f"READY=1 median {statistics.median(cpus):.2f} s (runs {', '.join(f'{c:.2f}' for c in cpus)})")
                if extra:
                    joins = [j for _, _, _, _, j in got]
                    print(f"{label}: power-on → the voice joined: median {statistics.median(joins):.2f} s, max "
                          f"{max(joins):.2f} s (runs {', '.join(f'{j:.2f}' for j in joins)})")
                idles = [i for _, _, i, _, _ in got[: args.idle_runs]]
                print(f"{label}: idle in the lobby {args.idle_s:.0f} s: median {statistics.median(idles):.2f} %, max "
                      f"{max(idles):.2f} % of one core (runs {', '.join(f'{i:.2f}' for i in idles)}; load after each "
                      f"{', '.join(f'{x:.1f}' for x in loads[: args.idle_runs])}), resident {got[0][3]:.0f} MB")
                loads.clear()
            if not args.skip_game:
                with memory_cgroup() as group:
                    mb, wall, cpu, code = game(command(*extra, "--pace", str(args.pace), cache=cache), env, group,
                                               args.cpu, words)
                    top, hits = peak(group)
                print(f"{label}: lobby + the demo game + 关机 (exit {code}, {wall:.0f} s wall at --pace {args.pace},"
                      f" load {os.getloadavg()[0]:.1f}): peak resident {mb:.0f} MB (cgroup peak {top:.0f} MB, limit "
                      f"hit {hits}×), CPU {cpu:.1f} s ({100 * cpu / wall:.1f} % of one core)")


if __name__ == "__main__":
    main()
