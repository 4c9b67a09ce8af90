"""`narrator simulate`, `narrator demo` and `narrator presets`: games without microphone or network."""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from narrator.cli.options import Backend, BackendOpt, CacheDir, GameLangOpt, Lang, LangOpt, game_lang

if TYPE_CHECKING:
    from narrator.sim.scenario import Output


def simulate(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML): set-up, the host's words, expectations.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line: lines said and events.")] = False,
    lang: GameLangOpt = None,
) -> None:
    """Run a scenario file through the judge.

    Exit codes: 0 the game ended and every expectation held; 1 an expectation failed; 2 the scenario is
    invalid or its next answer's kind does not match the prompt; 3 the answers ran out.
    """
    from narrator.cli.errors import load_scenario

    scenario = load_scenario(file)
    _run(scenario, as_json, game_lang(lang, scenario.lang).value)


def print_game(scenario: object, lang: str) -> Output:
    """Print the game as cli/printed.py shows it (legend, headers, both channels, the host's words)."""
    from narrator.cli.printed import GamePrinter
    from narrator.judge.narrate import Judge
    from narrator.judge.script import Script
    from narrator.sim.scenario import Run, Scenario

    assert isinstance(scenario, Scenario)
    printer = GamePrinter(lang)
    printer.legend()
    return Run(scenario, Judge(Script(lang)), on_line=printer.line, on_answer=printer.answer).execute()


def _run(scenario: object, as_json: bool, lang: str) -> None:
    from narrator.cli.errors import one_line
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
        out = Run(scenario, judge, on_record=lambda r: print(json.dumps(r, ensure_ascii=False))).execute()
    else:
        out = print_game(scenario, lang)
    if out.code:
        typer.echo(f"✗ {one_line(out.message)}", err=True)
    elif not as_json:
        typer.echo("✓ scenario held", err=True)
    raise typer.Exit(out.code)


def demo(
    lang: LangOpt = Lang.hans,
    out: Annotated[Path, typer.Option("-o", "--out", help="Where to write the demo's audio (table channel; "
                                      "the host's goes next to it with .host).")] = Path("narrator-demo.wav"),
    audio: Annotated[bool, typer.Option(help="Render the narration to audio files.")] = True,
    play: Annotated[str | None, typer.Option(help='Also play it live on this output device ("default", an '
                                             'index, a name, or pulse:SINK).')] = None,
    host_device: Annotated[str | None, typer.Option(help="A second output for the host's lines (earpiece); "
                                                    "without it they are printed.")] = None,
    backend: BackendOpt = Backend.edge,
    cache_dir: CacheDir = None,
) -> None:
    """Play the built-in demo game (a full 12-player game): the narration is printed, rendered to audio
    files (with WebVTT subtitles beside them), and optionally played. Needs no microphone, model or network
    (edge-tts falls back to espeak-ng)."""
    import yaml

    from narrator.cli.errors import check_device, check_writable
    from narrator.sim.scenario import Scenario

    text = resources.files("narrator.data").joinpath("demo.yaml").read_text(encoding="utf-8")
    scenario = Scenario.from_dict(yaml.safe_load(text), name="demo")
    if not audio and play is None:
        _run(scenario, as_json=False, lang=lang.value)
        return
    from narrator.cli.render_cmd import host_path_for, make_game_speaker, render_to

    if audio:
        check_writable(out, host_path_for(out))
    if play is not None:
        check_device(play, "--play")
    if host_device is not None:
        check_device(host_device, "--host-device")
    speaker = make_game_speaker(backend, None, "+0%", lang, cache_dir, offline=False)
    code = 0
    if audio:
        if play is None:
            print_game(scenario, lang.value)
        code = render_to(scenario, speaker, out, None, lang, echo=False)
    if play is not None and code == 0:
        code = _play(scenario, speaker, lang.value, play, host_device)
    raise typer.Exit(code)


def _play(scenario: object, speaker: object, lang: str, device: str, host_device: str | None) -> int:
    import sounddevice as sd

    from narrator.cli.errors import FAILED, device_problem, one_line
    from narrator.cli.narration import play_scenario
    from narrator.cli.printed import GamePrinter
    from narrator.play import bootstrap
    from narrator.sim.scenario import Scenario
    from narrator.voice import MissingPiece, Speaker, VoiceError

    assert isinstance(scenario, Scenario) and isinstance(speaker, Speaker)
    printer = GamePrinter(lang)
    printer.legend()
    try:
        with bootstrap.player(device, host_device) as player:
            # Timed by the same Conductor as the render; host lines without an earpiece are printed when
            # they are due, never ahead of the table.
            output = play_scenario(scenario, speaker, player, lang=lang,
                                   on_line=lambda line: printer.line(line) if line.to == "all" else None,
                                   on_host=printer.line)
    except (MissingPiece, VoiceError) as exc:
        typer.echo(f"✗ {one_line(str(exc))}", err=True)
        return FAILED
    except (sd.PortAudioError, OSError) as exc:  # the device went away or refused the stream
        typer.echo(f"✗ {device_problem(device, '--play', exc)}", err=True)
        return FAILED
    return output.code


def presets() -> None:
    """List the presets (“板子”) and their cards."""
    from collections import Counter

    from narrator.cli.help import cells
    from narrator.judge.presets import make_setup, preset_names

    names = preset_names()
    width = max(cells(name) for name in names)
    for name in names:
        setup = make_setup(name)
        cards = ", ".join(f"{role.zh}×{n}" for role, n in Counter(setup.deck).items())
        typer.echo(f"{name}{' ' * (width - cells(name))}  {setup.players:>2} players  {cards}")
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command()(simulate)
    app.command()(demo)
    app.command()(presets)
