"""A whole 12-player game by voice alone, from 开始 to the recap, through a real room (roomgame.py: the real
`narrator play` process, the real Vosk decoder, a scripted Korean host who listens like a person and a player
who talks during the speeches). Over each seed: the journal equals the same game under `simulate`, with
nothing taken back (wrong answers accepted: 0); every speech lasts its time (ended by the 15 s cue or by the
player's 过 without the judge's name: 0; the timer's lines are played, not printed, so it is the time from the
call to the judge's next line); nothing the ear reported, and no table line the typed game has not, comes
without an utterance of the host's just before (the judge's own words or a player's taken: 0).
`NARRATOR_ROOM_SEEDS=3,4,5` plays more seeds, `NARRATOR_ROOM_AEC=off,webrtc` both rooms.

It runs only with `NARRATOR_ROOM_GAME=1`: 12–15 minutes a seed. With the Korean stand-in (espeak-ng's Korean
through the small Korean model) a seat word is read right about two times in three and some seldom (十号's
열번째, 九号's 아홉): the game converges through the dialogue's repairs — seats kept and the rest asked
for, read-backs answered with the right seat, and after two misses one seat at a time answered 对 / 不对
(docs/benchmarks.md). tests/room/test_room_first_day.py is the short one in the suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from roomgame import SPEECH_KINDS, SPEECH_SECONDS, answers_in, play_game
from roomkit import Room

from narrator.play.store import all_games

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.environ.get("NARRATOR_ROOM_GAME") != "1",
                                 reason="NARRATOR_ROOM_GAME=1: 15–20 minutes a seed (docs/benchmarks.md)")]

SEEDS = [int(s) for s in os.environ.get("NARRATOR_ROOM_SEEDS", "3").split(",")]


ROOMS = os.environ.get("NARRATOR_ROOM_AEC", "off").split(",")
"""The rooms to play in: "off" (no canceller: the ear's deaf window alone), "webrtc"."""


@pytest.mark.parametrize("room", [None if r == "off" else r for r in ROOMS], indirect=True)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_whole_game_by_voice_through_the_room(room: Room, tmp_path: Path, seed: int) -> None:
    run = play_game(room, tmp_path, seed)
    assert run.simulated.code == 0 and run.scripted.game.winner == "wolves"
    context = run.context()
    assert run.failure is None, f"{run.failure}{context}"
    assert run.returncode == 0, context
    print(f"seed {seed}: the game took {run.seconds:.0f} s by voice, peak {run.peak_rss_mb:.0f} MB")
    [saved] = all_games(run.data / "games")
    assert [r for r in answers_in(run.data) if "undo" in r] == [], context
    assert saved.load().game.journal == run.scripted.game.journal, context
    speeches = sum(1 for k in run.scripted.kinds if k in SPEECH_KINDS)
    lengths = run.speech_lengths()
    assert len(lengths) == speeches, context
    assert [x for x in lengths if x[1] < SPEECH_SECONDS - 0.5] == [], context  # ended by a cue or a player: 0
    assert run.heard_unprompted() == [], context  # the judge's own words or a player's taken: 0
    assert run.extra_table_lines() == [], context
    assert (saved.folder / "game.recap.html").exists()
