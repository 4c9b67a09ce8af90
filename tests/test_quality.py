"""The code stays clean: ruff over everything, mypy over the package (strict on the engine and on the live
layer: narrator/listen, narrator/play, narrator/serve — pyproject.toml)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "narrator", "tests", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = run("mypy", "narrator")
    assert result.returncode == 0, result.stdout + result.stderr


ENGINE_IMPORTS = frozenset({
    "__future__", "bisect", "collections", "collections.abc", "dataclasses", "enum", "functools", "heapq",
    "itertools", "math", "operator", "random", "re", "types", "typing",
    "narrator.common.zh",  # role_named reads 繁體 card names: a deterministic text conversion (OpenCC), no game I/O
})  # fmt: skip
"""What the engine may import besides itself: pure standard-library modules (and one text function).
`random` only for a seeded random.Random (the global functions are refused below)."""
ENGINE_BUILTINS_BANNED = frozenset({"open", "print", "input", "eval", "exec", "compile", "__import__", "breakpoint"})
ENGINE_EXEC_ALLOWED = frozenset({"values.py"})
"""values.py writes each frozen value class's `__init__` from the class's own field names with exec(), as
dataclasses itself does (a faster constructor for the engine's events and prompts); no other engine module
may call exec()."""


def engine_impurities(source: str, *, may_exec: bool = False) -> list[str]:
    """Imports outside the allowlist, global random, and I/O builtins, found through the AST (`may_exec`:
    exec() is allowed, for values.py)."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module == "narrator.engine" or module.startswith("narrator.engine."):
                continue
            if module == "random":
                problems.append(f"line {node.lineno}: from random import … (use a seeded random.Random)")
                continue
            names = [module]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
            if node.attr != "Random":
                problems.append(f"line {node.lineno}: random.{node.attr} (global random)")
            continue
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ENGINE_BUILTINS_BANNED:
            if may_exec and node.func.id == "exec":
                continue
            problems.append(f"line {node.lineno}: {node.func.id}()")
            continue
        else:
            continue
        problems += [f"line {node.lineno}: import {n}" for n in names
                     if n not in ENGINE_IMPORTS and not n.startswith("narrator.engine")]
    return problems


def test_engine_is_pure() -> None:
    """narrator/engine imports only pure standard-library modules and itself: no audio, files, clock,
    network, YAML or global random (checked through the AST against an allowlist)."""
    for path in sorted((ROOT / "narrator" / "engine").glob("*.py")):
        problems = engine_impurities(path.read_text(encoding="utf-8"), may_exec=path.name in ENGINE_EXEC_ALLOWED)
        assert not problems, f"{path.name}: {problems}"


def test_the_purity_check_can_fail() -> None:
    bad = """import os
import time as t
from pathlib import Path
from random import choice
import random
x = random.random()
y = random.Random(3)
open("f")
from narrator.audio import mixer
from . import roles
"""
    found = engine_impurities(bad)
    assert len(found) == 7, found
    assert not engine_impurities("import random\nfrom narrator.engine import roles\nr = random.Random(1)\n")
    assert engine_impurities("exec('x = 1')\neval('1')\n") == ["line 1: exec()", "line 2: eval()"]
    assert engine_impurities("exec('x = 1')\neval('1')\n", may_exec=True) == ["line 2: eval()"]
