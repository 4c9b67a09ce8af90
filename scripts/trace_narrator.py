#!/usr/bin/env python3
"""`narrator …` with time stamps on the way from the host's last word to the judge's next line (for
scripts/bench_room.py; not part of the product).

    python scripts/trace_narrator.py TRACE.jsonl play … (any narrator command line)

Runs the real CLI in this process after wrapping a few methods, each of which appends one JSON line
{"event", "t" (time.monotonic), …} to TRACE.jsonl:

    vad_end     the VAD decided the utterance ended (VoiceEar, after the trailing silence); "capture_t": the
                ear's clock for that end (the microphone's capture time of the last frame); "complete": ended
                by meaning (narrator/listen/turn.py), stamped when the short silence was reached; "stage":
                the short silences reached, 1 at `complete_closed_s`, 2 at `complete_s`, 3 at `complete_many_s`
    final       the decoder's final result is out (Recognizer.final, or Recognizer.peek with "peek"; "took" s)
    vad_start   the VAD started an utterance ("context": the prompt the ear listens for, or None)
    decoded     what the ear made of an utterance ("text": the Heard's, None when nothing)
    first_feed  the microphone's first block reached the ear; begin: the ear listens for a new prompt
    heard       the loop has the utterance (GuardedEar.listen returns it; "text")
    saved       the new game is on disk (store.save_game; "took" s)
    voiced      a line's clip is ready (AudioMouth.clip; "took" s, "text")
    enqueued    the line is queued on the mixer (Mixer.enqueue_line; "lead" s of silence before it)
    underflows  the player closes: PortAudio's underflows so far per channel ("all": the table, "host": the
                earpiece)
    leaves      the line's first sample leaves the device, as PortAudio reports it (the Player's callback:
                the block's DAC time; "handed": when that block was handed to PortAudio)

time.monotonic and time.perf_counter are the same clock on Linux (CLOCK_MONOTONIC), so every process's
stamps compare.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def install(out: Path) -> None:
    from narrator.audio import SAMPLE_RATE
    from narrator.audio.mixer import Mixer
    from narrator.audio.playback import Player
    from narrator.listen.recognizer import Recognizer
    from narrator.listen.voice import VoiceEar
    from narrator.play import store
    from narrator.play.ears import GuardedEar
    from narrator.play.mouth import AudioMouth

    lock = threading.Lock()
    sink = out.open("a", encoding="utf-8")

    def log(event: str, t: float | None = None, **kw: Any) -> None:
        with lock:
            sink.write(json.dumps({"event": event, "t": time.monotonic() if t is None else t, **kw},
                                  ensure_ascii=False) + "\n")
            sink.flush()

    event = VoiceEar._event

    def _event(self: VoiceEar, kind: str, t: float, audio: Any) -> None:
        if kind == "end" and self._utt_start is not None:
            log("vad_end", capture_t=t)
        if kind == "start":
            log("vad_start", capture_t=t, context=None if self.context is None else self.context.prompt.kind)
        event(self, kind, t, audio)

    decode = VoiceEar.decode

    def _decode(self: VoiceEar, start: float, end: float) -> Any:
        heard = decode(self, start, end)
        log("decoded", text=None if heard is None else heard.text, capture_t=end)
        return heard

    feed = VoiceEar.feed
    fed: list[bool] = []

    def _feed(self: VoiceEar, samples: Any, t: float) -> None:
        if not fed:
            fed.append(True)
            log("first_feed", capture_t=t, context=None if self.context is None else self.context.prompt.kind)
        feed(self, samples, t)

    begin = VoiceEar.begin

    def _begin(self: VoiceEar, context: Any) -> None:
        fresh = self.context is None or self.context.prompt is not context.prompt
        begin(self, context)
        if fresh:
            log("begin", prompt=context.prompt.kind)

    end_if_complete = VoiceEar._end_if_complete

    def _end_if_complete(self: VoiceEar) -> None:
        t0, was = time.monotonic(), self._utt_start
        end_if_complete(self)
        if was is not None and self._utt_start is None:  # ended by meaning: decided before the decoder's peek
            log("vad_end", t=t0, capture_t=self.endpointer._t, complete=True, stage=self._asked)

    final = Recognizer.final

    def _final(self: Recognizer) -> Any:
        t0 = time.monotonic()
        got = final(self)
        log("final", took=time.monotonic() - t0)
        return got

    peek = Recognizer.peek

    def _peek(self: Recognizer) -> Any:
        t0 = time.monotonic()
        got = peek(self)
        log("final", took=time.monotonic() - t0, peek=True, readings=[[text, score] for text, score in got])
        return got

    listen = GuardedEar.listen

    def _listen(self: GuardedEar, *args: Any, **kw: Any) -> Any:
        heard = listen(self, *args, **kw)
        if heard is not None:
            log("heard", text=heard.text)
        return heard

    save_game = store.save_game

    def _save_game(*args: Any, **kw: Any) -> Any:
        t0 = time.monotonic()
        saved = save_game(*args, **kw)
        log("saved", took=time.monotonic() - t0)
        return saved

    clip = AudioMouth.clip

    def _clip(self: AudioMouth, line: Any) -> Any:
        t0 = time.monotonic()
        got = clip(self, line)
        log("voiced", took=time.monotonic() - t0, text=line.text, to=line.to)
        return got

    pending: list[Any] = []  # tickets whose first sample has not been seen leaving yet (audio thread reads)
    enqueue_line = Mixer.enqueue_line

    def _enqueue_line(self: Mixer, line: Any, clip: Any, pause_after_s: float, lead_s: float = 0.0) -> Any:
        ticket = enqueue_line(self, line, clip, pause_after_s, lead_s)
        log("enqueued", t=ticket.enqueued_at, lead=lead_s, text=line.text, to=line.to)
        pending.append((ticket, line.text))
        return ticket

    stamp = Mixer.stamp
    seen: list[tuple[float, float, str]] = []

    def _stamp(self: Mixer, channel: str, frame: int, leaves_at: float, now: float | None = None) -> None:
        stamp(self, channel, frame, leaves_at, now)
        for item in list(pending):  # the block just handed out began at `frame` and leaves at `leaves_at`
            ticket, text = item
            if ticket.channel == channel and ticket.start_frame is not None:
                pending.remove(item)
                seen.append((leaves_at + (ticket.start_frame - frame) / SAMPLE_RATE, ticket.started_at, text))

    def drain() -> None:  # written off the audio thread
        while True:
            time.sleep(0.05)
            while seen:
                leaves, handed, text = seen.pop(0)
                log("leaves", t=leaves, handed=handed, text=text)

    close = Player.close

    def _close(self: Player) -> None:
        log("underflows", **{name: ch.underflows for name, ch in self._channels.items()})
        close(self)

    Player.close = _close  # type: ignore[method-assign]
    Mixer.stamp = _stamp  # type: ignore[method-assign]
    Mixer.enqueue_line = _enqueue_line  # type: ignore[method-assign]
    VoiceEar._event = _event  # type: ignore[method-assign]
    VoiceEar.decode = _decode  # type: ignore[method-assign]
    VoiceEar.feed = _feed  # type: ignore[method-assign]
    VoiceEar.begin = _begin  # type: ignore[method-assign]
    Recognizer.final = _final
    Recognizer.peek = _peek
    VoiceEar._end_if_complete = _end_if_complete  # type: ignore[method-assign]
    GuardedEar.listen = _listen  # type: ignore[method-assign]
    store.save_game = _save_game
    AudioMouth.clip = _clip  # type: ignore[method-assign]
    threading.Thread(target=drain, name="trace-drain", daemon=True).start()


def main() -> None:
    sys.path.insert(0, str(ROOT))
    install(Path(sys.argv[1]))
    from narrator.cli.main import main as narrator

    sys.argv = ["narrator", *sys.argv[2:]]
    narrator()


if __name__ == "__main__":
    main()
