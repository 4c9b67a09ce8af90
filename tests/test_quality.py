"""The code stays clean: ruff over everything, mypy over the package (strict on the engine and on the live
layer: narrator/listen, narrator/play, narrator/serve — pyproject.toml), `Any` only where the allow-list says."""

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


# `Any` in narrator/: only where a third-party library hands back something it has no types for. Each file
# that has one says how many and why; a new `Any` fails below, and so does one taken out without lowering
# its count here (the list says exactly what stands). Our own data is typed: Protocols and TypeVars between
# our parts, TypedDicts or checked dataclasses where JSON, TOML or YAML comes in, `object` where anything goes.
UNTYPED = "no types in the library"
ANY_ALLOWED: dict[str, tuple[int, str]] = {
    "narrator/listen/recognizer.py": (8, f"vosk's Model and KaldiRecognizer and the JSON they return: {UNTYPED}"),
    "narrator/listen/calibrate.py": (1, f"a vosk Model: {UNTYPED}"),
    "narrator/listen/evkeys.py": (4, f"an evdev InputDevice: {UNTYPED}"),
    "narrator/listen/mic.py": (7, f"sounddevice's module, stream and CFFI callback arguments: {UNTYPED}; "
                                  "MicEar's *args/**kw: TO TYPE"),
    "narrator/listen/setup.py": (2, f"a vosk Model: {UNTYPED}; stdin: TO TYPE"),
    "narrator/listen/measure.py": (3, f"a vosk Model: {UNTYPED}; the cases' YAML, a heard reading: TO TYPE"),
    "narrator/listen/grammar.py": (1, "the grammar's YAML before it is checked: TO TYPE"),
    "narrator/listen/text.py": (1, "a line source found by its readline: TO TYPE"),
    "narrator/listen/wavfile.py": (2, "WavEar's *args/**kw: TO TYPE"),
    "narrator/audio/playback.py": (4, f"sounddevice's CFFI callback arguments: {UNTYPED}; "
                                      "OutputConfig's **kw: TO TYPE"),
    "narrator/audio/pacing.py": (3, "pacing.yaml's data: TO TYPE"),
    "narrator/audio/ports.py": (1, "what AudioOut.say returns: TO TYPE"),
    "narrator/voice/edge.py": (2, "the coroutine asyncio runs: TO TYPE"),
    "narrator/play/bootstrap.py": (2, "stdin, the ears: TO TYPE"),
    "narrator/play/config.py": (2, "the config's TOML: TO TYPE"),
    "narrator/play/options.py": (3, "a rule's value: TO TYPE"),
    "narrator/serve/web.py": (3, "http.server's log arguments, zeroconf (typed), a callable: TO TYPE"),
    "narrator/serve/words.py": (2, "a rule's value: TO TYPE"),
    "narrator/cli/device_cmds.py": (1, "TO TYPE"),
    "narrator/cli/help.py": (6, "argparse's private parts: TO TYPE"),
    "narrator/cli/play_cmds.py": (6, "TO TYPE"),
    "narrator/engine/base.py": (4, "TO TYPE"),
    "narrator/engine/game.py": (1, "TO TYPE"),
    "narrator/engine/modern_state.py": (2, "TO TYPE"),
    "narrator/engine/prompts.py": (2, "TO TYPE"),
    "narrator/engine/rules.py": (7, "a rule's value: TO TYPE"),
    "narrator/engine/state.py": (3, "TO TYPE"),
    "narrator/engine/values.py": (2, "TO TYPE"),
    "narrator/judge/lines.py": (1, "TO TYPE"),
    "narrator/judge/modern_lines.py": (4, "TO TYPE"),
    "narrator/judge/narrate.py": (6, "TO TYPE"),
    "narrator/judge/presets.py": (6, "presets.yaml's data: TO TYPE"),
    "narrator/judge/readings.py": (1, "TO TYPE"),
    "narrator/judge/script.py": (10, "the script's YAML, a line's values: TO TYPE"),
    "narrator/judge/seed_lines.py": (1, "TO TYPE"),
    "narrator/session/journal.py": (15, "the journal's JSON lines: TO TYPE"),
    "narrator/sim/checks.py": (1, "TO TYPE"),
    "narrator/sim/expectations.py": (3, "a scenario's YAML: TO TYPE"),
    "narrator/sim/scenario.py": (9, "a scenario's YAML: TO TYPE"),
}  # fmt: skip
"""File → (how many `Any` it may hold, why). "TO TYPE": our own, still to be typed (issue 32): may only go."""


def any_count(source: str) -> int:
    """How many times `Any` (or typing.Any) is used in a module: annotations, casts and aliases alike (the
    import itself not)."""
    return sum(1 for node in ast.walk(ast.parse(source))
               if (isinstance(node, ast.Name) and node.id == "Any")
               or (isinstance(node, ast.Attribute) and node.attr == "Any"))


def any_beyond(root: Path, allowed: dict[str, tuple[int, str]]) -> list[str]:
    """Every file under root/narrator whose `Any` count is not the one `allowed` says (0 when unlisted)."""
    wrong = []
    for path in sorted((root / "narrator").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        count, allowance = any_count(path.read_text(encoding="utf-8")), allowed.get(name, (0, ""))[0]
        if count != allowance:
            wrong.append(f"{name}: {count} Any, allowed {allowance}")
    missing = sorted(set(allowed) - {p.relative_to(root).as_posix() for p in (root / "narrator").rglob("*.py")})
    return wrong + [f"{name}: listed, but no such file" for name in missing]


def test_any_only_where_the_allow_list_says() -> None:
    assert any_beyond(ROOT, ANY_ALLOWED) == [], "type it (Protocol, TypeVar, TypedDict, object), or say why here"


def test_the_any_count_can_fail(tmp_path: Path) -> None:
    (tmp_path / "narrator").mkdir()
    (tmp_path / "narrator" / "a.py").write_text(
        "from typing import Any\nimport typing\ndef f(x: Any) -> typing.Any:\n    return x\n")
    (tmp_path / "narrator" / "b.py").write_text("from typing import Any\n")
    assert any_beyond(tmp_path, {"narrator/a.py": (2, UNTYPED)}) == []
    assert any_beyond(tmp_path, {"narrator/a.py": (1, UNTYPED)}) == ["narrator/a.py: 2 Any, allowed 1"]
    assert any_beyond(tmp_path, {"narrator/a.py": (3, UNTYPED)}) == ["narrator/a.py: 2 Any, allowed 3"]
    assert any_beyond(tmp_path, {}) == ["narrator/a.py: 2 Any, allowed 0"]
    assert any_beyond(tmp_path, {"narrator/a.py": (2, UNTYPED), "narrator/gone.py": (1, UNTYPED)}) == [
        "narrator/gone.py: listed, but no such file"]
