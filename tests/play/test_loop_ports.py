"""The live loop's ports — the Ear, the Mouth, the console's View — are met by every real part and every fake
the tests drive the loop with: a capability the loop uses is a method or a property of its port, so a part
that lacks one is not that port (checked here at run time; mypy --strict checks the real parts' types)."""

from __future__ import annotations

import io
from concurrent.futures import Future

from listen.listenkit import ScriptedEar as DialogueEar
from rich.console import Console
from test_interruptions import FlakySpeaker, ScriptedEar
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.common.clock import FakeClock
from narrator.engine.prompts import Prompt
from narrator.listen.base import Ear, Heard, QueueEar
from narrator.listen.first import First
from narrator.listen.text import TextEar
from narrator.play.console import HostConsole
from narrator.play.ears import GuardedEar
from narrator.play.interrupts import Interrupts
from narrator.play.loop import QuietView, View
from narrator.play.mouth import Mouth, PrintMouth
from narrator.play.run import LazyEar


def test_every_ear_the_loop_meets_is_an_ear() -> None:
    clock = FakeClock()
    typed = TextEar(io.StringIO("七号\n"))
    first = First([typed])
    opened: Future[Ear] = Future()
    opened.set_result(first)
    try:
        ears = [typed, first, GuardedEar(first, Interrupts()), LazyEar(opened), ScriptedEar([]),
                PacedEar(clock, []), DialogueEar([], clock)]
        for ear in ears:
            assert isinstance(ear, Ear), type(ear).__name__
        assert first.microphones() == [] and not any(e.microphones() for e in ears)
        assert first.listen(Prompt("vote.exile", frozenset()), 12, 5.0) == Heard("七号")
    finally:
        first.close()
    assert first.ended() and typed.ended()


def test_a_part_without_a_capability_is_not_the_port() -> None:
    class Deaf:
        def listen(self, prompt: object, max_seat: int, timeout_s: float | None = None) -> None: ...
        def follow(self, playing: object) -> None: ...
        def close(self) -> None: ...

    class Mute:
        playing = None

        def say(self, line: object) -> None: ...
        def heard(self) -> None: ...
        def reopen(self) -> bool:
            return True

        def close(self) -> None: ...

    assert not isinstance(Deaf(), Ear)  # no ended(), microphones(), check_words()
    assert not isinstance(Mute(), Mouth)  # no conductor, show(), has_earpiece, set_volume()
    assert isinstance(QueueEar(), Ear)


def test_every_mouth_and_view_the_loop_meets_is_one() -> None:
    for mouth in (PrintMouth(print), FlakySpeaker(1, 1), TimedMouth(FakeClock())):
        assert isinstance(mouth, Mouth), type(mouth).__name__
    for view in (QuietView(), HostConsole(Console(file=io.StringIO()), live=False)):
        assert isinstance(view, View), type(view).__name__

