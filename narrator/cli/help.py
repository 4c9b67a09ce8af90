"""How `narrator … --help` is laid out: plain text wrapped by display width.

A Chinese character takes two columns of a terminal, so wrapping by character count makes lines with Chinese
run past the edge; here every line is measured in columns, and breaks at a space or after punctuation
(，、。 …), not inside a word. Every `typer.Typer` of
the command line is made by `new_app`, so each command and group gets this layout.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

import typer
from typer._click.core import Command, Context  # typer bundles its own click
from typer._click.formatting import HelpFormatter
from typer.core import TyperGroup

BREAK_AFTER = set("，、；：。！？）」』》,")
"""A line may break after these (and at spaces); never inside a run of characters without them, so 预言家 or
N人标准局 is not cut in two — unless the run alone is wider than the line."""


def cells(text: str) -> int:
    """Terminal columns `text` takes: two for wide (East Asian) characters, none for combining marks."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def tokens(text: str) -> list[str]:
    """The pieces a line may break between: the words of `text` (split at spaces), each cut after BREAK_AFTER."""
    out: list[str] = []
    for word in text.split():
        piece = ""
        for ch in word:
            piece += ch
            if ch in BREAK_AFTER:
                out.append(piece)
                piece = ""
        if piece:
            out.append(piece)
        if out:
            out[-1] += " "
    return out


def _cut(token: str, width: int) -> list[str]:
    """A piece wider than the line, cut into pieces of at most `width` columns."""
    parts, part = [], ""
    for ch in token:
        if part and cells(part + ch) > width:
            parts.append(part)
            part = ""
        part += ch
    return [*parts, part] if part else parts


def wrap(text: str, width: int) -> list[str]:
    """One paragraph as lines of at most `width` columns."""
    lines: list[str] = []
    line = ""
    for token in tokens(text):
        for piece in _cut(token, width) if cells(token.rstrip()) > width else [token]:
            if line and cells(line + piece.rstrip()) > width:
                lines.append(line.rstrip())
                line = ""
            line += piece
    if line.strip():
        lines.append(line.rstrip())
    return lines


def shorten(text: str, width: int) -> str:
    """`text` on one line of at most `width` columns, cut at a word with "…" when it is longer."""
    lines = wrap(text, width - 1)
    return lines[0] + "…" if len(lines) > 1 else text


def wrap_paragraphs(text: str, width: int, indent: str = "") -> str:
    """Paragraphs (blank-line separated) wrapped to `width` columns, each line indented; a paragraph that
    starts with a `\\b` line is kept as written."""
    out: list[str] = []
    for para in text.split("\n\n"):
        if para.startswith("\b"):
            out.append("\n".join(indent + line for line in para.splitlines()[1:]))
        else:
            out.append("\n".join(indent + line for line in wrap(para, max(width - cells(indent), 10))))
    return "\n\n".join(p for p in out if p)


class CellFormatter(HelpFormatter):
    """click's help layout, with text wrapped by display width."""

    def write_text(self, text: str) -> None:
        self.write(wrap_paragraphs(text, self.width, " " * self.current_indent) + "\n")

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        rows = list(rows)
        first_col = min(max((cells(first) for first, _ in rows), default=0), col_max) + col_spacing
        indent = " " * self.current_indent
        for first, second in rows:
            lines = wrap(second, max(self.width - first_col - self.current_indent - 2, 10)) if second else []
            if not lines:
                self.write(f"{indent}{first}\n")
                continue
            if cells(first) <= first_col - col_spacing:
                self.write(f"{indent}{first}{' ' * (first_col - cells(first))}{lines[0]}\n")
            else:
                self.write(f"{indent}{first}\n{indent}{' ' * first_col}{lines[0]}\n")
            for line in lines[1:]:
                self.write(f"{indent}{' ' * first_col}{line}\n")


class CellContext(typer.Context):
    formatter_class = CellFormatter


class CellGroup(TyperGroup):
    """A command group whose own help, and every sub-command's, uses `CellFormatter`. Called with nothing
    after it, it prints its help and exits 0 (asking what there is is not a mistake)."""

    context_class = CellContext

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:
            typer.echo(ctx.get_help())
            ctx.exit(0)
        result: list[str] = super().parse_args(ctx, args)
        return result

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """One line per command: its first sentence, cut to the line by display width."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                room = formatter.width - formatter.current_indent - max(len(name) for name, _ in rows) - 4
                formatter.write_dl([(name, shorten(text, room)) for name, text in rows])

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            command.context_class = CellContext
        return command


def new_app(**kwargs: Any) -> typer.Typer:
    """A `typer.Typer` with narrator's help layout: plain text (no boxes that cut Chinese text short)."""
    return typer.Typer(cls=CellGroup, rich_markup_mode=None, **kwargs)
