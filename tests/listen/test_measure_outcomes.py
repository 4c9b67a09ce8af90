"""`narrator model test`'s counts (narrator/listen/measure.py `judge`) follow the dialogue's read-back policy:
under the default `seat_doubt = "always"` a misread seat is read back and caught by the host's 不对, never
counted as taken wrong; a seat heard right is one 对 more. The console's 👂 line shows host words only."""

from __future__ import annotations

from pathlib import Path

from narrator.engine.answers import Seats, YesNo
from narrator.engine.prompts import Prompt
from narrator.listen.base import Heard
from narrator.listen.doubt import Policy, shown_words
from narrator.listen.grammar import load_pack
from narrator.listen.measure import OUTCOMES, Report, judge, last_summary, save_last

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
SAVE = Prompt("witch.save", frozenset({YesNo}))
PACK = load_pack("ko")


def voice(text: str, *others: tuple[str, float]) -> Heard:
    return Heard(text, ((text, 100.0), *others), "voice")


def test_a_misread_seat_is_caught_by_the_read_back_not_taken_wrong() -> None:
    assert judge("一号", voice("一号"), KILL, "七号", PACK, 3.0) == "caught"
    assert judge("七号", voice("七号"), KILL, "七号", PACK, 3.0) == "confirmed"
    assert judge("", None, KILL, "七号", PACK, 3.0) == "again"


def test_under_the_score_rule_a_sure_misread_seat_is_taken_wrong() -> None:
    score = Policy(read_back="doubt", seat_doubt="score")
    assert judge("一号", voice("一号"), KILL, "七号", PACK, 3.0, score) == "wrong"
    assert judge("七号", voice("七号"), KILL, "七号", PACK, 3.0, score) == "correct"
    # a rival reading close by: doubted, so read back (and caught)
    assert judge("一号", voice("一号", ("七号", 99.0)), KILL, "七号", PACK, 3.0, score) == "caught"


def test_a_yes_no_answer_is_taken_at_once() -> None:
    assert judge("救", voice("救"), SAVE, "救", PACK, 3.0) == "correct"
    assert judge("不救", voice("不救"), SAVE, "救", PACK, 3.0) == "wrong"


def test_the_report_and_the_doctor_line_count_read_backs(tmp_path: Path) -> None:
    report = Report(None)
    for outcome in ("confirmed", "confirmed", "caught", "correct"):
        report.add("wolves.kill", outcome, "七号", "七号")
    table = report.table()
    assert "read back wrong" in table and "WRONG taken" in table and set(report.counts["wolves.kill"]) == set(OUTCOMES)
    save_last(tmp_path, Path("room.yaml"), [report])
    assert "clean: 75% right, 0% wrong (75% read back)" in (last_summary(tmp_path) or "")


def test_the_console_never_shows_the_models_raw_tokens() -> None:
    assert shown_words(Heard("没听懂 하나", (), "voice")) == "没听懂"
    assert shown_words(Heard("七号 [unk]", (), "voice")) == "七号"
    assert shown_words(Heard("열 세븐", (), "voice")) == ""
    assert shown_words(Heard("seven", (), "text")) == "seven"  # typed: what he typed
