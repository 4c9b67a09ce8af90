"""Per-prompt grammars: only what is legal now, in words the speech model knows.

A *pack* (grammars/<lang>.yaml) names the control words and, for a model of another language than the
host words (the Korean test model), a `say:` table from host words to what is spoken. `Grammar` builds
the phrase list for one prompt, checks every token against the model's vocabulary (Vosk drops unknown
grammar words silently), splits a phrase into pieces the model knows (the whole word, else smaller
words, else single characters: "七号" → "七 号") and raises `VocabularyError` naming a phrase it cannot
express. `host_words` turns what the recogniser wrote back into host words for `hostwords.parse`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from narrator.engine.answers import Ballots, Duel, Seats, SelfExplode, VoteResult
from narrator.engine.prompts import ANSWER_SLUGS, Prompt
from narrator.hostwords import phrases
from narrator.numbers import chinese_number as zh_number

GRAMMARS_DIR = Path(__file__).resolve().parents[2] / "grammars"
UNK = "[unk]"
CONTROLS = ("repeat", "undo", "pause", "resume", "confirm", "deny")
_SEATED = (Seats, SelfExplode, Ballots, VoteResult, Duel)  # Duel: "五号决斗三号" (modern roles)


class VocabularyError(Exception):
    """A grammar phrase the model cannot say with the words it knows (one sentence, names the phrase)."""


class PackError(Exception):
    """A grammar pack file that cannot be used (one sentence, names the file)."""


@dataclass(frozen=True)
class Pack:
    """A grammar pack: control words, extra words per answer type, and the host-word → spoken table."""

    name: str
    controls: dict[str, tuple[str, ...]]
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)
    say: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Host words → spoken forms; empty means the host words are spoken as they are."""

    def control(self, words: str) -> str | None:
        """Which control `words` are ("undo" …), ignoring spaces the recogniser puts between words."""
        flat = "".join(words.split())
        for name, said in self.controls.items():
            if flat in ("".join(s.split()) for s in said):
                return name
        return None

    def control_words(self) -> list[str]:
        return [w for name in CONTROLS for w in self.controls.get(name, ())]


def load_pack(name_or_path: str | Path = "zh") -> Pack:
    path = Path(name_or_path)
    if not path.suffix:
        path = GRAMMARS_DIR / f"{name_or_path}.yaml"
    return _load(str(path))


@lru_cache(maxsize=8)
def _load(path: str) -> Pack:
    try:
        raw: Any = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise PackError(f"cannot read the grammar {path}: {e}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("controls"), dict):
        raise PackError(f"the grammar {path} has no controls: table")

    def table(key: str) -> dict[str, tuple[str, ...]]:
        value = raw.get(key) or {}
        if not isinstance(value, dict):
            raise PackError(f"{key}: in {path} must be a table")
        return {str(k): tuple(str(w) for w in (v if isinstance(v, list) else [v])) for k, v in value.items()}

    controls = table("controls")
    missing = [c for c in CONTROLS if not controls.get(c)]
    if missing:
        raise PackError(f"the grammar {path} lacks the control words for {', '.join(missing)}")
    return Pack(str(raw.get("lang", Path(path).stem)), controls, table("extra"), table("say"))


def seat_words(seats: Iterable[int]) -> list[str]:
    """The words naming these seats, as hostwords.phrases writes them (七号, 七)."""
    out: list[str] = []
    for n in seats:
        out += [f"{zh_number(n)}号", zh_number(n)]
    return out


def legal_host_words(prompt: Prompt, max_seat: int, pack: Pack) -> list[str]:
    """Host words legal at this prompt: its words, only the seats it may name, the extras, the controls."""
    words = phrases(prompt.accepts, max_seat)
    if prompt.accepts == {Seats} and prompt.seats:
        # A seat prompt may name only its selectable seats; other answer types name voters too.
        every = set(seat_words(range(1, max_seat + 1)))
        allowed = set(seat_words(prompt.seats))
        words = [w for w in words if w not in every or w in allowed]
        words = [w for w in words if w not in ("幺号", "幺", "两号", "两") or _small_ok(w, prompt.seats)]
    for kind in prompt.accepts:
        words += pack.extra.get(ANSWER_SLUGS[kind], ())
    words += pack.extra.get("rules", ())  # 规则 …, at any prompt (Session.explain)
    words += pack.control_words()
    return list(dict.fromkeys(words))


def _small_ok(word: str, seats: tuple[int, ...]) -> bool:
    return (1 in seats) if word.startswith("幺") else (2 in seats)


def split_phrase(phrase: str, knows: Callable[[str], bool]) -> str:
    """The phrase in pieces the model knows: each word whole if known, else the fewest known pieces
    (smaller words, at worst single characters). Raises VocabularyError naming the phrase."""
    out: list[str] = []
    for word in phrase.split():
        pieces = _fewest(word, knows)
        if pieces is None:
            bad = [c for c in word if not knows(c)]
            raise VocabularyError(
                f"the speech model cannot recognise the phrase {phrase!r}: it knows neither {word!r} nor "
                f"{'the characters ' + ''.join(bad) if bad else 'any split of it'}")
        out += pieces
    return " ".join(out)


def _fewest(word: str, knows: Callable[[str], bool]) -> list[str] | None:
    n = len(word)
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for end in range(1, n + 1):
        for start in range(end):
            head = best[start]
            if head is not None and knows(word[start:end]):
                cand = [*head, word[start:end]]
                if best[end] is None or len(cand) < len(best[end] or ()):
                    best[end] = cand
    return best[n]


class Grammar:
    """Builds and caches the Vosk grammar (a JSON list of phrases) for each prompt."""

    def __init__(self, pack: Pack, knows: Callable[[str], bool]) -> None:
        self.pack = pack
        self.knows = knows
        self._spoken_cache: dict[str, str] = {}
        self._back: dict[tuple[str, ...], str] = {}
        self.has_unk = knows(UNK)

    def spoken(self, host_word: str) -> list[str]:
        """The recogniser phrases for one host word (split into known pieces)."""
        forms = self.pack.say.get(host_word, ()) if self.pack.say else (host_word,)
        out = []
        for form in forms:
            if form not in self._spoken_cache:
                self._spoken_cache[form] = split_phrase(form, self.knows)
            said = self._spoken_cache[form]
            self._back[tuple(said.split())] = host_word
            out.append(said)
        return out

    def phrases_for(self, prompt: Prompt, max_seat: int) -> list[str]:
        spoken = [s for w in legal_host_words(prompt, max_seat, self.pack) for s in self.spoken(w)]
        spoken = list(dict.fromkeys(spoken))
        return [*spoken, UNK] if self.has_unk else spoken

    def json_for(self, prompt: Prompt, max_seat: int) -> str:
        return json.dumps(self.phrases_for(prompt, max_seat), ensure_ascii=False)

    def check(self, max_seat: int) -> None:
        """Start-up check: every phrase any prompt can use is expressible (raises VocabularyError)."""
        for kind in ANSWER_SLUGS:
            self.phrases_for(Prompt("check", frozenset({kind})), max_seat)

    def host_words(self, text: str) -> str:
        """Recogniser output → host words: [unk] dropped, spoken phrases mapped back (longest first)."""
        tokens = [t for t in text.split() if t != UNK]
        if not self.pack.say:
            return " ".join(tokens)
        out: list[str] = []
        i = 0
        longest = max((len(k) for k in self._back), default=1)
        while i < len(tokens):
            for size in range(min(longest, len(tokens) - i), 0, -1):
                host = self._back.get(tuple(tokens[i : i + size]))
                if host is not None:
                    out.append(host)
                    i += size
                    break
            else:
                out.append(tokens[i])
                i += 1
        return " ".join(out)
