"""A scenario's narration as sound: the judge's lines through the voice, timed by the Conductor.

The same pieces serve `narrator render`, the demo's files and `demo --play`: the scenario runner produces
lines in order; at each prompt the lines said so far go to the Conductor (narrator/audio/conductor.py),
which places them on the table and host channels; the judge waits until they have been heard, and a
scripted host answers a moment later (class `host_answer`, drawn from a stream of its own for each prompt:
the n-th prompt of its kind in a night or day, so an extra prompt in one game moves no other answer; the
过 the Session asks where a step asks nothing, `host.pass`, is answered so too). Offline the clock
is a FakeClock and a Tape writes the WAVs as it goes; live it is the real clock and the Player's streams.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.audio.conductor import Conductor
from narrator.audio.mixer import Mixer
from narrator.audio.pacing import Pacer, sub_seed
from narrator.audio.render import Rendered, Tape
from narrator.audio.subtitles import vtt_path_for, write_vtt
from narrator.common.clock import Clock, FakeClock
from narrator.hostwords import NotUnderstood
from narrator.judge.lines import Line
from narrator.judge.narrate import Judge
from narrator.judge.script import Script
from narrator.sim.scenario import Output, Run, Scenario

STUMBLE = "嗯"
"""A rendered host's wrong word (`conduct`'s `wrong`): nothing the judge understands at any prompt."""

if TYPE_CHECKING:
    from narrator.audio.playback import Player
    from narrator.voice import Speaker


def conduct(scenario: Scenario, conductor: Conductor, lang: str = "zh-Hans",
            on_line: Callable[[Line], None] | None = None,
            answer_s: Callable[[str], float] | None = None, wrong: Callable[[str], int] | None = None) -> Output:
    """Run the scenario with `conductor` placing its lines; a scripted host answers each prompt once the
    judge has been heard, after `answer_s(kind)` s (default: drawn, see `host_delays`) — first, `wrong(kind)`
    times, words the judge does not understand (each refused on the earpiece, then tried again after as
    long: a stumbling host). Returns the run's output; the caller settles and closes."""
    pending: list[Line] = []
    delay = answer_s or host_delays(conductor)

    def said(line: Line) -> None:
        pending.append(line)
        if on_line is not None:
            on_line(line)

    def waits(kind: str) -> None:
        conductor.say(pending)
        pending.clear()
        conductor.ready()
        for _ in range(wrong(kind) if wrong is not None else 0):
            conductor.wait_until(conductor.now_s() + delay(kind))
            conductor.tried()
            conductor.say([not_understood()])
            conductor.ready()
        conductor.wait_until(conductor.now_s() + delay(kind))
        conductor.tried()

    def not_understood() -> Line:
        """The judge's refusal of words it does not understand at the prompt now, on the earpiece (what the
        dialogue says to a typed or keyed mistake)."""
        session, prompt = run.session, run.session.prompt if run.session is not None else None
        assert session is not None and prompt is not None
        try:
            session.read(STUMBLE, prompt)
        except NotUnderstood as e:
            return replace(session.refusal_line(prompt, e.refusal), to="host")
        raise AssertionError(f"{STUMBLE!r} was understood at {prompt.kind}")

    script = Script(lang)
    if conductor.please_wait is None:
        conductor.please_wait = script.line("events", "please_wait")
    run = Run(scenario, Judge(script), on_line=said, on_wait=waits)
    output = run.execute()
    conductor.say(pending)
    return output


def host_delays(conductor: Conductor) -> Callable[[str], float]:
    """The rendered host's answer times: class `host_answer`, each prompt from its own seeded stream (its
    kind, its phase and how many of that kind the phase asked before), so the table's timeline never
    depends on how many prompts another part of the game asked."""
    seen: dict[tuple[str, str], int] = {}

    def delay(kind: str) -> float:
        key = (conductor.phase, kind)
        seen[key] = seen.get(key, 0) + 1
        stream = f"host.answers.{conductor.phase}.{kind}.{seen[key]}"
        return Pacer(sub_seed(conductor.seed, stream), conductor.table).draw("host_answer")

    return delay


def render_scenario(scenario: Scenario, speaker: Speaker, public_path: Path, host_path: Path, *,
                    lang: str = "zh-Hans", seed: int | None = None, mixer: Mixer | None = None,
                    on_line: Callable[[Line], None] | None = None, keep: bool = False,
                    subtitles: bool = True) -> tuple[Rendered, Output]:
    """Render a scenario to two WAV files (table and host), and their WebVTT subtitles beside them
    (game.vtt, game.host.vtt). Pauses are drawn with `seed` (default: the scenario's own seed), so the
    same scenario renders to the same audio. The files are written as the game goes."""
    mixer = mixer or Mixer()
    clock = FakeClock()
    tape = Tape(mixer, public_path, host_path, keep=keep)
    conductor = Conductor(mixer, clock, speaker.line, seed=scenario.seed if seed is None else seed, tape=tape)
    try:
        output = conduct(scenario, conductor, lang, on_line)
        conductor.settle()
    except BaseException:
        tape.abort()
        raise
    rendered = tape.close(conductor.timeline)
    if subtitles:
        write_vtt(rendered.timeline, vtt_path_for(public_path), "all")
        write_vtt(rendered.timeline, vtt_path_for(host_path), "host")
    return rendered, output


def play_scenario(scenario: Scenario, speaker: Speaker, player: Player, *, lang: str = "zh-Hans",
                  clock: Clock | None = None, on_line: Callable[[Line], None] | None = None,
                  on_host: Callable[[Line], None] | None = None) -> Output:
    """Play a scenario live on a started Player, timed by the same Conductor as the render."""
    from narrator.common.clock import SystemClock

    conductor = Conductor(player.mixer, clock or SystemClock(), speaker.line, seed=scenario.seed,
                          player=player, on_host=on_host)
    output = conduct(scenario, conductor, lang, on_line)
    conductor.settle()
    return output
