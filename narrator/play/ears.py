"""The live loop's input side, on the ear's port (narrator.listen): the microphone (Vosk), the keypad and
typed text (`--input text`: each line of standard input is one utterance of the host, so a whole game can
be piped in), several at once, the first complete answer winning.

`GuardedEar` wraps the ear for the loop: it polls in short slices so that Ctrl-C and a lost microphone
are noticed while the host is silent. The first Ctrl-C is heard as "暂停" (the dialogue pauses and asks for
"继续"); a microphone whose stream stopped is reported once (`DeviceLost("mic")`: the host is told, and the
keypad / text go on) and reopened every `retry_s` until it records again (`Microphone.alive` and
`Microphone.restart`, the ear's public side of a lost device).

Lines typed or keyed at the host's terminal before the question was asked (while the judge was still
speaking, or for the question before) are no answer to it: they are dropped, and the host is told once per
question (`on_early`), instead of each being refused in turn at the new question. A question is
asked when it is first listened for (the loop listens once its lines were heard). Lines piped in carry no
time and are all kept: a whole game can be piped in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

from narrator.engine.prompts import Prompt
from narrator.listen.base import Ear, Heard, MicMode, Playing, Recording
from narrator.play.interrupts import Interrupts
from narrator.play.mouth import DeviceLost

__all__ = ["Ear", "GuardedEar", "Heard", "InputEnded"]


class Pausing(Protocol):
    """The dialogue listening through an ear, as the ear sees it (narrator/listen/dialogue.py)."""

    @property
    def paused(self) -> bool: ...


class InputEnded(EOFError):
    """Every input ended (the piped text ran out) before the game did."""


class GuardedEar:
    def __init__(self, ear: Ear, interrupts: Interrupts, *, poll_s: float = 0.2, retry_s: float = 2.0,
                 on_lost: Callable[[DeviceLost], None] | None = None,
                 on_back: Callable[[str], None] | None = None,
                 on_pause: Callable[[], None] | None = None, now: Callable[[], float] = time.monotonic,
                 on_heard: Callable[[Heard], None] | None = None,
                 on_early: Callable[[], None] | None = None,
                 on_listen: Callable[[], None] | None = None) -> None:
        self.ear, self.interrupts, self.poll_s, self.retry_s = ear, interrupts, poll_s, retry_s
        self.on_lost, self.on_back, self.on_pause, self.now = on_lost, on_back, on_pause, now
        self.on_heard = on_heard
        """Told each thing the host said, typed or keyed, once (the console shows what was heard)."""
        self.on_early = on_early
        """Told that typed lines from before the question were dropped (once per question, at the first; later
        ones for the same question are dropped without a word)."""
        self.on_listen = on_listen
        """Told each time the ear starts to listen for an answer (the lines before it were heard): the console
        shows the question and its input line as open only from then on."""
        self._asked: tuple[Prompt, float] | None = None
        """The question being answered and when it was first listened for (time.monotonic: typed lines' clock);
        None: the next listen is a new question (`ask`)."""
        self._early = 0
        self.dialogue: Pausing | None = None
        """The dialogue listening through this ear: its `paused` tells when a Ctrl-C pause is over."""
        self._pause_sent = False
        self._pushed: list[Heard] = []
        self._mic_down_since: float | None = None
        self._next_try = 0.0

    def ended(self) -> bool:
        return self.ear.ended()

    def microphones(self) -> list[Recording]:
        return self.ear.microphones()

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        self.ear.check_words(prompts, max_seat)

    def set_mode(self, mode: MicMode) -> None:
        self.ear.set_mode(mode)

    def ask(self) -> None:
        """A new question was just asked (its lines heard): lines typed before now are no answer to it. (A new
        prompt is a new question too; this also tells one that comes as the same prompt again.)"""
        self._asked = None

    def push(self, heard: Heard) -> None:
        """Hear `heard` again next (words the speech timer took that the dialogue must answer)."""
        self._pushed.append(heard)

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        if self._pushed:
            return self._pushed.pop(0)
        if self._asked is None or self._asked[0] is not prompt:
            self._asked, self._early = (prompt, time.monotonic()), 0
        if self.on_listen:
            self.on_listen()
        deadline = None if timeout_s is None else self.now() + timeout_s
        while True:
            if self.interrupts.presses == 1 and not self._pause_sent:
                self._pause_sent = True
                if self.on_pause:
                    self.on_pause()
                return Heard("暂停", source="keypad")
            if self._pause_sent and not (self.dialogue is not None and self.dialogue.paused):
                self._pause_sent = False
                self.interrupts.resume()
            self.watch_mic()
            left = None if deadline is None else deadline - self.now()
            wait = self.poll_s if left is None else max(0.0, min(self.poll_s, left))
            heard = self.ear.listen(prompt, max_seat, wait)
            if heard is not None and self._typed_early(heard):
                heard = None
            if heard is not None:
                if self.on_heard:
                    self.on_heard(heard)
                return heard
            if self.ended() or (left is not None and left <= wait):
                return None

    def _typed_early(self, heard: Heard) -> bool:
        """A line typed or keyed before this question was asked: dropped (the host told at the first)."""
        asked = self._asked
        if heard.source not in ("text", "keypad") or heard.end_s is None or asked is None or heard.end_s >= asked[1]:
            return False
        self._early += 1
        if self._early == 1 and self.on_early:
            self.on_early()
        return True

    def watch_mic(self) -> None:
        """A microphone that stopped recording (`Microphone.alive`): tell once, then try to open it again
        every `retry_s` (`Microphone.restart`) until it records; meanwhile the other inputs answer."""
        for mic in self.ear.microphones():
            now = self.now()
            if mic.alive:
                if self._mic_down_since is not None:
                    self._mic_down_since = None
                    if self.on_back:
                        self.on_back("mic")
                continue
            if self._mic_down_since is None:
                self._mic_down_since, self._next_try = now, now + self.retry_s
                if self.on_lost:
                    self.on_lost(DeviceLost("mic", "the microphone stopped recording"))
            elif now >= self._next_try:
                self._next_try = now + self.retry_s
                mic.restart()  # False: still gone, tried again later

    def follow(self, playing: Playing | None) -> None:
        self.ear.follow(playing)

    def close(self) -> None:
        self.ear.close()
