"""Bad input ends in one clear line and the documented exit code, never a traceback.

Everything a command can check before it speaks is checked here, up front: the scenario file (readable,
UTF-8 text, YAML, a valid scenario), the output files (writable), the sound device (there). Each failure is
one sentence that names the file, option or device and what to do, printed to stderr, and the command
exits with USAGE (2). `guard` is the last resort of the console entry point.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

import typer

if TYPE_CHECKING:
    from narrator.sim.scenario import Scenario

USAGE = 2
"""Exit code: the input (file, option, device) is wrong; nothing was said or written."""
FAILED = 1
"""Exit code: an expectation failed, or the voice or the sound device failed during the run."""
INTERNAL = 70
"""Exit code: narrator itself failed (a bug): one line, and NARRATOR_DEBUG=1 shows the traceback."""
DEBUG_ENV = "NARRATOR_DEBUG"

T = TypeVar("T")


def fail(message: str, code: int = USAGE) -> NoReturn:
    """Print `✗ message` on stderr and exit with `code`."""
    typer.echo(f"✗ {one_line(message)}", err=True)
    raise typer.Exit(code)


def one_line(message: str) -> str:
    """Messages from libraries (YAML, PortAudio) may span lines; a user reads one."""
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def read_text(path: Path) -> str:
    """A text file's contents, or a clear failure: missing, a folder, unreadable, binary, not UTF-8."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except IsADirectoryError:
        fail(f"{path} is a folder; give a scenario file (.yaml)")
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    if b"\x00" in data:
        fail(f"{path} is not a text file (it holds binary data); a scenario is YAML text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        fail(f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); "
             "save it as UTF-8 (e.g. `iconv -f GB18030 -t UTF-8`)")  # fmt: skip


def load_scenario(path: Path) -> Scenario:
    """The scenario in `path`, or exit 2 with the reason in one line (YAML errors name their line)."""
    import yaml

    from narrator.sim.scenario import Scenario, ScenarioError

    text = read_text(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        from narrator.listen.grammar import yaml_problem

        fail(f"invalid scenario {path}: {yaml_problem(exc)}")
    except RecursionError:
        fail(f"invalid scenario {path}: its YAML is nested too deeply to read; a scenario is a few flat lists")
    try:
        return Scenario.from_dict(data, name=path.stem)
    except ScenarioError as exc:
        fail(f"invalid scenario {path}: {exc}")


def check_writable(*paths: Path, example: str = "game.wav") -> None:
    """Each path can be written, or exit 2 naming it in one line: before any work. A folder that is not
    there is refused, never made (every -o alike: a typo in the path makes no folder tree). `example`: the
    file name suggested when a folder is given."""
    for path in paths:
        if path.is_dir():
            fail(f"cannot write {path}: it is a folder; give a file name (e.g. -o {path / example})")
        if not path.parent.is_dir():
            fail(f"cannot write {path}: there is no folder {path.parent}; make it first or choose another "
                 "file with -o")
        existed = path.exists()
        try:
            with open(path, "ab"):
                pass
        except OSError as exc:
            fail(f"cannot write {path}: {exc.strerror or exc}; choose another file with -o")
        if not existed:
            with contextlib.suppress(OSError):
                path.unlink()


def check_device(spec: str, option: str = "--play") -> None:
    """The sound output `spec` names exists and takes our format, or exit 2 saying what to do."""
    from narrator.audio import SAMPLE_RATE
    from narrator.audio.playback import OutputConfig

    config = OutputConfig.parse(None if spec == "default" else spec)
    try:
        import sounddevice as sd

        sd.check_output_settings(device=config.device, channels=1, dtype="float32", samplerate=SAMPLE_RATE)
    except Exception as exc:  # PortAudioError (no such device, no audio system), ValueError (no match), OSError
        fail(device_problem(spec, option, exc))


def device_problem(spec: str, option: str, exc: BaseException) -> str:
    reason = one_line(str(exc)) or type(exc).__name__
    return (f"no sound output for {option} {spec} ({reason}); `narrator devices` lists the outputs, "
            "or leave out the option to render files only")  # fmt: skip


def guard(run: Callable[[], T]) -> T:
    """Run the CLI; an exception nothing else caught becomes one line and exit 70, not a traceback
    (NARRATOR_DEBUG=1 lets it through)."""
    try:
        return run()
    except KeyboardInterrupt:
        typer.echo("✗ interrupted", err=True)
        sys.exit(130)
    except Exception as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        typer.echo(f"✗ narrator failed unexpectedly: {type(exc).__name__}: {one_line(str(exc))} "
                   f"(a bug: please report it; {DEBUG_ENV}=1 shows where)", err=True)  # fmt: skip
        sys.exit(INTERNAL)


def check_cache_dir(cache_dir: Path | None) -> None:
    """The voice cache under `cache_dir` (--cache-dir; default the user's) can take files, or exit 2 in one
    line before anything is said or rendered."""
    import tempfile

    from narrator.voice import default_cache_dir

    directory = default_cache_dir(cache_dir)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError as exc:
        fail(f"cannot write the voice cache {directory}: {exc.strerror or exc}; choose another with --cache-dir")
