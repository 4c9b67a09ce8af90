"""The live loop's own lines (the `play:` section of the judge's script): the cards to deal, where a
resumed game stands, pause and device messages. Built as `Line`s with pieces, like every judge line, so
`narrator voices build` pre-renders them."""

from __future__ import annotations

from narrator.engine.prompts import Prompt
from narrator.engine.rules import Setup
from narrator.judge.lines import Line
from narrator.judge.script import Joined, Pieces, Script, Seat
from narrator.play.options import dealt_cards
from narrator.session.session import Place


def deal_line(script: Script, setup: Setup) -> Line:
    """"本局十二人：四狼人，四村民，预言家，女巫，猎人，白痴。请洗牌发牌，准备好了说开始。" """
    cards = [Pieces((script.count(n), script.role(role.value))) if n > 1 else script.role(role.value)
             for role, n in dealt_cards(setup)]
    joined = Joined(str(script.data["play"]["card_joiner"]), cards)
    n, m = script.number(setup.players), script.number(len(setup.deck))
    key = "deal.thief" if len(setup.deck) > setup.players else "deal"
    return script.line("play", key, n=n, m=m, cards=joined)


def start_words(script: Script) -> tuple[str, ...]:
    """The words that start the game, in both scripts (a recogniser or keyboard may write either)."""
    from narrator.judge.script import LANGS

    words = [str(w) for lang in (script.lang, *LANGS) for w in Script(lang).data["play"]["start_words"]]
    return tuple(dict.fromkeys(words))


def doing(script: Script, prompt: Prompt) -> Pieces:
    """What the game is doing at this prompt: "放逐投票", "七号发言", "女巫的回合"."""
    kind = prompt.kind
    if script.has("play", f"doing.{kind}"):
        values = {"seat": Seat(prompt.actor)} if prompt.actor is not None else {}
        if "{seat}" in script.entry("play", f"doing.{kind}").text and "seat" not in values:
            return Pieces(script.line("play", "doing.other").pieces)
        return Pieces(script.line("play", f"doing.{kind}", **values).pieces)
    if prompt.role is not None:
        return Pieces(script.line("play", "doing.step", role=script.role(prompt.role.value)).pieces)
    return Pieces(script.line("play", "doing.other").pieces)


def resumed_line(script: Script) -> Line:
    """"继续游戏。" — all the table hears when a stopped game goes on: no phase, no step, no role (which step
    a game stopped at can be a secret: an exiled hunter's shot, the night's end before its dawn)."""
    return script.line("play", "resume_table")


def where_line(script: Script, place: Place) -> Line:
    """"继续游戏：第二天白天，正在放逐投票。" — for the host alone (earpiece, console)."""
    return script.line("play", "resume", where=where_pieces(script, place))


def where_pieces(script: Script, place: Place) -> Pieces:
    """Where a game stands (`Session.place`): "第二天白天，正在放逐投票", "第一夜，正在女巫的回合" (the host's
    resume line, `narrator games`, his panel)."""
    assert place.prompt is not None
    key = "where.night" if place.phase == "night" else "where.day"
    n = place.night if place.phase == "night" else place.day
    return Pieces(script.line("play", key, n=script.number(n), doing=doing(script, place.prompt)).pieces)


def where_text(script: Script, place: Place) -> str:
    """Where a saved game stopped, for `narrator games` and the panel: "第二天白天，正在放逐投票"."""
    if place.prompt is None:
        return "—"
    return "".join(str(piece) for piece in where_pieces(script, place))


def message(script: Script, key: str, **values: str) -> Line:
    return script.line("play", key, **values)


def device_name(script: Script, device: str) -> str:
    return str(script.data["play"][f"device.{device}"])
