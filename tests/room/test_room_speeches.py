"""The day's speeches by voice through the real room, with the real `narrator resume` process and the real
Vosk decoder (Korean stand-in): the game of roomgame.GAME is saved up to its first speech (the last words
of the night's two dead, then the day's speeches: 16 s each, so the 15 s cue comes a second in). In every
speech a player talks — roomgame.PLAYER_TALKS, his 过 without the judge's name — and in the first two the
host then says 法官，过 (roomgame.HOST_PASS). Neither the player nor the cue may end a speech: the first two
end on the host's command, the third runs its 16 s; three speeches take three 过, nothing else.

The ear hears the player's talk as filler (grammars/ko.yaml `filler:`) and takes only the name and one
command (narrator/listen/grammar.py `Grammar.command`); the ear listens through the speech timer's cue
(narrator/audio/mixer.py LISTENED_THROUGH). In the suite: no player ended a speech in any run, and the host's
command was taken in every run of the last five (10 of 10 speeches, load average up to 17), after 4 of 20
lost before (docs/benchmarks.md, "The day's speeches by voice")."""

from __future__ import annotations

from pathlib import Path

import pytest
from roomgame import SPEECH_KINDS, SPEECH_SECONDS, Speech, answers_in, live, saved_before_speeches, speeches_host
from roomkit import Room

from narrator.engine.answers import Pass

pytestmark = pytest.mark.slow

SPEECHES = 3
HOST_ENDS = 2
"""The first two speeches end on the host's 法官，过; the third runs out."""


@pytest.mark.parametrize("room", [None, "webrtc"], indirect=True)
def test_speeches_end_on_time_never_on_a_player_or_the_cue(room: Room, tmp_path: Path) -> None:
    data = tmp_path / "data"
    saved, run, first = saved_before_speeches(data)
    spoken: list[Speech] = []
    live(run, room, tmp_path, ["resume"], 0.1, speeches_host(spoken, SPEECHES, HOST_ENDS), timeout_s=300)
    context = run.context()
    assert run.failure is None, f"{run.failure}{context}"
    taken = answers_in(data)[first:]
    assert [row["answer"] for row in taken] == [{"type": "pass"}] * SPEECHES, context
    assert len(spoken) == SPEECHES, context
    for speech in spoken[:HOST_ENDS]:  # ended by the host's command, soon after it — not by the player before
        assert speech.host_done is not None and speech.host_done < speech.ended < speech.host_done + 4, context
    for speech in spoken[HOST_ENDS:]:  # nobody ended it: it ran its 16 s, past the cue and the player's 过
        assert speech.ended - speech.called > SPEECH_SECONDS, context
        assert speech.ended - speech.player_done > 5, context  # the player's 过 ended nothing (it would in ~1 s)
    assert saved.load().answers[-1][0] in SPEECH_KINDS and isinstance(saved.load().answers[-1][1], Pass), context
