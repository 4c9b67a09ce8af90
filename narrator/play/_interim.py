"""Contract-shaped stand-ins for `narrator.session` / `narrator.journal` (CONTRACTS.md), used by the live
loop only while those modules have not landed: `Session` over the engine's `Game` and `Judge`, and a
JSON-lines `FileStore` whose appends are fsynced before `submit` returns. `narrator.play.ports` picks the
real modules when they exist."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from narrator.engine import answers as an
from narrator.engine import events as ev
from narrator.engine.game import Game, Rejected
from narrator.engine.prompts import ANSWER_SLUGS, Prompt
from narrator.engine.refusals import Refusal
from narrator.engine.roles import Camp, Role
from narrator.engine.rules import Rules, Setup
from narrator.engine.state import State
from narrator.hostwords import NotUnderstood, parse
from narrator.judge.lines import Line
from narrator.judge.narrate import Judge
from narrator.judge.script import Script

FORMAT = 1
log = logging.getLogger(__name__)
_TYPES = {slug: t for t, slug in ANSWER_SLUGS.items()}


class JournalError(ValueError):
    pass


def encode_answer(answer: an.Answer) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ANSWER_SLUGS[type(answer)]}
    for f in fields(answer):
        value = getattr(answer, f.name)
        if isinstance(value, Role):
            value = value.value
        elif isinstance(value, tuple):
            value = [v.value if isinstance(v, Role) else list(v) if isinstance(v, tuple) else v for v in value]
        out[f.name] = value
    return out


def decode_answer(data: dict[str, Any]) -> an.Answer:
    t = _TYPES[data["type"]]
    kw = {k: v for k, v in data.items() if k != "type"}
    if t is an.Cards:
        kw["roles"] = tuple(Role(r) for r in kw["roles"])
    elif t is an.TakeCard:
        kw["role"] = None if kw["role"] is None else Role(kw["role"])
    elif t is an.Ballots:
        kw["votes"] = tuple((int(a), int(b)) for a, b in kw["votes"])
    else:
        kw = {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}
    result: an.Answer = t(**kw)
    return result


def encode_setup(setup: Setup) -> dict[str, Any]:
    rules = {f.name: getattr(setup.rules, f.name) for f in fields(setup.rules)}
    rules["night_order"] = list(rules["night_order"])
    return {"players": setup.players, "deck": [r.value for r in setup.deck], "rules": rules}


def decode_setup(data: dict[str, Any]) -> Setup:
    rules = dict(data["rules"])
    rules["night_order"] = tuple(rules["night_order"])
    return Setup(int(data["players"]), tuple(Role(r) for r in data["deck"]), Rules(**rules))


class MemoryStore:
    def __init__(self) -> None:
        self.header: dict[str, Any] | None = None
        self.entries: list[tuple[str, an.Answer]] = []

    def start(self, setup: Setup, seed: int, lang: str) -> None:
        self.header = {"format": FORMAT, "setup": encode_setup(setup), "seed": seed, "lang": lang}
        self.entries = []

    def append(self, kind: str, answer: an.Answer) -> None:
        self.entries.append((kind, answer))

    def drop_last(self) -> None:
        self.entries.pop()

    def load(self) -> tuple[Setup, int, str, list[tuple[str, an.Answer]]]:
        if self.header is None:
            raise JournalError("empty journal")
        h = self.header
        return decode_setup(h["setup"]), int(h["seed"]), str(h["lang"]), list(self.entries)


class FileStore(MemoryStore):
    """JSON lines: a header, then {"kind", "answer"} per accepted answer, and {"undo": true} to take one back.
    Every write is flushed and fsynced before it returns; a torn last line is dropped on load."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path)

    def _write(self, obj: dict[str, Any], mode: str = "a") -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open(mode, encoding="utf-8") as f:
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def start(self, setup: Setup, seed: int, lang: str) -> None:
        """The header goes to a temporary file renamed into place: a journal is whole or absent."""
        super().start(setup, seed, lang)
        assert self.header is not None
        final, self.path = self.path, self.path.with_name(self.path.name + ".tmp")
        try:
            self._write(self.header, "w")
            self.path.replace(final)
        finally:
            self.path = final

    def append(self, kind: str, answer: an.Answer) -> None:
        self._write({"kind": kind, "answer": encode_answer(answer)})
        super().append(kind, answer)

    def drop_last(self) -> None:
        self._write({"undo": True})
        super().drop_last()

    def load(self) -> tuple[Setup, int, str, list[tuple[str, an.Answer]]]:
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot be read ({exc})") from exc
        whole = data[: data.rfind(b"\n") + 1]
        if len(whole) < len(data):
            # A torn last line (a crash inside an append): that answer was never confirmed. Cut it off, so
            # the next append starts on a fresh line.
            log.warning("%s: dropping a torn last line", self.path)
            os.truncate(self.path, len(whole))
        try:
            rows = whole.decode("utf-8").split("\n")[:-1]
        except UnicodeDecodeError as exc:
            raise JournalError(f"{self.path}: not UTF-8 text ({exc})") from exc
        if not rows:
            raise JournalError(f"{self.path}: empty journal")
        try:
            header = json.loads(rows[0])
        except json.JSONDecodeError as exc:
            raise JournalError(f"{self.path} line 1: not a journal header") from exc
        if header.get("format") != FORMAT:
            raise JournalError(f"{self.path}: journal format {header.get('format')!r}; "
                               f"this narrator reads format {FORMAT}")
        self.header = header
        self.entries = []
        for i, row in enumerate(rows[1:], start=2):
            try:
                obj = json.loads(row)
                if obj.get("undo"):
                    self.entries.pop()
                else:
                    self.entries.append((str(obj["kind"]), decode_answer(obj["answer"])))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as exc:
                raise JournalError(f"{self.path} line {i}: not a journal entry ({exc})") from exc
        return super().load()


@dataclass(frozen=True, slots=True)
class Accepted:
    events: tuple[ev.Event, ...]


@dataclass(frozen=True, slots=True)
class Refused:
    kind: str
    refusal: Refusal
    line: Line
    understood: bool


@dataclass
class Status:
    night: int
    day: int
    phase: str
    alive: tuple[int, ...]
    dead: dict[int, str]
    sheriff: int | None
    roles: dict[int, Role]
    potions: dict[str, bool]
    prompt: str | None
    players: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class Session:
    def __init__(self, setup: Setup, seed: int = 0, *, lang: str = "zh-Hans",
                 store: MemoryStore | None = None, _start: bool = True) -> None:
        self.setup, self.seed, self.lang = setup, seed, lang
        self.judge = Judge(Script(lang))
        self.store = store if store is not None else MemoryStore()
        if _start:
            self.store.start(setup, seed, lang)
        self.game = Game(setup, seed)
        self._shadow = State()
        self._seen = 0
        self._prompt_said = False

    @classmethod
    def resume(cls, store: MemoryStore) -> Session:
        setup, seed, lang, entries = store.load()
        session = cls(setup, seed, lang=lang, store=store, _start=False)
        for i, (kind, answer) in enumerate(entries):
            prompt = session.game.prompt
            if prompt is None or prompt.kind != kind or isinstance(session.game.answer(answer), Rejected):
                raise JournalError(f"answer {i + 1} ({kind}) does not replay "
                                   f"(the game asks {prompt.kind if prompt else 'nothing'})")
        session._shadow = State.fold(session.game.journal)
        session._seen = len(session.game.journal)
        return session

    @property
    def prompt(self) -> Prompt | None:
        return self.game.prompt

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def winner(self) -> Camp | None:
        return self.game.winner

    @property
    def termination(self) -> str | None:
        ended = next((e for e in reversed(self.game.journal) if isinstance(e, ev.GameEnded)), None)
        return getattr(ended, "termination", None) if ended else None

    @property
    def answers(self) -> list[tuple[str, an.Answer]]:
        return list(self.game.answers)

    def take_lines(self) -> list[Line]:
        out: list[Line] = []
        for event in self.game.journal[self._seen:]:
            self._shadow.apply(event)
            out.extend(self.judge.event_lines(event, self._shadow))
        self._seen = len(self.game.journal)
        if self.game.prompt is not None and not self._prompt_said:
            out.extend(self.judge.prompt_lines(self.game.prompt, self._shadow))
            self._prompt_said = True
        return [line for line in out if line.text]

    def submit(self, answer: str | an.Answer) -> Accepted | Refused:
        prompt = self.game.prompt
        kind = prompt.kind if prompt else ""
        secret = prompt is None or prompt.secret or self.status().phase == "night"
        if isinstance(answer, str):
            if prompt is None:
                return self._refused(kind, Refusal("game.over", {}), True, secret)
            try:
                answer = parse(answer, prompt.accepts)
            except NotUnderstood as exc:
                return self._refused(kind, exc.refusal, False, secret)
        result = self.game.answer(answer)
        if isinstance(result, Rejected):
            return self._refused(kind, result.refusal, True, secret)
        self.store.append(kind, answer)
        self._prompt_said = False
        return Accepted(result.events)

    def _refused(self, kind: str, refusal: Refusal, understood: bool, secret: bool) -> Refused:
        line = self.judge.script.refusal(refusal)
        if not secret:
            line = Line(line.text, "all", line.pieces, line.key, line.pause, line.cue, line.bed)
        return Refused(kind, refusal, line, understood)

    def undo(self) -> bool:
        if not self.game.answers:
            return False
        self.game = self.game.undo()
        self.store.drop_last()
        self._shadow = State.fold(self.game.journal)
        self._seen = len(self.game.journal)
        self._prompt_said = False
        return True

    def status(self) -> Status:
        s = self.game.state
        phase = "over" if self.game.over else "night"
        for e in reversed(self.game.journal):
            if isinstance(e, ev.NightFell):
                break
            if isinstance(e, ev.DayBroke):
                phase = "day" if not self.game.over else "over"
                break
        return Status(s.night, s.day, phase, tuple(sorted(s.alive)), {k: v[0] for k, v in s.deaths.items()},
                      s.sheriff, dict(s.roles), {"antidote": s.antidote, "poison": s.poison},
                      self.game.prompt.kind if self.game.prompt else None, s.players)
