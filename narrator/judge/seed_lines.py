"""The judge's lines the seed rules add (issue 11): the opening briefing and the prompts whose wording a
switch changes. Public lines depend only on the set-up; the briefing's secrets-free advice goes to the host."""

from __future__ import annotations

from narrator.engine import events as ev
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Role
from narrator.engine.rules import Setup
from narrator.engine.state import State
from narrator.judge.lines import Line
from narrator.judge.rules_talk import opening_lines
from narrator.judge.script import Script, Seat

VOTES = frozenset({"sheriff.vote", "vote.exile", "pk.vote"})


def started(script: Script, e: ev.GameStarted) -> list[Line]:
    """After the welcome: the house rules that differ from the board's usual ones to the table (J1; the full
    list on 规则), then to the host the set-up advice of the seeds (A13, A14) and the gesture conventions
    (C8, B15b)."""
    setup = Setup(e.players, e.deck, e.rules)
    out = opening_lines(setup, script.lang)
    for code in setup.warnings():
        out.append(script.line("events", "game_started.warning", warning=script.data["warnings"][code]))
    cards = set(e.deck)
    if Role.SEER in cards and e.rules.seer_sees == "camp":
        up, down = ("good", "wolf") if e.rules.seer_thumb_up == "good" else ("wolf", "good")
        out.append(script.line("events", "game_started.gestures_seer",
                               up=script.seer_result(up), down=script.seer_result(down)))
    if Role.WITCH in cards:
        out.append(script.line("events", "game_started.gestures_witch"))
    return out


def prompt(script: Script, p: Prompt, s: State, values: dict[str, object]) -> list[Line]:
    """The prompt's line, in the wording this game's switches pick."""
    kind, rules = p.kind, s.rules
    if kind == "vote.hands":  # H6: the table hears the target called, the host is asked for the hands
        target = Seat(int(p.info["target"]))
        return [script.line("prompts", "vote.hands", target=target),
                script.line("prompts", "vote.hands.host", target=target)]
    if kind == "wolves_ally.name":
        values["seat"] = Seat(int(p.info["first_dead"]))
    key = kind
    if kind == "sheriff.order" and p.info.get("dead") is not None:
        key = "sheriff.order.dead"  # F8: 死左 / 死右
    if kind == "sheriff.vote" and rules.election_voters == "everyone":
        key += ".everyone"
    if kind in VOTES and rules.vote_call in ("countdown", "eyes_closed"):
        key += "." + rules.vote_call  # 三，二，一，请出手 (the script's switch) / 闭眼投票 (H9)
    return [script.line("prompts", key, **values)]
