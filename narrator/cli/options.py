"""Options shared by the commands that speak (render, demo)."""

from __future__ import annotations

from typing import Annotated

import typer

from narrator.cli.voices import Backend, CacheDir, Lang, LangOpt, parse_lang

__all__ = ["Backend", "BackendOpt", "CacheDir", "GameLangOpt", "Lang", "LangOpt", "OfflineOpt", "RateOpt", "VoiceOpt",
           "game_lang"]

BackendOpt = Annotated[Backend, typer.Option(help="edge: edge-tts, espeak-ng if unreachable; espeak: offline only.")]
VoiceOpt = Annotated[str | None, typer.Option(help="Voice name (default: zh-CN-YunyangNeural for edge; for espeak the "
                                             "installed espeak-ng's voice that reads Chinese, e.g. cmn-latn-pinyin).")]
RateOpt = Annotated[str, typer.Option(help='Speaking-rate change, e.g. "-10%" (write --rate=-10%).')]
OfflineOpt = Annotated[bool, typer.Option(help="Use only the voice cache; fail naming a missing piece.")]
GameLangOpt = Annotated[Lang | None, typer.Option(
    "--lang", parser=parse_lang, metavar="zh-Hans|zh-Hant",
    help="The game's script: zh-Hans (简体; also zh-CN) or zh-Hant (繁體; also zh-TW). Default: the scenario's "
         "`lang:`, else zh-Hans.")]


def game_lang(option: Lang | None, scenario_lang: str | None) -> Lang:
    """The script a game is played in: the option, else the scenario's `lang:`, else 简体."""
    return option or Lang(scenario_lang or Lang.hans.value)
