"""Calibration by voice: which of a pack's spoken forms get through *this* host's voice.

A pack may give a host word several spoken forms (grammars/ko.yaml `say: {一号: [일호, 하나]}`; in Chinese
幺 / 一, 两 / 二). Every form in the grammar is one more thing the recogniser can mistake a word for: a form
the host never uses, or one his voice is always misread *into*, only costs. The host says the words once
("请依次说一号到十二号": a `Sample` per word, in its own way — or in a named form, from a phrase file); each is
heard through the real grammar of its question, and a form is dropped when

* other words of his were read as it (it "attracts" them), none of his own samples of its word was read
  as it (a form that gets through his voice stays, whatever else is read as it) and one was read right in
  another form (which form he uses is known: when none of his samples of a word got through, any of its
  forms may be his, and dropping the one he says would leave the word unheard for the whole game), or
* he said that very form and it was never read right,

— only when its host word keeps another form, and only when hearing all his samples again without it is
no worse (more read right, or as many right and fewer wrong). One form at a time, the worst first, until
no drop helps. What was found is a `Calibration`: the forms kept and dropped (with why), the words read
right before and after, and the words none of whose forms got through (those he must say another way, or
key). `Calibration.drop_forms` is the config value ("七号:일곱, 二号:둘") the ear applies when it builds its
grammar.

The recogniser is behind `Hear` (audio, grammar, prompt, max seat → its best raw reading, model words),
so the rules are tested without a model; `model_hear` is the real one (the ear's endpointer and Vosk).

By voice (`by_voice`): the judge asks for the words in batches (`asks`: "请依次说一号到十二号", then 过, 对,
不对 — the words the game needs most), the live ear keeps each utterance's audio (`VoiceEar.keep`), one
utterance a word; a batch that does not come back with as many utterances as words is asked once more
("每说一个停一下"), then given up (nothing changes). The samples are heard again by `calibrate`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from narrator.common.numbers import chinese_number
from narrator.engine.answers import Seats
from narrator.engine.prompts import Prompt
from narrator.judge.host_words import ACKNOWLEDGEMENT
from narrator.listen.dialogue import meaning
from narrator.listen.grammar import UNK, Grammar, Pack, split_phrase
from narrator.listen.recognizer import SAMPLE_RATE

if TYPE_CHECKING:
    from narrator.listen.voice import VoiceEar

Hear = Callable[[np.ndarray, Grammar, Prompt, int], str]
"""(16 kHz audio, grammar, prompt, max seat) → the recogniser's best reading in model words ("" for none)."""


@dataclass(frozen=True)
class Sample:
    """One word the host said for the calibration."""

    expect: str
    """The host words he was asked for ("七号")."""
    audio: np.ndarray
    """16 kHz mono."""
    prompt: Prompt
    """The question it is heard at (a seat at a kill of the whole table for "请依次说一号到十二号")."""
    form: str | None = None
    """The spoken form he was asked to say (a phrase file names it); None: his own way."""
    label: str = ""


@dataclass(frozen=True)
class Reading:
    sample: Sample
    raw: str
    """The recogniser's best reading, model words."""
    words: str
    """As host words."""
    right: bool
    forms: tuple[tuple[str, str], ...]
    """(host word, form) of each form found in the reading."""


@dataclass
class Calibration:
    before: list[Reading]
    after: list[Reading]
    kept: dict[str, tuple[str, ...]]
    """Host word → the forms kept, for the words that had more than one."""
    dropped: list[tuple[str, str, str]] = field(default_factory=list)
    """(host word, form, why) in the order dropped."""

    @property
    def right_before(self) -> int:
        return sum(r.right for r in self.before)

    @property
    def right_after(self) -> int:
        return sum(r.right for r in self.after)

    @property
    def wrong_after(self) -> int:
        return sum(1 for r in self.after if not r.right and _means_something(r))

    def unheard(self) -> list[str]:
        """Host words none of whose samples was read right after the calibration."""
        words = list(dict.fromkeys(r.sample.expect for r in self.after))
        return [w for w in words if not any(r.right for r in self.after if r.sample.expect == w)]

    @property
    def drop_forms(self) -> str:
        """The config value: "host:form" for each dropped form, comma-separated ("" when none)."""
        return ", ".join(f"{host}:{form}" for host, form, _ in self.dropped)

    def report(self) -> list[str]:
        """What was found, a line each (for the console)."""
        n = len(self.after)
        lines = [f"{self.right_after} of {n} words read right with your voice "
                 f"({self.right_before} before the calibration)."]
        for host, form, why in self.dropped:
            lines.append(f"dropped {host} said {form!r}: {why}")
        asked = {r.sample.expect for r in self.after}
        kept = [f"{host} {' / '.join(forms)}" for host, forms in self.kept.items() if host in asked]
        if kept:
            lines.append("kept: " + " · ".join(kept))
        for word in self.unheard():
            heard = [r.words or "nothing" for r in self.after if r.sample.expect == word]
            left = ", ".join(repr(f) for f in self.kept.get(word, ()))
            lines.append(f"{word} was not read right (heard: {'; '.join(heard)}): say it another way"
                         + (f" ({left})" if left else "") + " or use the keypad")
        return lines


    def told(self) -> list[tuple[str, dict[str, object]]]:
        """What the judge says about it: (script key in section "calibrate", its values), in order."""
        out: list[tuple[str, dict[str, object]]] = [
            ("done", {"count": len(self.after), "right": self.right_after, "dropped": len(self.dropped)})]
        unheard = self.unheard()
        if unheard:
            out.append(("unheard", {"words": "、".join(unheard)}))
        return out


def _means_something(reading: Reading) -> bool:
    return bool(reading.words.strip())


def form_tokens(pack: Pack, knows: Callable[[str], bool]) -> dict[tuple[str, ...], tuple[str, str]]:
    """The model words of each spoken form → (host word, form)."""
    out: dict[tuple[str, ...], tuple[str, str]] = {}
    for host, forms in pack.say.items():
        for form in forms:
            out.setdefault(tuple(split_phrase(form, knows).split()), (host, form))
    return out


def find_forms(raw: str, table: dict[tuple[str, ...], tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The forms in a raw reading, longest match first."""
    tokens = [t for t in raw.split() if t != UNK]
    longest = max((len(k) for k in table), default=1)
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        for size in range(min(longest, len(tokens) - i), 0, -1):
            hit = table.get(tuple(tokens[i: i + size]))
            if hit is not None:
                found.append(hit)
                i += size
                break
        else:
            i += 1
    return tuple(found)


def hear_all(samples: Sequence[Sample], pack: Pack, knows: Callable[[str], bool], hear: Hear,
             max_seat: int) -> list[Reading]:
    grammar = Grammar(pack, knows)
    table = form_tokens(pack, knows)
    out = []
    for sample in samples:
        raw = hear(sample.audio, grammar, sample.prompt, max_seat)
        words = grammar.host_words(raw) if raw else ""
        got = meaning(words, sample.prompt, pack) if words else None
        want = meaning(sample.expect, sample.prompt, pack)
        right = got is not None and got == want
        out.append(Reading(sample, raw, words, right, find_forms(raw, table)))
    return out


def without(pack: Pack, host: str, form: str) -> Pack:
    """The pack with one spoken form of `host` left out."""
    return replace(pack, say={**pack.say, host: tuple(f for f in pack.say[host] if f != form)})


def suspects(readings: Iterable[Reading], pack: Pack) -> list[tuple[str, str, str]]:
    """(host, form, why) worth trying to drop, the most to blame first: forms other words were read as,
    forms said and never read right — of words that keep another form, and never a form one of his samples
    of its own word was read as (that form gets through his voice: the room test found 四号's 넷 dropped for
    his 七号 read as it, his own 넷 then read as 네번째). A form other words are read as is suspect only when
    a sample of its own word got through in another form: CI's room run heard his 十号 (열번째) as nothing and
    his 十二号 as 열번째, and dropped 열번째 — the very form he says 十号 in."""
    attracted: Counter[tuple[str, str]] = Counter()
    failed: Counter[tuple[str, str]] = Counter()
    worked: set[tuple[str, str]] = set()
    for r in readings:
        if r.right:
            worked.update(f for f in r.forms if f[0] == r.sample.expect)
            continue
        attracted.update(f for f in r.forms if f[0] != r.sample.expect)
        if r.sample.form is not None:
            failed[(r.sample.expect, r.sample.form)] += 1
    out: list[tuple[int, str, str, str]] = []
    heard = {host for host, _ in worked}  # words one of his samples got through in some form
    for (host, form), n in attracted.items():
        if (host, form) in worked:  # a form his voice gets through is his: never dropped, whatever else it takes
            continue
        if host not in heard:  # which of its forms he says is not known: any may be his
            continue
        others = ", ".join(sorted({r.sample.expect for r in readings if not r.right and (host, form) in r.forms}))
        out.append((n, host, form, f"{others} was read as it"))
    for (host, form), n in failed.items():
        if (host, form) not in worked and (host, form) not in attracted:
            out.append((n, host, form, "you said it and it was never read right"))
    out.sort(key=lambda x: -x[0])
    return [(h, f, why) for _, h, f, why in out if len(pack.say.get(h, ())) > 1]


def _score(readings: list[Reading]) -> tuple[int, int]:
    return sum(r.right for r in readings), -sum(1 for r in readings if not r.right and _means_something(r))


def calibrate(samples: Sequence[Sample], pack: Pack, knows: Callable[[str], bool], hear: Hear,
              max_seat: int = 12, max_drops: int = 12) -> Calibration:
    """The forms of `pack` this host's `samples` get through (see the module docstring)."""
    before = hear_all(samples, pack, knows, hear, max_seat)
    current, readings = pack, before
    dropped: list[tuple[str, str, str]] = []
    tried: set[tuple[str, str]] = set()
    while len(dropped) < max_drops:
        for host, form, why in suspects(readings, current):
            if (host, form) in tried:
                continue
            tried.add((host, form))
            trial = without(current, host, form)
            again = hear_all(samples, trial, knows, hear, max_seat)
            if _score(again) >= _score(readings):
                current, readings = trial, again
                dropped.append((host, form, why))
                break
        else:
            break
    kept = {h: current.say[h] for h in pack.say if len(pack.say[h]) > 1}
    return Calibration(before, readings, kept, dropped)


def model_hear(model: Any) -> Hear:
    """The ear's own hearing: the endpointer (Silero VAD, the product's settings) and Vosk with the
    prompt's grammar, a fresh recogniser per sample (Vosk adapts to the speaker between utterances)."""
    from narrator.listen.recognizer import Recognizer
    from narrator.listen.vad import EndpointConfig, Endpointer, make_vad
    from narrator.listen.wavfile import FileEar

    class Keeping(Recognizer):
        readings: tuple[tuple[str, float], ...] = ()

        def final(self) -> list[tuple[str, float]]:
            out = super().final()
            self.readings = tuple(out)
            return out

    def hear(audio: np.ndarray, grammar: Grammar, prompt: Prompt, max_seat: int) -> str:
        recognizer = Keeping(model)
        ear = FileEar(audio, recognizer, grammar, Endpointer(make_vad("silero"), EndpointConfig()), tail_s=0.0)
        ear.listen(prompt, max_seat)
        return recognizer.readings[0][0] if recognizer.readings else ""

    return hear


SEAT_PROMPT = Prompt("wolves.kill", frozenset({Seats}), seats=tuple(range(1, 19)), min_seats=0)
"""Where a calibration hears a seat (and 对 / 不对, as at a read-back of one): a kill of the whole table."""


@dataclass(frozen=True)
class Ask:
    """One batch the judge asks for: the script line (section "calibrate"), the host words in order, and the
    question each is heard at."""

    key: str
    words: tuple[str, ...]
    prompts: tuple[Prompt, ...]


def asks(pack: Pack, seats: int = 12) -> list[Ask]:
    """"请依次说一号到十二号", then 过, 对, 不对 (the pack's own words for a step's 过 and a read-back's answers)."""
    seat_words = tuple(f"{chinese_number(n)}号" for n in range(1, seats + 1))
    kill = replace(SEAT_PROMPT, seats=tuple(range(1, seats + 1)))
    confirm = pack.controls.get("confirm", ("确认",))[0]
    deny = pack.controls.get("deny", ("不对",))[0]
    return [Ask("seats", seat_words, (kill,) * seats),
            Ask("words", ("过", confirm, deny), (ACKNOWLEDGEMENT, kill, kill))]


Say = Callable[[str], None]
"""Says the calibration's script line with this key ("seats", "words", "again")."""


def gather(ear: VoiceEar, prompt: Prompt, count: int, max_seat: int, *, first_s: float = 15.0,
           quiet_s: float = 5.0, clock: Callable[[], float] = time.monotonic) -> list[np.ndarray] | None:
    """`count` utterances' audio from the live ear (listening at `prompt`); None when, `first_s` after it
    starts listening or `quiet_s` after the last utterance, it has not heard as many (or has heard more)."""
    kept: list[np.ndarray] = []
    ear.keep(kept)
    try:
        deadline, seen = clock() + first_s, 0
        while clock() < deadline:
            ear.listen(prompt, max_seat, timeout_s=0.2)  # what it reads does not matter: the audio does
            if len(kept) != seen:
                seen, deadline = len(kept), clock() + (quiet_s if len(kept) < count else 1.0)
            if ear.ended():
                break
    finally:
        ear.keep(None)
    return kept if len(kept) == count else None


def padded(audio: np.ndarray, pad_s: float = 0.5) -> np.ndarray:
    """An utterance with silence around it, so the endpointer hears it start and end again."""
    pad = np.zeros(int(pad_s * SAMPLE_RATE), np.float32)
    return np.concatenate([pad, audio.astype(np.float32), pad])


def by_voice(ear: VoiceEar, say: Say, pack: Pack, knows: Callable[[str], bool], hear: Hear, *, seats: int = 12,
             tries: int = 2, first_s: float = 15.0, quiet_s: float = 5.0) -> Calibration | None:
    """The calibration by voice (see the module docstring): None when a batch never came back whole."""
    samples: list[Sample] = []
    for ask in asks(pack, seats):
        clips = None
        for attempt in range(tries):
            say(ask.key if attempt == 0 else "again")
            clips = gather(ear, ask.prompts[0], len(ask.words), seats, first_s=first_s, quiet_s=quiet_s)
            if clips is not None:
                break
        if clips is None:
            return None
        samples += [Sample(word, padded(clip), prompt, label=word)
                    for word, clip, prompt in zip(ask.words, clips, ask.prompts, strict=True)]
    return calibrate(samples, pack, knows, hear, max_seat=seats)
