"""One prompt, one question: the table hears a step's next question only after the host answered the one
before it, and hears it every night, whatever is left and whoever is alive (issue 6, item 6)."""

from __future__ import annotations

from pathlib import Path

from narrator.judge.lines import Line
from narrator.sim.scenario import Run, Scenario

SCENARIO = Path(__file__).parent / "scenarios" / "099_seer_and_witch_one_question_at_a_time.yaml"


def nights(lines: list[Line]) -> list[list[tuple[str, str]]]:
    """(to, key of a public line or text of a host line) of every line from 天黑 to 天亮, night by night."""
    out: list[list[tuple[str, str]]] = []
    inside = False
    for line in lines:
        if line.key.startswith("events.night_fell"):
            out.append([])
            inside = True
        if inside:
            out[-1].append((line.to, line.key if line.to == "all" else line.text))
        if line.key == "events.day_broke":
            inside = False
    return out


def position(night: list[tuple[str, str]], wanted: str) -> int:
    return next(i for i, (_, said) in enumerate(night) if said == wanted or wanted in said)


def test_each_question_waits_for_the_answer_before_it() -> None:
    out = Run(Scenario.load(SCENARIO)).execute()
    assert out.code == 0, out.message
    first, second, third = nights(out.lines)
    # Night 1: the antidote question, the host's answer, then the poison question; the seer points first.
    order = ["steps.witch.ask_first", "女巫救不救", "steps.witch.poison", "steps.witch.close",
             "steps.seer.ask_first", "预言家查验了谁", "请向预言家示意：一号是狼人", "steps.seer.result"]
    assert [position(first, x) for x in order] == sorted(position(first, x) for x in order)
    # Night 2: no antidote left, so nothing is asked between the two questions, but both are said.
    order = ["steps.witch.ask", "steps.witch.poison", "女巫毒谁", "steps.seer.ask", "预言家查验了谁",
             "steps.seer.result"]
    assert [position(second, x) for x in order] == sorted(position(second, x) for x in order)
    assert not any("女巫救不救" in said for _, said in second)
    # Night 3: the seer is dead; his question and his gesture are still said, one after the other.
    public = [said for to, said in third if to == "all"]
    assert public[public.index("steps.seer.ask") + 1] == "steps.seer.result"
    assert not any("预言家查验了谁" in said for _, said in third)


def test_public_night_lines_are_the_same_every_later_night() -> None:
    out = Run(Scenario.load(SCENARIO)).execute()
    _, second, third = nights(out.lines)
    assert [s for to, s in second if to == "all"] == [s for to, s in third if to == "all"]
