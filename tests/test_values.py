"""The engine's frozen values built through their slots (narrator/engine/values.py) are the same values."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field

import pytest

from narrator.engine import events as ev
from narrator.engine.answers import Seats, VoteResult
from narrator.engine.base import SEATS
from narrator.engine.prompts import Prompt
from narrator.engine.values import quick_init


def twins() -> tuple[type, type]:
    def make() -> type:
        @dataclass(frozen=True, slots=True)
        class Thing:
            seat: int
            seats: tuple[int, ...] = ()
            why: str | None = None

        return Thing

    plain, quick = make(), make()
    return plain, quick_init(quick)


def test_a_quick_value_is_built_called_and_refused_like_the_dataclass_one() -> None:
    plain, quick = twins()
    assert str(inspect.signature(plain)) == str(inspect.signature(quick))
    for args, kw in [((3,), {}), ((3, (1, 2)), {}), ((), {"seat": 4, "why": "x"}), ((5,), {"seats": (6,)})]:
        a, b = plain(*args, **kw), quick(*args, **kw)
        assert dataclasses.astuple(a) == dataclasses.astuple(b)
        assert repr(a).replace("plain", "quick") == repr(b).replace("plain", "quick")
        assert hash(b) == hash(quick(*args, **kw)) and b == quick(*args, **kw)
    for bad in [((), {}), ((1, 2, 3, 4), {}), ((1,), {"nope": 2}), ((1,), {"seat": 2})]:
        with pytest.raises(TypeError):
            plain(*bad[0], **bad[1])
        with pytest.raises(TypeError):
            quick(*bad[0], **bad[1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick(1).seat = 2  # type: ignore[misc]


def test_the_engine_values_are_quick_and_stay_frozen_equal_and_picklable() -> None:
    died = ev.PlayerDied(3, "wolves", ev.When("night", 1))
    prompt = Prompt("seer.check", SEATS, None, 2, (1, 3), 1, 1, True, {}, None)
    for value in (died, prompt, Seats((1, 2)), VoteResult(None, (3, 4)), ev.When("day", 2)):
        first = dataclasses.fields(value)[0].name
        assert f"set_{first}" in type(value).__init__.__globals__  # replaced by quick_init
        assert dataclasses.replace(value) == value
        assert pickle.loads(pickle.dumps(value)) == value
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, first, 0)
    assert ev.SpeechEnded(3) == ev.SpeechEnded(seat=3, last_words=False)


def test_a_default_factory_makes_a_fresh_default_for_each_value() -> None:
    @dataclass(frozen=True, slots=True)
    class Made:
        seat: int
        seats: list[int] = field(default_factory=list)

    plain = Made.__init__
    quick_init(Made)
    assert Made.__init__ is not plain
    a, b = Made(1), Made(2)
    assert a.seats == [] and a.seats is not b.seats
    assert Made(3, [4]).seats == [4] and Made(seat=3, seats=[5]).seats == [5]
    assert "seats: 'list[int]' = <factory>" in str(inspect.signature(Made))


def test_classes_that_do_more_than_store_their_arguments_keep_their_init() -> None:
    @dataclass(frozen=True, slots=True)
    class Checked:
        seat: int

        def __post_init__(self) -> None:
            if self.seat < 1:
                raise ValueError(self.seat)

    before = Checked.__init__
    assert quick_init(Checked).__init__ is before


def test_a_judge_line_replaced_is_the_dataclasses_replace() -> None:
    """`Line.replaced` (the judge marks lines with it) changes exactly the fields named, like `replace`."""
    from narrator.judge.lines import Line

    line = Line("七号请发言", "all", ("七号", "请发言"), "prompts.speech", "long", "bell", "day", 1, False)
    changes = {"text": "x", "to": "host", "pieces": ("x",), "key": "k", "pause": "short", "cue": None,
               "bed": None, "words": 3, "public_ask": True, "confirms": 1, "gestures": 1}
    assert set(changes) == {f.name for f in dataclasses.fields(Line)}  # a new field is tried here too
    for name, value in changes.items():
        assert line.replaced(**{name: value}) == dataclasses.replace(line, **{name: value})
    assert line.replaced(words=2, public_ask=True) == dataclasses.replace(line, words=2, public_ask=True)
