"""Ports and their fakes go through the same contract cases: the Clock, the journal store, the audio
output (the real Player on a PulseAudio null sink, marked slow). The Voice's are in tests/voice/."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from narrator.audio import SAMPLE_RATE
from narrator.audio.ports import AudioOut, RecordingOut
from narrator.common.clock import Clock, FakeClock, SystemClock
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup
from narrator.play import bootstrap
from narrator.session.journal import FileStore, JournalStore, MemoryStore
from narrator.session.session import Session


@pytest.fixture(params=["fake", "system"])
def clock(request: pytest.FixtureRequest) -> Clock:
    return FakeClock() if request.param == "fake" else SystemClock()


def test_clock_is_monotonic_and_sleep_waits_at_least(clock: Clock) -> None:
    assert isinstance(clock, Clock)
    a = clock.now()
    clock.sleep(0.02)
    b = clock.now()
    assert b - a >= 0.02 - 1e-9
    clock.sleep(0)
    clock.sleep(-1)  # nothing, never an error
    assert clock.now() >= b


def test_fake_clock_starts_at_zero_and_only_moves_when_told() -> None:
    c = FakeClock()
    assert c.now() == 0.0
    c.sleep(1.5)
    c.advance(2)
    assert c.now() == 3.5 and c.slept == [1.5]
    with pytest.raises(ValueError):
        c.advance(-1)


# ---- the journal store -----------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "file"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], JournalStore]:
    """A factory: each call opens the same journal again (a new process would)."""
    if request.param == "memory":
        memory = MemoryStore()
        return lambda: memory
    return lambda: FileStore(tmp_path / "j.jsonl")


def test_store_appends_reads_and_cuts(stores: Callable[[], JournalStore]) -> None:
    store = stores()
    assert store.read() == b"" and store.name
    store.append(b'{"a": 1}\n')
    store.append(b'{"b": 2}\n')
    assert store.read() == b'{"a": 1}\n{"b": 2}\n'
    store.cut(9)
    assert store.read() == b'{"a": 1}\n'
    store.append(b'{"c": 3}\n')
    store.close()
    again = stores()
    assert again.read() == b'{"a": 1}\n{"c": 3}\n'
    again.close()


def test_a_session_resumes_from_either_store(stores: Callable[[], JournalStore]) -> None:
    s = Session(make_setup("9人预女猎"), 5, store=stores())
    s.submit("一号 二号 三号")
    s.close()
    again = Session.resume(stores())
    assert again.answers == s.answers and again.prompt is not None and again.prompt.kind == s.prompt.kind


# ---- the audio output ------------------------------------------------------------------------------------


@dataclass
class Out:
    out: AudioOut
    clock: Clock
    printed: Callable[[], str]


@pytest.fixture(params=["fake", pytest.param("player", marks=[pytest.mark.slow, pytest.mark.realtime])])
def output(request: pytest.FixtureRequest) -> Iterator[Out]:
    if request.param == "fake":
        fake = RecordingOut(FakeClock())
        yield Out(fake, fake.clock, lambda: "\n".join(fake.printed))
        return
    request.getfixturevalue("pulse")
    buf = io.StringIO()
    player = bootstrap.player("pulse:room", None, seed=1, console=Console(file=buf, width=200))
    yield Out(player, SystemClock(), buf.getvalue)
    player.close()


def tone(seconds: float) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return (0.2 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def test_output_plays_lines_in_turn_and_waits_until_heard(output: Out) -> None:
    out, clock = output.out, output.clock
    assert isinstance(out, AudioOut)
    out.start()
    t0 = clock.now()
    out.say(Line("天黑请闭眼。", pause="none"), tone(0.3))
    out.say(Line("狼人请睁眼。", pause="none"), tone(0.3))
    assert clock.now() - t0 < 0.2  # queued, not played while the caller waits
    assert out.wait_drained(timeout_s=10)
    assert clock.now() - t0 >= 0.55  # both lines, one after the other


def test_output_gives_up_waiting_at_the_timeout(output: Out) -> None:
    out, clock = output.out, output.clock
    out.start()
    out.say(Line("请六号发言。", pause="none"), tone(2.0))
    t0 = clock.now()
    assert not out.wait_drained(timeout_s=0.2)
    assert 0.15 <= clock.now() - t0 < 1.5
    assert out.wait_drained(timeout_s=10)


def test_host_lines_without_an_earpiece_are_printed_never_played(output: Out) -> None:
    out = output.out
    out.start()
    assert not out.has_host_output
    assert out.say(Line("狼人刀了谁？", to="host", pause="none"), tone(0.5)) is None
    assert "狼人刀了谁？" in output.printed()
    assert out.wait_drained(timeout_s=1)


def test_the_fake_keeps_each_channel_in_order() -> None:
    fake = RecordingOut(FakeClock(), host_output=True)
    fake.start()
    fake.say(Line("a", pause="none"), tone(1.0))
    fake.say(Line("b", to="host", pause="none"), tone(0.5))
    fake.say(Line("c", pause="none"), tone(1.0), pause_after_s=0.5)
    assert [(p.line.text, p.start_s) for p in fake.table] == [("a", 0.0), ("c", 1.0)]
    assert [(p.line.text, p.start_s) for p in fake.host] == [("b", 0.0)]
    assert fake.wait_drained() and fake.clock.now() == 2.5
    fake.close()
    with pytest.raises(RuntimeError):
        fake.say(Line("d"), tone(0.1))


# ---- wiring ----------------------------------------------------------------------------------------------


def test_bootstrap_wires_real_adapters() -> None:
    assert isinstance(bootstrap.clock(), SystemClock)
    assert isinstance(bootstrap.journal(None), MemoryStore)
    assert isinstance(bootstrap.journal(Path("x.jsonl")), FileStore)
    player = bootstrap.player("pulse:room", "2", seed=3)
    assert player.has_host_output and isinstance(player, AudioOut)
    with pytest.raises(ValueError):
        bootstrap.speaker("telegraph")
