"""Putting an ear together from options (for `narrator play` and `narrator listen`)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from narrator.listen.base import ListenError, QueueEar
from narrator.listen.first import First
from narrator.listen.grammar import Grammar, PackError, VocabularyError, load_pack
from narrator.listen.models import MODEL_NAME, find_model, model_dirs
from narrator.listen.recognizer import ModelError, Recognizer, knows, load_model
from narrator.listen.vad import EndpointConfig, Endpointer, make_vad
from narrator.listen.voice import ECHO_TAIL_S

if TYPE_CHECKING:
    from narrator.listen.text import Typed

__all__ = ["EarOptions", "ListenError", "open_ear", "open_voice", "voice_parts"]


@dataclass(frozen=True)
class EarOptions:
    voice: bool = True
    mic: str | None = None
    """Device index, name substring, or pulse:SOURCE."""
    model: Path | None = None
    """A model folder; default: the installed Chinese model."""
    pack: str = "zh"
    """A pack name (grammars/PACK.yaml) or the path of a pack file."""
    judge_name: str | None = None
    """The judge's name before a command where people talk (None: the pack's, 法官)."""
    drop_forms: str = ""
    """Spoken forms left out of the pack (`Pack.without`: what a calibration found the host's voice does not
    get through; the config's game.drop_forms)."""
    keypad: bool = False
    keypad_device: str | None = None
    """Where keys come from: None or "terminal" (the terminal), "auto", or an input device (evkeys.py)."""
    text: bool = False
    vad: str = "silero"
    trailing_s: float = EndpointConfig.trailing_s
    """s of silence that ends an utterance (the endpointer's default, narrator/listen/vad.py)."""
    echo_tail_s: float = ECHO_TAIL_S
    max_seat: int = 18
    stdin: Typed | None = None
    """The typed text's stream (default sys.stdin; the host's console passes its own input line)."""


def voice_parts(opts: EarOptions) -> tuple[Recognizer, Grammar, Endpointer]:
    """Model, grammar (vocabulary checked: a phrase the model cannot say stops here) and endpointer."""
    folder = opts.model or find_model(MODEL_NAME, model_dirs())
    if folder is None:
        raise ListenError(f"the speech model {MODEL_NAME} is not installed: run `narrator model install` "
                          "(or answer with --keypad / --text)")
    try:
        model: Any = load_model(folder)
        pack = load_pack(opts.pack).named(opts.judge_name).without(opts.drop_forms)
        grammar = Grammar(pack, lambda w: knows(model, w))
        grammar.check(opts.max_seat)
    except (ModelError, PackError, VocabularyError) as e:
        raise ListenError(str(e)) from None
    if not 0.0 < opts.trailing_s <= 0.5:
        raise ListenError(f"--trailing-silence must be above 0 and at most 0.5 s, not {opts.trailing_s}")
    try:
        endpointer = Endpointer(make_vad(opts.vad), EndpointConfig(trailing_s=opts.trailing_s))
    except ValueError as e:
        raise ListenError(str(e)) from None
    return Recognizer(model), grammar, endpointer


def open_voice(opts: EarOptions) -> QueueEar:
    """The microphone's ear, recording (the speech model loaded: the seconds of an ear's start)."""
    from narrator.listen.mic import MicEar, MicError

    recognizer, grammar, endpointer = voice_parts(opts)
    mic = MicEar(recognizer, grammar, endpointer, tail_s=opts.echo_tail_s, device=opts.mic)
    try:
        mic.start()
    except MicError as e:
        raise ListenError(f"{e} (list devices with `narrator devices`, or answer with --keypad)") from None
    return mic


def open_ear(opts: EarOptions) -> First:
    """Every input asked for, started; the first complete answer among them wins."""
    from narrator.listen.keypad import KeypadEar
    from narrator.listen.text import TextEar

    ears: list[QueueEar] = [open_voice(opts)] if opts.voice else []
    if opts.keypad:
        ears.append(KeypadEar(device=opts.keypad_device))
    if opts.text:
        ears.append(TextEar(opts.stdin or sys.stdin))
    if not ears:
        raise ListenError("nothing to listen with: use the microphone, --keypad or --text")
    return First(ears)
