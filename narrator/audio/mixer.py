"""The one mixer behind both live playback and offline rendering.

Two channels, each a FIFO of scheduled items consumed in real time by whoever pulls:

- ``"all"`` (public, the table speaker): speech clips, cue clips and silences, over the current bed,
  which loops forever underneath. The bed is ducked while speech plays (gain ramps, never a step) and
  switching beds crossfades (equal power).
- ``"host"`` (secret, the host's earpiece): speech, cues and silences only. Host items live in their own
  queue and are only ever written into the host buffer: nothing on this channel can reach the public one.

Producer side (any thread, usually the judge's): ``enqueue(clip, channel, pause_after_s, cue, bed)``
appends one *group* — [bed switch] [cue] speech [silence] — and returns a Ticket that the audio side fills
in as the group plays (start time, frame positions, done). Consumer side (the audio callback, or
render.py): ``pull_public_into(out)`` / ``pull_host_into(out)`` fill caller-owned float32 buffers in
place; ``pull(n)`` is the allocating convenience for offline use.

Real-time discipline: the consumer takes no locks and allocates nothing but slice views. Queues are
``collections.deque`` (append/extend and popleft are atomic under the GIL), the producer only appends and
the consumer is the only one that reads item positions or touches bed state. Cue and bed gains are baked
into their arrays at construction, ramps use preallocated scratch buffers.

What the device is playing (``voiced_until()``, on the ear's clock, ``time.monotonic``): the one truth the
ear's deaf window comes from. Whoever plays a channel live (the Player's callback) calls
``stamp(channel, frame, leaves_at)`` after each pull — channel frame ``frame`` leaves the device at
``leaves_at`` — and the mixer knows where the last speech or cue sample was; so every line and cue, from
any caller (the Session's lines, the deal line, the speech timer's cues, the dialogue), counts until its
last sample has left the device. The bed does not count (the ear listens over it), nor do the lines of
``LISTENED_THROUGH`` (the speech timer's cue, the table's 请稍等: the ear does not drop the host's words at them).

What the table played (``heard_through(start, end)``): the mixer keeps the last ``HISTORY_S`` of the public
channel as it was handed out, where the listened-through sounds lay in it, and every block's stamp (where it
left the device: an underflow delays every block after it, so one stamp cannot place them all); the ear, after
an utterance that overlapped such a sound, takes it out of the microphone's audio (narrator/listen/unmix.py) —
in a room without an echo canceller the cue is louder than the host at the microphone.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio._gain import BedVoice, Ramp
from narrator.audio.beds import BED_NAMES, CUE_NAMES, SoundBank, load_sounds
from narrator.audio.resample import resample

if TYPE_CHECKING:
    from narrator.judge.lines import Line

CHANNELS = ("all", "host")
_SPEECH, _CUE, _SILENCE, _BED = range(4)
_SOUND = (_SPEECH, _CUE)
LISTENED_THROUGH = frozenset({"timer.speech.warning", "events.please_wait"})
"""Keys of the lines `voiced_until` leaves out: said on a clock of their own while the host may be talking, so the
ear must not drop what he says when one begins. The speech timer's "还剩十五秒。" (said in a speech, where the ear
takes a command only after the judge's name, which the cue does not hold) is listened through: deaf to it, the
ear lost every 法官，过 said over it; listening through it, most were heard and the cue was never taken for one
(docs/benchmarks.md, "The timer's cue"). The table's "请稍等。" (narrator/audio/conductor.py) is said where an
answer needs no name and the judge's words could pass for one, so there the ear is deaf to it but reads the
utterance it cut as far as it went, instead of dropping it (narrator/listen/voice.py `cut_in`; `through_between`
below; docs/benchmarks.md, "请稍等 and the answer under way")."""
HISTORY_S = 12.0
"""s. How much of the table's output the mixer keeps for `heard_through` (a whole utterance and its margins)."""
STAMPS = 4096
"""Blocks of the public channel whose stamps the mixer keeps for `heard_through` (more than `HISTORY_S` of the
Player's 10 ms blocks)."""
GAP_S = 0.002
"""s. Where the stamps say the table's blocks began to leave the device this much later (or sooner) than the
frames before them say, the device played a gap (an underflow): `placed`. Less is the stamps' jitter."""
WINDOW = 5
"""Stamps (10 ms blocks) a block's level is read over (`placed`): longer than a stray stamp lasts."""
STEP_S = 0.05
"""s. A stretch between two gaps shorter than this is taken for late stamps before the second (`placed`)."""
STALE_S = 3.0
"""s. A channel whose player stamped nothing for this long is not playing (its device is gone; PulseAudio
may hold a new stream ~2 s before its first period)."""


@dataclass(frozen=True)
class MixerConfig:
    """How the mixer treats the bed. Defaults are broadcast-style voice-over ducking."""

    duck_db: float = -12.0
    """dB. Bed gain while speech plays on the public channel (0 disables ducking)."""
    attack_s: float = 0.08
    """s. Ramp time of the duck going down; speech known in advance starts ducking this early."""
    release_s: float = 0.30
    """s. Ramp time of the bed coming back up after speech."""
    bed_crossfade_s: float = 1.5
    """s. Equal-power crossfade when the bed changes (also the fade from/to "off")."""
    bed_gain_db: float = 0.0
    """dB. Extra gain on every bed (on top of the bed's own level)."""
    cue_gain_db: float = 0.0
    """dB. Extra gain on every cue."""
    max_block: int = 8192
    """frames. Scratch size; larger pulls are processed in pieces of this size."""


class Ticket:
    """What happened to one enqueued group; written by the consumer, read by anyone."""

    __slots__ = ("channel", "done", "end_frame", "enqueued_at", "speech_end_frame", "speech_frame", "start_frame",
                 "started_at")

    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.enqueued_at = time.perf_counter()
        """perf_counter() seconds when the group was enqueued."""
        self.started_at: float | None = None
        """perf_counter() seconds when its first sample was handed out by a pull."""
        self.start_frame: int | None = None
        """Channel frame index of the group's first sample (cue or speech)."""
        self.speech_frame: int | None = None
        """Channel frame index of the speech clip's first sample."""
        self.speech_end_frame: int | None = None
        """Channel frame index just after the speech clip's last sample (the line has been said)."""
        self.end_frame: int | None = None
        """Channel frame index just after the group's pause."""
        self.done = False


class _Item:
    __slots__ = ("data", "deafens", "first", "kind", "last", "length", "name", "pos", "ticket")

    def __init__(self, kind: int, ticket: Ticket, data: np.ndarray | None = None, frames: int = 0,
                 name: str = "", deafens: bool = True) -> None:
        self.kind, self.ticket, self.data, self.name = kind, ticket, data, name
        self.deafens = deafens and kind in _SOUND
        """A sound the ear must be deaf to while it plays (`voiced_until`)."""
        self.length = len(data) if data is not None else frames
        self.pos = 0
        self.first = self.last = False


class Mixer:
    """Queues per channel, a looping ducked bed under the public channel. See the module docstring.

    `sounds` defaults to load_sounds(): the built-in beds and cues, replaced by the user's own files where
    there are any. Pass beds.builtin_sounds() for output that does not depend on the machine.
    """

    def __init__(self, sounds: SoundBank | None = None, config: MixerConfig | None = None) -> None:
        self.config = config = config or MixerConfig()
        sounds = sounds or load_sounds()
        bed_gain, cue_gain = 10 ** (config.bed_gain_db / 20), 10 ** (config.cue_gain_db / 20)
        # Gains are baked in here, once, so the audio thread only copies.
        self._beds = {n: (sounds[n] * bed_gain).astype(np.float32) for n in BED_NAMES}
        self._cues = {n: (sounds[n] * cue_gain).astype(np.float32) for n in CUE_NAMES}
        self._queues: dict[str, deque[_Item]] = {ch: deque() for ch in CHANNELS}
        self._frames = dict.fromkeys(CHANNELS, 0)
        self._duck_gain = 10 ** (config.duck_db / 20)
        depth = 1.0 - self._duck_gain
        self._attack = max(1, round(config.attack_s * SAMPLE_RATE))
        release = max(1, round(config.release_s * SAMPLE_RATE))
        self._duck = Ramp(1.0, depth / release, depth / self._attack)
        self._fade_rate = 1.0 / max(1, round(config.bed_crossfade_s * SAMPLE_RATE))
        self._voices: list[BedVoice] = []
        b = config.max_block
        self._steps = np.arange(1, b + 1, dtype=np.float32)
        self._env, self._fade, self._tmp = (np.empty(b, np.float32) for _ in range(3))
        self._sound_end = dict.fromkeys(CHANNELS, 0)
        """Channel frame just after the last speech or cue sample the ear is deaf to, handed out (consumer-written)."""
        self._stamps: dict[str, tuple[int, float, float] | None] = dict.fromkeys(CHANNELS)
        """(frame, when it leaves the device, when stamped) per channel played live; None: not played live."""
        self._history = np.zeros(round(HISTORY_S * SAMPLE_RATE), np.float32)
        """The public channel's last frames as handed out (frame f at f % len): `heard_through`."""
        self._placed = np.zeros((STAMPS, 2), np.float64)
        """(frame, when it leaves the device) of the public channel's last stamps, stamp n at row n % STAMPS."""
        self._placed_n = 0
        self._through = np.full((8, 2), -1, np.int64)
        """[first, end) public frames of the last listened-through sounds (a ring of rows, consumer-written)."""
        self._through_row = 0
        self.volume = 1.0
        """Linear gain on the table's channel (大声点 / 小声点 of `narrator serve`); changed between lines."""
        self.waker: Callable[[], None] | None = None
        """Called after every enqueue, from the enqueuing thread, while set: the Player whose streams rest
        (`Player.rest`) starts them again."""

    # --- producer side ---------------------------------------------------------------------------------

    def enqueue(self, clip: np.ndarray, channel: str = "all", pause_after_s: float = 0.0,
                cue: str | None = None, bed: str | None = None, lead_s: float = 0.0, deafens: bool = True) -> Ticket:
        """Schedule [lead silence] [bed switch] [cue] clip [pause] on `channel` ("all" or "host") after what
        is queued.

        `clip` is mono float32 speech at SAMPLE_RATE (may be empty); `pause_after_s` seconds of silence
        follow it; `cue` is a cue name played before the clip; `bed` ("night", "day", "off") switches the
        public bed when the group starts. A bed switch on the host channel is refused: the bed is public.
        `lead_s` seconds of silence come first (the group, and its ticket's start, begins after them).
        `deafens=False`: the ear listens through it (`voiced_until` leaves it out: LISTENED_THROUGH).
        """
        if channel not in CHANNELS:
            raise ValueError(f"channel must be one of {CHANNELS}, got {channel!r}")
        for name, value in (("pause_after_s", pause_after_s), ("lead_s", lead_s)):
            if value < 0 or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value}")
        if bed is not None and (channel != "all" or (bed != "off" and bed not in self._beds)):
            raise ValueError(f"bed {bed!r} on channel {channel!r}: beds are 'night'/'day'/'off', public only")
        if cue is not None and cue not in self._cues:
            raise ValueError(f"unknown cue {cue!r}; cues are {', '.join(CUE_NAMES)}")
        samples = np.ascontiguousarray(clip, dtype=np.float32)
        if samples.ndim != 1:
            raise ValueError(f"clip must be mono (1-D), got shape {samples.shape}")
        ticket = Ticket(channel)
        lead = [_Item(_SILENCE, ticket, frames=round(lead_s * SAMPLE_RATE))] if lead_s > 0 else []
        items = []
        if bed is not None:
            items.append(_Item(_BED, ticket, name=bed))
        if cue is not None:
            items.append(_Item(_CUE, ticket, self._cues[cue], deafens=deafens))
        items.append(_Item(_SPEECH, ticket, samples, deafens=deafens))
        items.append(_Item(_SILENCE, ticket, frames=round(pause_after_s * SAMPLE_RATE)))
        items[0].first = items[-1].last = True
        self._queues[channel].extend(lead + items)  # one atomic extend: the consumer never sees half a group
        waker = self.waker
        if waker is not None:  # a live output resting while nothing played: it plays again from now
            waker()
        return ticket

    def enqueue_line(self, line: Line, clip: np.ndarray, pause_after_s: float, lead_s: float = 0.0) -> Ticket:
        """enqueue() with the channel, cue and bed a judge Line asks for (the ear deaf to it unless its key is
        one of LISTENED_THROUGH)."""
        return self.enqueue(clip, line.to, pause_after_s, cue=line.cue, bed=line.bed, lead_s=lead_s,
                            deafens=line.key not in LISTENED_THROUGH)

    def cue_frames(self, cue: str | None) -> int:
        """Frames a cue plays before its line's speech (0 for None)."""
        return 0 if cue is None else len(self._cues[cue])

    def switch_bed(self, bed: str) -> Ticket:
        """Queue a bed change ("night", "day", "off") on the public channel, after what is queued."""
        return self.enqueue(np.zeros(0, np.float32), "all", 0.0, bed=bed)

    def quiet(self) -> bool:
        """Nothing to play on either channel: nothing queued, no bed, the duck recovered — a live output would
        write silence (what `Player.rest` waits for before it stops its streams)."""
        return self.is_drained() and not self._voices and self._duck.value == 1.0

    def is_drained(self, channel: str | None = None) -> bool:
        """True when nothing is queued on `channel` (default: on either channel). The bed does not count."""
        return all(not self._queues[ch] for ch in ((channel,) if channel else CHANNELS))

    def pending_frames(self, channel: str) -> int:
        """Frames still to play on `channel`. Offline use only (it walks the queue)."""
        return sum(item.length - item.pos for item in list(self._queues[channel]))

    def frames_played(self, channel: str) -> int:
        """Frames pulled so far on `channel` (the channel's clock)."""
        return self._frames[channel]

    # --- what is playing (for the ear) -------------------------------------------------------------------

    def stamp(self, channel: str, frame: int, leaves_at: float, now: float | None = None) -> None:
        """The live player's word: channel frame `frame` leaves the device at `leaves_at` (time.monotonic).
        Said for every block it hands the device (the frames from `frame` on): the audio thread's cost is
        two stores into a preallocated ring."""
        self._stamps[channel] = (frame, leaves_at, time.monotonic() if now is None else now)
        if channel == "all":
            row = self._placed_n % STAMPS
            self._placed[row, 0] = frame
            self._placed[row, 1] = leaves_at
            self._placed_n += 1

    def unstamp(self, channel: str) -> None:
        """The channel's live output closed: nothing queued on it will play until it is stamped again."""
        self._stamps[channel] = None

    def voiced_until(self, now: float | None = None) -> float:
        """When the judge's voice is out of the device (time.monotonic): +inf while a line or cue plays or
        is queued on a channel played live, else when the last sample of the last one left the device
        (-inf: none yet). Any thread; read without locks (off by at most one block, which the ear's echo
        tail covers)."""
        now = time.monotonic() if now is None else now
        until = -math.inf
        for ch in CHANNELS:
            stamp = self._stamps[ch]
            if stamp is None:
                continue
            frame, leaves_at, stamped = stamp
            playing = now - stamped < STALE_S
            if playing and any(item.deafens and item.pos < item.length for item in list(self._queues[ch])):
                return math.inf
            end = self._sound_end[ch]
            if end > 0:
                until = max(until, leaves_at + (end - frame) / SAMPLE_RATE)
        return until

    def through_between(self, start: float, end: float) -> bool:
        """Whether a line the ear listens through (LISTENED_THROUGH) left the table's device from `start` to `end`
        (time.monotonic; one still playing lasts), placed by the player's last stamp. Where an answer needs no
        name the ear is deaf to such a line and reads the utterance it cut (narrator/listen/voice.py `cut_in`)."""
        stamp = self._stamps["all"]
        if stamp is None:
            return False
        frame, leaves_at, _ = stamp
        for first, last in self._through.tolist():
            if first >= 0 and leaves_at + (first - frame) / SAMPLE_RATE < end and \
                    (last < 0 or leaves_at + (last - frame) / SAMPLE_RATE > start):
                return True
        return False

    def heard_through(self, start: float, end: float, rate: int = SAMPLE_RATE) -> np.ndarray | None:
        """What the table played (at `rate`) that left the device from `start` to `end` (time.monotonic),
        when a listened-through line (LISTENED_THROUGH) was among it: a copy from the history, each block where
        its stamp places it (`placed`: silence where the device underflowed); None when none was, or the table
        is not played live, or the stretch's start is no longer in the history. A stretch that reaches past
        what has been handed out yet ends there."""
        if self._stamps["all"] is None or end <= start:
            return None
        played, size = self._frames["all"], len(self._history)
        count = self._placed_n
        rows = self._placed[np.arange(count - min(count, STAMPS - 2), count) % STAMPS]  # not the row being written
        if not len(rows):
            return None
        frames, firsts = placed(rows[:, 0], rows[:, 1])
        out_until = firsts[-1] + (played - frames[-1]) / SAMPLE_RATE  # when what has been handed out ends
        at = start + np.arange(round((min(end, out_until) - start) * SAMPLE_RATE)) / SAMPLE_RATE
        block = np.maximum(np.searchsorted(firsts, at + 0.5 / SAMPLE_RATE, side="right") - 1, 0)  # to the sample
        frame = frames[block] + np.rint((at - firsts[block]) * SAMPLE_RATE).astype(np.int64)
        if not len(frame) or frame[0] < max(0, played - size):
            return None
        ends = np.append(frames[1:], played)  # each block's frames end where the next one's begin
        sounding = frame < ends[block]  # else a gap: the device played nothing meanwhile
        if not sounding.any():
            return None
        a, b = int(frame[sounding].min()), int(frame[sounding].max()) + 1
        if not any(first < b and (last < 0 or last > a) for first, last in self._through.tolist() if first >= 0):
            return None
        out = np.where(sounding, self._history[frame % size], np.float32(0.0)).astype(np.float32)
        return resample(out, SAMPLE_RATE, rate)

    @property
    def bed(self) -> str:
        """Name of the bed currently fading in or playing, or "off"."""
        live = [v for v in self._voices if v.target > 0]
        return live[-1].name if live else "off"

    # --- consumer side ---------------------------------------------------------------------------------

    def pull(self, n_frames: int) -> tuple[np.ndarray, np.ndarray]:
        """Allocate and return the next n_frames of (public, host). For offline rendering and tests."""
        public, host = np.empty(n_frames, np.float32), np.empty(n_frames, np.float32)
        self.pull_public_into(public)
        self.pull_host_into(host)
        return public, host

    def pull_public_into(self, out: np.ndarray) -> None:
        """Overwrite `out` (1-D float32 view) with the next len(out) public frames. Audio-thread safe."""
        first = self._frames["all"]
        for a in range(0, len(out), self.config.max_block):
            self._pull(out[a : a + self.config.max_block], "all")
        if self.volume != 1.0:
            out *= self.volume
        size, at = len(self._history), first % len(self._history)
        n = min(len(out), size - at)  # a pull longer than the history (offline) keeps its last part below
        self._history[at : at + n] = out[:n]
        if len(out) > n:
            rest = out[n:][-size:]
            self._history[: len(rest)] = rest

    def pull_host_into(self, out: np.ndarray) -> None:
        """Overwrite `out` with the next len(out) host frames. Never touches the bed or the public queue."""
        for a in range(0, len(out), self.config.max_block):
            self._pull(out[a : a + self.config.max_block], "host")

    def _pull(self, out: np.ndarray, channel: str) -> None:
        public = channel == "all"
        queue, n, pos = self._queues[channel], len(out), 0
        out.fill(0.0)
        if not queue and not (public and (self._voices or self._duck.value != 1.0)):
            self._frames[channel] += n  # nothing to play and no bed, nor a duck still recovering: silence
            return
        while True:
            if not queue:
                if public and pos < n:
                    self._render_bed(out, pos, n, ducked=False)
                break
            item = queue[0]
            if pos == n and item.pos < item.length:
                break  # block full; zero-length items at the head are still finished, so tickets complete
            if item.pos == 0:
                self._mark_start(item, self._frames[channel] + pos)
            if item.kind == _BED:
                self._switch_bed(item.name)
            left = item.length - item.pos
            span, ducked = min(left, n - pos), item.kind == _SPEECH
            if public and not ducked and left > 0 and self._speech_next(queue):
                # Speech is queued right after this item: start the attack early so the bed is already
                # down when the voice begins (first render up to the look-ahead point undocked).
                if left > self._attack:
                    span = min(span, left - self._attack)
                else:
                    ducked = True
            if item.data is not None and span:
                out[pos : pos + span] = item.data[item.pos : item.pos + span]
            if public and span:
                self._render_bed(out, pos, pos + span, ducked)
            item.pos += span
            pos += span
            if span and item.deafens:
                self._sound_end[channel] = self._frames[channel] + pos
            elif span and public and item.kind in _SOUND:  # listened through: where it lies, for heard_through
                row = self._through[self._through_row]
                if item.pos == span:  # its first span
                    self._through_row = (self._through_row + 1) % len(self._through)
                    row = self._through[self._through_row]
                    row[0], row[1] = self._frames[channel] + pos - span, -1
                if item.pos >= item.length:
                    row[1] = self._frames[channel] + pos
            if item.pos >= item.length:
                queue.popleft()
                if item.kind == _SPEECH:
                    item.ticket.speech_end_frame = self._frames[channel] + pos
                if item.last:
                    item.ticket.end_frame = self._frames[channel] + pos
                    item.ticket.done = True
        if public:
            np.clip(out, -1.0, 1.0, out=out)  # safety only: speech over a ducked bed stays well below 0 dBFS
        self._frames[channel] += n

    def _speech_next(self, queue: deque[_Item]) -> bool:
        for i in range(1, min(4, len(queue))):  # a bed marker may sit between this item and the speech
            kind = queue[i].kind
            if kind != _BED:
                return kind == _SPEECH and queue[i].length > 0
        return False

    def _mark_start(self, item: _Item, frame: int) -> None:
        t = item.ticket
        if item.first:
            t.started_at, t.start_frame = time.perf_counter(), frame
        if item.kind == _SPEECH:
            t.speech_frame = frame

    def _switch_bed(self, name: str) -> None:
        for v in self._voices:
            v.target = 0.0
        if name == "off":
            return
        for v in self._voices:
            if v.name == name:  # still fading out: bring it back rather than restarting the loop
                v.target = 1.0
                self._voices.remove(v)
                self._voices.append(v)
                return
        self._voices.append(BedVoice(name, self._beds[name], self._fade_rate))

    def _render_bed(self, out: np.ndarray, a: int, b: int, ducked: bool) -> None:
        k = b - a
        env, fade, tmp = self._env[:k], self._fade[:k], self._tmp[:k]
        self._duck.fill(env, self._duck_gain if ducked else 1.0, self._steps)
        if not self._voices:
            return
        dest = out[a:b]
        for v in self._voices:
            v.read(tmp)
            steady = v.fade.value == 1.0 == v.target  # decided before fill(): a fade may end mid-span
            v.fade.fill(fade, v.target, self._steps)
            if not steady:
                np.multiply(fade, np.pi / 2, out=fade)  # equal-power shape: sin(pi/2 * linear ramp)
                np.sin(fade, out=fade)
                np.multiply(tmp, fade, out=tmp)
            np.multiply(tmp, env, out=tmp)
            np.add(dest, tmp, out=dest)
        self._voices[:] = [v for v in self._voices if v.target > 0 or v.fade.value > 0]


def placed(frames: np.ndarray, leaves_at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the stamped blocks played: (their first frames, when each block's first frame left the device),
    in stamp order, from the player's stamps (`frames[i]` leaves at `leaves_at[i]`).

    Blocks played without a gap between them left 1/SAMPLE_RATE s per frame after one another: their offsets
    (leaves_at − frame / SAMPLE_RATE) agree. An underflow (the device ran dry and played silence) moves every
    block after it; a stamp may be late by the callback's wake-up, and PortAudio's figure for the first block
    after an underflow is off. So the offsets are a staircase with stray stamps above it: each block's level is
    the earliest offset among it and the next `WINDOW` stamps (strays never last that long), a change of
    level by more than `GAP_S` starts a new step, and every block of a step is placed by the step's earliest
    offset — one offset per stretch played without a gap, so the copy is continuous sample for sample between
    gaps. A step shorter than `STEP_S` before another, or the last, joins the step before it (late stamps
    around a gap, or the newest stamps' own)."""
    offset = leaves_at - frames / SAMPLE_RATE
    padded = np.concatenate([offset, np.full(WINDOW - 1, np.inf)])
    level = np.lib.stride_tricks.sliding_window_view(padded, WINDOW).min(axis=1)
    starts = [0]
    for i in (np.flatnonzero(np.abs(np.diff(level)) > GAP_S) + 1).tolist():
        if len(starts) > 1 and frames[i] - frames[starts[-1]] < STEP_S * SAMPLE_RATE:
            starts.pop()  # the step before this one was too short to be one
        starts.append(i)
    if len(starts) > 1 and frames[-1] - frames[starts[-1]] < STEP_S * SAMPLE_RATE:
        starts.pop()
    first = np.array(starts)
    step = np.cumsum(np.isin(np.arange(len(offset)), first)) - 1
    settled = np.minimum.reduceat(offset, first)[step]
    return frames.astype(np.int64), settled + frames / SAMPLE_RATE
