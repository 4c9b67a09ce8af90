"""`narrator serve` (the device's main program) and `narrator service install|uninstall|status`.

Exit codes of `serve`: 0 after 关机; 2 it cannot start (config, devices, model); 3 every input ended (the
text piped in ran out); 130 Ctrl-C twice; 143 SIGTERM (`systemctl stop`; the unit counts 130 and 143 as
clean). A game it was playing is saved answer by answer: the next `serve` offers to continue it.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from narrator.cli.help import new_app
from narrator.cli.play_cmds import LiveOptions, fail, with_live_options

ScopeOpt = Annotated[str, typer.Option("--scope", help="user: runs with your session (default); system: at "
                                       "boot as you, installed under /etc (needs root).")]
UnitDirOpt = Annotated[Path | None, typer.Option(help="Write the unit here instead of the scope's folder (for "
                                                 "packaging and tests).")]
UserOpt = Annotated[str | None, typer.Option("--user", help="The device's owner, whose config, sound server and "
                                            "games the unit uses (default: the user who ran sudo, else you).")]
NoSystemctlOpt = Annotated[bool, typer.Option("--no-systemctl", help="Only write or remove the unit; print the "
                                              "systemctl commands instead of running them.")]


def serve(
    seed: Annotated[int | None, typer.Option(help="The first game's seed (the next games count up from it); "
                                             "default: random.")] = None,
    web_listen: Annotated[str | None, typer.Option(
        help="Where the finished games' recap pages are served on the local network (announced as "
             "narrator.local): auto (port 80, else 8080), HOST:PORT, :PORT, off. Default from the config "
             "(web.listen), else auto.")] = None,
    no_web: Annotated[bool, typer.Option("--no-web", help="Serve no recap pages.")] = False,
    *,
    live: LiveOptions,
) -> None:
    """The device: say the ready line, then lobby → game → recap → lobby, by voice (or keypad, or typed text)
    until "关机". An unfinished game of the last day is offered first. One log line per event on stderr."""
    from narrator.play.config import Config, ConfigError
    from narrator.play.run import StartProblem
    from narrator.serve.device import Device
    from narrator.serve.web import Web, WebError, parse_listen

    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(name)s: %(message)s")
    try:
        config = Config.load()
        wiring = live.wiring(config)
        wiring.volume_db = config.voice.volume_db
        wiring.pace = live.pace * config.voice.pace_scale
        wiring.live_console = False
        wiring.voice_later = True  # keys and typed text answer from the ready line on; the voice joins them
        wiring.check()
        listen = "off" if no_web else web_listen if web_listen is not None else config.web.listen
        try:
            parse_listen(listen)
        except WebError as exc:
            raise StartProblem(f"{exc} ({'--web-listen' if web_listen is not None else config.path or 'config'})") \
                from exc
        code = Device(wiring, config, lang=config.game.lang, seed=seed, web=Web(listen)).run()
    except (ConfigError, StartProblem) as exc:
        raise fail(str(exc)) from exc
    raise typer.Exit(code)


service_app = new_app(help="A systemd unit that starts `narrator serve` at boot (after the sound system) "
                          "and restarts it if it fails.", no_args_is_help=True)


def _service(action: str, scope: str, unit_dir: Path | None, no_systemctl: bool, user: str | None = None) -> None:
    """Run one of narrator.serve.service's actions and print what it did, one line each."""
    from narrator.serve import service

    if scope not in ("user", "system"):
        raise fail(f"--scope {scope}: choose user or system")
    target = service.Service(scope, unit_dir, user)  # type: ignore[arg-type]
    try:
        done = getattr(service, action)(target, run_systemctl=not no_systemctl)
    except service.ServiceError as exc:
        raise fail(str(exc)) from exc
    except PermissionError as exc:
        raise fail(f"cannot change {exc.filename}: the system scope needs root (sudo), or use --scope user") from exc
    for line in done:
        typer.echo(line)


@service_app.command("install")
def service_install(scope: ScopeOpt = "user", user: UserOpt = None, unit_dir: UnitDirOpt = None,
                    no_systemctl: NoSystemctlOpt = False) -> None:
    """Write the unit as the device's owner, turn lingering on and enable it (again: nothing changes)."""
    _service("install", scope, unit_dir, no_systemctl, user)


@service_app.command("uninstall")
def service_uninstall(scope: ScopeOpt = "user", user: UserOpt = None, unit_dir: UnitDirOpt = None,
                      no_systemctl: NoSystemctlOpt = False) -> None:
    """Stop and disable the unit and remove it (again: says it is not installed); lingering is left as it is."""
    _service("uninstall", scope, unit_dir, no_systemctl, user)


@service_app.command("status")
def service_status(scope: ScopeOpt = "user", user: UserOpt = None, unit_dir: UnitDirOpt = None,
                   no_systemctl: NoSystemctlOpt = False) -> None:
    """Whether the unit is installed and running, whether its owner lingers, and where its log is."""
    _service("status", scope, unit_dir, no_systemctl, user)


def register(app: typer.Typer) -> None:
    app.command()(with_live_options(serve))
    app.add_typer(service_app, name="service")
