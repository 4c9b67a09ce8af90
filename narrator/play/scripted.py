"""A scenario as a host's utterances: what a host who knows the deal would say at each prompt of a live
game, in order, one line each — the scenario's own words, and for the prompts the scenario runner answers
by itself (identification, the thief's cards, speeches) the words a host says ("三号 五号", "过").

It is how tests, crash drills and benchmarks pipe a whole game into `narrator play --input text`; the
game it plays is checked against the same scenario run by `narrator simulate`."""

from __future__ import annotations

import random
from dataclasses import dataclass

from narrator.engine.answers import Answer, Cards, Pass, Seats, TakeCard
from narrator.engine.game import Game, Rejected
from narrator.engine.roles import Role
from narrator.hostwords import NotUnderstood, parse
from narrator.sim.autohost import AutoHost
from narrator.sim.scenario import AUTO_KINDS, Scenario

_CN = "零一二三四五六七八九"


def seat_words(n: int) -> str:
    if n < 10:
        return _CN[n] + "号"
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _CN[tens]) + "十" + (_CN[ones] if ones else "") + "号"


def words_for(answer: Answer) -> str:
    """What a host says for an answer the runner would give by itself."""
    if isinstance(answer, Seats):
        return " ".join(seat_words(s) for s in answer.seats) or "没有"
    if isinstance(answer, Pass):
        return "过"
    if isinstance(answer, Cards):
        return " ".join(role.zh for role in answer.roles)
    raise TypeError(f"no words for {answer!r}")


@dataclass
class Scripted:
    utterances: list[str]
    """One line per host answer, in order (refused ones included: the live judge refuses them too)."""
    game: Game
    """The game those words play (what `simulate` plays)."""


def host_script(scenario: Scenario) -> Scripted:
    """The host's utterances for a scenario (the same game `Run.execute` plays)."""
    game = Game(scenario.setup, scenario.seed)
    host = AutoHost(scenario.deal, random.Random(scenario.seed))
    said: list[str] = []
    queue = iter(scenario.answers)
    pending = next(queue, None)
    while game.prompt is not None:
        prompt = game.prompt
        if pending is not None and pending[0] == prompt.kind:
            words = pending[1]
            pending = next(queue, None)
            said.append(words)
            try:
                answer = parse(words, prompt.accepts)
            except NotUnderstood:
                continue
            if isinstance(game.answer(answer), Rejected):
                continue
            if isinstance(answer, TakeCard) and game.state.thief_seat is not None:
                host.held[game.state.thief_seat] = game.state.roles[game.state.thief_seat]
            continue
        auto: Answer
        if prompt.kind.endswith(".identify"):
            auto = host.identify(Role(prompt.kind.removesuffix(".identify")))
        elif prompt.kind == "thief.cards":
            auto = Cards(scenario.deal.buried)
        elif prompt.kind in AUTO_KINDS:
            auto = Pass()
        else:
            raise ValueError(f"the scenario has no answer for {prompt.kind}")
        said.append(words_for(auto))
        result = game.answer(parse(said[-1], prompt.accepts))
        if isinstance(result, Rejected):
            raise ValueError(f"{said[-1]!r} was refused at {prompt.kind}: {result.code}")
    return Scripted(said, game)
