"""A scenario's narration as sound: the judge's lines through the voice, placed by the mixer.

The same pieces serve `narrator render` and the demo: the scenario runner produces lines in order, the
speaker turns each into audio (from the voice cache where it can), and the mixer lays them over the beds
with the paces of narrator/data/pacing.yaml. Where the judge would wait for the host, both channels wait
for each other (SYNC), as the live loop does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.audio.pacing import Pacer
from narrator.audio.render import SYNC, Rendered, RenderItem, render_to_files
from narrator.judge.lines import Line
from narrator.judge.narrate import Judge
from narrator.judge.script import Script
from narrator.sim.scenario import Output, Run, Scenario
from narrator.voice import Speaker

if TYPE_CHECKING:
    from narrator.audio.playback import Player


@dataclass
class Narration:
    items: list[RenderItem]
    output: Output


def narrate(scenario: Scenario, speaker: Speaker, lang: str = "zh-Hans",
            on_line: Callable[[Line], None] | None = None) -> Narration:
    """Run the scenario and voice every line it says (public and host)."""
    items: list[RenderItem] = []

    def said(line: Line) -> None:
        items.append((line, speaker.line(line)))
        if on_line is not None:
            on_line(line)

    def waits(kind: str) -> None:
        items.append(SYNC)

    run = Run(scenario, Judge(Script(lang)), on_line=said, on_wait=waits)
    return Narration(items, run.execute())


def render_scenario(scenario: Scenario, speaker: Speaker, public_path: Path, host_path: Path, *,
                    lang: str = "zh-Hans", seed: int | None = None,
                    on_line: Callable[[Line], None] | None = None) -> tuple[Rendered, Output]:
    """Render a scenario to two WAV files (table and host). Pauses are drawn with `seed` (default: the
    scenario's own seed), so the same scenario renders to the same audio."""
    narration = narrate(scenario, speaker, lang, on_line)
    pacer = Pacer(scenario.seed if seed is None else seed)
    rendered = render_to_files(narration.items, public_path, host_path, pacer=pacer)
    return rendered, narration.output


def play_items(items: list[RenderItem], player: Player, on_line: Callable[[Line], None] | None = None) -> None:
    """Play rendered items live: lines are queued on the player's one long-lived stream; at SYNC the
    judge waits until the room has heard everything, as it does before listening to the host."""
    for item in items:
        if item is SYNC:
            player.wait_drained()
            continue
        assert isinstance(item, tuple)
        line, clip = item[0], item[1]
        if on_line is not None:
            on_line(line)
        player.say(line, clip)
    player.wait_drained()
