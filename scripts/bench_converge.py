#!/usr/bin/env python3
"""Wrong answers taken and tries per answer when the recogniser misreads: the ear's dialogue against a
simulated host and a simulated recogniser (synthesised misreadings, no audio).

    python scripts/bench_converge.py [--trials 300] [--seed 1] [--hard 0.33] [--stick 0.8] [--rival 0.2]
                                     [--drop 0.1] [--stray 0.05]

What is simulated (every number is a parameter, an assumption of this benchmark, not a measurement):

* **The recogniser.** For each answer every seat word is *hard* with probability `--hard` (the issue's "a
  third of the words"); a hard word is misread as its fixed partner seat with probability `--stick` every time
  it is said (errors stick to the word: 七号 came out 一号 every time in the room), a partner drawn once per
  answer. With `--rival` the right reading comes second in the N-best list, one score unit behind (the room
  measured wrong readings with no competitor: low). A multi-seat answer loses one seat word with `--drop`
  and gets a stray 是 at its end with `--stray`. Where the ear listens for two seats only (a choice) or one
  (an offer), a misreading must be one of those seats; 对 / 不对 are read right (115 of 115 in the room).
* **The host.** He says the right seats; he answers a read-back with 对 when it is right, else (`converging`)
  the right seat, or "不是X，是Y" when one seat of several is wrong, or 不对; a choice with the right seat; an
  offer ("是七号吗？") with 对 / 不对; "还差一个" with the missing seats (or "去掉X" for a seat kept wrong).
  The `repeating` host knows no repair but 不对 and the whole answer again (what the judge offered before
  issue 28).

Printed per configuration and question: answers, wrong answers taken, host utterances per answer (mean,
worst), read-backs per answer. Questions: the wolves' four seats (wolves.identify), the kill, the seer's
check (12人预女猎白, the seats of tests/listen/listenkit.py).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from narrator.common.clock import FakeClock  # noqa: E402
from narrator.common.numbers import chinese_number  # noqa: E402
from narrator.engine.answers import Pass, Seats  # noqa: E402
from narrator.engine.game import Accepted  # noqa: E402
from narrator.engine.prompts import Prompt  # noqa: E402
from narrator.engine.roles import Role  # noqa: E402
from narrator.judge.lines import Line  # noqa: E402
from narrator.judge.presets import make_setup  # noqa: E402
from narrator.listen.base import Heard  # noqa: E402
from narrator.listen.dialogue import Dialogue, DialogueConfig  # noqa: E402
from narrator.session.session import Session  # noqa: E402

PRESET = "12人预女猎白"
SEATS = [Role.WEREWOLF, Role.VILLAGER, Role.SEER, Role.WEREWOLF, Role.WITCH, Role.VILLAGER, Role.HUNTER,
         Role.WEREWOLF, Role.VILLAGER, Role.IDIOT, Role.WEREWOLF, Role.VILLAGER]
BEFORE = {"wolves.kill": Seats((7,)), "witch.save": "不救", "witch.poison": "没有"}
QUESTIONS = {"wolves.identify": (1, 4, 8, 11), "wolves.kill": (7,), "seer.check": (9,)}
MAX_UTTERANCES = 40
_SEAT = re.compile("[一二三四五六七八九十]+号")
_ZH = {chinese_number(n) + "号": n for n in range(1, 19)}


@dataclass
class Misreading:
    hard: float
    stick: float
    rival: float
    drop: float
    stray: float


def seat_word(n: int) -> str:
    return chinese_number(n) + "号"


def seats_of(text: str) -> list[int]:
    return [_ZH[w] for w in _SEAT.findall(text)]


@dataclass
class SimHost:
    """The host and the recogniser together: the Ear the dialogue listens to."""

    truth: tuple[int, ...]
    said: list[Line]
    rng: random.Random
    miss: Misreading
    converging: bool
    question: str
    partner: dict[int, int] = field(default_factory=dict)
    utterances: int = 0
    closed: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        for seat in range(1, 13):
            if self.rng.random() < self.miss.hard:
                self.partner[seat] = self.rng.choice([s for s in range(1, 13) if s != seat])

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if self.utterances >= MAX_UTTERANCES:
            self.closed.set()  # he gives up: the dialogue ends (counted as given up)
            return None
        self.utterances += 1
        words = self.reply(self.said[-1].text if self.said else self.question)
        return self.hear(words, prompt)

    def reply(self, line: str) -> str:
        heard = seats_of(line)
        right = set(self.truth)
        whole = " ".join(seat_word(s) for s in self.truth)
        if line.endswith("对吗？") or line.endswith("请说不对。"):
            if sorted(heard) == sorted(self.truth):
                return "对"
            if not self.converging:
                return "不对"
            wrong = [s for s in heard if s not in right]
            missing = [s for s in self.truth if s not in heard]
            if len(self.truth) == 1:
                return seat_word(self.truth[0])
            if len(wrong) == 1 and len(missing) == 1:
                return f"不是{seat_word(wrong[0])}，是{seat_word(missing[0])}"
            return "不对"
        if "还是" in line and self.converging:
            return next((seat_word(s) for s in heard if s in right), whole)
        if line.startswith("是") and line.endswith("回车。"):
            return "对" if heard and heard[0] in right else "不对"
        if "还差" in line and self.converging:
            wrong = [s for s in heard if s not in right]
            if wrong:
                return f"去掉{seat_word(wrong[0])}"
            return " ".join(seat_word(s) for s in self.truth if s not in heard)
        if "要换哪一个" in line:
            return whole
        return whole

    def hear(self, words: str, prompt: Prompt) -> Heard:
        """The host's words as the simulated recogniser reads them: (text, score) best first."""
        tokens = words.replace("，", " ").split()
        seat_tokens = [t for t in tokens if t in _ZH]
        if len(seat_tokens) > 1 and self.rng.random() < self.miss.drop:
            tokens.remove(self.rng.choice(seat_tokens))
        best, right = [], []
        for t in tokens:
            seat = _ZH.get(t)
            misread = self.misread(seat, prompt) if seat is not None else None
            best.append(seat_word(misread) if misread is not None else t)
            right.append(t)
        if len(seat_tokens) > 1 and self.rng.random() < self.miss.stray:
            best.append("是")
        readings = [(" ".join(best), 100.0)]
        if best != right and self.rng.random() < self.miss.rival:
            readings.append((" ".join(right), 99.0))
        return Heard(readings[0][0], tuple(readings), "voice", 0.0, 1.0)

    def misread(self, seat: int, prompt: Prompt) -> int | None:
        partner = self.partner.get(seat)
        if partner is None or self.rng.random() >= self.miss.stick:
            return None
        if partner in prompt.seats:
            return partner
        others = [s for s in prompt.seats if s != seat]
        return self.rng.choice(others) if len(prompt.seats) <= 2 and others else None

    def follow(self, playing: object) -> None:
        pass

    def close(self) -> None:
        pass


def at(kind: str) -> Session:
    """A 12人预女猎白 game (the seats of tests/listen/listenkit.py) answered up to the first `kind`."""
    session = Session(make_setup(PRESET), 7)
    while session.prompt is not None and session.prompt.kind != kind:
        p = session.prompt
        if p.kind.endswith(".identify") and p.role is not None:
            answer: object = Seats(tuple(i + 1 for i, r in enumerate(SEATS) if r is p.role))
        elif p.kind in ("speech.end", "last_words.end"):
            answer = Pass()
        else:
            answer = BEFORE[p.kind]
        session.take_lines()
        session.submit(answer)
    session.take_lines()
    return session


@dataclass
class Tally:
    answers: int = 0
    wrong: int = 0
    gave_up: int = 0
    tries: list[int] = field(default_factory=list)
    read_backs: int = 0


def trial(kind: str, truth: tuple[int, ...], cfg: DialogueConfig, miss: Misreading, converging: bool,
          rng: random.Random, tally: Tally) -> None:
    session = at(kind)
    said: list[Line] = []
    question = "".join(x.text for x in session.repeat_lines())
    host = SimHost(truth, said, rng, miss, converging, question)
    d = Dialogue(session, host, said.append, FakeClock(), cfg)  # type: ignore[arg-type]
    result = d.answer()
    tally.answers += 1
    tally.tries.append(host.utterances)
    tally.read_backs += sum(1 for x in said if x.text.endswith(("对吗？", "请说不对。")))
    if not isinstance(result, Accepted):
        tally.gave_up += 1
    elif sorted(getattr(session.answers[-1][1], "seats", ())) != sorted(truth):  # the same seats, in any order
        tally.wrong += 1


CONFIGS = {
    "take at once (read_back=doubt, seat_doubt=score), repeating host": (
        DialogueConfig(read_back="doubt", seat_doubt="score"), False),
    "read back every spoken seat, repeating host": (DialogueConfig(), False),
    "read back every spoken seat, converging host": (DialogueConfig(), True),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hard", type=float, default=0.33)
    parser.add_argument("--stick", type=float, default=0.8)
    parser.add_argument("--rival", type=float, default=0.2)
    parser.add_argument("--drop", type=float, default=0.1)
    parser.add_argument("--stray", type=float, default=0.05)
    a = parser.parse_args()
    miss = Misreading(a.hard, a.stick, a.rival, a.drop, a.stray)
    print(f"misreadings: hard {a.hard}, stick {a.stick}, rival {a.rival}, drop {a.drop}, stray {a.stray}; "
          f"{a.trials} answers per question, seed {a.seed}")
    print("| configuration | question | wrong taken | gave up | utterances per answer (mean / worst) "
          "| read-backs per answer |")
    print("|---|---|---|---|---|---|")
    for name, (cfg, converging) in CONFIGS.items():
        for kind, truth in QUESTIONS.items():
            rng = random.Random(f"{a.seed}/{kind}")
            tally = Tally()
            for _ in range(a.trials):
                trial(kind, truth, cfg, miss, converging, rng, tally)
            mean = sum(tally.tries) / len(tally.tries)
            print(f"| {name} | {kind} | {tally.wrong} of {tally.answers} | {tally.gave_up} | "
                  f"{mean:.2f} / {max(tally.tries)} | {tally.read_backs / tally.answers:.2f} |")


if __name__ == "__main__":
    main()
