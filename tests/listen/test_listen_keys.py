"""The silent channel (keypad), typed text, several ears at once, and grammars without a model."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from narrator.audio import SAMPLE_RATE as OUT_RATE
from narrator.engine.answers import Ballots, Pass, Seats, VoteResult, YesNo
from narrator.engine.prompts import ANSWER_SLUGS, Prompt
from narrator.hostwords import parse, phrases
from narrator.listen.base import Heard, QueueEar
from narrator.listen.first import First
from narrator.listen.grammar import (
    GRAMMARS_DIR as GRAMMARS,
)
from narrator.listen.grammar import (
    START,
    Grammar,
    PackError,
    VocabularyError,
    load_pack,
    split_phrase,
)
from narrator.listen.keypad import KEYPAD_HELP, KeypadEar, keys_to_words
from narrator.listen.text import TextEar

from .listenkit import judge_played

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
SAVE = Prompt("witch.save", frozenset({YesNo}))
SPEECH = Prompt("speech.end", frozenset({Pass}))
EXILE = Prompt("vote.exile", frozenset({Ballots, VoteResult}), seats=tuple(range(1, 13)))
LINK = Prompt("cupid.link", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=2, max_seats=2)


@pytest.mark.parametrize(("keys", "prompt", "answer"), [
    ("7", KILL, Seats((7,))),
    ("12", KILL, Seats((12,))),
    ("10", KILL, Seats((10,))),
    ("0", KILL, Seats(())),
    ("3.5", LINK, Seats((3, 5))),
    ("3 5", LINK, Seats((3, 5))),
    ("*", SAVE, YesNo(True)),
    ("0", SAVE, YesNo(False)),
    ("*", SPEECH, Pass()),
    ("7", EXILE, VoteResult(7)),
    ("3.5", EXILE, VoteResult(None, (3, 5))),
    ("0", EXILE, VoteResult(None)),
    ("1.2.5+7", EXILE, Ballots(((1, 7), (2, 7), (5, 7)))),
    ("1.2+7.3.4+5", EXILE, Ballots(((1, 7), (2, 7), (3, 5), (4, 5)))),
])
def test_the_keypad_map(keys: str, prompt: Prompt, answer: object) -> None:
    assert parse(keys_to_words(keys, prompt), prompt.accepts) == answer


def test_keys_that_mean_nothing_say_nothing() -> None:
    assert keys_to_words("", KILL) == ""
    assert keys_to_words("..", KILL) == ""
    assert keys_to_words("+7", KILL) == ""
    assert keys_to_words("*", KILL) == "确认"  # a read-back's yes


def test_the_map_is_documented_where_the_host_reads_it() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for line in KEYPAD_HELP.splitlines():
        assert line.strip() in readme
    from typer.testing import CliRunner

    from narrator.cli.main import app

    out = CliRunner().invoke(app, ["listen", "--help"], env={"COLUMNS": "200"}).output
    assert "Backspace" in out and "1.2.5+7" in out


@pytest.mark.realtime  # answers within a second of wall time
def test_keypad_keys_become_heard_answers_with_rub_out_undo_repeat_and_pause() -> None:
    keys = io.BytesIO(b"7\r" + b"35\x7f\x7f2\r" + b"\x7f" + b"/" + b"-" + b"-" + b"0\n")
    ear = KeypadEar(keys)
    got = []
    for _ in range(7):
        heard = ear.listen(KILL, 12, timeout_s=2)
        assert heard is not None
        got.append((heard.text, heard.source))
    assert [t for t, _ in got] == ["7号", "2号", "撤销", "重复", "暂停", "继续", "没有"]
    assert {s for _, s in got} == {"keypad"}
    assert ear.listen(KILL, 12, timeout_s=1) is None and ear.closed.is_set()


def test_typed_lines_are_heard_and_the_end_of_input_ends_listening() -> None:
    ear = TextEar(io.StringIO("七号\n\n 救 \n"))
    assert ear.listen(KILL, 12, 2) == Heard("七号", source="text")
    assert ear.listen(SAVE, 12, 2) == Heard("救", source="text")
    assert ear.listen(SAVE, 12, 2) is None and ear.closed.is_set()


@pytest.mark.realtime  # answers within a second of wall time
def test_typed_bytes_are_decoded_once_a_bad_line_is_refused_and_nothing_else_lost() -> None:
    """Invalid UTF-8 in a piped game (whatever the locale): that line is heard as U+FFFD and refused
    ("看不懂这一行"), the lines around it in the same chunk are heard as typed; a 1 MB line is cut and refused
    as too long in well under a second."""
    import time

    from narrator.hostwords import MAX_CHARS, NotUnderstood, parse

    data = "开始\n".encode() + b"\xff\xfe\n" + ("猫" * 1_000_000).encode() + b"\n" + "七号\n".encode()
    ear = TextEar(io.TextIOWrapper(io.BytesIO(data), encoding="ascii"))  # a locale that could not decode it
    heard = [ear.listen(KILL, 12, 5) for _ in range(4)]
    assert [h.text[:3] for h in heard if h] == ["开始", "\ufffd\ufffd", "猫猫猫", "七号"]
    assert heard[2] is not None and len(heard[2].text) == MAX_CHARS + 1
    for h, code in ((heard[1], "words.unreadable"), (heard[2], "words.too_long")):
        assert h is not None
        with pytest.raises(NotUnderstood) as refused:
            parse(h.text, KILL.accepts)
        assert refused.value.refusal.code == code
    start = time.perf_counter()
    with pytest.raises(NotUnderstood):
        parse("猫" * 1_000_000, KILL.accepts)
    assert time.perf_counter() - start < 1.0


def test_keypad_bytes_that_are_no_keys_are_ignored_and_the_keys_around_them_kept() -> None:
    """A keypad stream is bytes: one that is no key (0xff, or 0xb2 — "²" in Latin-1, a digit to Python) is
    ignored, never read as a seat."""
    ear = KeypadEar(io.BytesIO(b"\xb2\xff7\n"), raw_terminal=False)
    heard = ear.listen(KILL, 12, 2)
    assert heard is not None and heard.text == "7号"


class Later(QueueEar):
    def begin(self, context: object) -> None:
        super().begin(context)  # type: ignore[arg-type]
        self.post(Heard("八号", (("八号", 1.0),), "voice", 0.0, 0.1))


@pytest.mark.realtime  # answers within a second of wall time
def test_several_ears_first_answer_wins_and_stale_speech_is_dropped() -> None:
    keypad = KeypadEar(io.BytesIO(b""), raw_terminal=False)
    voice = QueueEar()
    both = First([voice, keypad])
    voice.post(Heard("三号", (("三号", 1.0),), "voice", 0.0, 0.1))  # heard before the prompt: dropped
    keypad.key("7")
    keypad.key("\r")  # typed ahead: kept
    assert both.listen(KILL, 12, timeout_s=1) == Heard("7号", source="keypad")
    assert both.listen(KILL, 12, timeout_s=0.2) is None
    t = time.monotonic()
    laters = First([Later()])
    assert laters.listen(KILL, 12, timeout_s=1) == Heard("八号", (("八号", 1.0),), "voice", 0.0, 0.1)
    assert time.monotonic() - t < 1


def test_grammar_offers_only_what_is_legal_now_in_words_the_model_knows() -> None:
    pack = load_pack("zh")
    every = phrases(ANSWER_SLUGS, 12) + pack.control_words() + [w for ws in pack.extra.values() for w in ws]
    # Characters, and some words: a model that knows 说错 but not 说错了 hears "说错 了".
    words = {"没有", "空刀", "撤销", "说错", "重复", "再说", "暂停", "继续", "确认", "对的", "没错", "不对", "错了",
             "法官", "开始", "好了", "准备", "可以", "[unk]"}
    vocabulary = {c for w in every for c in w} | words
    g = Grammar(load_pack("zh"), vocabulary.__contains__)
    g.check(12)
    offered = g.phrases_for(Prompt("seer.check", frozenset({Seats}), seats=(1, 3, 7)), 12)
    assert "七 号" in offered and "七" in offered and "一 号" in offered and "三 号" in offered
    assert "二 号" not in offered and "十 二 号" not in offered  # not selectable now
    assert "撤销" in offered and {"说错 了", "说 错了"} & set(offered) and "空刀" in offered and offered[-1] == "[unk]"
    assert g.host_words("七 号 [unk]") == "七 号"
    # Where people talk every phrase begins with the judge's name, and only what begins with it counts.
    speech = g.phrases_for(SPEECH, 12)
    assert "法官 过" in speech and "过" not in speech and "法官 暂停" in speech and speech[-1] == "[unk]"
    assert g.command("法官 过", SPEECH, 12) == "过" and g.command("过", SPEECH, 12) is None
    assert g.command("[unk] 过", SPEECH, 12) is None and g.command("法官", SPEECH, 12) is None
    assert g.command("七 号", KILL, 12) == "七 号"  # at night no name is needed
    assert "开始" in g.phrases_for(START, 12) and "法官 开始" not in g.phrases_for(START, 12)
    # Before the first question: the cards line again, a pause, the rules — nothing to take back or confirm.
    start = set(g.phrases_for(START, 12))
    assert {"重复", "暂停", "继续", "规 则"} <= start and not {"撤销", "确认", "不对", "七 号"} & start


def test_where_people_talk_a_reading_with_filler_before_or_inside_the_command_is_not_one() -> None:
    """The speech grammar holds the pack's filler words (the Chinese model's [unk]) beside the commands; only
    the name, one command and nothing but filler after it is a command."""
    g = Grammar(load_pack("zh"), lambda w: True)
    speech = g.phrases_for(SPEECH, 12)
    assert "[unk]" in speech and "法官 过" in speech
    assert g.command("法官 过 [unk]", SPEECH, 12) == "过"  # the player talks on after the host's command
    for talk in ("[unk] 过", "法官 [unk] 过", "法官 过 过", "法官 过 暂停", "法官 [unk]", "[unk]",
                 "[unk] [unk] 法官 过", "七 号 法官 过"):  # the name amid talk is no name
        assert g.command(talk, SPEECH, 12) is None, talk
    # The name begins a breath (after a pause), or follows one word heard with it (the room in the
    # endpointer's pre-roll; the player's last word when the host spoke right after him).
    for room in ("[unk] 法官 过", "过 法官 过", "[unk] 过 七 号 <pause> 法官 过 <pause> [unk]"):
        assert g.command(room, SPEECH, 12) == "过", room
    assert g.command("法官 规则 女巫", SPEECH, 12) == "规则 女巫"  # a command of several words is one command


def test_a_model_without_unk_hears_talk_as_the_packs_common_words() -> None:
    """The Korean stand-in has no [unk]: grammars/ko.yaml lists common words of its vocabulary as filler.
    Where people talk they are in the grammar, and the commands are repeated until they weigh as much
    (Vosk counts a bigram model from the phrases); at short prompts nothing changes."""
    pack = load_pack("ko")
    assert "[unk]" not in pack.filler and {"제가", "좋은", "사람"} <= set(pack.filler)
    g = Grammar(pack, lambda w: w != "[unk]")
    speech = g.phrases_for(SPEECH, 12)
    commands = [p for p in speech if p.startswith("진행자 ")]
    assert set(pack.filler) <= set(speech) and len(speech) == len(commands) + len(pack.filler)
    assert len(set(commands)) < len(commands) and abs(len(commands) - len(pack.filler)) <= len(set(commands))
    assert g.command("진행자 넘어가", SPEECH, 12) == "过" and g.command("진행자 넘어가 그냥 요", SPEECH, 12) == "过"
    # What the decoder made of "저는 좋은 사람입니다 넘어가" with the filler, and of the host's 넘어가 under noise
    # Read by the decoder from players' sentences (scripts/bench_listen.py wake): talk, then the name with no
    # pause before it, is not the host.
    for talk in ("저 는 좋은 사람 넘어가", "진행자 좋은 넘어가", "진행자 반복 넘어가", "진행 넘어가",
                 "저 는 저 는 사람 이 진행자 넘어가", "어 밤 좋은 진행자 넘어가 네 요"):
        assert g.command(talk, SPEECH, 12) is None, talk
    for room in ("지 진행자 넘어가", "넘어가 진행자 넘어가", "제가 <pause> 진행자 넘어가"):  # heard in the room
        assert g.command(room, SPEECH, 12) == "过", room
    kill = g.phrases_for(KILL, 12)
    assert not set(pack.filler) & set(kill) and "세븐" in kill  # short prompts: only what is legal
    assert g.command("세븐", KILL, 12) == "七号"


def test_a_filler_word_the_model_lacks_is_found_before_the_game(tmp_path: Path) -> None:
    text = (GRAMMARS / "ko.yaml").read_text(encoding="utf-8")
    lacking = tmp_path / "lacking.yaml"
    lacking.write_text(text.replace("filler: [제가,", "filler: [없는말,"), encoding="utf-8")
    vocabulary = {w for ws in load_pack("ko").say.values() for f in ws for w in f.split()} | set(load_pack("ko").filler)
    Grammar(load_pack("ko"), vocabulary.__contains__).check(12)
    with pytest.raises(VocabularyError, match="filler word '없는말' of the grammar ko"):
        Grammar(load_pack(lacking), vocabulary.__contains__).check(12)
    said = tmp_path / "said.yaml"  # a host word read as nothing could never be heard
    said.write_text(text.replace("filler: [제가,", "filler: [넘어가, 제가,"), encoding="utf-8")
    with pytest.raises(VocabularyError, match="filler word '넘어가' of the grammar ko is also a word the host says"):
        Grammar(load_pack(said), vocabulary.__contains__).check(12)
    none = tmp_path / "none.yaml"
    none.write_text((GRAMMARS / "zh.yaml").read_text(encoding="utf-8").replace('filler: ["[unk]"]', ""),
                    encoding="utf-8")
    with pytest.raises(PackError, match="has no filler: words"):
        load_pack(none)


def test_nonsense_made_of_characters_the_model_knows_is_not_a_word(tmp_path: Path) -> None:
    pack = tmp_path / "nonsense.yaml"
    text = (GRAMMARS / "zh.yaml").read_text(encoding="utf-8").replace("pause: [暂停]", "pause: [暂停, 啊吧啊吧]")
    pack.write_text(text, encoding="utf-8")
    words = load_pack("zh").own_words() | {"没有人", "[unk]"}  # a model that knows every character and these

    def knows(w: str) -> bool:
        return len(w) == 1 or w in words

    Grammar(load_pack("zh"), knows).check(12)
    with pytest.raises(VocabularyError, match=r"啊吧啊吧.*only its characters"):
        Grammar(load_pack(pack), knows).check(12)
    # The parser's words may be said character by character: 十一号 is a seat, not nonsense.
    assert Grammar(load_pack("zh"), knows).spoken("十一号") == ["十 一 号"]


def test_rules_questions_are_offered_at_every_prompt_and_read_as_rules_requests() -> None:
    from narrator.hostwords import rules_request

    pack = load_pack("zh")
    asked = pack.extra["rules"]
    assert "规则" in asked and "规则 女巫" in asked
    assert all(rules_request(words) is not None for words in asked)
    said = [*phrases([Seats, YesNo], 12), *pack.control_words(), *asked]
    # A model that knows every word of the pack (its own words must be words, not only characters).
    vocabulary = {c for w in said for c in w} | {t for w in said for t in w.split()}
    g = Grammar(pack, (vocabulary | {"[unk]"}).__contains__)
    for prompt in (Prompt("seer.check", frozenset({Seats}), seats=(1, 3, 7)), Prompt("witch.save", frozenset({YesNo}))):
        offered = g.phrases_for(prompt, 12)
        assert "规则" in offered and "规则 女巫" in offered


def test_a_phrase_the_model_cannot_say_is_a_start_up_error_naming_it() -> None:
    assert split_phrase("七号", {"七号"}.__contains__) == "七号"
    assert split_phrase("七号", {"七", "号"}.__contains__) == "七 号"
    assert split_phrase("空刀了", {"空刀", "空", "刀", "了"}.__contains__) == "空刀 了"
    with pytest.raises(VocabularyError, match=r"七号.*号"):
        split_phrase("七号", {"七"}.__contains__)
    g = Grammar(load_pack("zh"), {"七"}.__contains__)
    with pytest.raises(VocabularyError):
        g.check(12)


def test_a_broken_pack_is_one_sentence(tmp_path: object) -> None:
    from pathlib import Path

    bad = Path(str(tmp_path)) / "bad.yaml"
    bad.write_text("controls: {repeat: [重复]}\n", encoding="utf-8")
    with pytest.raises(PackError, match="lacks the control words for undo"):
        load_pack(bad)


def test_the_ear_that_cannot_start_says_why_in_one_sentence(tmp_path: object) -> None:
    from pathlib import Path

    from typer.testing import CliRunner

    from narrator.cli.main import app

    runner = CliRunner()
    out = runner.invoke(app, ["listen", "--model", str(tmp_path)])
    assert out.exit_code == 1 and "is not a Vosk model folder" in out.output and "Traceback" not in out.output
    out = runner.invoke(app, ["listen", "--prompt", "nonsense", "--no-voice", "--text"])
    assert out.exit_code == 1 and "unknown prompt type" in out.output
    bad = Path(str(tmp_path)) / "phrases.yaml"
    bad.write_text("phrases: {}\n", encoding="utf-8")
    out = runner.invoke(app, ["model", "test", str(bad), "--model", "ko"])
    assert out.exit_code == 2 and "has no phrases and no recordings" in out.output
    out = runner.invoke(app, ["listen", "--no-voice", "--text", "--prompt", "witch.save", "--count", "2"],
                        input="救\n听不懂\n")
    assert out.exit_code == 0
    assert "[text] 救  →  YesNo(yes=True)" in out.output and "not understood" in out.output


class LoudVad:
    """A voice-activity double: loud frames are speech."""

    frame = 512

    def prob(self, frame: object) -> float:
        import numpy as np

        return 1.0 if float(np.sqrt(np.mean(np.square(frame)))) > 0.01 else 0.0

    def reset(self) -> None:
        pass


class SaysSeven:
    """A recogniser double: whatever it was fed is 七号, if it was fed anything since the last reset."""

    def __init__(self) -> None:
        self.fed = 0
        self.resets = 0
        self.peeks = 0

    def set_grammar(self, grammar_json: str) -> None:
        self.fed = 0

    def accept(self, samples: object) -> None:
        self.fed += 1

    def final(self) -> list[tuple[str, float]]:
        fed, self.fed = self.fed, 0
        return [("七号", 1.0)] if fed else []

    def peek(self) -> list[tuple[str, float]]:
        self.peeks += 1
        return [("七号", 1.0)] if self.fed else []

    def reset(self) -> None:
        self.fed = 0
        self.resets += 1


@pytest.mark.realtime  # answers within a second of wall time
def test_polling_the_same_prompt_in_slices_keeps_the_utterance_in_progress() -> None:
    import numpy as np

    from narrator.listen.vad import EndpointConfig, Endpointer
    from narrator.listen.voice import VoiceEar

    rec = SaysSeven()
    voice = VoiceEar(rec, Grammar(load_pack("zh"), lambda w: True), Endpointer(LoudVad()))  # type: ignore[arg-type]
    ear = First([voice])
    loud = (0.2 * np.sin(np.arange(8000) * 0.3)).astype(np.float32)
    quiet = np.zeros(16000, np.float32)
    assert ear.listen(KILL, 12, timeout_s=0.01) is None
    voice.feed(loud[:4000], 100.0)
    assert ear.listen(KILL, 12, timeout_s=0.01) is None  # the loop polls again mid-utterance
    voice.feed(loud[4000:], 100.25)
    voice.feed(quiet, 100.5)
    heard = ear.listen(KILL, 12, timeout_s=0.5)
    assert heard is not None and heard.text == "七号" and heard.source == "voice"
    # 七号 is the whole answer to the kill, and no longer word begins with it: the turn ends after the
    # shortest silence (complete_closed_s), not the long one
    closed = EndpointConfig().complete_closed_s
    assert heard.start_s == 100.0 and heard.end_s is not None and 100.5 + closed <= heard.end_s <= 100.5 + 0.25
    # A new prompt drops what was heard for the old one, and the judge's voice is never heard.
    voice.feed(loud, 102.0)
    voice.feed(quiet, 102.5)
    assert ear.listen(SAVE, 12, timeout_s=0.05) is None
    resets = rec.resets
    # The judge's line leaves the device from 102.9 to 104.0 (the ear's clock), its echo for tail_s more.
    voice.follow(judge_played(np.full(round(1.1 * OUT_RATE), 0.1, np.float32), 102.9))
    voice.feed(loud, 103.0)
    voice.feed(quiet, 103.5)
    assert ear.listen(SAVE, 12, timeout_s=0.05) is None
    assert rec.resets > resets  # the recogniser starts afresh once the judge and its echo are over
    voice.feed(loud, 104.5)  # the input goes on without a gap
    voice.feed(quiet, 105.0)
    heard = ear.listen(SAVE, 12, timeout_s=0.5)
    assert heard is not None and heard.start_s is not None and abs(heard.start_s - 104.5) < 0.04


def test_a_long_utterance_is_talk_and_waits_for_the_long_silence() -> None:
    """Only an utterance shorter than `complete_within_s` is asked whether it is a whole answer (asking costs
    the recogniser the utterance again): five seconds of voice are talk, ended by the long silence."""
    import numpy as np

    from narrator.listen.vad import Endpointer
    from narrator.listen.voice import VoiceEar

    rec = SaysSeven()
    voice = VoiceEar(rec, Grammar(load_pack("zh"), lambda w: True), Endpointer(LoudVad()))  # type: ignore[arg-type]
    ear = First([voice])
    assert ear.listen(KILL, 12, timeout_s=0.01) is None
    voice.feed((0.2 * np.sin(np.arange(5 * 16000) * 0.3)).astype(np.float32), 10.0)
    voice.feed(np.zeros(16000, np.float32), 15.0)
    heard = ear.listen(KILL, 12, timeout_s=0.5)
    assert heard is not None and heard.end_s is not None and heard.end_s >= 15.0 + 0.4
    assert rec.peeks == 0


class Readings:
    """A recogniser stand-in that gives fixed N-best readings (the decoder itself is tested in
    test_listen_vosk.py); only `final` is used by `VoiceEar.decode`."""

    def __init__(self, readings: list[tuple[str, float]]) -> None:
        self.readings = readings

    def final(self) -> list[tuple[str, float]]:
        return self.readings


def test_where_people_talk_only_a_best_reading_that_begins_with_the_name_is_a_command() -> None:
    from narrator.listen.base import Context
    from narrator.listen.voice import VoiceEar

    grammar = Grammar(load_pack("zh"), lambda w: True)

    def decoded(readings: list[tuple[str, float]], prompt: Prompt) -> str | None:
        ear = VoiceEar.__new__(VoiceEar)  # only decode(): no model, no VAD
        ear.recognizer, ear.grammar, ear.source = Readings(readings), grammar, "voice"  # type: ignore[assignment]
        ear.context = Context(prompt, 12, 0.0)
        heard = ear.decode(0.0, 1.0)
        return None if heard is None else heard.text

    player = [("九 号 三 号 过", -10.0), ("法官 过", -12.0)]  # a player's sentence, forced onto the grammar
    assert decoded(player, SPEECH) is None
    assert decoded([("法官 过", -10.0), ("九 号 过", -11.0)], SPEECH) == "过"
    assert decoded(player, KILL) == "九 号 三 号 过"  # at night no name is needed: the best reading stands
