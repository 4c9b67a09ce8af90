"""`narrator render`: a scenario's full narration as audio, table and host channels in separate files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from narrator.cli.errors import fail
from narrator.cli.options import (
    Backend,
    BackendOpt,
    CacheDir,
    GameLangOpt,
    Lang,
    OfflineOpt,
    RateOpt,
    VoiceOpt,
    game_lang,
)

if TYPE_CHECKING:
    from narrator.sim.scenario import Scenario
    from narrator.voice import Speaker



def host_path_for(public: Path) -> Path:
    """game.wav → game.host.wav"""
    return public.with_name(public.stem + ".host" + (public.suffix or ".wav"))


def make_game_speaker(backend: Backend, voice: str | None, rate: str, lang: Lang, cache_dir: Path | None,
                      offline: bool) -> Speaker:
    from rich.console import Console

    from narrator.play import bootstrap

    console = Console(stderr=True, highlight=False, soft_wrap=True)

    def warn(message: str) -> None:
        console.print(f"⚠ {message}", style="yellow", markup=False)

    try:
        return bootstrap.speaker(backend.value, voice, rate=rate, lang=lang.value, cache_dir=cache_dir,
                                 offline=offline, warn=warn)
    except ValueError as exc:
        fail(str(exc))


def render_to(scenario: Scenario, speaker: Speaker, out: Path, host_out: Path | None, lang: Lang,
              echo: bool) -> int:
    """Render and report; returns the scenario's exit code. ✓ only when the scenario held: a scenario that
    fails says ✗ with its reason (the audio up to there is still written, and said to be partial). The
    WebVTT subtitles of each channel go beside the WAVs (game.vtt, game.host.vtt)."""
    from narrator.audio.subtitles import vtt_path_for
    from narrator.cli.errors import FAILED, check_writable, one_line
    from narrator.cli.narration import render_scenario
    from narrator.cli.printed import print_line
    from narrator.voice import MissingPiece, VoiceError

    host_out = host_out or host_path_for(out)
    check_writable(out, host_out)
    try:
        rendered, output = render_scenario(scenario, speaker, out, host_out, lang=lang.value,
                                           on_line=print_line if echo else None)
    except (MissingPiece, VoiceError) as exc:
        typer.echo(f"✗ {one_line(str(exc))}", err=True)
        return FAILED
    except OSError as exc:  # the disk filled up or the folder went away while writing
        typer.echo(f"✗ cannot write {out}: {exc.strerror or exc}", err=True)
        return FAILED
    minutes, seconds = divmod(round(rendered.duration_s), 60)
    files = (f"{out} (table) and {host_out} (host): {minutes}:{seconds:02d}, {len(rendered.timeline)} lines; "
             f"subtitles {vtt_path_for(out)} and {vtt_path_for(host_out)}")
    if output.code:
        typer.echo(f"✗ {one_line(output.message)} (the audio up to there is in {files})", err=True)
    else:
        typer.echo(f"✓ {files}", err=True)
    return output.code


def render(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (YAML), as for `narrator simulate`.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The table's audio (WAV).")] = Path("game.wav"),
    host_out: Annotated[Path | None, typer.Option(help="The host's audio (default: OUT with .host).")] = None,
    lang: GameLangOpt = None,
    backend: BackendOpt = Backend.edge,
    voice: VoiceOpt = None,
    rate: RateOpt = "+0%",
    cache_dir: CacheDir = None,
    offline: OfflineOpt = False,
) -> None:
    """Render a scenario's full narration to audio: the table's channel and the host's, sample-aligned,
    through the same mixer and timing as live playback (beds, ducking, cues, holds), with WebVTT subtitles
    of each channel beside them (OUT with .vtt, and .host.vtt)."""
    from narrator.cli.errors import check_cache_dir, check_writable, load_scenario

    loaded = load_scenario(scenario)
    check_writable(out, host_out or host_path_for(out))
    played = game_lang(lang, loaded.lang)
    speaker = make_game_speaker(backend, voice, rate, played, cache_dir, offline)
    if cache_dir is not None:
        check_cache_dir(cache_dir)
    raise typer.Exit(render_to(loaded, speaker, out, host_out, played, echo=False))


def register(app: typer.Typer) -> None:
    app.command()(render)
