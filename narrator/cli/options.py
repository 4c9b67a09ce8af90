"""Options shared by the commands that speak (render, demo)."""

from __future__ import annotations

from typing import Annotated

import typer

from narrator.cli.voices import Backend, CacheDir, Lang, LangOpt

__all__ = ["Backend", "BackendOpt", "CacheDir", "Lang", "LangOpt", "OfflineOpt", "RateOpt", "VoiceOpt"]

BackendOpt = Annotated[Backend, typer.Option(help="edge: edge-tts, espeak-ng if unreachable; espeak: offline only.")]
VoiceOpt = Annotated[str | None, typer.Option(help="Voice name (default: zh-CN-YunyangNeural for edge; for espeak the "
                                             "installed espeak-ng's voice that reads Chinese, e.g. cmn-latn-pinyin).")]
RateOpt = Annotated[str, typer.Option(help='Speaking-rate change, e.g. "-10%" (write --rate=-10%).')]
OfflineOpt = Annotated[bool, typer.Option(help="Use only the voice cache; fail naming a missing piece.")]
