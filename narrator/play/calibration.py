"""Calibration by voice on a device (`narrator setup`, the lobby's 校准): the judge asks for the words the game
needs most ("请依次说一号到十二号", then 过, 对, 不对), a voice ear of its own records the host through the real
microphone, endpointer and model (narrator/listen/calibrate.py `by_voice`), and what his voice does not get
through is left out of the grammar: the config's game.drop_forms is written (it replaces an earlier
calibration's: every calibration starts from the whole pack). What was kept and dropped is printed, and said;
a word none of whose forms was read right is never left without one — the judge says to say it another way,
or to use the keypad.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from narrator.judge.lines import Line
from narrator.judge.script import Script
from narrator.listen.base import ListenError, Playing
from narrator.listen.calibrate import Calibration, by_voice, model_hear
from narrator.listen.setup import EarOptions, voice_parts

if TYPE_CHECKING:
    from narrator.listen.voice import VoiceEar
    from narrator.play.config import Config

SEATS = 12
"""一号 … 十二号: the seats of the most usual table (a larger table's other seats keep every form)."""


def spoken(script: Script, key: str, **values: object) -> Line:
    """The calibration's line `key` (section "calibrate"), numbers said as numbers."""
    said = {k: script.number(v) if isinstance(v, int) else v for k, v in values.items()}
    return script.line("calibrate", key, **said)


def calibration_ear(opts: EarOptions, playing: Playing | None) -> tuple[VoiceEar, object]:
    """A voice ear on the microphone with the whole pack (no form dropped), started, and its model; deaf while
    `playing` plays (the judge's own lines). ListenError says why it cannot start."""
    from narrator.listen.mic import MicEar, MicError

    recognizer, grammar, endpointer = voice_parts(opts)
    ear = MicEar(recognizer, grammar, endpointer, tail_s=opts.echo_tail_s, device=opts.mic)
    ear.follow(playing)
    try:
        ear.start()
    except MicError as e:
        raise ListenError(f"{e} (list devices with `narrator devices`)") from None
    return ear, recognizer.model


def run(opts: EarOptions, say: Callable[[Line], None], echo: Callable[[str], None], config: Config,
        playing: Playing | None = None, script: Script | None = None, first_s: float = 15.0,
        quiet_s: float = 5.0) -> Calibration | None:
    """Calibrate the host's voice (see the module docstring) and write what was found to `config` (saved);
    None when the ear could not start or a batch never came back whole (the config is left as it was)."""
    from narrator.listen.recognizer import knows

    script = script or Script(config.game.lang)
    whole = replace(opts, drop_forms="", keypad=False, text=False)
    try:
        ear, model = calibration_ear(whole, playing)
    except ListenError as e:
        say(spoken(script, "cannot"))
        echo(f"✗ calibration: {e}")
        return None
    try:
        pack = ear.grammar.pack
        result = by_voice(ear, lambda key: say(spoken(script, key)), pack, lambda w: knows(model, w),
                          model_hear(model), seats=SEATS, first_s=first_s, quiet_s=quiet_s)
    finally:
        ear.close()
    if result is None:
        say(spoken(script, "failed"))
        echo("✗ calibration: the words did not come back one by one (nothing was changed)")
        return None
    for line in result.report():
        echo(f"  {line}")
    config.game.drop_forms = result.drop_forms
    where = config.save()
    echo(f"✓ calibration: game.drop_forms = {result.drop_forms!r} written to {where}")
    for key, values in result.told():
        say(spoken(script, key, **values))
    return result
