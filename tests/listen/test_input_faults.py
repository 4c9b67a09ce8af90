"""Input that is not what the host meant to send: bytes that are not UTF-8, runaway lines, stray bytes on
the keypad. Each bad line is refused on its own with a reason; nothing else is lost, and nothing takes
more than linear time."""

from __future__ import annotations

import io
import time

import pytest

from narrator.engine.answers import Pass, Seats, YesNo
from narrator.engine.prompts import Prompt
from narrator.hostwords import MAX_CHARS, NotUnderstood, parse
from narrator.hostwords._lexicon import SEATS
from narrator.hostwords._text import clean, tokens
from narrator.listen.base import Heard
from narrator.listen.keypad import KeypadEar
from narrator.listen.text import LINE_BYTES, TextEar

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
SAVE = Prompt("witch.save", frozenset({YesNo}))
SPEECH = Prompt("speech.end", frozenset({Pass}))


def heard_all(ear: TextEar) -> list[str]:
    out = []
    while (heard := ear.listen(KILL, 12, 2)) is not None:
        out.append(heard.text)
    return out


def test_a_line_that_is_not_utf8_is_refused_alone_and_its_neighbours_are_heard() -> None:
    stream = io.BytesIO("开始\n".encode() + b"\xff\xfe\x80\n" + "七号\n".encode() + b"\xe4\xb8\n" + "救\n".encode())
    got = heard_all(TextEar(stream))
    assert got[0] == "开始" and got[2] == "七号" and got[4] == "救"
    for bad in (got[1], got[3]):
        with pytest.raises(NotUnderstood) as refused:
            parse(bad, [Seats])
        assert refused.value.refusal.code == "words.unreadable"


def test_a_text_stream_is_read_as_bytes_whatever_its_locale() -> None:
    """sys.stdin under LC_ALL=C would decode as ASCII: the ear reads its byte buffer instead."""
    raw = io.BytesIO("七号\n".encode() + b"\xff\n" + "过\n".encode())
    stdin = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    assert heard_all(TextEar(stdin)) == ["七号", "\ufffd", "过"]


def test_a_runaway_line_is_cut_unread_and_refused_as_too_long() -> None:
    huge = "七" * 1_000_000
    stream = io.BytesIO(f"开始\n{huge}\n八号\n".encode())
    got = heard_all(TextEar(stream))
    assert got[0] == "开始" and got[2] == "八号"
    assert len(got[1]) == MAX_CHARS + 1
    with pytest.raises(NotUnderstood) as refused:
        parse(got[1], [Seats])
    assert refused.value.refusal.code == "words.too_long"
    assert stream.tell() == len(stream.getvalue())  # the rest of the line was skipped, not kept


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_a_character_cut_in_two_at_the_limit_is_still_too_long_not_unreadable(cut: int) -> None:
    line = b"a" * (LINE_BYTES - cut) + "七".encode() * 10 + b"\n"
    [text] = heard_all(TextEar(io.BytesIO(line)))
    assert "\ufffd" not in text and len(text) > MAX_CHARS


@pytest.mark.realtime  # times itself
def test_a_million_characters_are_refused_at_once_and_tokenised_in_linear_time() -> None:
    """The parser refuses a long text unread; its tokeniser is linear anyway (it was quadratic on a run of
    unknown characters: 112 s for a million). Timed in this thread's CPU time: beside busy workers the wall
    time of the same work was seen at 5.5 s (load 24 on 2 cores)."""
    start = time.thread_time()
    with pytest.raises(NotUnderstood):
        parse("狼" * 1_000_000, [Seats])
    refused_s = time.thread_time() - start
    start = time.thread_time()
    toks = tokens(clean("猫" * 200_000), SEATS)
    tokenised_s = time.thread_time() - start
    assert [t.kind for t in toks] == ["unk"] and len(toks[0].text) == 200_000
    assert refused_s < 1 and tokenised_s < 5  # generous bounds: quadratic time is minutes


def test_a_thousand_digit_number_is_a_seat_that_does_not_exist_not_a_crash() -> None:
    with pytest.raises(NotUnderstood):
        parse("1" * 150 + "号", [Seats])


def test_keypad_bytes_that_are_not_keys_are_ignored() -> None:
    """"²" (0xB2) is a digit to str.isdigit and became seat 2 through NFKC; stray bytes are no keys."""
    ear = KeypadEar(io.BytesIO(b"\xb2\r7\xb9\r" + b"1" * 500 + b"\r"), raw_terminal=False)
    assert ear.listen(KILL, 12, 2) == Heard("7号", source="keypad")
    nxt = ear.listen(KILL, 12, 2)
    assert nxt is not None and len(nxt.text) < 80  # the buffer keeps at most MAX_KEYS keys
