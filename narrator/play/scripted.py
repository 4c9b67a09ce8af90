"""A scenario as a host's utterances: what a host who knows the deal would say at each prompt of a live
game, in order, one line each — the scenario's own words, and for the prompts the scenario runner answers
by itself (identification, the thief's cards, speeches) the words a host says ("三号 五号", "过").

It is how tests, crash drills and benchmarks pipe a whole game into `narrator play --input text`; the
game it plays is checked against the same scenario run by `narrator simulate`."""

from __future__ import annotations

from dataclasses import dataclass

from narrator.engine.answers import Answer, Cards, Pass, Seats
from narrator.engine.game import Game
from narrator.sim.scenario import Run, Scenario

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
    kinds: list[str]
    """The prompt kind each utterance answers (`speech.end` …), in the same order."""


def host_script(scenario: Scenario) -> Scripted:
    """The host's utterances for a scenario: the scenario runner plays it on a Session (the same game
    `simulate` plays), and every answer it gives — the scenario's words, or its own answer from the deal
    (identification by `Prompt.role`, the thief's cards, 过) — is written down as the words a host says.
    ValueError when the scenario cannot be played to its end (an answer refused that it did not expect,
    answers left over or run out)."""
    said: list[str] = []
    kinds: list[str] = []

    def answered(kind: str, words: str | None, auto: Answer | None) -> None:
        if words is None:
            assert auto is not None
            words = words_for(auto)
        said.append(words)
        kinds.append(kind)

    run = Run(scenario, on_answer=answered)
    out = run.execute()
    if out.code in (2, 3):
        raise ValueError(f"the scenario cannot be played: {out.message}")
    assert run.session is not None
    return Scripted(said, run.session.game, kinds)
