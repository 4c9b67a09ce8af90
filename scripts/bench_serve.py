"""Benchmark of `narrator serve`: power-on to the ready line, the judge's speech from "开始新游戏" to 天黑请闭眼,
and the memory and CPU of a whole game served from the lobby.

    python scripts/bench_serve.py [--runs 5] [--pace 0.05] [--skip-game] [--model-only]

1. **Power-on → ready line.** Each run spawns a fresh `narrator serve` on the PulseAudio null sink `room`
   (`--table-device pulse:room`, espeak-ng, the voice cache built first) and times the spawn to the first
   audible block of the ready line ("法官准备好了…") on `room.monitor`, as scripts/bench_play.py times `play`.
   `serve` opens the ear before it speaks (the lobby's grammars are checked against the model first), so
   with a model the load is inside the figure. With the Korean model (`--input voice,text --model ko
   --grammar ko --mic pulse:host.monitor`) and without one (`--input text`).
2. **Judge speech, "开始新游戏" → 天黑请闭眼** for the default 12-player game: the lobby is answered
   开始新游戏 / 十二个 / 预女猎白 / 开始 in process (narrator/serve/lobby.py, the game's Session), and every
   line the table hears from the host's first word to 天黑请闭眼 is rendered by the espeak-ng voice from the
   cache; the figure is the sum of the clips (speech only), then with the pacing table's holds at their most
   likely value (what the Conductor draws around).
3. **A whole game served**: `serve` with the lobby, the built-in demo game (12 players, three nights) piped in
   as text, 结束 and 关机; peak resident memory and CPU time (user + system) from the child's `wait4` rusage,
   its pauses scaled by `--pace`.

Not a timed test: CI does not run it. Starts its own PulseAudio server with the sinks if none is running.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "play"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_play import MODEL, VOICE, bench_home, game_usage, startups  # noqa: E402
from play_testkit import demo_scenario  # noqa: E402

from narrator.audio import SAMPLE_RATE  # noqa: E402
from narrator.play.scripted import host_script  # noqa: E402

LOBBY = ["开始新游戏", "十二个", "预女猎白", "开始"]


def command(*extra: str, cache: Path) -> list[str]:
    return [sys.executable, "-m", "narrator.cli.main", "serve", "--table-device", "pulse:room", "--input", "text",
            *VOICE, "--cache-dir", str(cache), "--seed", "2026", *extra]


def speech_to_nightfall(cache: Path) -> tuple[float, float, int]:
    """(s of table speech, s with the holds at their mode, lines) from "开始新游戏" to 天黑请闭眼."""
    from narrator.audio.pacing import load_pacing
    from narrator.play import bootstrap
    from narrator.serve.lobby import Lobby

    speaker = bootstrap.speaker("espeak", cache_dir=cache, offline=True)
    pacing = load_pacing()
    lobby = Lobby()
    lobby.ready()
    lobby.take_lines()
    lines = []
    for words in LOBBY:
        lobby.submit(lobby.read(words, lobby.prompt))
        lines += lobby.take_lines()
    assert lobby.take_action() == "play" and lobby.planned is not None
    from narrator.session.session import Session

    session = Session(lobby.planned.setup, 2026)
    session.judge.changed_rules_only = True  # as `serve` starts a game
    for line in session.take_lines():
        lines.append(line)
        if "天黑请闭眼" in line.text:
            break
    table = [x for x in lines if x.to == "all"]
    speech = sum(len(speaker.line(x)) for x in table) / SAMPLE_RATE
    holds = sum(_mode(pacing[x.pause]) for x in table if x.pause in pacing)
    return speech, speech + holds, len(table)


def _mode(spec: object) -> float:
    mode = getattr(spec, "mode_s", None)
    low, high = getattr(spec, "low_s"), getattr(spec, "high_s")  # noqa: B009
    return float(mode if mode is not None else (low + high) / 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pace", type=float, default=0.05)
    ap.add_argument("--skip-game", action="store_true", help="no whole game")
    ap.add_argument("--model-only", action="store_true", help="only the runs with the Korean model")
    args = ap.parse_args()
    words = "\n".join([*LOBBY, *host_script(demo_scenario()).utterances, "结束", "关机", "确认"]) + "\n"
    with bench_home() as (env, cache):
        speech, paced, n = speech_to_nightfall(cache)
        print(f"开始新游戏 → 天黑请闭眼 (12人预女猎白, espeak-ng): {n} table lines, {speech:.1f} s of speech, "
              f"{paced:.1f} s with the holds at their mode")
        runs = [("with the Korean model", MODEL)]
        if not args.model_only:
            runs.insert(0, ("without a model", []))
        for label, extra in runs:
            started = startups(command(*extra, cache=cache), env, args.runs, 60.0)
            print(f"{label}: power-on to the ready line: {started}")
            if not args.skip_game:
                mb, wall, cpu, code = game_usage(command(*extra, "--pace", str(args.pace), cache=cache), env, words)
                print(f"{label}: lobby + the demo game + 关机 (exit {code}, {wall:.0f} s wall at --pace "
                      f"{args.pace}): peak resident {mb:.0f} MB, CPU {cpu:.1f} s ({100 * cpu / wall:.0f} % of one "
                      "core)")

if __name__ == "__main__":
    main()
