"""`narrator setup` and `narrator doctor`: prepare this device for a game night, and check it is ready."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from narrator.cli.options import Backend, CacheDir, Lang
from narrator.cli.voices import parse_lang

if TYPE_CHECKING:
    from narrator.play.config import Config


def doctor(cache_dir: CacheDir = None) -> None:
    """Check the speech model, the voice cache (how many lines are missing), every configured audio device,
    free disk and the config. Prints each problem with its exact fix. Exit 0: a game can start as
    configured (warnings allowed); 1: it cannot."""
    from narrator.play.doctor import run_checks

    marks = {"ok": "✓", "warning": "⚠", "problem": "✗"}
    problems = 0
    for finding in run_checks(cache_dir=cache_dir):
        typer.echo(f"{marks[finding.level]} {finding.what}")
        if finding.fix:
            typer.echo(f"    fix: {finding.fix}")
        problems += finding.level == "problem"
    if problems:
        typer.echo(f"✗ {problems} problem(s): a game cannot start as configured.")
        raise typer.Exit(1)
    typer.echo("✓ ready for a game: narrator play")


def devices() -> None:
    """List what the device can use, by the names `setup`, `--table-device`, `--host-device`, `--mic` and the
    config take: sound outputs (speakers, earpieces), microphones, and keypads (USB input devices with digit
    keys; "numeric" ones are what `--keypad auto` takes). Exit 1 when there is no audio system at all."""
    from narrator.listen import evkeys
    from narrator.play.devices import DeviceProblem, all_devices

    try:
        found = all_devices(refresh=False)
    except DeviceProblem as exc:  # PortAudio missing or no audio system at all
        typer.echo(f"✗ {exc}", err=True)
        raise typer.Exit(1) from exc
    outputs = [d for d in found if d.outputs > 0]
    mics = [d for d in found if d.inputs > 0]
    typer.echo("Outputs (the table's speaker, the host's earpiece):")
    for d in outputs:
        typer.echo(f"  {d.index:>3}  {d.name}")
    if not outputs:
        typer.echo("  none found")
    typer.echo("Inputs — microphones:")
    for d in mics:
        typer.echo(f"  {d.index:>3}  {d.name}")
    if not mics:
        typer.echo("  none found")
    typer.echo("Inputs — keypads:")
    pads = evkeys.keypads()
    for pad in pads:
        typer.echo(f"  {pad.path}  {pad.name}{'  (numeric keypad)' if pad.numeric else ''}")
    if not pads:
        typer.echo("  none found" + ("" if evkeys.available() else " (no Linux input layer here: /dev/input, "
                                     "python evdev)") + "; the terminal's keys work when narrator runs on one")


def setup(
    table: Annotated[str | None, typer.Option(help='The table\'s speaker: "default", an index, part of a name, '
                                              'pulse:SINK, or "none" (print the lines).')] = None,
    host: Annotated[str | None, typer.Option(help='The host\'s earpiece ("" = the host\'s console).')] = None,
    mic: Annotated[str | None, typer.Option(help='The microphone: "default", an index, part of a name, '
                                            "pulse:SOURCE.")] = None,
    lang: Annotated[Lang | None, typer.Option(parser=parse_lang, metavar="zh-Hans|zh-Hant",
                                              help="Script: zh-Hans (简体; also zh-CN) or zh-Hant (繁體; also zh-TW)."
                                              )] = None,
    input_: Annotated[str | None, typer.Option("--input", help="Default inputs: voice, keypad, text.")] = None,
    keypad: Annotated[str | None, typer.Option(
        help='The keypad: "auto" (the terminal when there is one, else the first USB numeric keypad), '
             '"terminal", or an input device (/dev/input/by-id/…, or part of its name; `narrator devices` '
             "lists them).")] = None,
    backend: Annotated[Backend | None, typer.Option(help="The judge's voice: edge or espeak.")] = None,
    voice: Annotated[str | None, typer.Option(help="Voice name (\"\" = the backend's default).")] = None,
    model_zip: Annotated[Path | None, typer.Option(help="Install the speech model from this zip.")] = None,
    skip_model: Annotated[bool, typer.Option(help="Do not install the speech model.")] = False,
    skip_voices: Annotated[bool, typer.Option(help="Do not build the voice cache.")] = False,
    test: Annotated[bool, typer.Option(help="Play a test tone on each output and show the mic's level.")] = True,
    echo_cancel: Annotated[bool | None, typer.Option(
        help="PulseAudio's WebRTC echo canceller between the table's speaker and the mic (so the judge can "
             "be interrupted): loaded now and by every game. On by default wherever it loads (PulseAudio "
             "devices); --no-echo-cancel removes it and keeps it off.")] = None,
    calibrate: Annotated[bool | None, typer.Option(
        help="Calibrate the ear to the host's voice: the judge asks for the seats one to twelve, then the words "
             "for pass, yes and no, and the spoken forms the voice does not get through are left out (the "
             "config's game.drop_forms). "
             "Asked when run interactively; --no-calibrate skips it.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Ask nothing: use the flags and the current config.")]
    = False,
    cache_dir: CacheDir = None,
) -> None:
    """Prepare this device in one command (safe to run again): install the speech model, build the voice
    cache, pick the table/host/mic devices (test tone, mic level meter), and write the config file."""
    from narrator.common.paths import config_path
    from narrator.play import setup as steps
    from narrator.play.config import Config, ConfigError, parse_inputs
    from narrator.play.devices import ROLES, DeviceProblem, all_devices, check_device

    ask = not yes and sys.stdin.isatty()
    failed = 0
    try:
        config = Config.load()
    except ConfigError as exc:
        typer.echo(f"⚠ {exc}; starting from the defaults")
        config = Config()
    if lang is not None:
        config.game.lang = lang.value
    if backend is not None:
        config.voice.backend = backend.value
    if voice is not None:
        config.voice.name = voice
    if input_ is not None:
        try:
            config.game.input = ",".join(parse_inputs(input_))
        except ConfigError as exc:
            typer.echo(f"✗ {exc}", err=True)
            raise typer.Exit(2) from exc
    # 1. the speech model
    model_missing = not skip_model and "voice" in config.game.input and not steps.install_model(
        typer.echo, str(model_zip) if model_zip else None)
    if model_missing:
        failed += 1
        # Without the model a voice game cannot start: the config keeps the inputs that work.
        config.game.input = ",".join(i for i in parse_inputs(config.game.input) if i != "voice") or "keypad"
        typer.echo(f"⚠ input={config.game.input} until the speech model is installed; then "
                   "`narrator setup --input voice,keypad`")
    # 2. the devices
    try:
        devices = all_devices()
    except DeviceProblem as exc:
        typer.echo(f"✗ {exc}")
        devices = []
        failed += 1
    if devices:
        typer.echo("Audio devices (index, name, inputs/outputs):")
        for d in devices:
            typer.echo(f"  {d.index:>3}  {d.name}  [{d.inputs} in / {d.outputs} out]")
    picks = (("table", table, False), ("host", host, False), ("mic", mic, True))
    for key, given, needs_input in picks:
        if key == "mic" and "voice" not in config.game.input and given is None:
            typer.echo(f"· microphone: not used (input {config.game.input} does not listen); to answer by voice: "
                       "`narrator setup --input voice,keypad --mic DEVICE`")
            continue
        value = given if given is not None else getattr(config.audio, key)
        while True:
            if ask and given is None:
                value = typer.prompt(f"{ROLES[key]} ({key})", default=value or "", show_default=True)
            if value in ("", "none") and key != "mic":
                setattr(config.audio, key, value)
                break
            try:
                found = check_device(value, key, needs_input=needs_input)
                if test:
                    _test(key, value)
            except (DeviceProblem, OSError, RuntimeError) as exc:
                typer.echo(f"✗ {exc}")
                if ask and given is None:
                    continue
                failed += 1
                break
            typer.echo(f"✓ {key}: {value} → {found}")
            if ask and given is None and test and not typer.confirm("Heard it / did the level move?", default=True):
                continue
            setattr(config.audio, key, value)
            break
    # the keypad (a USB one is read with no terminal: under the service)
    if "keypad" in config.game.input:
        failed += not _keypad(config, keypad, ask)
    # 3. echo cancellation (on PulseAudio devices)
    if echo_cancel is not None:
        from narrator.play import echo

        config.audio.echo_cancel = "webrtc" if echo_cancel else "off"
        if not echo_cancel:
            echo.unload()
            typer.echo("✓ echo cancellation off: the ear is deaf while the judge speaks")
    if config.audio.canceller:
        failed += not steps.echo_cancel(typer.echo, config)
    elif not config.audio.echo_cancel and "voice" in config.game.input and config.audio.table not in ("", "none"):
        steps.echo_cancel(typer.echo, config, "webrtc")  # not chosen yet: on wherever it loads
    # 3b. the host's voice (the ear needs the model and the microphone)
    if "voice" in config.game.input and not model_missing and (calibrate or (
            calibrate is None and ask and typer.confirm("Calibrate the ear to your voice now (about a minute)?",
                                                        default=True))):
        failed += not _calibrate(config)
    # 4. the config (before the long voice build, so an interrupted build keeps the devices)
    path = config.save(config.path or config_path())
    typer.echo(f"✓ config written: {path}")
    # 5. the voice cache
    if not skip_voices:
        from narrator.cli.voices import Backend as VoiceBackend
        from narrator.cli.voices import Lang as VoiceLang
        from narrator.cli.voices import build

        try:
            build(backend=VoiceBackend(config.voice.backend), voice=config.voice.name or None, rate="+0%",
                  pitch="+0Hz", volume="+0%", lang=VoiceLang(config.game.lang), cache_dir=cache_dir, proxy=None)
        except typer.Exit as exc:
            failed += exc.exit_code != 0
    if failed:
        typer.echo(f"⚠ {failed} step(s) did not work; fix them and run `narrator setup` again "
                   "(`narrator doctor` checks everything).")
        raise typer.Exit(1)
    typer.echo("✓ ready: `narrator doctor` checks it, `narrator play` starts a game.")


def _keypad(config: Config, given: str | None, ask: bool) -> bool:
    """Choose and check the keypad; False when the one named cannot be read."""
    from narrator.listen import evkeys

    value = given if given is not None else config.audio.keypad
    if ask and given is None:
        pads = evkeys.keypads()
        for pad in pads:
            typer.echo(f"  keypad: {pad.path}  {pad.name}{'  (numeric keypad)' if pad.numeric else ''}")
        value = typer.prompt("the keypad (auto, terminal, or one above)", default=value, show_default=True)
    value = value.strip() or "auto"
    if value == "terminal":
        typer.echo("✓ keypad: the terminal (not read under the service: it has no terminal)")
    else:
        try:
            typer.echo(f"✓ keypad: {value} → {evkeys.check(value)}")
        except evkeys.KeypadProblem as exc:
            if value != "auto":
                typer.echo(f"✗ {exc}")
                return False
            typer.echo(f"⚠ keypad: {exc}; the terminal's keys work meanwhile, a keypad plugged in later is taken")
    config.audio.keypad = value
    return True


def _calibrate(config: Config) -> bool:
    """The calibration by voice on the config's microphone (the canceller's when it is on); the judge's lines
    printed, what was found printed and written to the config."""
    from narrator.listen.setup import EarOptions
    from narrator.play import calibration
    from narrator.play.echo import SOURCE

    mic = f"pulse:{SOURCE}" if config.audio.canceller else config.audio.mic
    opts = EarOptions(mic=None if mic in ("", "default") else mic, judge_name=config.game.judge_name or None)
    return calibration.run(opts, lambda line: typer.echo(f"🔊 {line.text}"), typer.echo, config) is not None


def _test(key: str, value: str) -> None:
    from narrator.play import setup as s
    from narrator.play.devices import DeviceProblem

    if key == "mic":
        typer.echo("  say a few words (3 s)…")
        levels = s.mic_levels(value)
        typer.echo(f"  level: {s.meter(levels)}  peak {max(levels, default=-120):.0f} dBFS")
        problem = s.mic_problem(levels)
        if problem:
            raise DeviceProblem(problem)
    else:
        typer.echo("  test tone…")
        s.play_tone(value)


def reset(
    games: Annotated[bool, typer.Option("--games", help="Remove every saved game and its recap pages too.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask (needed without a terminal).")] = False,
) -> None:
    """Factory reset: remove the config (the devices, the voice, the volume and pace, the judge's name, the
    calibration, the web setting: every setting back to its default), where the lobby stood and the ear's last
    measurement; --games removes the saved games too. The speech model and the voice cache stay. Then run
    `narrator setup`, and restart the service if it runs (`systemctl restart narrator`)."""
    from narrator.cli.play_cmds import fail
    from narrator.serve.reset import factory_reset, what_goes

    going = what_goes(games=games)
    if not going:
        typer.echo("✓ nothing to remove: this device is as it was installed")
        return
    for item in going:
        typer.echo(f"  {item.what}: {item.path}")
    if not yes:
        if not sys.stdin.isatty():
            raise fail("reset removes what is listed above: add --yes to do it without a terminal")
        if not typer.confirm("Remove all of this?", default=False):
            typer.echo("nothing removed")
            raise typer.Exit(1)
    try:
        gone = factory_reset(games=games)
    except OSError as exc:
        raise fail(f"cannot remove {exc.filename}: {exc.strerror or exc} (the owner runs reset; run it again to "
                   "finish)") from exc
    typer.echo(f"✓ removed {len(gone)}: every setting is back to its default — next: narrator setup")


def register(app: typer.Typer) -> None:
    app.command()(setup)
    app.command()(doctor)
    app.command()(devices)
    app.command()(reset)
