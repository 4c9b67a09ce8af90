"""Games shared by the `narrator play` tests: the demo and the scenario files."""

from __future__ import annotations

import subprocess
from importlib import resources
from pathlib import Path

import yaml

from narrator.common.zh import to_hans, to_hant
from narrator.judge.host_words import ACK
from narrator.play.scripted import Scripted
from narrator.session.journal import MemoryStore
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def demo_scenario() -> Scenario:
    text = resources.files("narrator.data").joinpath("demo.yaml").read_text(encoding="utf-8")
    return Scenario.from_dict(yaml.safe_load(text), name="demo")


def simplified_only(text: str) -> list[str]:
    """The characters of `text` a 繁體 reader would not write: simplified forms whose traditional form differs
    (号, 复), not traditional characters that have a simplified form (癡)."""
    return sorted({ch for ch in text if "\u4e00" <= ch <= "\u9fff" and to_hant(ch) != ch and to_hans(ch) == ch})


def ctrl_c_twice(proc: subprocess.Popen[str], before_s: float, between_s: float,
                 timeout_s: float) -> tuple[str, str]:
    """Ctrl-C after `before_s`, again `between_s` later (pause, then save and quit); the process's stdout and
    stderr."""
    import signal
    import time

    time.sleep(before_s)
    proc.send_signal(signal.SIGINT)
    time.sleep(between_s)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=timeout_s)
    return out, err


# --- A scripted host's words, counted by the game's answers: the 过s where a step asks nothing are not answers ---

def answer_words(scripted: Scripted) -> list[str]:
    """The host's words that answer the game, in order (not the 过s where a step asks him nothing)."""
    return [w for w, kind in zip(scripted.utterances, scripted.kinds, strict=True) if kind != ACK]


def words_to(scripted: Scripted, k: int) -> list[str]:
    """The host's words up to (without) the one answering the game's answer k, the 过s before it included."""
    at = [i for i, kind in enumerate(scripted.kinds) if kind != ACK]
    return scripted.utterances[: at[k] if k < len(at) else len(scripted.utterances)]


def words_after(scripted: Scripted, journal: bytes) -> list[str]:
    """What the host says to a game resumed from `journal`: the words of the answers still to come, and 过
    wherever a step asks nothing — also the ones owed since the journal's last said mark, asked again."""
    session = Session.resume(MemoryStore(journal))
    session.acks = True
    answers, out = answer_words(scripted), []
    while True:
        session.take_lines()  # a 过 is asked only once the lines before it are taken
        prompt = session.prompt
        if prompt is None:
            return out
        word = "过" if prompt.kind == ACK else answers[len(session.answers)]
        out.append(word)
        session.submit(word)
