"""The calibration by voice (narrator/listen/calibrate.py `by_voice`, narrator/play/calibration.py `run`) with a
host and a recogniser whose behaviour is written down: the judge asks for 一号 … 十二号 and then 过, 对, 不对;
the host answers each batch one word an utterance (or runs them together); the forms his voice does not get
through are dropped and written to the config, a word none of whose forms got through keeps them all and is
named with the keypad's advice; a batch that never comes back one word an utterance changes nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from narrator.common.numbers import chinese_number
from narrator.engine.prompts import Prompt
from narrator.judge.host_words import ACKNOWLEDGEMENT
from narrator.judge.lines import Line
from narrator.listen.calibrate import asks, by_voice
from narrator.listen.grammar import Grammar, Pack, load_pack
from narrator.play import calibration
from narrator.play.config import Config

SEATS = [f"{chinese_number(n)}号" for n in range(1, 13)]
FAST = {"first_s": 0.3, "quiet_s": 0.3}


def knows(word: str) -> bool:
    return True


def ko_pack(**say: tuple[str, ...]) -> Pack:
    base = load_pack("ko")
    return replace(base, say={**base.say, **say})


class Host:
    """Answers each of the judge's asks with the spoken forms in `says` (key → what he says, one utterance
    each); an utterance's audio holds the index (from 1) of what he said in `spoken`."""

    def __init__(self, says: dict[str, list[list[str]]]) -> None:
        self.says = says
        self.spoken: list[str] = []
        self.pending: list[np.ndarray] = []
        self.into: list[np.ndarray] | None = None
        self.asked: list[str] = []

    def say(self, key: str) -> None:
        self.asked.append(key)
        batches = self.says.get(key) or []
        for utterance in batches.pop(0) if batches else []:
            self.spoken.append(utterance)
            self.pending.append(np.full(400, len(self.spoken), np.float32))

    def keep(self, into: list[np.ndarray] | None) -> None:
        self.into = into

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> None:
        if self.into is not None and self.pending:
            self.into.append(self.pending.pop(0))

    def ended(self) -> bool:
        return False

    def hear(self, prefers: dict[str, list[str]]) -> Any:
        """The recogniser: what was said, or the first of `prefers[said]` the grammar offers."""
        def hear(audio: np.ndarray, grammar: Grammar, prompt: Prompt, max_seat: int) -> str:
            said = self.spoken[int(audio.max()) - 1]
            offered = set(grammar.phrases_for(prompt, max_seat))
            return next((p for p in prefers.get(said, [said]) if p in offered), "")
        return hear


def his_words(pack: Pack, **his: str) -> dict[str, list[list[str]]]:
    """What he says at each ask: the pack's first form of each word, or his own (`his`)."""
    batches = asks(pack)
    return {"seats": [[his.get(w, pack.say[w][0]) for w in batches[0].words]],
            "words": [[his.get(w, pack.say[w][0]) for w in batches[1].words]]}


def test_the_judge_asks_the_seats_then_the_words_the_game_needs_most() -> None:
    pack = load_pack("ko")
    batches = asks(pack)
    assert batches[0].words == tuple(SEATS) and batches[1].words == ("过", "确认", "不对")
    assert batches[1].prompts[0] is ACKNOWLEDGEMENT  # 过 where a step asks nothing; 对 / 不对 at a seat's read-back
    assert all(p.seats == tuple(range(1, 13)) for p in batches[0].prompts)


def test_a_form_his_seven_is_read_as_is_dropped_and_he_is_heard_better() -> None:
    # His 七号 (세븐) comes out as 一号's second form 일호; his 一号 he says 원.
    pack = ko_pack(一号=("원", "일호"))
    host = Host(his_words(pack))
    result = by_voice(host, host.say, pack, knows, host.hear({"세븐": ["일호", "세븐"]}), **FAST)  # type: ignore[arg-type]
    assert result is not None and host.asked == ["seats", "words"]
    assert (result.right_before, result.right_after, len(result.after)) == (14, 15, 15)
    assert result.drop_forms == "一号:일호" and result.kept["一号"] == ("원",)
    assert result.told() == [("done", {"count": 15, "right": 15, "dropped": 1})]


def test_a_word_none_of_whose_forms_he_gets_through_keeps_them_and_is_named_with_the_keypad() -> None:
    pack = ko_pack(八号=("여덟",))
    host = Host(his_words(pack))
    result = by_voice(host, host.say, pack, knows, host.hear({"여덟": []}), **FAST)  # type: ignore[arg-type]
    assert result is not None and result.dropped == [] and result.unheard() == ["八号"]
    assert ("unheard", {"words": "八号"}) in result.told()
    assert any("八号 was not read right" in line and "keypad" in line for line in result.report())


def test_words_run_together_are_asked_once_more_then_given_up() -> None:
    pack = load_pack("ko")
    together = [[" ".join(pack.say[w][0] for w in SEATS[:6]), " ".join(pack.say[w][0] for w in SEATS[6:])]]
    host = Host({"seats": together, "again": [row[:] for row in together]})
    assert by_voice(host, host.say, pack, knows, host.hear({}), **FAST) is None  # type: ignore[arg-type]
    assert host.asked == ["seats", "again"]


def test_asked_once_more_he_says_them_one_by_one() -> None:
    pack = load_pack("ko")
    words = his_words(pack)
    host = Host({"seats": [[" ".join(words["seats"][0])]], "again": words["seats"], "words": words["words"]})
    result = by_voice(host, host.say, pack, knows, host.hear({}), **FAST)  # type: ignore[arg-type]
    assert result is not None and host.asked == ["seats", "again", "words"] and result.right_after == 15


class Model:
    def vosk_model_find_word(self, word: str) -> int:
        return 1


def test_the_device_writes_what_it_found_to_the_config_and_says_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pack = ko_pack(一号=("원", "일호"))
    host = Host(his_words(pack))

    class Ear:
        grammar = Grammar(pack, knows)
        keep, listen, ended = host.keep, host.listen, host.ended

        def close(self) -> None:
            pass

    monkeypatch.setattr(calibration, "calibration_ear", lambda opts, playing: (Ear(), Model()))
    monkeypatch.setattr(calibration, "model_hear", lambda model: host.hear({"세븐": ["일호", "세븐"]}))
    said: list[Line] = []
    printed: list[str] = []
    config = Config()
    config.path = tmp_path / "config.toml"

    def say(line: Line) -> None:
        said.append(line)
        host.say(line.key.removeprefix("calibrate."))

    from narrator.listen.setup import EarOptions

    result = calibration.run(EarOptions(pack="ko"), say, printed.append, config, first_s=0.3, quiet_s=0.3)
    assert result is not None
    assert Config.load(config.path).game.drop_forms == "一号:일호"
    assert [line.text for line in said] == [
        "校准声音：请依次说一号到十二号，每说一个停一下。", "再请依次说：过，对，不对。",
        "校准好了：十五个词听清了十五个，去掉了一种说法。"]
    assert any("dropped 一号 said '일호'" in p for p in printed) and any("kept: 一号 원" in p for p in printed)


def test_the_device_changes_nothing_when_the_words_never_come_back(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    host = Host({})

    class Ear:
        grammar = Grammar(load_pack("ko"), knows)
        keep, listen, ended = host.keep, host.listen, host.ended

        def close(self) -> None:
            pass

    monkeypatch.setattr(calibration, "calibration_ear", lambda opts, playing: (Ear(), Model()))
    config = Config()
    config.path = tmp_path / "config.toml"
    config.game.drop_forms = "四号:네번째"
    said: list[str] = []
    from narrator.listen.setup import EarOptions

    assert calibration.run(EarOptions(pack="ko"), lambda line: said.append(line.key), print, config,
                           first_s=0.2, quiet_s=0.2) is None
    assert said == ["calibrate.seats", "calibrate.again", "calibrate.failed"]
    assert config.game.drop_forms == "四号:네번째" and not config.path.exists()
