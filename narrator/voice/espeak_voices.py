"""What the installed espeak-ng offers: its version, its voices, and which of them really read Chinese.

espeak-ng 1.51 (Debian 12) has two Mandarin voices: `cmn` reads Chinese characters as pinyin spelled in
English (`espeak-ng -v cmn -x 天黑` gives `(en)tja55nw'055n …`, a switch to English), `cmn-latn-pinyin`
speaks Mandarin (`th'iE55n X'ei55`). Other voices say "Chinese letter" for every character, some with a
switch (`klingon`, `hak`: `(en)tS'aIni:z(hak)l'et@`), some without one (`en`, `de`: `tS'aIni:zl,Et3` for
every character). So a voice is judged by what it does, whatever its name: it must exist, and its phonemes
of a Chinese probe line must not switch language (no `(xx)` mark) and must tell the characters apart (a
reader that says one word for every character is not reading them). Every answer is cached per program for
the process.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

PREFERRED = ("cmn-latn-pinyin", "cmn", "yue")
"""Language names, best first, tried when no voice is asked for."""
PROBE = "天黑请闭眼，预言家请睁眼"
"""A Chinese line a usable voice must read without switching language."""
_SWITCH = re.compile(r"\([a-z][a-z0-9-]*\)", re.IGNORECASE)
_WORD = re.compile(r"[\s_|]+")
ALIKE = "alike"
"""`switch`'s mark for a voice that says the same word for every character ("Chinese letter")."""
_VERSION = re.compile(r"text-to-speech:\s*(\S+)")
_TIMEOUT_S = 15.0


def _run(program: str, *args: str, text: str | None = None) -> str:
    exe = shutil.which(program)
    if exe is None:
        return ""
    try:
        proc = subprocess.run([exe, *args], input=None if text is None else text.encode("utf-8"),
                              capture_output=True, timeout=_TIMEOUT_S, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.decode("utf-8", errors="replace") if proc.returncode == 0 else ""


@functools.cache
def version(program: str = "espeak-ng") -> str:
    """The installed espeak-ng's version ("1.51"), or "" when it is not installed."""
    found = _VERSION.search(_run(program, "--version"))
    return found.group(1) if found else ""


def _table(program: str, language: str | None) -> list[tuple[str, str, str]]:
    """(language name, file, voice name) of each voice `espeak-ng --voices[=language]` lists."""
    out = _run(program, f"--voices={language}" if language else "--voices")
    rows = []
    for line in out.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 5:
            rows.append((cols[1], cols[4], cols[3]))
    return rows


@functools.cache
def names(program: str = "espeak-ng") -> frozenset[str]:
    """Every name `-v` accepts for an installed voice (language names and voice files), lower case."""
    found: set[str] = set()
    for lang, file, name in _table(program, None):
        found |= {lang.lower(), file.lower(), file.rsplit("/", 1)[-1].lower(), name.lower()}
    return frozenset(found)


@functools.cache
def variants(program: str = "espeak-ng") -> frozenset[str]:
    """The variant names ("m3", "klatt") that may follow a voice after "+"."""
    return frozenset(file.rsplit("/", 1)[-1].lower() for _, file, _ in _table(program, "variant"))


@functools.cache
def chinese(program: str = "espeak-ng") -> tuple[str, ...]:
    """The installed voices that read Chinese without switching language, best first."""
    listed = list(dict.fromkeys(lang for lang, _, _ in _table(program, "cmn") + _table(program, "zh")))
    order = sorted(listed, key=lambda v: PREFERRED.index(v) if v in PREFERRED else len(PREFERRED))
    return tuple(v for v in order if reads_chinese(v, program))


@functools.cache
def phonemes(voice: str, text: str, program: str = "espeak-ng") -> str:
    """What `espeak-ng -v VOICE -q -x` makes of `text` (its phoneme mnemonics), "" if it failed."""
    return _run(program, "-v", voice, "-q", "-x", "--stdin", text=text).strip()


def switch(voice: str, program: str = "espeak-ng") -> str | None:
    """The first language switch ("(en)") in the voice's phonemes of a Chinese line, `ALIKE` if they do not
    tell its characters apart (fewer different words than half its different characters), "" if it could
    not read it at all, None if it reads Chinese as Chinese."""
    said = phonemes(voice, PROBE, program)
    if not said:
        return ""
    found = _SWITCH.search(said)
    if found:
        return found.group(0)
    words = set(_WORD.split(said)) - {""}
    characters = set(PROBE) - set("，")
    return ALIKE if len(words) * 2 < len(characters) else None


def reads_chinese(voice: str, program: str = "espeak-ng") -> bool:
    return switch(voice, program) is None


def choose(program: str = "espeak-ng") -> str | None:
    """The voice to use when none is asked for: the best installed voice that reads Chinese, or None."""
    usable = chinese(program)
    return usable[0] if usable else None


def problem(voice: str, program: str = "espeak-ng") -> str | None:
    """None if `voice` (optionally "+variant") can speak the judge's script; else the sentence saying why not."""
    usable = ", ".join(chinese(program)) or "none"
    base, _, variant = voice.partition("+")
    mark = switch(voice, program)
    if base.lower() not in names(program) or (mark == "" and not variant):
        return (f"espeak-ng has no voice {voice!r}; its voices that read Chinese here: {usable} "
                "(see `espeak-ng --voices=cmn`)")  # fmt: skip
    if variant and variant.lower() not in variants(program):
        return f"espeak-ng has no variant {variant!r} (see `espeak-ng --voices=variant`)"
    if mark is not None:
        how = (f"`espeak-ng -v {voice} -x` says one word for every character" if mark == ALIKE
               else f"`espeak-ng -v {voice} -x` switches to {mark}" if mark else "it says nothing for them")
        return (f"espeak-ng voice {voice!r} does not speak Chinese characters ({how}); "
                f"choose one of: {usable}")  # fmt: skip
    return None
