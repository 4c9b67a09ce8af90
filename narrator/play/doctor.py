"""`narrator doctor`: is this device ready for a game? Each check says what it found; each problem comes
with the exact command or step that fixes it. Problems stop a game from starting as configured (exit 1);
warnings do not (the game starts, a little worse: e.g. lines the voice cache lacks are rendered live or
by the offline voice)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from narrator.common.paths import config_path, data_dir
from narrator.play.config import Config, ConfigError
from narrator.play.devices import DeviceProblem, check_device

MIN_FREE_BYTES = 200 * 1024 * 1024
"""Free space a game night needs around the data folder (journals are small; the model and cache are not)."""


@dataclass(frozen=True)
class Finding:
    level: Literal["ok", "warning", "problem"]
    what: str
    fix: str = ""


def run_checks(config_file: Path | None = None, cache_dir: Path | None = None) -> Iterator[Finding]:
    path = config_file or config_path()
    try:
        config = Config.load(path)
    except ConfigError as exc:
        yield Finding("problem", str(exc), f"fix {path} by hand, or delete it and run `narrator setup`")
        config = Config()
    else:
        if config.path is None:
            yield Finding("warning", f"no config at {path}: defaults are used",
                          "narrator setup  (picks the speakers and the microphone)")
        else:
            yield Finding("ok", f"config {path}")
    inputs = tuple(s.strip() for s in config.game.input.split(","))
    yield from check_model("voice" in inputs)
    yield from check_voice(config, cache_dir)
    yield from check_echo(config, "voice" in inputs)
    yield from check_devices(config, "voice" in inputs)
    if "keypad" in inputs:
        yield from check_keypad(config.audio.keypad)
    yield from check_disk()


def check_model(needed: bool) -> Iterator[Finding]:
    from narrator.listen.models import model_problems

    problems = model_problems()
    if not problems:
        yield Finding("ok", "speech model installed")
    for p in problems:
        yield Finding("problem" if needed else "warning", p.what, p.fix)


def check_voice(config: Config, cache_dir: Path | None) -> Iterator[Finding]:
    from narrator.voice import VoiceCache, default_cache_dir, make_voice, pieces_to_build
    from narrator.voice.fallback import FallbackVoice

    if shutil.which("espeak-ng") is None:
        yield Finding("problem", "espeak-ng (the offline voice) is not installed", "sudo apt install espeak-ng")
    try:
        voice = make_voice(config.voice.backend, config.voice.name or None)
    except ValueError as exc:
        yield Finding("problem", f"voice: {exc}", "narrator setup --voice NAME  (see `narrator voices list`)")
        return
    cache = VoiceCache(default_cache_dir(cache_dir))
    pieces = pieces_to_build(config.game.lang)
    keys = [voice.primary.key, voice.fallback.key] if isinstance(voice, FallbackVoice) else [voice.key]
    missing = min(sum(1 for p in pieces if not cache.has(key, p)) for key in keys)
    if missing:
        yield Finding("warning", f"voice cache {cache.directory}: {missing} of {len(pieces)} lines missing "
                      f"for {config.game.lang} (rendered live, or by the offline voice)",
                      f"narrator voices build --lang {config.game.lang}")
    else:
        yield Finding("ok", f"voice cache complete ({len(pieces)} lines, {config.game.lang})")


def check_echo(config: Config, listening: bool) -> Iterator[Finding]:
    """The echo canceller the config asks for (loaded again if the sound server forgot it), and how to
    measure the ear in this room."""
    if not listening:
        return
    from narrator.listen.measure import last_summary

    last = last_summary(data_dir())
    yield Finding("ok" if last else "warning", last or "the ear was never measured in this room",
                  "" if last else "narrator model test PHRASES.yaml  (record the host in this room: "
                  "docs/benchmarks.md, 'Chinese accuracy in your room')")
    if not config.audio.canceller:
        yield Finding("warning", "no echo cancellation: the ear is deaf while the judge speaks (no barge-in)",
                      "narrator setup --echo-cancel  (PulseAudio devices)")
        return
    from narrator.play.echo import EchoError, ensure

    try:
        devices = ensure(config.audio.canceller, config.audio.table, config.audio.mic)
    except EchoError as exc:
        yield Finding("problem", f"echo cancellation: {exc}", "narrator setup --echo-cancel, or --no-echo-cancel")
        return
    yield Finding("ok", f"echo cancellation {config.audio.canceller}: table {devices.table}, mic {devices.mic}")


def check_devices(config: Config, mic_needed: bool) -> Iterator[Finding]:
    wanted = [("table", config.audio.table, False)]
    if config.audio.host:
        wanted.append(("host", config.audio.host, False))
    if mic_needed:
        wanted.append(("mic", config.audio.mic, True))
    for key, spec, needs_input in wanted:
        try:
            found = check_device(spec, key, needs_input=needs_input)
        except DeviceProblem as exc:
            yield Finding("problem", str(exc), f"narrator setup --{key} DEVICE  (or plug it in)")
        else:
            yield Finding("ok", f"{key}: {spec} → {found}")


def check_keypad(spec: str) -> Iterator[Finding]:
    """The keypad the config names: a USB keypad is read with no terminal (under the service); the terminal
    is read only when narrator runs on one."""
    from narrator.listen import evkeys

    if spec in ("", "terminal"):
        yield Finding("warning", "keypad: the terminal only — under the service (no terminal) no key is read",
                      "plug in a USB numeric keypad and run `narrator setup --keypad auto`")
        return
    try:
        found = evkeys.check(spec)
    except evkeys.KeypadProblem as exc:
        if spec == "auto":  # no USB keypad: the terminal's keys still work when there is one
            yield Finding("warning", f"keypad: {exc}; keys are read from a terminal only",
                          "plug in a USB numeric keypad (`narrator devices` lists it)")
        else:
            yield Finding("problem", f"keypad: {exc}", "plug it in, or `narrator setup --keypad auto`")
        return
    yield Finding("ok", f"keypad: {spec} → {found}")


def check_disk() -> Iterator[Finding]:
    place = data_dir()
    while not place.exists() and place != place.parent:
        place = place.parent
    free = shutil.disk_usage(place).free
    if free < MIN_FREE_BYTES:
        yield Finding("problem", f"only {free / 1e6:.0f} MB free at {place}",
                      f"free at least {MIN_FREE_BYTES / 1e6:.0f} MB there")
    else:
        yield Finding("ok", f"{free / 1e9:.1f} GB free at {place}")
