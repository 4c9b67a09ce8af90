"""Per-prompt grammars: only what is legal now, in words the speech model knows.

A *pack* (grammars/<lang>.yaml) names the control words and, for a model of another language than the
host words (the Korean test model), a `say:` table from host words to what is spoken. `Grammar` builds
the phrase list for one prompt, checks every token against the model's vocabulary (Vosk drops unknown
grammar words silently), splits a phrase into pieces the model knows (the whole word, else smaller
words, else single characters: "七号" → "七 号") and raises `VocabularyError` naming a phrase it cannot
express. `host_words` turns what the recogniser wrote back into host words for `hostwords.parse`.

Where people talk (a speech, last words: `WAKE_KINDS`) every command begins with the judge's name (the
pack's `wake:`, "法官"), so the decoder itself hears "法官 过" and never a bare 过; and the grammar also holds
the pack's `filler:` words, which stand for talk ("[unk]" for a model that has it; common words of the
model's language for one that has not), so that a player's sentence is read as filler instead of being
forced onto the nearest command. Vosk turns a grammar into a bigram language model counted from its
phrases (a phrase given twice weighs twice): the commands are repeated until they weigh as much as the
fillers together. `command` keeps only readings that end in the name, one command and nothing but filler,
the name beginning the reading or a breath (after a pause) or following one word, and strips the name.
`START` is the prompt before the first question ("准备好了说开始"): its grammar is the pack's `start:` words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from narrator.common.numbers import chinese_number as zh_number
from narrator.engine.answers import Ballots, Duel, Seats, SelfExplode, VoteResult
from narrator.engine.prompts import ANSWER_SLUGS, Prompt
from narrator.hostwords import phrases
from narrator.listen.recognizer import PAUSE

GRAMMARS_DIR = Path(__file__).resolve().parents[2] / "grammars"
UNK = "[unk]"
CONTROLS = ("repeat", "undo", "pause", "resume", "confirm", "deny")
START_CONTROLS = ("repeat", "pause", "resume")
"""The controls that mean something before the first question (the cards line said again, a pause): no
answer has been given to take back, confirm or deny."""
WAKE_KINDS = frozenset({"speech.end", "last_words.end"})
"""Prompts where players talk (day, election and PK speeches, last words): commands need the judge's name."""
COMMAND_WEIGHT = 1.0
"""Where people talk, all the commands together weigh this many times the filler words together."""
START = Prompt("game.start", frozenset())
"""Before the first question: the host says the game can start."""
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
    wake: tuple[str, ...] = ()
    """The judge's names (host words): where people talk a command begins with one ("法官，过")."""
    start: tuple[str, ...] = ()
    """Words that start the game at `START` ("开始")."""
    filler: tuple[str, ...] = ()
    """Words of the model (not host words) that stand for talk where people talk ("[unk]")."""
    dropped: frozenset[str] = frozenset()
    """Host words never offered (a pack without `say:`, whose host words are what is spoken): `without`."""

    def named(self, judge_name: str | None) -> Pack:
        """This pack with the judge called `judge_name` (a host word; None or "" keeps the pack's)."""
        from dataclasses import replace

        return replace(self, wake=(judge_name,)) if judge_name else self

    def without(self, forms: str) -> Pack:
        """This pack without the spoken forms a calibration found the host's voice does not get through (the
        config's `game.drop_forms`): "一号:하나, 七号:일곱" drops those forms of those host words (a `say:`
        pack), "幺号, 幺" those host words (a pack whose host words are spoken as they are). Raises PackError
        for a form the pack does not have, or one that is the last way to say its word."""
        from dataclasses import replace

        say = {host: list(said) for host, said in self.say.items()}
        dropped = set(self.dropped)
        for entry in (e.strip() for e in forms.replace("，", ",").split(",")):
            if not entry:
                continue
            host, _, form = entry.partition(":") if ":" in entry else ("", "", entry)
            host, form = host.strip(), form.strip()
            if say:
                owners = [h for h, said in say.items() if form in said and (not host or h == host)]
                if not owners:
                    raise PackError(f"cannot drop {entry!r}: the grammar {self.name} has no such spoken form")
                for owner in owners:
                    if len(say[owner]) == 1:
                        raise PackError(f"cannot drop {form!r}: it is the last way the grammar {self.name} "
                                        f"says {owner}")
                    say[owner].remove(form)
            else:
                groups = [*self.controls.values(), self.wake, self.start]
                if any(form in group and all(w == form or w in dropped for w in group) for group in groups):
                    raise PackError(f"cannot drop {form!r}: it is the last word of its kind in the grammar "
                                    f"{self.name}")
                dropped.add(host or form)
        return replace(self, say={h: tuple(f) for h, f in say.items()}, dropped=frozenset(dropped))

    def control(self, words: str) -> str | None:
        """Which control `words` are ("undo" …), ignoring spaces the recogniser puts between words."""
        flat = "".join(words.split())
        for name, said in self.controls.items():
            if flat in ("".join(s.split()) for s in said):
                return name
        return None

    def control_words(self, names: tuple[str, ...] = CONTROLS) -> list[str]:
        return [w for name in names for w in self.controls.get(name, ())]

    def own_words(self) -> frozenset[str]:
        """The words this pack adds to the parser's: controls, the judge's name, start words (extras are
        answer words the parser understands)."""
        return frozenset([*self.control_words(), *self.wake, *self.start])


def yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error in one line: "not valid YAML on line 2 (expected ',' or ']')"."""
    mark = getattr(exc, "problem_mark", None)
    where = f" on line {mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"not valid YAML{where} ({problem})"


def load_pack(name_or_path: str | Path = "zh") -> Pack:
    path = Path(name_or_path)
    if not path.suffix:
        path = GRAMMARS_DIR / f"{name_or_path}.yaml"
    return _load(str(path))


@lru_cache(maxsize=8)
def _load(path: str) -> Pack:
    try:
        raw: object = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise PackError(f"cannot read the grammar {path}: {e}") from None
    except yaml.YAMLError as e:
        raise PackError(f"cannot read the grammar {path}: {yaml_problem(e)}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("controls"), dict):
        raise PackError(f"the grammar {path} has no controls: table")
    spec: dict[object, object] = raw

    def table(key: str) -> dict[str, tuple[str, ...]]:
        value = spec.get(key) or {}
        if not isinstance(value, dict):
            raise PackError(f"{key}: in {path} must be a table")
        return {str(k): tuple(str(w) for w in (v if isinstance(v, list) else [v])) for k, v in value.items()}

    def words(key: str) -> tuple[str, ...]:
        value = spec.get(key) or []
        if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() for w in value):
            raise PackError(f"{key}: in {path} must be a list of words")
        return tuple(value)

    controls = table("controls")
    missing = [c for c in CONTROLS if not controls.get(c)]
    if missing:
        raise PackError(f"the grammar {path} lacks the control words for {', '.join(missing)}")
    wake, start, filler = words("wake"), words("start"), words("filler")
    for key, value in (("wake", wake), ("start", start), ("filler", filler)):
        if not value:
            raise PackError(f"the grammar {path} has no {key}: words")
    return Pack(str(raw.get("lang", Path(path).stem)), controls, table("extra"), table("say"), wake, start,
                filler)


def seat_words(seats: Iterable[int]) -> list[str]:
    """The words naming these seats, as hostwords.phrases writes them (七号, 七)."""
    out: list[str] = []
    for n in seats:
        out += [f"{zh_number(n)}号", zh_number(n)]
    return out


def legal_host_words(prompt: Prompt, max_seat: int, pack: Pack) -> list[str]:
    """Host words legal at this prompt: its words, only the seats it may name, the extras, the controls
    (without the judge's name: `Grammar.phrases_for` puts it in front where it is needed). A prompt that
    lists its own `words` in `info` (the lobby of `narrator serve`) offers exactly those."""
    if prompt is START:  # 开始, 规则 … (Session.explain before the start) and the controls that mean something
        return list(dict.fromkeys([*pack.start, *pack.extra.get("rules", ()), *pack.control_words(START_CONTROLS)]))
    own = prompt.info.get("words")
    words: list[str] = list(own) if own is not None else phrases(prompt.accepts, max_seat)
    if own is None and prompt.accepts == {Seats} and prompt.seats:
        # A seat prompt may name only its selectable seats; other answer types name voters too.
        every = set(seat_words(range(1, max_seat + 1)))
        allowed = set(seat_words(prompt.seats))
        words = [w for w in words if w not in every or w in allowed]
        words = [w for w in words if w not in ("幺号", "幺", "两号", "两") or _small_ok(w, prompt.seats)]
    for kind in prompt.accepts:
        words += pack.extra.get(ANSWER_SLUGS.get(kind, ""), ())
    words += pack.extra.get("rules", ())  # 规则 …, at any prompt (Session.explain)
    if prompt.accepts == {Seats} and prompt.min_seats > 1:  # "不是十号，是十一号", "去掉十号" (listen/converge.py)
        words += pack.extra.get("repair", ())
    words += pack.control_words()
    return list(dict.fromkeys(words))


def _small_ok(word: str, seats: tuple[int, ...]) -> bool:
    return (1 in seats) if word.startswith("幺") else (2 in seats)


def split_phrase(phrase: str, knows: Callable[[str], bool], *, words_only: bool = False) -> str:
    """The phrase in pieces the model knows: each word whole if known, else the fewest known pieces
    (smaller words, at worst single characters). Raises VocabularyError naming the phrase.

    `words_only`: a word that is not the parser's (the pack's own words: controls, the judge's name,
    start words; and every spoken form of a `say:` table) must be a word — known whole, or split
    with at least one piece of two characters or more; characters alone ("啊 吧 啊 吧") are nonsense the
    model would still "hear"."""
    out: list[str] = []
    for word in phrase.split():
        pieces = _fewest(word, knows)
        if pieces is None:
            bad = [c for c in word if not knows(c)]
            raise VocabularyError(
                f"the speech model cannot recognise the phrase {phrase!r}: it knows neither {word!r} nor "
                f"{'the characters ' + ''.join(bad) if bad else 'any split of it'}")
        if words_only and len(pieces) > 1 and all(len(p) == 1 for p in pieces):
            raise VocabularyError(
                f"the speech model does not know the word {word!r} of the phrase {phrase!r}, only its "
                "characters one by one: check its spelling in the grammar")
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
        if host_word in self.pack.dropped:
            return []
        forms = self.pack.say.get(host_word, ()) if self.pack.say else (host_word,)
        words_only = bool(self.pack.say) or host_word in self.pack.own_words()
        out = []
        for form in forms:
            if form not in self._spoken_cache:
                self._spoken_cache[form] = split_phrase(form, self.knows, words_only=words_only)
            said = self._spoken_cache[form]
            self._back[tuple(said.split())] = host_word
            out.append(said)
        return out

    def phrases_for(self, prompt: Prompt, max_seat: int) -> list[str]:
        spoken = [s for w in legal_host_words(prompt, max_seat, self.pack) for s in self.spoken(w)]
        spoken = list(dict.fromkeys(spoken))
        if prompt.kind in WAKE_KINDS:
            commands = [f"{name} {s}" for name in self.wake_spoken() for s in spoken]
            fillers = self.fillers()
            return commands * max(1, round(COMMAND_WEIGHT * len(fillers) / len(commands))) + fillers
        return [*spoken, UNK] if self.has_unk else spoken

    def wake_spoken(self) -> list[str]:
        return list(dict.fromkeys(s for name in self.pack.wake for s in self.spoken(name)))

    def fillers(self) -> list[str]:
        """The pack's filler words, each a word of the model (raises VocabularyError naming one it lacks)."""
        said = {w for forms in self.pack.say.values() for form in forms for w in form.split()}
        said |= {w for word in self.pack.own_words() for w in word.split()}
        for word in self.pack.filler:
            if not self.knows(word):
                raise VocabularyError(
                    f"the speech model does not know the filler word {word!r} of the grammar {self.pack.name}: "
                    "remove it from filler: (a filler word must be one word of the model)")
            if word in said:
                raise VocabularyError(
                    f"the filler word {word!r} of the grammar {self.pack.name} is also a word the host says: "
                    "remove it from filler: (filler is read as nothing)")
        return list(self.pack.filler)

    def command(self, text: str, prompt: Prompt, max_seat: int) -> str | None:
        """Recogniser output as host words at this prompt. Where people talk only the judge's name, then one
        command and nothing but filler after it, count, and the name is dropped ("法官 过", "法官 过 [unk]" →
        "过"; "过", "[unk] 过", "法官 [unk] 过", "法官 过 过" → None). The name begins the reading, or a new
        breath (after a pause: `PAUSE`, from the word times), or follows one word heard with it — the room in
        the endpointer's pre-roll, or a player's last word when the host spoke right after him ("[unk] 法官
        过", "过 法官 过", "七 号 <pause> 法官 过" → "过"); later amid talk it is no name ("[unk] [unk] 法官 过",
        "七 号 法官 过" → None). Measured: scripts/bench_listen.py wake, tests/room/test_room_speeches.py."""
        if prompt.kind not in WAKE_KINDS:
            return self.host_words(text)
        tokens = text.split()
        legal = legal_host_words(prompt, max_seat, self.pack)
        for start in range(len(tokens)):
            if start > 1 and tokens[start - 1] != PAUSE:
                continue  # the name begins the reading or a breath, or follows one word heard with it
            for name in self.wake_spoken():
                said = name.split()
                if tokens[start : start + len(said)] == said:
                    rest = tokens[start + len(said):]
                    while rest and self._filler(rest[-1]):
                        rest.pop()
                    command = next((w for w in legal for s in self.spoken(w) if s.split() == rest), None)
                    if command is not None:
                        return command
        return None

    def _filler(self, word: str) -> bool:
        return word in (UNK, PAUSE) or word in self.pack.filler

    def json_for(self, prompt: Prompt, max_seat: int) -> str:
        return json.dumps(self.phrases_for(prompt, max_seat), ensure_ascii=False)

    def check(self, max_seat: int) -> None:
        """Start-up check: every phrase any prompt can use is expressible (raises VocabularyError)."""
        for kind in ANSWER_SLUGS:
            self.phrases_for(Prompt("check", frozenset({kind})), max_seat)
        self.fillers()
        for what, words in (("the judge's name", self.pack.wake), ("a start word", self.pack.start)):
            if not any(self.spoken(w) for w in words):
                raise VocabularyError(f"the grammar {self.pack.name} has no way to say {what} "
                                      f"({', '.join(words)}): give it a spoken form under say:")
        unsayable = self.unsayable(max_seat)
        if unsayable:
            raise VocabularyError(
                f"the grammar {self.pack.name} has no spoken form for {', '.join(unsayable)}: the judge asks for "
                f"every seat up to {max_seat}, “过” and the controls by voice; give each one under say:")

    def unsayable(self, max_seat: int) -> list[str]:
        """Words the judge asks for that this pack cannot say: a seat up to `max_seat` (neither 七号 nor 七),
        过, a control with none of its words (重复, 撤销 …)."""
        out = [seat_words([n])[0] for n in range(1, max_seat + 1) if not any(self.spoken(w) for w in seat_words([n]))]
        out += [w for w in ("过",) if not self.spoken(w)]
        out += [self.pack.controls[c][0] for c in CONTROLS if not any(self.spoken(w) for w in self.pack.controls[c])]
        return out

    def host_words(self, text: str) -> str:
        """Recogniser output → host words: [unk] and filler dropped, spoken phrases mapped back (longest
        first)."""
        tokens = [t for t in text.split() if not self._filler(t)]
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
