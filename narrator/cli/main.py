"""The `narrator` command. Thin: each group lives in its own module; heavy imports happen inside commands
so that `narrator --help` is instant."""

from __future__ import annotations

import typer

from narrator.cli import device_cmds, game_cmds, model_cmd, play_cmds, render_cmd, serve_cmds, voices

app = typer.Typer(
    name="narrator",
    help="狼人之夜电子法官 — a voice-driven, hands-free judge for 狼人杀 (Werewolf).",
    no_args_is_help=True,
    add_completion=False,
)
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
