"""The help and the documents agree with the program: every command's `--help` is readable (no value
placeholder on a flag, no line wider than the terminal when measured in columns, the options it lists are
the command's own), and every command line written in README.md or docs/ names a real command with options
it has."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from narrator.cli.help import cells
from narrator.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WIDTH = 80


def commands(command: object = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    """Every command and group of `narrator`, with the words that call it."""
    command = command or typer.main.get_command(app)
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from commands(sub, (*path, name))


COMMANDS = dict(commands())


def options(command: object) -> set[str]:
    found = {"--help"}
    for param in getattr(command, "params", []):
        if param.param_type_name != "option":
            continue
        found.update(param.opts)
        found.update(getattr(param, "secondary_opts", []))
    return found


def help_text(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], terminal_width=WIDTH)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("path", list(COMMANDS), ids=lambda p: " ".join(("narrator", *p)))
def test_every_help_fits_the_terminal_and_lists_the_commands_own_options(path: tuple[str, ...]) -> None:
    text = help_text(path)
    too_wide = [line for line in text.splitlines() if cells(line) > WIDTH]
    assert not too_wide, f"lines wider than {WIDTH} columns: {too_wide}"
    assert "<bool>" not in text, "a flag takes no value, so its help shows none"
    listed = {m for m in re.findall(r"(?m)^\s{2}((?:-{1,2}[\w-]+(?:, |/| / )?)+)", text) for m in m.split()}
    listed = {re.sub(r"[,/]", "", opt) for opt in listed} - {""}
    own = options(COMMANDS[path])
    assert listed <= own, f"help lists options the command lacks: {listed - own}"
    assert own <= listed, f"help leaves out options: {own - listed}"


def test_bare_narrator_prints_help_and_succeeds() -> None:
    result = CliRunner().invoke(app, [])
    assert result.exit_code == 0 and "Usage: narrator" in result.output and "Commands:" in result.output


def test_version() -> None:
    from importlib.metadata import version

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"narrator {version('narrator')}"


# ---- command lines in the documents ---------------------------------------------------------------------


def command_lines() -> Iterator[tuple[str, str]]:
    """(where, command line) for every line of a fenced block, and every inline code span, that starts with
    `narrator ` or `./dev demo`; a `#` comment ends the line."""
    for doc in DOCS:
        fenced = False
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{doc.relative_to(ROOT)}:{number}"
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            spans = [line] if fenced else re.findall(r"`([^`]+)`", line)
            for span in spans:
                text = span.split(" #", 1)[0].strip()
                if text.startswith("./dev demo"):
                    text = "narrator demo" + text.removeprefix("./dev demo")
                if re.match(r"narrator( |$)", text):
                    head, _, tail = text.removeprefix("narrator").strip().partition(" ")
                    for name in head.split("/"):  # narrator simulate/render --lang: both
                        yield where, f"narrator {name} {tail}".rstrip()


def resolve(words: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The longest command path at the start of `words`, and the words after it."""
    path: tuple[str, ...] = ()
    rest = words
    while rest and (*path, rest[0]) in COMMANDS:
        path, rest = (*path, rest[0]), rest[1:]
    return path, rest


LINES = list(command_lines())


def test_the_documents_show_command_lines() -> None:
    assert len(LINES) > 20 and any(where.startswith("README.md") for where, _ in LINES)


@pytest.mark.parametrize(("where", "line"), LINES, ids=[where for where, _ in LINES])
def test_every_documented_command_exists_with_its_options(where: str, line: str) -> None:
    try:
        words = shlex.split(line.replace("…", ""))[1:]
    except ValueError:
        words = line.split()[1:]
    path, rest = resolve(words)
    first = next((w for w in rest if not w.startswith(("-", "[", "<", "|")) and w.isidentifier() and w.islower()),
                 None)
    if getattr(COMMANDS[path], "commands", None):
        group = COMMANDS[path].commands  # type: ignore[attr-defined]
        assert first is None or first in group, f"{where}: no command `narrator {' '.join(path)} {first}`"
    known = options(COMMANDS[path])
    named = {m.split("=")[0] for w in rest for m in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", w)}
    assert named <= known, f"{where}: `narrator {' '.join(path)}` has no {sorted(named - known)} ({line})"


def line_references(text: str) -> set[str]:
    """The files of `file:line` references (rules.md:12-14, 000:85): a clock time (21:05) or an address and
    port (0.0.0.0:8080) is not one."""
    found = re.findall(r"(?<![\w/.:-])([\w./-]+):(\d+)(?:-\d+)?(?![\w:])", text)
    return {name for name, line in found
            if not (re.fullmatch(r"\d{1,2}", name) and len(line) == 2) and not re.fullmatch(r"\d+(\.\d+){3}", name)}


def test_a_line_reference_names_its_file() -> None:
    assert line_references("see presets.yaml:39-41 and 000:85, 002:21; at 21:05 (1:2) on 0.0.0.0:8080") == {
        "presets.yaml", "000", "002", "1"}


def test_every_file_the_documents_name_is_in_the_repository() -> None:
    """A link, a named .md/.py/.yaml file or the file of a `file:line` reference resolves inside the
    repository (beside the document, or from its root), so a reader never meets a reference to a file they
    do not have."""
    names = set()
    for _folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        names.update(files)
    missing = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
        named = re.findall(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:md|py|yaml|toml))\b", text)
        for ref in {*(x for x in links if "://" not in x), *named, *line_references(text)}:
            if Path(ref).stem.isupper() or Path(ref).stem.startswith("NNN"):
                continue  # a placeholder (PHRASES.yaml, NNN_what_it_proves.yaml), not a file
            if not ((doc.parent / ref).exists() or (ROOT / ref).exists() or Path(ref).name in names):
                missing.append(f"{doc.relative_to(ROOT)}: {ref}")
    assert not missing, missing
