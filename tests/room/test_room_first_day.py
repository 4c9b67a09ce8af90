"""Night 1 and day 1 by voice alone through the room, in the normal suite (the whole 12-player games are the
opt-in test_room_game.py): roomgame.FIRST_DAY, eight players, played by the real `narrator play` (the real
microphone adapter, Silero VAD and the Korean stand-in through Vosk) under the default read-back policy, with
a scripted host who listens to the table and reads the judge's questions to him, like a person: he answers
once asked, says 确认 / 不对 / the right seat to a read-back, answers "还差…", choices and one-seat offers,
says his answer again when refused or not heard, and ends each speech with 法官，过. Nobody types.

What must hold: every answer the game took is the one the host meant (the journal is the typed game's, as
far as it went: 0 wrong answers taken, nothing taken back), and the judge said nothing to the table the typed
game does not (the judge's own words or a player's were never taken for the host's).

It takes 3–4 minutes (three runs at load average 15–18: 242, ~250 and 176 s; docs/benchmarks.md): each
answer is read back (every spoken seat) and the host waits for the judge like a person."""

from __future__ import annotations

from pathlib import Path

import pytest
from roomgame import SPEECH_KINDS, answers_in, first_day_steps, play_first_day
from roomkit import Room

from narrator.play.store import all_games

pytestmark = [pytest.mark.slow, pytest.mark.lasts(300)]  # the longest real-time test: started first


@pytest.mark.parametrize("room", [None], indirect=True)
def test_night_one_and_day_one_by_voice_through_the_room(room: Room, tmp_path: Path) -> None:
    run = play_first_day(room, tmp_path, seed=3)
    context = run.context()
    assert run.failure is None, f"{run.failure}{context}"
    [saved] = all_games(run.data / "games")
    assert [r for r in answers_in(run.data) if "undo" in r] == [], context
    journal = saved.load().game.journal
    typed = run.scripted.game.journal
    assert journal == typed[:len(journal)], context
    steps = first_day_steps(run.scripted)
    assert len(run.tries) == sum(1 for kind, _ in steps if kind not in SPEECH_KINDS), context  # all taken
    assert run.heard_unprompted() == [], context  # the judge's own words or a player's taken: 0
    assert run.heard_first_try("wolves.identify"), context  # night 1's first answer is not lost to 请稍等
    assert run.extra_table_lines() == [], context
    print(f"night 1 and day 1 by voice: {run.seconds:.0f} s, tries {run.tries}, read-backs {run.read_backs}")
