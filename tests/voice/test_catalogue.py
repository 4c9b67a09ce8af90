"""Both scripts (简体, 繁體) can say everything the engine can produce, and they match key for key.

The lists of events and prompt kinds come from the code, not from a hand-kept list: every subclass of
Event, and every prompt kind met while random legal games are played over every preset plus two decks
that between them hold every card (under default, reveal-on-death and classic rules).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest

from narrator.engine import events as ev
from narrator.engine.game import Game
from narrator.engine.roles import Role
from narrator.engine.rules import STEP_CARD, Setup
from narrator.judge.host_words import ACK
from narrator.judge.lines import Line
from narrator.judge.narrate import Judge, event_key
from narrator.judge.presets import make_setup, preset_names
from narrator.judge.script import LANGS, Script, _load
from narrator.sim.autohost import AutoHost, Deal

SEEDS = 20
ALL_CARDS_DECKS = (
    {"wolves": 3, "wolf_beauty": 1, "seer": 1, "witch": 1, "raven": 1, "piper": 1, "wild_child": 1, "elder": 1,
     "scapegoat": 1, "villager": 2},
    {"wolves": 2, "wolf_king": 1, "seer": 1, "hunter": 1, "guard": 1, "idiot": 1, "cupid": 1, "thief": 1,
     "little_girl": 1, "villager": 2},
)
RULE_SETS: tuple[dict[str, Any], ...] = (
    {}, {"reveal_on_death": "role"}, {"classic": True},
    # --- seed rules --- (issue 11): the switches that bring their own events, prompts and wordings
    {"vote_call": "by_target", "sheriff_order": "dead_side", "election_offstage_pk": True,
     "exile_tie": "pk_then_offstage", "new_moon": True, "no_sheriff_order": "smaller_dead"},
    {"vote_call": "eyes_closed", "election_voters": "everyone", "lovers_close_at_nightfall": True,
     "exile_tie": "pk_until_out", "election_eyes_closed": False},
)
# --- modern roles: decks and switches the presets do not reach (恶魔's two versions, the sheriff deciding
# a tie, a 机械狼 with few cards to copy from, a 血月使徒 who explodes more often) ---
MODERN_SETUPS: tuple[tuple[dict[str, int], dict[str, Any]], ...] = (
    ({"demon": 1, "wolves": 2, "seer": 1, "witch": 1, "hunter": 1, "guard": 1, "villager": 3},
     {"exile_tie": "sheriff_decides"}),
    ({"demon": 1, "wolves": 2, "seer": 1, "witch": 1, "hunter": 1, "guard": 1, "villager": 3}, {"demon": "offline"}),
    ({"mech_wolf": 1, "wolves": 1, "witch": 1, "psychic": 1, "villager": 4}, {"sheriff": False}),
    ({"blood_moon": 1, "wolves": 2, "seer": 1, "witch": 1, "hunter": 1, "guard": 1, "villager": 3}, {}),
)
SILENT_EVENTS = {
    "SpeechEnded": "the next speech prompt calls the next speaker",
    "NightComes": "天黑请闭眼 follows at once; 今天的白天结束了 before it was redundant",
}
"""Events the judge deliberately says nothing for, and why."""

# Simplified characters that are never right in a traditional text (their traditional form differs).
SIMPLIFIED_ONLY = (
    "说请号发这们会时杀没谁开关闭睁枪猎预验卫护盗贼乐乌鸦长选择两张换让别认确边结胜阵营侣场为从后么吗给对过还进"
    "遗东轮点药听声万与无见经头问题样实个几当动带弃举竞异师诅骗钟"
)


def event_classes() -> list[type[ev.Event]]:
    out, todo = [], list(ev.Event.__subclasses__())
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo.extend(cls.__subclasses__())
    return out


def all_event_types() -> set[str]:
    return {cls.__name__ for cls in event_classes()}


def setups() -> list[Setup]:
    out = [make_setup(name) for name in preset_names()]
    out += [make_setup(roles=deck, rules=dict(rules)) for deck in ALL_CARDS_DECKS for rules in RULE_SETS]
    out += [make_setup(roles=deck, rules=dict(rules)) for deck, rules in MODERN_SETUPS]
    return out


@dataclass
class Survey:
    lines: dict[str, dict[str, list[Line]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    """lang → event type → every line the judge said for it."""
    seen_events: set[str] = field(default_factory=set)
    prompt_kinds: set[str] = field(default_factory=set)
    steps: set[str] = field(default_factory=set)
    prompt_lines: dict[str, list[Line]] = field(default_factory=lambda: defaultdict(list))
    """lang → every prompt line."""


@pytest.fixture(scope="module")
def surveyed() -> Survey:
    """One survey for the tests that read it (a module fixture, so a parallel run keeps them on one worker
    and makes it once)."""
    return survey()


def survey() -> Survey:
    """Random legal games; both judges render every event and prompt with the state of that moment."""
    judges = {lang: Judge(Script(lang)) for lang in LANGS}
    out = Survey()
    for setup in setups():
        # a 机械狼 copies the witch in about one game in fourteen: his small deck plays more games
        seeds = SEEDS * 5 if Role.MECH_WOLF in setup.deck and setup.players == 8 else SEEDS
        for seed in range(seeds):
            rng = random.Random(seed)
            host = AutoHost(Deal.shuffle(setup, rng), rng)
            if Role.BLOOD_MOON in setup.deck:
                host.explode_chance = 0.1  # so his explosion (and the sealed night after it) happens
            game = Game(setup, seed)
            done = 0
            while True:
                for event in game.journal[done:]:
                    out.seen_events.add(type(event).__name__)
                    if isinstance(event, ev.StepOpened):
                        out.steps.add(event.step)
                    for lang, judge in judges.items():
                        out.lines[lang][type(event).__name__].extend(judge.event_lines(event, game.state))
                done = len(game.journal)
                prompt = game.prompt
                if prompt is None:
                    break
                out.prompt_kinds.add(prompt.kind)
                for lang, judge in judges.items():
                    out.prompt_lines[lang].extend(judge.prompt_lines(prompt, game.state))
                game.answer(host.answer(game, prompt))
    return out


def test_random_games_reach_every_event_type_and_every_night_step(surveyed: Survey) -> None:
    s = surveyed
    assert all_event_types() - s.seen_events == set(), "add a deck or rule set that produces these events"
    assert s.steps == set(STEP_CARD) | {"wolves_ally"}  # 新月's step, the night after its card


@pytest.mark.parametrize("lang", LANGS)
def test_every_event_type_has_a_line_or_is_deliberately_silent(lang: str, surveyed: Survey) -> None:
    script = Script(lang)
    lines = surveyed.lines[lang]
    for name in sorted(all_event_types()):
        said = lines[name]
        if name in SILENT_EVENTS:
            assert said == [], f"{name} is listed as silent but the judge says {said[0].text!r}"
            continue
        key = event_key_of(name)
        if name not in ("StepOpened", "StepAsked", "StepClosed"):  # said from `steps:`
            assert any(k == key or k.startswith(key + ".") for k in script.keys("events")), f"no events.{key}"
        assert said, f"{name} happened but the judge never said anything for it"
        assert all(line.text and "{" not in line.text for line in said), name


@pytest.mark.parametrize("lang", LANGS)
def test_every_prompt_kind_has_a_line(lang: str, surveyed: Survey) -> None:
    s = surveyed
    script = Script(lang)
    catalogue = {k.removesuffix(".countdown") for k in script.keys("prompts")}  # house rule vote_call
    kinds = {"identify" if k.endswith(".identify") else k for k in s.prompt_kinds}
    kinds.add(ACK)  # the host's 过 where a step asks him nothing: asked by the Session, not the engine
    assert kinds - catalogue == set(), "prompt kinds without a line"
    # A wording a switch picks ("vote.exile.eyes_closed", "sheriff.order.dead") is a variant of its kind.
    variants = {k for k in catalogue if any(k.startswith(kind + ".") for kind in kinds)}
    assert catalogue - kinds - variants == set(), "lines for prompt kinds the engine never asks (stale keys?)"
    assert all(line.text and "{" not in line.text for line in s.prompt_lines[lang])


def event_key_of(class_name: str) -> str:
    cls = next(c for c in event_classes() if c.__name__ == class_name)
    return event_key(cls.__new__(cls))  # the key depends on the class only


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a catalogue, keyed by its dotted path (a mapping with `text` is one leaf)."""
    if isinstance(data, dict) and "text" not in data:
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(flatten(v, f"{prefix}{k}/"))
        return out
    return {prefix.rstrip("/"): data}


def test_both_scripts_have_exactly_the_same_keys_and_attributes() -> None:
    hans, hant = flatten(_load("zh-Hans")), flatten(_load("zh-Hant"))
    assert sorted(hans) == sorted(hant)
    for path, a in hans.items():
        b = hant[path]
        if isinstance(a, dict):
            assert {k: v for k, v in a.items() if k != "text"} == {k: v for k, v in b.items() if k != "text"}, path
            a, b = a["text"], b["text"]
        assert re.findall(r"\{\w+\}", str(a)) == re.findall(r"\{\w+\}", str(b)), f"placeholders differ at {path}"
        assert bool(a) == bool(b), path


def test_the_traditional_script_has_no_simplified_only_characters() -> None:
    texts = {path: str(v["text"] if isinstance(v, dict) else v) for path, v in flatten(_load("zh-Hant")).items()}
    bad = {path: sorted(set(t) & set(SIMPLIFIED_ONLY)) for path, t in texts.items() if set(t) & set(SIMPLIFIED_ONLY)}
    assert bad == {}
    hans = "".join(str(v["text"] if isinstance(v, dict) else v) for v in flatten(_load("zh-Hans")).values())
    assert len(set(hans) & set(SIMPLIFIED_ONLY)) > 40, "the check must bite: the 简体 script uses these"


def test_the_traditional_script_is_really_converted() -> None:
    """Not a copy: the two scripts differ wherever the 简体 text has a simplified-only character."""
    hans, hant = flatten(_load("zh-Hans")), flatten(_load("zh-Hant"))
    for path, a in hans.items():
        ta = str(a["text"] if isinstance(a, dict) else a)
        tb = str(hant[path]["text"] if isinstance(hant[path], dict) else hant[path])
        assert len(ta) == len(tb), f"{path}: {ta!r} → {tb!r} changed length (a word was rewritten?)"
        if set(ta) & set(SIMPLIFIED_ONLY):
            assert ta != tb, path
