"""A process that plays a seeded random game into a journal file, saying on stdout what it was told was
saved: the number of each step once it returned (0: the header is written; k: the k-th submit or undo).
tests/test_journal.py kills it with SIGKILL at random moments and loads what is left.

    python tests/journal_drill.py JOURNAL SEED
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.judge.presets import make_setup, preset_names
from narrator.session.journal import FileStore, JournalStore
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal


def drive(store: JournalStore, seed: int, step: Callable[[Session], None]) -> None:
    """The drill's game: preset by seed, random legal answers, an undo now and then, a said mark before
    each (so that kills land between an answer and its mark too)."""
    setup = make_setup(preset_names()[seed % len(preset_names())])
    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    undo = random.Random(~seed)
    session = Session(setup, seed, store=store)
    step(session)
    while session.prompt is not None:
        session.take_lines()  # as the live loop does: the lines are said, then marked heard
        session.heard()
        if session.answers and undo.random() < 0.05:
            session.undo()
        else:
            session.submit(host.answer(session.game, session.prompt))
        step(session)


def main() -> None:
    path, seed = sys.argv[1], int(sys.argv[2])
    steps = 0

    def said(session: Session) -> None:
        nonlocal steps
        sys.stdout.write(f"{steps}\n")  # step 0: the header is written; step k: the k-th submit or undo returned
        sys.stdout.flush()
        steps += 1

    drive(FileStore(path), seed, said)
    sys.stdout.write("END\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
