"""Refusals are codes with a line in both scripts: found in the source, rendered, never a type name."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

import narrator
from narrator.common.zh import to_script
from narrator.engine.answers import (
    Answer,
    Ballots,
    Cards,
    Direction,
    Pass,
    Seats,
    SelfExplode,
    TakeCard,
    VoteResult,
    YesNo,
)
from narrator.engine.game import Game, Rejected
from narrator.engine.prompts import ANSWER_SLUGS
from narrator.engine.refusals import refuse
from narrator.engine.roles import Role
from narrator.judge.presets import make_setup
from narrator.judge.script import LANGS, Script
from narrator.sim.autohost import AutoHost, Deal

SOURCE = Path(narrator.__file__).parent
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def refuse_calls() -> list[tuple[str, ast.Call]]:
    """Every `refuse(...)` call in the package, with where it is."""
    calls = []
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "refuse":
                calls.append((f"{path.relative_to(SOURCE)}:{node.lineno}", node))
    return calls


CALLS = refuse_calls()
CODES = {call.args[0].value: call for _, call in CALLS if call.args and isinstance(call.args[0], ast.Constant)}


def test_the_source_has_refusals_from_the_engine_and_the_parser() -> None:
    places = {where.split("/")[0] for where, _ in CALLS}
    assert {"engine", "hostwords"} <= places, places
    assert len(CODES) > 40


@pytest.mark.parametrize("where", [where for where, _ in CALLS])
def test_every_refusal_has_a_literal_code(where: str) -> None:
    call = dict(CALLS)[where]
    assert call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str), (
        f"{where}: call refuse() with a literal code, so this test can check it has a line"
    )
    assert re.fullmatch(r"[a-z_]+\.[a-z_]+", call.args[0].value), f"{where}: codes read <area>.<what>"


@pytest.mark.parametrize("lang", LANGS)
def test_every_code_has_a_line_in_both_scripts_with_the_values_it_names(lang: str) -> None:
    script = Script(lang)
    missing = sorted(code for code in CODES if not script.has("refusals", code))
    assert not missing, f"refusals without a line in script.{lang}.yaml: {missing}"
    for code, call in CODES.items():
        given = {k.arg for k in call.keywords}
        wanted = set(PLACEHOLDER.findall(script.entry("refusals", code).text))
        assert wanted <= given, f"{code}: the {lang} line needs {wanted - given}, refuse() gives {given}"


@pytest.mark.parametrize("lang", LANGS)
def test_no_line_without_a_code(lang: str) -> None:
    """A line no code can produce is dead text (or a typo in a code)."""
    assert sorted(set(Script(lang).keys("refusals")) - set(CODES)) == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_kind_of_answer_has_its_words(lang: str) -> None:
    script = Script(lang)
    assert set(ANSWER_SLUGS) == set(Answer.__args__)
    assert set(ANSWER_SLUGS.values()) == set(script.data["names"]["answers"])


@pytest.mark.parametrize(
    ("refusal", "hans", "hant"),
    [
        (refuse("seat.no_such", seat=13, n=12), "本局只有十二名玩家，没有十三号。", "本局只有十二名玩家，沒有十三號。"),
        (refuse("seat.self", role=Role.SEER), "预言家不能选自己。", "預言家不能選自己。"),
        (refuse("vote.lovers", a=6, b=9), "六号和九号是情侣，不能互投。", "六號和九號是情侶，不能互投。"),
        (refuse("words.card_count", n=2, n_heard=1), "说了两张，却听到一个身份，请再说一遍。",
         "說了兩張，卻聽到一個身份，請再說一遍。"),
        (refuse("answer.wrong_kind", wanted=("ballots", "vote_result")), "现在需要的是几号投几号，或者几号出局。",
         "現在需要的是幾號投幾號，或者幾號出局。"),
        (refuse("words.ambiguous", readings=(Seats(()), TakeCard(Role.WEREWOLF), VoteResult(None, (3, 7)))),
         "听不出是“没有人”还是“拿狼人”还是“三号、七号平票”，请换个说法。",
         "聽不出是“沒有人”還是“拿狼人”還是“三號、七號平票”，請換個說法。"),
    ],
)
def test_values_render_in_the_games_script(refusal: object, hans: str, hant: str) -> None:
    for lang, text in (("zh-Hans", hans), ("zh-Hant", hant)):
        line = Script(lang).refusal(refusal)  # type: ignore[arg-type]
        assert (line.text, line.to) == (text, "host")
        assert "".join(line.pieces) == text


SAMPLES = [
    refuse("seat.no_such", seat=13, n=12),
    refuse("words.not_understood", wanted=("pass", "self_explode")),
    refuse("words.ambiguous", readings=(YesNo(False), Pass(), SelfExplode(3), Cards((Role.WITCH,)))),
]


def test_every_fixed_piece_of_a_refusal_can_be_prerendered() -> None:
    """Pieces of refusal lines other than seats, counts and the host's own words are in `voices build`."""
    for lang in LANGS:
        script = Script(lang)
        fixed = set(script.fixed_pieces())
        for refusal in SAMPLES:
            assert set(script.refusal(refusal).pieces) <= fixed, (lang, refusal)


@pytest.mark.parametrize("preset", ["12人预女猎白", "9人预女猎"])
def test_random_games_refuse_with_codes_said_in_chinese(preset: str) -> None:
    """At every prompt of random games, a sample of wrong answers is refused with a code whose line, in
    both scripts, is Chinese with no type name in it (`现在需要的是TakeCard` once leaked)."""
    setup = make_setup(preset)
    scripts = [Script(lang) for lang in LANGS]
    seen: set[str] = set()
    for seed in range(5):
        rng = random.Random(seed)
        host = AutoHost(Deal.shuffle(setup, rng), rng)
        game = Game(setup, seed)
        while game.prompt is not None:
            for wrong in WRONG:
                result = game.answer(wrong)
                if isinstance(result, Rejected):
                    seen.add(result.code)
                    for script in scripts:
                        text = script.refusal(result.refusal).text
                        assert not re.search(r"[A-Za-z]", text), (result, text)
                elif game.prompt is None:
                    break
            if game.prompt is not None:
                game.answer(host.answer(game, game.prompt))
    assert {"answer.wrong_kind", "seat.no_such", "seat.twice"} <= seen, seen


WRONG: list[Answer] = [Seats((13,)), Seats((1, 1)), YesNo(True), Pass(), SelfExplode(1), Cards((Role.WITCH,)),
                       TakeCard(None), Ballots(((1, 2), (1, 3))), VoteResult(None, (4,)), Direction("left")]


def sample_values(code: str) -> dict[str, object]:
    """Values for every keyword `refuse(code, ...)` is called with in the source, of the kind it passes."""
    samples: dict[str, object] = {
        "seat": 13, "a": 6, "b": 9, "n": 12, "n_heard": 1, "role": Role.WOLF_BEAUTY, "heard": "随便",
        "wanted": tuple(ANSWER_SLUGS.values()),
        "readings": (Seats(()), Seats((3, 7)), YesNo(True), Pass(), SelfExplode(4), Cards((Role.WITCH, Role.THIEF)),
                     TakeCard(None), TakeCard(Role.WEREWOLF), VoteResult(None, ()), VoteResult(None, (2, 5)),
                     VoteResult(8, ()), Direction("left"), Direction("right"), Ballots(((1, 2),))),
    }  # fmt: skip
    names = [k.arg for k in CODES[code].keywords]
    missing = [k for k in names if k not in samples]
    assert not missing, f"{code}: add a sample value for {missing}"
    return {k: samples[k] for k in names if k is not None}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_is_said_from_prerendered_pieces(code: str, lang: str) -> None:
    """Each code the engine and the parser can produce (found in the source), filled with values of the
    kinds it is given, is said in both scripts from pieces `voices build` renders ahead (all but the host's
    own words), and never spells a type name."""
    script = Script(lang)
    values = sample_values(code)
    line = script.refusal(refuse(code, **values))
    heard = {to_script(str(values["heard"]), lang)} if "heard" in values else set()  # said back as heard
    unbuilt = set(line.pieces) - heard - set(script.fixed_pieces())
    assert not unbuilt, (code, unbuilt)
    assert not re.search(r"[A-Za-z{}]", line.text), (code, line.text)
    assert line.to == "host"
