"""`narrator voices build` and `narrator voices list`: the judge's voice, rendered ahead of the game."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from narrator.cli.help import new_app

app = new_app(
    name="voices",
    help="The judge's voice: pre-render every fixed phrase so that a game never needs the network.",
)


class Backend(StrEnum):
    edge = "edge"
    espeak = "espeak"


class Lang(StrEnum):
    hans = "zh-Hans"
    hant = "zh-Hant"




def parse_lang(value: str | Lang) -> Lang:
    """A `--lang` value: zh-Hans / zh-Hant, or zh-CN / zh-TW (zh-SG, zh-HK, zh-MO), in any case."""
    if isinstance(value, Lang):
        return value
    from narrator.common.zh import lang_named  # every spelling (narrator/common/zh.py ALIASES), as a scenario's `lang:`

    found = lang_named(value)
    if found is None:
        raise typer.BadParameter(f"{value!r} is not a script: write zh-Hans (简体, also zh-CN) or zh-Hant "
                                 "(繁體, also zh-TW)")  # fmt: skip
    return Lang(found)


LangOpt = Annotated[Lang, typer.Option(parser=parse_lang, metavar="zh-Hans|zh-Hant",
                                       help="Script: zh-Hans (简体; also zh-CN) or zh-Hant (繁體; also zh-TW).")]


SUGGESTED_EDGE_VOICES = {
    "zh-CN-YunyangNeural": "male, news announcer: calm and clear (default)",
    "zh-CN-YunjianNeural": "male, deep, sports commentator",
    "zh-CN-YunxiNeural": "male, young and lively",
    "zh-CN-XiaoxiaoNeural": "female, warm",
    "zh-TW-YunJheNeural": "male, Taiwanese Mandarin",
    "zh-TW-HsiaoChenNeural": "female, Taiwanese Mandarin",
}
CacheDir = Annotated[
    Path | None,
    typer.Option(help="narrator's cache root; clips go to its voice/ folder. Default: $NARRATOR_CACHE_DIR, "
                 "else the user cache directory."),
]  # fmt: skip


@app.command()
def build(
    backend: Annotated[Backend, typer.Option(help="edge: edge-tts (online), espeak-ng if unreachable; "
                                             "espeak: espeak-ng only.")] = Backend.edge,
    voice: Annotated[str | None, typer.Option(help="Voice name. Default: zh-CN-YunyangNeural (edge); "
                                              "for espeak the installed voice that reads Chinese, e.g. "
                                              "cmn-latn-pinyin.")] = None,
    rate: Annotated[str, typer.Option(help='Speaking-rate change, e.g. "-10%" (write --rate=-10%).')] = "+0%",
    pitch: Annotated[str, typer.Option(help='Pitch shift, e.g. "-5Hz".')] = "+0Hz",
    volume: Annotated[str, typer.Option(help='Loudness change, e.g. "+20%".')] = "+0%",
    lang: LangOpt = Lang.hans,
    cache_dir: CacheDir = None,
    proxy: Annotated[str | None, typer.Option(help="HTTP proxy for edge-tts, e.g. http://127.0.0.1:8080.")] = None,
) -> None:
    """Render every piece of the judge's script (phrases, seats, roles, numbers, votes) into the cache."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from narrator.cli.errors import check_cache_dir
    from narrator.voice import FallbackVoice, Speaker, VoiceCache, VoiceError, default_cache_dir, make_voice
    from narrator.voice.bootstrap import pieces_to_build
    from narrator.voice.fallback import label

    console = Console(stderr=True, highlight=False, soft_wrap=True)

    def warn(message: str) -> None:
        console.print(f"⚠ {message}", style="yellow", markup=False)

    try:
        spoken = make_voice(backend.value, voice, rate=rate, pitch=pitch, volume=volume, proxy=proxy, warn=warn)
    except ValueError as exc:
        console.print(f"✗ {exc}", style="red", markup=False)
        raise typer.Exit(2) from exc
    cache = VoiceCache(default_cache_dir(cache_dir))
    check_cache_dir(cache_dir)
    speaker = Speaker(spoken, cache)
    pieces = pieces_to_build(lang.value)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    try:
        with Progress(*columns, console=console) as progress:
            task = progress.add_task(f"rendering with {label(spoken)}", total=len(pieces))
            speaker.ensure_all(
                pieces, lambda: progress.update(task, advance=1, description=f"rendering with {label(spoken)}")
            )
    except VoiceError as exc:
        console.print(f"✗ {exc}", style="red", markup=False)
        raise typer.Exit(1) from exc
    unsaved = speaker.missing(pieces)
    if unsaved:
        console.print(f"✗ {len(unsaved)} pieces could not be saved in {cache.directory}", style="red", markup=False)
        raise typer.Exit(1)
    console.print(
        f"✓ {len(pieces)} pieces of the {lang.value} script ready in {cache.directory} with {label(spoken)} "
        f"({speaker.synthesized} rendered now, {len(pieces) - speaker.synthesized} already cached).",
        markup=False,
    )
    if isinstance(spoken, FallbackVoice) and spoken.using_fallback:
        console.print("Run this again when online to get the edge-tts voice.", markup=False)


@app.command("list")
def list_voices(cache_dir: CacheDir = None) -> None:
    """Show the voice backends, suggested voices, and the voices already in the cache."""
    import shutil
    from importlib.metadata import PackageNotFoundError, version

    from narrator.judge.script import LANGS
    from narrator.voice import DEFAULT_EDGE_VOICE, VoiceCache, default_cache_dir, espeak_voices
    from narrator.voice.bootstrap import pieces_to_build

    try:
        edge = f"edge-tts {version('edge-tts')}"
    except PackageNotFoundError:
        edge = "edge-tts NOT INSTALLED (pip install edge-tts)"
    espeak = shutil.which("espeak-ng") or "NOT FOUND (apt install espeak-ng)"
    if espeak_voices.version():
        espeak = f"espeak-ng {espeak_voices.version()}, {espeak}"
    chinese = espeak_voices.chinese()
    espeak_default = chinese[0] if chinese else "none that reads Chinese"
    ffmpeg = shutil.which("ffmpeg") or "NOT FOUND (apt install ffmpeg)"
    typer.echo("Backends:")
    typer.echo(f"  edge    online, default voice {DEFAULT_EDGE_VOICE}, falls back to espeak-ng  [{edge}]")
    typer.echo(f"  espeak  offline, default voice {espeak_default}  [{espeak}]")
    if len(chinese) > 1:
        typer.echo(f"          other voices that read Chinese: {', '.join(chinese[1:])}")
    typer.echo(f"  (ffmpeg decodes edge-tts audio: {ffmpeg})")
    typer.echo("Some edge-tts voices for --voice:")
    for name, what in SUGGESTED_EDGE_VOICES.items():
        typer.echo(f"  {name:<24}{what}")
    cache = VoiceCache(default_cache_dir(cache_dir))
    typer.echo(f"Cache: {cache.directory}")
    cached = cache.voices()
    if not cached:
        typer.echo("  (empty: run `narrator voices build`)")
    scripts = {lang: pieces_to_build(lang) for lang in LANGS}
    for entry in cached:
        ready = [lang for lang, pieces in scripts.items() if all(cache.has(entry.key, p) for p in pieces)]
        typer.echo(f"  {entry.key}  {entry.pieces} pieces, {entry.size_bytes / 1e6:.1f} MB, "
                   f"complete for: {', '.join(ready) or 'none'}")  # fmt: skip


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="voices")
