"""Scenario files: a set-up, the host's words in order, and what must have happened.

    preset: 12人预女猎白            # or roles: {狼人: 4, 村民: 4, ...}; names in either script
    lang: zh-Hant                    # the game's script (default zh-Hans); expectations match in either
    rules: {witch_self_save: first_night}
    seats: [狼人, 村民, 预言家, ...]  # the deal, seat 1..N; omitted: a random deal from `seed`
    seed: 7
    answers:                         # [prompt kind, the host's words] (+ {refused: "part of the reason"})
      - [wolves.kill, 七号]
    expect: {winner: good, deaths: {night1: [], day1: [7]}}

Identification prompts, the thief's face-down cards, speeches and last words are answered from the deal
("过") unless the next answer names that kind; the host's acknowledgement where a step asks him nothing
(`host.pass`, narrator/judge/host_words.py) is always answered "过" by the runner, never by the file.
docs/scenarios.md documents every kind and expectation.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from narrator.common.zh import LANGS, holds, lang_named
from narrator.engine import events as ev
from narrator.engine.answers import Answer, Cards, Pass, TakeCard
from narrator.engine.game import Game
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Role, role_named
from narrator.engine.rules import Setup, SetupError
from narrator.judge.host_words import ACK
from narrator.judge.lines import Line
from narrator.judge.narrate import Judge
from narrator.judge.presets import make_setup
from narrator.judge.script import Script
from narrator.session.session import Refused, Session
from narrator.sim.autohost import AutoHost, Deal
from narrator.sim.checks import check_expectations
from narrator.sim.expectations import answer_problems, expect_problems

AUTO_KINDS = ("speech.end", "last_words.end", "thief.cards")
EXPECT_KEYS = {
    "winner", "deaths", "alive", "sheriff", "says", "says_in_order", "never_says", "awaiting", "lines_to_host",
    "never_to_host", "steps",
}


class ScenarioError(ValueError):
    """The scenario itself is wrong (exit 2)."""


@dataclass
class Scenario:
    setup: Setup
    deal: Deal
    seed: int
    answers: list[tuple[str, str, dict[str, Any]]]
    expect: dict[str, Any]
    name: str = ""
    lang: str | None = None
    """The game's script from the file's `lang:` (None: not said; the runner then plays zh-Hans)."""

    @classmethod
    def load(cls, path: Path) -> Scenario:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError) as exc:
            raise ScenarioError(f"cannot read {path}: {exc or type(exc).__name__}") from exc
        return cls.from_dict(data, name=path.stem)

    @classmethod
    def from_dict(cls, data: object, name: str = "") -> Scenario:
        if not isinstance(data, dict):
            raise ScenarioError("a scenario is a mapping with preset/roles, answers and expect")
        keys = {"preset", "roles", "rules", "seats", "seed", "answers", "expect", "title", "notes", "lang"}
        unknown = set(data) - keys
        if unknown:
            raise ScenarioError(f"unknown scenario keys: {', '.join(sorted(unknown))}")
        for key, kind, example in (("preset", str, "12人预女猎白"), ("rules", dict, "{sheriff: false}"),
                                   ("seed", int, "7"), ("answers", list, "[[wolves.kill, 七号]]")):
            value = data.get(key)
            if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
                raise ScenarioError(f"{key} must look like `{key}: {example}`, not {value!r}")
        try:
            setup = make_setup(data.get("preset"), data.get("roles"), data.get("rules"))
        except SetupError as exc:
            raise ScenarioError(f"invalid set-up: \"{exc}\"") from exc  # the rule book's words, quoted
        seed = int(data.get("seed") or 0)
        deal = _deal(setup, data.get("seats"), seed)
        answers = []
        for i, item in enumerate(data.get("answers") or []):
            if not isinstance(item, list) or len(item) not in (2, 3) or not isinstance(item[0], str):
                raise ScenarioError(f"answer {i + 1} must be [kind, words] or [kind, words, {{refused: ...}}]")
            extra = item[2] if len(item) == 3 else {}
            if not isinstance(extra, dict) or set(extra) - {"refused"}:
                raise ScenarioError(f"answer {i + 1}: the third item may only hold `refused`")
            answers.append((item[0], str(item[1]), extra))
        expect = data.get("expect") or {}
        if not isinstance(expect, dict) or set(expect) - EXPECT_KEYS:
            raise ScenarioError(f"expect takes: {', '.join(sorted(EXPECT_KEYS))}")
        problems = [*answer_problems(a[0] for a in answers), *expect_problems(expect, setup.players)]
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise ScenarioError(problems[0] + more)
        lang = None
        if data.get("lang") is not None:
            lang = lang_named(str(data["lang"]))
            if lang is None:
                raise ScenarioError(f"lang: {data['lang']!r} is not a script; choose one of {', '.join(LANGS)}")
        return cls(setup, deal, seed, answers, expect, name, lang)


def _deal(setup: Setup, seats: object, seed: int) -> Deal:
    if seats is None:
        return Deal.shuffle(setup, random.Random(seed))
    if not isinstance(seats, list) or len(seats) != setup.players:
        raise ScenarioError(f"seats must list {setup.players} cards, one per seat")
    roles = []
    for name in seats:
        role = role_named(str(name))
        if role is None:
            raise ScenarioError(f"seats: unknown card {name!r}")
        roles.append(role)
    if Counter(roles) - Counter(setup.deck):
        raise ScenarioError("seats hold cards that are not in the deck")
    return Deal.from_list(setup, roles)


@dataclass
class Output:
    """Everything a run produced, in order: lines said, events, and how it ended."""

    lines: list[Line] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    code: int = 0
    message: str = ""


@dataclass
class Run:
    scenario: Scenario
    judge: Judge | None = None
    """The judge, in the game's script; None: one speaking the scenario's `lang` (else zh-Hans)."""
    on_line: Callable[[Line], None] | None = None
    on_record: Callable[[dict[str, Any]], None] | None = None
    on_wait: Callable[[str], None] | None = None
    """Called with the prompt kind once the judge has said its lines and waits for the host."""
    on_answer: Callable[[str, str | None, Answer | None], None] | None = None
    """Called as the host answers: (prompt kind, the scenario's words, None), or (kind, None, the answer) when
    the runner answers from the deal itself (identification, the thief's cards, 过)."""
    out: Output = field(default_factory=Output)
    answer_no: int = 0
    """The number (from 1, in the file) of the answer being handled: errors about an answer name it."""
    session: Session | None = None
    """The game being played (set by execute): read its game, answers and status afterwards."""

    def __post_init__(self) -> None:
        if self.judge is None:
            self.judge = Judge(Script(self.scenario.lang or "zh-Hans"))

    @property
    def said_by(self) -> Judge:
        assert self.judge is not None
        return self.judge

    @property
    def lang(self) -> str:
        """The game's script: the judge's."""
        return self.said_by.script.lang

    def emit_line(self, line: Line) -> None:
        if not line.text:
            return
        self.out.lines.append(line)
        self.out.records.append({"say": line.text, "to": line.to})
        if self.on_line:
            self.on_line(line)
        if self.on_record:
            self.on_record(self.out.records[-1])

    def record(self, item: dict[str, Any]) -> None:
        self.out.records.append(item)
        if self.on_record:
            self.on_record(item)

    def refused(self, words: str, result: Refused, wanted: object) -> Output | None:
        """The judge tells the host why `words` were not taken; a failure unless the scenario expected it
        (`wanted`: the refusal's code, or part of its line in the game's script)."""
        kind, refusal, line = result.kind, result.refusal, result.line
        if wanted is None:
            how = "was refused" if result.understood else "cannot be understood"
            return self.fail(2, f"answer {self.answer_no} ({kind}): {words!r} {how} ({refusal.code}): {line.text}")
        if str(wanted) != refusal.code and not holds(line.text, str(wanted), self.lang):
            return self.fail(1, f"answer {self.answer_no} ({kind}): refused for {line.text!r} ({refusal.code}), "
                             f"expected {wanted!r}")
        self.emit_line(line)
        self.record({"event": "refused", "kind": kind, "code": refusal.code, "reason": line.text})
        return None

    def say(self, session: Session) -> None:
        """Everything the judge says up to the prompt now: each event's lines, then the event itself."""
        for what, lines in session.take():
            for line in lines:
                self.emit_line(line)
            if not isinstance(what, Prompt):
                self.record(event_record(what))

    def execute(self) -> Output:
        sc = self.scenario
        session = self.session = Session(sc.setup, sc.seed, lang=self.lang)
        session.acks = True  # the simulated host says 过 where a step asks him nothing, as a live host does
        host = AutoHost(sc.deal, random.Random(sc.seed))
        queue = iter(sc.answers)
        pending = next(queue, None)
        number = 1  # pending's number in the file
        while True:
            self.say(session)
            prompt = session.prompt
            if prompt is None:
                break
            if self.on_wait:
                self.on_wait(prompt.kind)
            # The host's 过 where a step asks him nothing (ACK) is no game fact, never in the file: answered below.
            if pending is not None and pending[0] == "rules" and prompt.kind != ACK:  # J1: at any prompt
                _, words, extra = pending
                pending = next(queue, None)
                self.answer_no, number = number, number + 1
                failed = self.explain(session, words, extra.get("refused"))
                if failed is not None:
                    return failed
                continue
            if pending is not None and pending[0] == prompt.kind:
                _, words, extra = pending
                pending = next(queue, None)
                self.answer_no, number = number, number + 1
                if self.on_answer:
                    self.on_answer(prompt.kind, words, None)
                wanted = extra.get("refused")
                # Words this prompt cannot take at all ("5号自爆" where self-explosion is off) are refused by
                # the judge like an illegal answer: with a reason, and nothing changes.
                result = session.submit(words)
                if isinstance(result, Refused):
                    failed = self.refused(words, result, wanted)
                    if failed is not None:
                        return failed
                    for line in session.repeat_lines():  # and asks again, where the reason was said
                        self.emit_line(line if result.line.to == "all" else replace(line, to="host"))
                elif wanted is not None:
                    return self.fail(1, f"answer {self.answer_no} ({prompt.kind}): {words!r} was accepted, "
                                     f"expected it refused ({wanted})")
                else:
                    self._track_thief(host, session.answers[-1][1], session.game)
                continue
            auto = self.auto_answer(host, prompt)
            if auto is not None:
                if self.on_answer:
                    self.on_answer(prompt.kind, None, auto)
                if isinstance(session.submit(auto), Refused):  # e.g. a face-down pair the house rules forbid
                    return self.fail(2, f"{prompt.kind}: the deal's own answer {auto} was refused")
                continue
            if pending is not None:
                return self.fail(2, f"answer {number}: the scenario answers {pending[0]}, but the game asks "
                                 f"{prompt.kind}")
            if sc.expect.get("awaiting") == prompt.kind:
                return self.check(session.game)
            self.record({"event": "awaiting", "kind": prompt.kind})
            return self.fail(3, f"answers ran out; the game asks {prompt.kind}")
        if pending is not None:
            return self.fail(2, f"the game ended but answers remain, from answer {number} ({pending[0]})")
        return self.check(session.game)

    def explain(self, session: Session, words: str, wanted: object) -> Output | None:
        """`[rules, 规则 女巫]`: the judge explains a rule (routed by the Session: by day to the table, at night
        to the host only)."""
        said = session.explain(words)
        if isinstance(said, Refused):
            return self.refused(words, said, wanted)
        if said is None:
            return self.fail(2, f"answer {self.answer_no} (rules): {words!r} is not a rules request (say 规则 …)")
        for line in said:
            self.emit_line(line)
        return None

    def auto_answer(self, host: AutoHost, prompt: Prompt) -> Answer | None:
        if prompt.kind == ACK:
            return Pass()
        if prompt.kind.endswith(".identify") and prompt.role is not None:
            return host.identify(prompt.role)
        if prompt.kind == "thief.cards":
            return Cards(self.scenario.deal.buried)
        if prompt.kind in AUTO_KINDS:
            return Pass()
        return None

    def _track_thief(self, host: AutoHost, answer: Answer, game: Game) -> None:
        if isinstance(answer, TakeCard) and game.state.thief_seat is not None:
            host.held[game.state.thief_seat] = game.state.roles[game.state.thief_seat]

    def fail(self, code: int, message: str) -> Output:
        self.out.code, self.out.message = code, message
        return self.out

    def check(self, game: Game) -> Output:
        problems = list(check_expectations(self.scenario.expect, game, self.out.lines, self.lang))
        if problems:
            return self.fail(1, "; ".join(problems))
        return self.out


def event_record(event: ev.Event) -> dict[str, Any]:
    """An event as one JSON-able object: "died" and "game_over" by name, the rest by their snake name."""
    if isinstance(event, ev.PlayerDied):
        return {"event": "died", "seat": event.seat, "cause": event.cause, "when": str(event.when)}
    if isinstance(event, ev.GameEnded):
        return {"event": "game_over", "winner": event.winner.value, "termination": event.termination,
                "roles": {str(seat): role.value for seat, role in event.roles}}
    from narrator.judge.narrate import event_key

    record: dict[str, Any] = {"event": event_key(event)}
    for name in event.__dataclass_fields__:
        value = getattr(event, name)
        if isinstance(value, Role):
            value = value.value
        elif isinstance(value, tuple):
            value = [v.value if isinstance(v, Role) else list(v) if isinstance(v, tuple) else v for v in value]
        elif not isinstance(value, int | float | str | bool | type(None)):
            continue
        record[name] = value
    if event.secret:
        record["secret"] = True
    return record
