"""Every word the judge asks for can be said: each phrase the judge's script tells the host to say
("空刀请说空刀", "不开枪请说放弃", "准备好了说开始", "说“继续”接着进行") is in the grammar of the prompt it is
said at, in both scripts, for every preset — so the ear can hear it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import yaml

from narrator.common.zh import to_hans
from narrator.engine.prompts import Prompt
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup, preset_names
from narrator.listen.grammar import START, WAKE_KINDS, Grammar, VocabularyError, load_pack
from narrator.play.lines import deal_line, message
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal

SAID = re.compile(r"(?<!再)[说說](?:[“「]([^”」]+)[”」]|([^，。？！“”「」{}]+))")
"""说X or 说“X” (not 再说一遍): X is what the host is told to say; a templated X ({wanted}) is the refusals'."""


def told(line: Line) -> list[str]:
    """The words, as the grammar writes them: simplified, without the pause ("法官，继续" → "法官继续")."""
    return [re.sub(r"[，,\s]", "", to_hans(a or b)) for a, b in SAID.findall(line.text)]


def offered(prompt: Prompt, players: int) -> set[str]:
    """The host words the prompt's grammar offers (a model that knows every word: no splitting)."""
    phrases = Grammar(load_pack("zh"), lambda w: True).phrases_for(prompt, max(players, 12))
    return {p.replace(" ", "") for p in phrases}


def prompts_and_lines(preset: str, seed: int, lang: str) -> list[tuple[Prompt, tuple[Line, ...]]]:
    setup = make_setup(preset)
    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    session = Session(setup, seed, lang=lang)
    out = []
    while session.prompt is not None and len(session.answers) < 400:
        out += [(said, lines) for said, lines in session.take() if isinstance(said, Prompt)]
        assert session.prompt is not None
        session.submit(host.answer(session.game, session.prompt))
    return out


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
@pytest.mark.parametrize("preset", preset_names())
def test_every_word_the_judge_asks_for_is_in_that_prompts_grammar(preset: str, lang: str) -> None:
    asked: dict[tuple[str, str], bool] = {}
    players = make_setup(preset).players
    for seed in range(4):
        for prompt, lines in prompts_and_lines(preset, seed, lang):
            for line in lines:
                for word in told(line):
                    said = word in offered(prompt, players)
                    asked[prompt.kind, word] = asked.get((prompt.kind, word), True) and said
    missing = sorted(k for k, ok in asked.items() if not ok)
    assert missing == [], f"the judge asks for words its grammar lacks: {missing}"
    assert asked, "the judge asked for no word: the reading of the script is wrong"


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_the_start_word_and_the_control_words_the_judge_names_can_be_said(lang: str) -> None:
    from narrator.judge.script import Script

    script = Script(lang)
    setup = make_setup("12人预女猎白")
    start = offered(START, 12)
    for line in (deal_line(script, setup), message(script, "not_started")):
        assert told(line) and set(told(line)) <= start, line.text
    # 继续 as the ear's dialogue says it after 暂停: a control word in every grammar; where people talk
    # (a speech) the judge's name comes first, and the line says so.
    for prompt, _ in prompts_and_lines("12人预女猎白", 1, lang):
        key = "paused_named" if prompt.kind in WAKE_KINDS else "paused"
        [word] = told(script.line("listening", key, judge=load_pack("zh").wake[0]))
        assert word in offered(prompt, 12), (prompt.kind, word)


def test_the_words_found_are_the_ones_the_script_asks_for() -> None:
    """The reading of the script this test relies on (what counts as "said X")."""
    assert told(Line("狼人刀了谁？空刀请说空刀。", "host")) == ["空刀"]
    assert told(Line("他带走了谁？不开枪请说放弃。", "host")) == ["放弃"]
    assert told(Line("没听懂，请再说一遍。", "host")) == []
    assert told(Line("已暂停，说“继续”接着进行。", "host")) == ["继续"]
    assert told(Line("已暫停，說「法官，繼續」接著進行。", "host")) == ["法官继续"]


def test_a_pack_that_cannot_say_a_seat_pass_or_a_control_is_refused_at_start(tmp_path: Path) -> None:
    """A pack with a `say:` table must say every seat of the largest table, 过 and each control: a word the
    judge asks for that the ear could never hear is a start-up error naming the words, never a game in which
    the host cannot answer."""
    ko = load_pack("ko")
    Grammar(ko, lambda w: w != "열하나").check(18)  # the stand-in's pack says every one of them
    say = {k: list(v) for k, v in ko.say.items() if k not in ("十七号", "过", "撤销")}
    pack = tmp_path / "short.yaml"
    pack.write_text(yaml.safe_dump({"lang": "short", "controls": {c: list(w) for c, w in ko.controls.items()},
                                    "wake": list(ko.wake), "start": list(ko.start), "filler": list(ko.filler),
                                    "say": say}, allow_unicode=True), encoding="utf-8")
    grammar = Grammar(load_pack(pack), lambda w: w != "열하나")
    assert grammar.unsayable(18) == ["十七号", "过", "撤销"]
    assert grammar.unsayable(16) == ["过", "撤销"]  # no seat 17 at a table of 16; 过 and 撤销 at every table
    with pytest.raises(VocabularyError, match="no spoken form for 十七号, 过, 撤销: the judge asks"):
        grammar.check(18)
