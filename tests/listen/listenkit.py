"""Shared by the ear's tests: a table to play on, a scripted ear, the host's words for an answer."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from narrator.audio.beds import builtin_sounds
from narrator.audio.mixer import Mixer
from narrator.common.clock import FakeClock
from narrator.engine.answers import (
    Answer,
    Ballots,
    Cards,
    Direction,
    Duel,
    Pass,
    Seats,
    SelfExplode,
    TakeCard,
    VoteResult,
    YesNo,
)
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Role
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup
from narrator.listen.base import Heard, MicMode, Recording
from narrator.session.session import Session
from narrator.sim.autohost import Deal

PRESET = "12人预女猎白"
SEATS = [Role.WEREWOLF, Role.VILLAGER, Role.SEER, Role.WEREWOLF, Role.WITCH, Role.VILLAGER, Role.HUNTER,
         Role.WEREWOLF, Role.VILLAGER, Role.IDIOT, Role.WEREWOLF, Role.VILLAGER]


def table(seed: int = 7) -> tuple[Session, Deal]:
    setup = make_setup(PRESET)
    return Session(setup, seed), Deal.from_list(setup, list(SEATS))


def words(answer: Answer) -> str:
    """The host's words for an answer, as hostwords.parse reads them back."""
    match answer:
        case Seats(seats=()):
            return "没有"
        case Seats(seats=named):
            return " ".join(f"{n}号" for n in named)
        case YesNo(yes=yes):
            return "是" if yes else "不是"
        case Pass():
            return "过"
        case SelfExplode(seat=n):
            return f"{n}号自爆"
        case Ballots(votes=votes):
            groups: dict[int, list[int]] = {}
            for voter, target in votes:
                groups.setdefault(target, []).append(voter)
            return "，".join(" ".join(map(str, v)) + f" 投 {t}号" for t, v in groups.items()) or "全部弃票"
        case VoteResult(out=None, tied=()):
            return "平安日"
        case VoteResult(out=None, tied=tied):
            return " ".join(f"{n}号" for n in tied) + " 平票"
        case VoteResult(out=out):
            return f"{out}号出局"
        case Cards(roles=roles):
            return " ".join(r.zh for r in roles)
        case TakeCard(role=None):
            return "不换"
        case TakeCard(role=role):
            return f"拿{role.zh}"
        case Direction(side=side):
            return "警左" if side == "left" else "警右"
        case Duel(knight=knight, target=target):
            return f"{knight}号决斗{target}号"
    raise TypeError(answer)


Step = Heard | str | None | Callable[[], object]


@dataclass
class ScriptedEar:
    """Hears the given things in order: a str is typed text, a Heard is as given, None is silence (the
    fake clock moves on by the timeout, or a minute without one), a callable is called (a check) and the
    next item follows. Once the script is used up the ear is closed."""

    script: list[Step]
    clock: FakeClock
    following: list[object] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    closed: threading.Event = field(default_factory=threading.Event)

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        self.asked.append(prompt.kind)
        while self.script:
            item = self.script.pop(0)
            if callable(item) and not isinstance(item, Heard):
                item()
                continue
            if item is None:
                self.clock.advance(60.0 if timeout_s is None else timeout_s)
                return None
            return Heard(item) if isinstance(item, str) else item
        self.closed.set()
        return None

    def follow(self, playing: object) -> None:
        self.following.append(playing)

    def close(self) -> None:
        self.closed.set()

    def ended(self) -> bool:
        return self.closed.is_set()

    def microphones(self) -> list[Recording]:
        return []

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        """Typed words: every word is heard."""

    def set_mode(self, mode: MicMode) -> None:
        """Typed words: no microphone."""


def judge_played(clip: np.ndarray, at: float) -> Mixer:
    """A real Mixer that has played `clip` (mono, the mixer's rate) on the table, its first sample leaving
    the device at `at` on the ear's clock — as the Player's callback stamps it; what the ear follows."""
    mixer = Mixer(builtin_sounds())
    mixer.enqueue(clip, "all", 0.0)
    mixer.stamp("all", mixer.frames_played("all"), at)
    mixer.pull(len(clip) + 240)
    return mixer


def voice(*alternatives: tuple[str, float]) -> Heard:
    return Heard(alternatives[0][0], tuple(alternatives), "voice", 0.0, 1.0)


class Said(list[Line]):
    def __call__(self, line: Line) -> None:
        self.append(line)

    def public(self) -> list[str]:
        return [x.text for x in self if x.to == "all"]

    def host(self) -> list[str]:
        return [x.text for x in self if x.to == "host"]


def auto_until(session: Session, deal: Deal, kind: str, answers: dict[str, str] | None = None) -> None:
    """Answer every prompt before the first of `kind` like the scenario runner does (identifications from
    the deal, 过 for speeches, then `answers` by kind), taking the lines as they come."""
    answers = dict(answers or {})
    held = dict(deal.seats)
    while session.prompt is not None and session.prompt.kind != kind:
        p = session.prompt
        if p.kind.endswith(".identify") and p.role is not None:
            answer: Answer | str = Seats(tuple(s for s, r in sorted(held.items()) if r is p.role))
        elif p.kind in ("speech.end", "last_words.end"):
            answer = Pass()
        elif p.kind in answers:
            answer = answers.pop(p.kind)
        else:
            raise AssertionError(f"no answer for {p.kind} before {kind}")
        session.take_lines()
        result = session.submit(answer)
        assert hasattr(result, "events"), (p.kind, result)
    session.take_lines()
