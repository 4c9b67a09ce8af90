"""Every import in narrator/ points down the floors docs/architecture.md lists, and no modules import each
other round in a circle: imports at the top of a file, inside a function and under TYPE_CHECKING alike."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "narrator"


def floors(doc: str) -> dict[str, int]:
    """Unit ("engine", "paths") → its floor, 0 the lowest, from the ```floors block (the top line highest)."""
    block = re.search(r"```floors\n(.*?)```", doc, re.S)
    assert block, "docs/architecture.md has no ```floors block"
    lines = [line.split() for line in block[1].strip().splitlines()]
    return {unit: level for level, units in enumerate(reversed(lines)) for unit in units}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str, module: str, is_package: bool, known: Iterable[str]) -> set[str]:
    """The narrator modules `module` imports, each resolved to the nearest module that exists in `known`."""
    known = set(known)
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, *([base] if base else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for target in targets:
            while target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in known and target != module:
                found.add(target)
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    paths = {module_name(p, root): p for p in root.rglob("*.py")}
    return {name: imported(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", paths)
            for name, path in paths.items()}


def unit(module: str) -> str:
    """The package or top-level module under narrator/ a module belongs to ("" for narrator itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def arrows_up(graph: Mapping[str, set[str]], levels: Mapping[str, int]) -> list[str]:
    """Every import of a unit on its own floor or above it (a unit's own modules excepted)."""
    return sorted(f"{a} → {b}" for a, targets in graph.items() for b in targets
                  if unit(a) and unit(a) != unit(b) and levels[unit(b)] >= levels[unit(a)])


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            nxt = next(targets, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_every_unit_stands_on_a_floor() -> None:
    levels = floors((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    units = {unit(m) for m in import_graph()} - {""}
    assert units - set(levels) == set(), "units missing from the ```floors block of docs/architecture.md"
    assert set(levels) - units == set(), "the ```floors block names units narrator/ does not have"


def test_every_import_points_down() -> None:
    levels = floors((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert arrows_up(import_graph(), levels) == []


def test_no_modules_import_each_other_round_in_a_circle() -> None:
    assert circles(import_graph()) == []


def test_the_walk_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The checks can fail: function-local, TYPE_CHECKING and relative imports count, an arrow up and a
    circle of three are found."""
    pkg = tmp_path / "narrator"
    for folder in ("low", "high"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "a.py").write_text("def f():\n    from narrator.high import c\n")
    (pkg / "low" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    (pkg / "high" / "c.py").write_text("import narrator.low.b\n")
    graph = import_graph(pkg)
    assert graph["narrator.low.a"] == {"narrator.high.c"}
    assert graph["narrator.low.b"] == {"narrator.low.a"}
    assert graph["narrator.high.c"] == {"narrator.low.b"}
    levels = floors("```floors\nhigh\nlow\n```")
    assert arrows_up(graph, levels) == ["narrator.low.a → narrator.high.c"]
    assert circles(graph) == [["narrator.high.c", "narrator.low.a", "narrator.low.b"]]
    assert circles({"x": {"y"}, "y": set()}) == []
    # the real graph is read the same way: the judge's script reads the lobby's words on its own floor
    assert "narrator.judge.lobby_words" in import_graph()["narrator.judge.script"]


def test_narrator_holds_folders_only() -> None:
    """A newcomer finds the floors from the folder names: no module stands loose beside them."""
    assert loose_modules(PACKAGE) == []


def loose_modules(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("*.py") if p.name != "__init__.py")


def test_a_loose_module_is_found(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "game.py").write_text("")
    assert loose_modules(tmp_path) == []
    (tmp_path / "clock.py").write_text("")
    assert loose_modules(tmp_path) == ["clock.py"]
