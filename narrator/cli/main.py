"""The `narrator` command. Thin: each group lives in its own module; heavy imports happen inside commands
so that `narrator --help` is instant."""

from __future__ import annotations

from typing import Annotated

import typer

from narrator.cli import device_cmds, game_cmds, model_cmd, play_cmds, render_cmd, serve_cmds, voices
from narrator.cli.help import new_app

app = new_app(
    name="narrator",
    help="“狼人之夜电子法官” — a voice-driven, hands-free judge for “狼人杀” (Werewolf).",
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"narrator {version('narrator')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print narrator's version and exit.")] = False,
) -> None:
    pass


game_cmds.register(app)
voices.register(app)
render_cmd.register(app)
model_cmd.register(app)
play_cmds.register(app)
device_cmds.register(app)
serve_cmds.register(app)


def main() -> None:  # pragma: no cover - console entry
    from narrator.cli.errors import guard

    guard(app)


if __name__ == "__main__":  # pragma: no cover
    main()
