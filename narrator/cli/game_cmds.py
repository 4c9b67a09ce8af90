"""`narrator simulate`, `narrator demo` and `narrator presets`: games without microphone or network."""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer


def _print_line(line: object) -> None:
    from rich.console import Console

    from narrator.judge.lines import Line

    assert isinstance(line, Line)
    console = Console(highlight=False, soft_wrap=True)
    if line.to == "host":
        console.print(f"  [dim]🎧 主持人：{line.text}[/dim]")
    else:
        console.print(f"🔊 {line.text}")


def simulate(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML): set-up, the host's words, expectations.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line: lines said and events.")] = False,
    lang: Annotated[str, typer.Option(help="Script: zh-Hans (简体) or zh-Hant (繁體).")] = "zh-Hans",
) -> None:
    """Run a scenario file through the judge.

    Exit codes: 0 the game ended and every expectation held; 1 an expectation failed; 2 the scenario is
    invalid or its next answer's kind does not match the prompt; 3 the answers ran out.
    """
    from narrator.sim.scenario import Scenario, ScenarioError

    try:
        scenario = Scenario.load(file)
    except ScenarioError as exc:
        typer.echo(f"invalid scenario: {exc}", err=True)
        raise typer.Exit(2) from exc
    _run(scenario, as_json, lang)


def _run(scenario: object, as_json: bool, lang: str) -> None:
    from narrator.judge.narrate import Judge
    from narrator.judge.script import Script
    from narrator.sim.scenario import Run, Scenario

    assert isinstance(scenario, Scenario)
    try:
        judge = Judge(Script(lang))
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    if as_json:
        run = Run(scenario, judge, on_record=lambda r: print(json.dumps(r, ensure_ascii=False)))
    else:
        run = Run(scenario, judge, on_line=_print_line)
    out = run.execute()
    if out.code:
        typer.echo(out.message, err=True)
    elif not as_json:
        typer.echo("✓ scenario held", err=True)
    raise typer.Exit(out.code)


def demo(
    lang: Annotated[str, typer.Option(help="Script: zh-Hans (简体) or zh-Hant (繁體).")] = "zh-Hans",
) -> None:
    """Play the built-in demo game (a full 12-player game) with no microphone, model or network."""
    import yaml

    from narrator.sim.scenario import Scenario

    text = resources.files("narrator.data").joinpath("demo.yaml").read_text(encoding="utf-8")
    _run(Scenario.from_dict(yaml.safe_load(text), name="demo"), as_json=False, lang=lang)


def presets() -> None:
    """List the presets (板子) and their cards."""
    from collections import Counter

    from narrator.presets import make_setup, preset_names

    for name in preset_names():
        setup = make_setup(name)
        cards = "、".join(f"{role.zh}×{n}" for role, n in Counter(setup.deck).items())
        typer.echo(f"{name:<12} {setup.players}人  {cards}")
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command()(simulate)
    app.command()(demo)
    app.command()(presets)
