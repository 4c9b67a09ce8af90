"""A game killed while the host is asked for 过 (the acknowledgement where a step asks him nothing,
narrator/judge/host_words.py): the 过 is no game fact and is not journaled, so `resume` says the lines since
the journal's last said mark again — as after any kill — and asks every 过 after that mark again; the table
then hears the rest of the uninterrupted game, nothing lost, nothing out of order. Played in-process as the
live loop drives the Session (`take_lines`, said, `heard`, the host's words), killed at every 过 of a game
(dropping the process is dropping the Session: the journal is all that is left), in the drill style of
tests/play/test_crash_drills.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from play_testkit import SCENARIOS

from narrator.judge.host_words import ACK
from narrator.play.scripted import Scripted, host_script
from narrator.session.journal import MemoryStore
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

NIGHTS = Path(__file__).parent.parent / "fair_nights"


def play(session: Session, words: list[str], table: list[str], kill_at: int | None = None) -> tuple[int, int]:
    """Say the session's lines and answer with `words` as the live loop does, until the words run out or
    `kill_at` words were said; returns (the word answering the question the last said mark covers, the
    table lines heard by then)."""
    store = session.store
    assert store is not None
    marked = (0, 0)
    for i, said in enumerate(words):
        table += [line.text for line in session.take_lines() if line.to == "all"]
        size = len(store.read())
        session.heard()
        if len(store.read()) > size:
            marked = (i, len(table))
        if i == kill_at:
            assert session.prompt is not None and session.prompt.kind == ACK
            return marked
        assert not hasattr(session.submit(said), "refusal"), (i, said)
    table += [line.text for line in session.take_lines() if line.to == "all"]
    return marked


def acks(scripted: Scripted) -> list[int]:
    return [i for i, kind in enumerate(scripted.kinds) if kind == ACK]


@pytest.mark.parametrize("name", ["witch_dead", "classic_thief_buried"])
def test_a_game_killed_at_the_hosts_pass_resumes_with_the_tables_lines_right(name: str) -> None:
    scripted = host_script(Scenario.load(NIGHTS / f"{name}.yaml"))
    setup, seed, words = scripted.game.setup, scripted.game.seed, scripted.utterances
    reference: list[str] = []
    whole = Session(setup, seed, store=MemoryStore())
    whole.acks = True
    play(whole, words, reference)
    assert whole.game.journal == scripted.game.journal
    killed_at = acks(scripted)
    assert len(killed_at) >= 4
    for kill in killed_at:
        store = MemoryStore()
        first = Session(setup, seed, store=store)
        first.acks = True
        heard: list[str] = []
        mark, lines_marked = play(first, words, heard, kill_at=kill)
        assert heard == reference[: len(heard)]
        resumed = Session.resume(MemoryStore(store.read()))
        resumed.acks = True
        again = [w for i, w in enumerate(words[mark:kill], start=mark) if scripted.kinds[i] == ACK]
        rest: list[str] = []
        play(resumed, again + words[kill:], rest)
        assert resumed.game.journal == whole.game.journal, f"killed at word {kill}"
        assert rest == reference[lines_marked:], f"killed at word {kill}: the table hears the rest from the mark"
        assert lines_marked <= len(heard)  # said again: only what followed the last mark


def test_a_game_that_ends_after_a_pass_says_its_end() -> None:
    """The last exile of a game calls for the 七号's skill and the game is won: the host is asked for 过
    first (as he would be asked the hunter's shot), and the game is over only once he said it and the
    table heard the end."""
    scripted = host_script(Scenario.load(SCENARIOS / "010_parity_win.yaml"))
    assert scripted.kinds[-1] == ACK
    session = Session(scripted.game.setup, scripted.game.seed)
    session.acks = True
    table: list[str] = []
    for said in scripted.utterances:
        assert not session.over
        table += [line.text for line in session.take_lines() if line.to == "all"]
        session.submit(said)
    assert not session.over and table[-1] == "七号，请确认是否发动技能。"
    end = [line.text for line in session.take_lines() if line.to == "all"]
    assert session.over and end and end[0].startswith("游戏结束")
