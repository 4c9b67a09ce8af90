"""Measuring a room: phrases (recorded, or synthesised by espeak-ng) mixed with the night bed at a given
SNR, heard through the real pipeline (VAD → Vosk with the prompt's grammar → parse → the read-back policy),
and counted per prompt type by what the dialogue would do with it: taken right at once ("correct"), read back
and right (one 对 more: "confirmed"), read back and wrong (caught by the host's 不对: "caught"), taken wrong
without a read-back ("wrong": the one that must not happen), or asked again (nothing heard, not understood).
The read-back policy is the dialogue's own (narrator/listen/doubt.py `Policy`): under the default
`seat_doubt = "always"` every spoken seat is read back, so a misread seat is "caught", never "wrong".

A phrase file (YAML; grammars/ko.test.yaml is the one for the Korean model):

    pack: ko                 # grammar pack (grammars/<pack>.yaml)
    voice: ko                # espeak-ng voice for synthetic phrases
    players: 12
    phrases:
      wolves.kill: [[일곱, 七号], [없음, 没有]]     # [what is spoken, the host words it means]
      witch.save: [[좋아요, 是]]
    recordings:              # optional, instead of or besides synthesis: WAV files beside this file
      - {file: kill-7.wav, kind: wolves.kill, expect: 七号}
      - {file: kill-1.wav, kind: wolves.kill, expect: 一号, form: 하나}   # form: the pack's spoken form said

`calibrate_cases` hears the same cases as a calibration (narrator/listen/calibrate.py): the host's own
recordings decide which spoken forms of the pack his voice gets through (`narrator model test --calibrate`).
"""

from __future__ import annotations

import io
import subprocess
import wave
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, get_args

import numpy as np
import yaml

from narrator.engine.answers import Answer, Ballots, Direction, Pass, Seats, VoteResult, YesNo
from narrator.engine.prompts import Prompt
from narrator.listen.base import Heard
from narrator.listen.dialogue import meaning
from narrator.listen.doubt import Policy
from narrator.listen.grammar import Grammar, Pack, PackError, VocabularyError, load_pack, yaml_problem
from narrator.listen.recognizer import SAMPLE_RATE, Recognizer
from narrator.listen.vad import EndpointConfig, Endpointer, make_vad
from narrator.listen.wavfile import AudioFileError, FileEar, read_wav

if TYPE_CHECKING:
    from narrator.listen.calibrate import Calibration

PROMPT_TYPES: dict[str, frozenset[type]] = {
    "wolves.kill": frozenset({Seats}),
    "seer.check": frozenset({Seats}),
    "witch.poison": frozenset({Seats}),
    "witch.save": frozenset({YesNo}),
    "speech.end": frozenset({Pass}),
    "vote.exile": frozenset({Ballots, VoteResult}),
    "sheriff.order": frozenset({Direction}),
}
ANSWER_TYPES: tuple[type, ...] = get_args(Answer)
"""narrator.engine.answers.Answer's members: what `meaning` gives for an answer (a str for a control word)."""
OUTCOMES = ("correct", "confirmed", "caught", "wrong", "again")
"""Taken right at once; read back and right; read back and wrong (不对 catches it); taken wrong; asked again."""


class MeasureError(Exception):
    """A phrase file or recording that cannot be used (one sentence)."""


@dataclass
class Case:
    kind: str
    expect: str
    audio: np.ndarray
    label: str
    form: str | None = None
    """The pack's spoken form said (a phrase that is one; a recording's `form:`), None: unknown."""


@dataclass
class Report:
    snr_db: float | None
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    details: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(kind, label, heard, outcome)."""

    def add(self, kind: str, outcome: str, label: str, heard: str) -> None:
        self.counts.setdefault(kind, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
        self.details.append((kind, label, heard, outcome))

    def rates(self, kind: str) -> dict[str, float]:
        c = self.counts[kind]
        n = sum(c.values()) or 1
        return {k: c[k] / n for k in OUTCOMES}

    def table(self) -> str:
        snr = _snr(self.snr_db)
        heads = {"correct": "right", "confirmed": "read back right", "caught": "read back wrong",
                 "wrong": "WRONG taken", "again": "again"}
        rows = [f"{'prompt type':<16}{'n':>4}" + "".join(f"{heads[k]:>17}" for k in OUTCOMES) + f"   ({snr})"]
        for kind in sorted(self.counts):
            r, n = self.rates(kind), sum(self.counts[kind].values())
            rows.append(f"{kind:<16}{n:>4}" + "".join(f"{r[k]:>17.0%}" for k in OUTCOMES))
        return "\n".join(rows)


def prompt_for(kind: str, players: int) -> Prompt:
    if kind not in PROMPT_TYPES:
        raise MeasureError(f"unknown prompt type {kind!r}: use one of {', '.join(PROMPT_TYPES)}")
    accepts = PROMPT_TYPES[kind]
    seats = tuple(range(1, players + 1)) if Seats in accepts else ()
    return Prompt(kind, accepts, seats=seats, min_seats=0 if Seats in accepts else 1)


def espeak(text: str, voice: str) -> np.ndarray:
    try:
        out = subprocess.run(["espeak-ng", "-v", voice, "--stdout", text], capture_output=True, check=True,
                             timeout=30).stdout
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        raise MeasureError(f"espeak-ng could not say {text!r} with voice {voice!r}: {e}") from None
    with wave.open(io.BytesIO(out)) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768.0
    n = round(len(x) * SAMPLE_RATE / rate)
    clip: np.ndarray = np.interp(np.arange(n) * rate / SAMPLE_RATE, np.arange(len(x)), x).astype(np.float32)
    return clip


def night_bed16() -> np.ndarray:
    from narrator.audio import SAMPLE_RATE as BED_RATE
    from narrator.audio.beds import load_sounds
    from narrator.audio.resample import resample

    return resample(load_sounds()["night"], BED_RATE, SAMPLE_RATE).astype(np.float32)


def voiced_rms(x: np.ndarray) -> float:
    frames = x[: len(x) // 320 * 320].reshape(-1, 320)
    e = np.sqrt(np.mean(frames**2, axis=1))
    loud = e[e > 0.1 * e.max()] if len(e) else e
    return float(np.sqrt(np.mean(loud**2))) if len(loud) else 0.0


def mix(speech: np.ndarray, bed: np.ndarray, snr_db: float | None, offset: int = 0,
        lead_s: float = 0.6, tail_s: float = 1.0) -> np.ndarray:
    """Speech with silence around it, over the bed scaled so speech/bed RMS is `snr_db` (None: no bed)."""
    pad = np.zeros(int(lead_s * SAMPLE_RATE), np.float32)
    x = np.concatenate([pad, speech, np.zeros(int(tail_s * SAMPLE_RATE), np.float32)])
    if snr_db is None:
        return x
    idx = (offset + np.arange(len(x))) % len(bed)
    b = bed[idx]
    gain = voiced_rms(speech) / (float(np.sqrt(np.mean(b**2))) or 1.0) / 10 ** (snr_db / 20)
    return (x + gain * b).astype(np.float32)


@dataclass(frozen=True)
class PhraseFile:
    """What a phrase file says besides its cases: the host words' pack and the table's seats."""

    pack: str
    players: int


def load_cases(path: Path) -> tuple[PhraseFile, list[Case]]:
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, RecursionError) as e:
        raise MeasureError(f"cannot read the phrase file {path}: {e or type(e).__name__}") from None
    except yaml.YAMLError as e:
        raise MeasureError(f"cannot read the phrase file {path}: {yaml_problem(e)}") from None
    if not isinstance(spec, dict):
        raise MeasureError(f"{path} is not a table with phrases: or recordings:")
    try:
        load_pack(str(spec.get("pack", "zh")))
    except PackError as e:
        raise MeasureError(f"{path}: pack: {e}") from None
    voice = str(spec.get("voice", "ko"))
    phrases, recordings = spec.get("phrases") or {}, spec.get("recordings") or []
    if not isinstance(phrases, dict) or not isinstance(recordings, list):
        raise MeasureError(f"{path}: phrases: must be a table of prompt types, recordings: a list")
    cases: list[Case] = []
    for kind, rows in phrases.items():
        prompt_for(str(kind), 12)  # an unknown prompt type: MeasureError naming the known ones
        for row in rows if isinstance(rows, list) else [rows]:
            if not (isinstance(row, list) and len(row) == 2):
                raise MeasureError(f"{path}: phrases: {kind}: each entry is [what is spoken, the host words], "
                                   f"not {row!r}")
            spoken, expect = row
            cases.append(Case(str(kind), str(expect), espeak(str(spoken), voice), str(spoken), str(spoken)))
    for rec in recordings:
        if not (isinstance(rec, dict) and {"file", "kind", "expect"} <= rec.keys()):
            raise MeasureError(f"{path}: recordings: each entry is {{file: …, kind: …, expect: …}}, not {rec!r}")
        prompt_for(str(rec["kind"]), 12)
        try:
            audio = read_wav(path.parent / str(rec["file"]))
        except AudioFileError as e:
            raise MeasureError(str(e)) from None
        form = rec.get("form")
        cases.append(Case(str(rec["kind"]), str(rec["expect"]), audio, str(rec["file"]),
                          None if form is None else str(form)))
    if not cases:
        raise MeasureError(f"{path} has no phrases and no recordings")
    players = spec.get("players", 12)
    if not isinstance(players, int) or isinstance(players, bool) or not 1 <= players <= 18:
        raise MeasureError(f"{path}: players: must be a number of seats from 1 to 18")
    return PhraseFile(str(spec.get("pack", "zh")), players), cases


def judge(heard_text: str | None, heard: Heard | None, prompt: Prompt, expect: str, pack: Pack, gap: float,
          policy: Policy | None = None) -> str:
    """The outcome the dialogue would reach for this one utterance under `policy` (default: the dialogue's
    defaults with `gap`): one of OUTCOMES."""
    if heard is None or not heard_text:
        return "again"
    got = meaning(heard_text, prompt, pack)
    if got is None:
        return "again"
    right = got == meaning(expect, prompt, pack)
    policy = policy or Policy(doubt_gap=gap)
    if isinstance(got, ANSWER_TYPES) and policy.reads_back(heard, cast(Answer, got), prompt, pack):  # not a control
        return "confirmed" if right else "caught"
    return "correct" if right else "wrong"


def run(cases: list[Case], model: Any, pack_name: str, players: int, snr_db: float | None, *,
        gap: float = 3.0, vad: str = "silero", bed: np.ndarray | None = None,
        on_case: Callable[[str, str, str], None] | None = None, policy: Policy | None = None) -> Report:
    from narrator.listen.recognizer import knows

    pack = load_pack(pack_name)
    grammar = Grammar(pack, lambda w: knows(model, w))
    try:
        grammar.check(players)
    except VocabularyError as e:
        raise MeasureError(str(e)) from None
    bed = night_bed16() if bed is None and snr_db is not None else bed
    report = Report(snr_db)
    for i, case in enumerate(cases):
        prompt = prompt_for(case.kind, players)
        audio = mix(case.audio, bed if bed is not None else np.zeros(1, np.float32), snr_db, offset=i * 7919)
        # A fresh recogniser per phrase: Vosk's speaker adaptation carries over between utterances, which
        # would make each figure depend on the phrases measured before it.
        ear = FileEar(audio, Recognizer(model), grammar, Endpointer(make_vad(vad), EndpointConfig()), tail_s=0.0)
        heard = ear.listen(prompt, players)
        text = heard.text if heard is not None else ""
        outcome = judge(text, heard, prompt, case.expect, pack, gap, policy)
        report.add(case.kind, outcome, case.label, text)
        if on_case:
            on_case(case.label, text, outcome)
    return report


LAST_FILE = "model-test.json"
"""In the data folder: the last `narrator model test` (doctor shows it)."""


def save_last(folder: Path, phrases: Path, reports: list[Report]) -> Path:
    """Keep the last measurement: per SNR, the share of answers right (at once or after a read-back), read
    back, and taken wrong, over all cases."""
    import json
    import time

    rows = []
    for report in reports:
        n = sum(sum(c.values()) for c in report.counts.values()) or 1
        def share(*outcomes: str, counts: dict[str, dict[str, int]] = report.counts, n: int = n) -> float:
            return sum(c[o] for c in counts.values() for o in outcomes) / n

        rows.append({"snr_db": report.snr_db, "correct": share("correct", "confirmed"),
                     "read_back": share("confirmed", "caught"), "wrong": share("wrong"), "n": n})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LAST_FILE
    path.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M"), "phrases": str(phrases), "rows": rows}),
                    encoding="utf-8")
    return path


def last_summary(folder: Path) -> str | None:
    """One line about the last measurement in `folder`, or None."""
    import json

    try:
        data = json.loads((folder / LAST_FILE).read_text(encoding="utf-8"))
        parts = [f"{_snr(r['snr_db'])}: {r['correct']:.0%} right, {r['wrong']:.0%} wrong"
                 + (f" ({r['read_back']:.0%} read back)" if r.get("read_back") else "") for r in data["rows"]]
        return f"last `narrator model test` ({data['when']}, {data['phrases']}): " + "; ".join(parts)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _snr(db: float | None) -> str:
    return "clean" if db is None else f"SNR {db:g} dB"


def calibrate_cases(cases: list[Case], model: object, pack_name: str, players: int, judge_name: str | None = None
                    ) -> Calibration:
    """The calibration the cases make (clean, no bed): which of the pack's forms the recordings get through."""
    from narrator.listen.calibrate import Sample, calibrate, model_hear
    from narrator.listen.recognizer import knows

    pack = load_pack(pack_name).named(judge_name)
    samples = [Sample(c.expect, c.audio, prompt_for(c.kind, players),
                      c.form if c.form in pack.say.get(c.expect, ()) else None, c.label) for c in cases]
    return calibrate(samples, pack, lambda w: knows(model, w), model_hear(model), max_seat=players)
