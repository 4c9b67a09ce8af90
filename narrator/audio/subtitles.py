"""WebVTT subtitles of a rendered game: one cue per line, from its speech's first to its last sample.

    write_vtt(conductor.timeline, "game.vtt", channel="all")       # the table's lines
    write_vtt(conductor.timeline, "game.host.vtt", channel="host")  # the host's lines
    read_cues("game.vtt")  # -> [(start_s, end_s, text), ...]

Written with webvtt-py. The times are the Conductor's placements, which are the samples of the WAVs
written beside them (the same frames), so the subtitles can be used to check the audio from outside:
e.g. every night (天黑请闭眼 … 天亮了) lasts the same on the table whatever happened in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import webvtt

if TYPE_CHECKING:
    from narrator.audio.timeline import Placed


def _stamp(seconds: float) -> str:
    ms = round(seconds * 1000)
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, ms = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}.{ms:03d}"


def vtt_for(timeline: Iterable[Placed], channel: str) -> webvtt.WebVTT:
    """The cues of one channel ("all" or "host")."""
    vtt = webvtt.WebVTT()
    for p in timeline:
        if p.line.to == channel and p.line.text:
            vtt.captions.append(webvtt.Caption(_stamp(p.speech_s), _stamp(max(p.said_s, p.speech_s + 0.001)),
                                               p.line.text))
    return vtt


def write_vtt(timeline: Iterable[Placed], path: str | Path, channel: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        vtt_for(timeline, channel).write(f)


def vtt_path_for(wav: Path) -> Path:
    """game.wav → game.vtt, game.host.wav → game.host.vtt"""
    return wav.with_suffix(".vtt")


def read_cues(path: str | Path) -> list[tuple[float, float, str]]:
    """(start_s, end_s, text) of every cue of a WebVTT file."""
    return [(c.start_time.in_milliseconds() / 1000, c.end_time.in_milliseconds() / 1000, c.text)
            for c in webvtt.read(str(path)).captions]
