"""The game journal: versioned JSON lines that a Session writes as it goes and resumes from.

    {"narrator_journal": 2, "setup": {"players": 12, "deck": [...], "rules": {...}}, "seed": 7, "lang": "zh-Hans",
     "sum": "5f1c…"}
    {"said": 0, "sum": "0b7e…"}
    {"n": 0, "kind": "wolves.identify", "answer": {"type": "seats", "seats": [3, 5, 8, 11]}, "sum": "c2a9…"}
    {"said": 1, "sum": "77d0…"}
    {"n": 1, "kind": "witch.save", "answer": {"type": "yes_no", "yes": true}, "sum": "e4f3…"}
    {"undo": 1, "sum": "1a2b…"}

Line 1 is the header: the format number, the set-up (every card and every house-rule switch), the seed and
the script's language. Every later line is one accepted answer, numbered `n` (its place among the answers
that stand) with the prompt kind it was given to; an `undo` taking back answer `n` (the last standing
one): the undo is journaled rather than the file rewritten, so a resume replays exactly what stands and the
file stays append-only; or a `said` mark: the table has heard every line up to and including the question
for answer `n` (the live loop writes one after each batch of lines has left the speaker), so that a resume
says again what the table missed. Marks change nothing in what the replay decides. Each line is written whole
with a trailing newline, then flushed and fsynced before `Session.submit` returns; a write that fails (a
full or read-only disk) is cut back off, so the file never holds a line that was not acknowledged.

Format 2 chains the lines: each record's `sum` is the first 16 hex digits of SHA-256 over the previous
line's sum and the record itself (its JSON without `sum`, keys sorted, compact). Any edit, a line swapped,
repeated or dropped in the middle, or a header from another game breaks the chain at a line that is named.
Format 1 journals (no sums, no marks) still load, with a note; a game resumed from one goes on in format 1.

Loading checks every line. A last line without its newline was never acknowledged (the process died while
writing it): it is dropped with a warning, and cut from the file (by the writer only, under the game's
lock) before anything is appended. Anything else that is wrong — bad JSON, a broken chain, an unknown
answer type, a newer format, numbers out of order, an answer given to another kind of prompt than the game
asks there (found by the Session's checked replay) — refuses the whole journal with a JournalError naming
the line; nothing is half-loaded.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Protocol

from narrator.engine.answers import (
    Answer,
    Ballots,
    Cards,
    Direction,
    Duel,
    Pass,
    Seats,
    SelfExplode,
    TakeCard,
    VoteResult,
    YesNo,
)
from narrator.engine.prompts import ANSWER_SLUGS
from narrator.engine.roles import Role
from narrator.engine.rules import Rules, Setup, SetupError

FORMAT = 2
"""The journal format this narrator writes (and the newest it reads). A newer number is refused, never
guessed at; format 1 (no checksums, no said marks) still loads, with a note."""
MAGIC = "narrator_journal"
log = logging.getLogger(__name__)


class JournalError(ValueError):
    """A journal that cannot be loaded as a whole; `line` is 1-based (0: the journal as a whole)."""

    def __init__(self, name: str, line: int, reason: str) -> None:
        self.name, self.line, self.reason = name, line, reason
        where = f"{name} line {line}" if line else name
        super().__init__(f"{where}: {reason}")


class JournalWriteError(OSError):
    """The journal could not be written (a full, read-only or forbidden disk): the record is not in it."""

    def __init__(self, name: str, exc: OSError) -> None:
        super().__init__(exc.errno, exc.strerror or str(exc), name)
        self.name = name
        self.folder = str(Path(name).parent)

    @property
    def fix(self) -> str:
        """What the host can do about it, in one clause."""
        if self.errno == errno.ENOSPC or self.errno == errno.EDQUOT:
            return "the disk is full: free some space"
        if self.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return "the folder is not writable: make it writable (or set NARRATOR_DATA_DIR to one that is)"
        return "check the disk"

    def __str__(self) -> str:
        return f"cannot write {self.name}: {self.strerror} ({self.fix})"


# ---- stores ---------------------------------------------------------------------------------------------


class JournalStore(Protocol):
    """Where a journal's lines live. `append` is durable when it returns."""

    name: str
    """For messages: the file's path, or "journal"."""
    writable: bool
    """False: a reader's view (`games`, `recap` …): append and cut refuse, nothing is ever changed."""

    def read(self) -> bytes:
        """Everything stored so far (b"" for a new journal)."""
        ...

    def append(self, line: bytes) -> None:
        """Add one whole line (ending in b"\\n"); flushed and fsynced (where there is a disk) on return.
        JournalWriteError if it could not be: then nothing of it is kept."""
        ...

    def cut(self, size: int) -> None:
        """Keep only the first `size` bytes (drops a torn last line before appending after it)."""
        ...

    def close(self) -> None: ...


class MemoryStore:
    """A journal in memory: for tests, the benchmark, and games nobody wants to keep."""

    writable = True

    def __init__(self, data: bytes = b"", name: str = "journal") -> None:
        self.data = bytearray(data)
        self.name = name

    def read(self) -> bytes:
        return bytes(self.data)

    def append(self, line: bytes) -> None:
        self.data += line

    def cut(self, size: int) -> None:
        del self.data[size:]

    def close(self) -> None:
        pass


class FileStore:
    """A journal file, opened for appending; each append is written whole, then fsynced. With
    `writable=False` it only reads (opened read-only each time): a reader can never change a game another
    process is writing."""

    def __init__(self, path: str | Path, *, writable: bool = True) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        self.writable = writable
        self._fd: int | None = None

    def read(self) -> bytes:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise JournalError(self.name, 0, f"cannot read the journal: {exc.strerror or exc}") from exc

    def _open(self) -> int:
        if not self.writable:
            raise PermissionError(f"{self.name} is open for reading only")
        if self._fd is None:
            new = not self.path.exists()
            try:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            except OSError as exc:
                raise JournalWriteError(self.name, exc) from exc
            if new:  # the new file's directory entry must survive a crash too
                fsync_dir(self.path.parent)
        return self._fd

    def append(self, line: bytes) -> None:
        fd = self._open()
        size = os.fstat(fd).st_size
        view = memoryview(line)
        try:
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        except OSError as exc:  # a full disk can take half a line: it must not stay
            try:
                os.ftruncate(fd, size)
                os.fsync(fd)
            except OSError:
                log.warning("%s: could not cut back a failed write", self.name)
            raise JournalWriteError(self.name, exc) from exc

    def cut(self, size: int) -> None:
        fd = self._open()
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        except OSError as exc:
            raise JournalWriteError(self.name, exc) from exc

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in folder `path` durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomically(path: Path, data: bytes) -> None:
    """`data` at `path`, whole or not at all: written and fsynced under a temporary name, then renamed;
    the temporary file never stays behind (OSError says why it could not be written)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


# ---- records --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Header:
    setup: Setup
    seed: int
    lang: str


@dataclass
class Loaded:
    """A journal read and checked line by line (the replay is the Session's)."""

    header: Header
    answers: list[tuple[str, Answer]]
    """The answers that stand (undos applied), each with the prompt kind it was given to."""
    lines: list[int]
    """The 1-based line of each standing answer (to name it if the replay diverges)."""
    size: int
    """Bytes of whole lines (a torn last line excluded)."""
    warnings: list[str] = field(default_factory=list)
    format: int = FORMAT
    heard: tuple[int, bool] | None = None
    """How far the table has heard, from the last `said` mark and any undo after it: (n, True) every line
    up to and including the question for answer n; (n, False) every line before that question; (-1, False)
    nothing yet (no mark: not even the opening). None for a format 1 journal (it has no marks)."""
    sum: str = ""
    """The last line's checksum: the next line chains on it ("" in format 1)."""
    told: list[tuple[list[tuple[str, Answer]], int]] = field(default_factory=list)
    """For each undo that took back an answer the table had heard past (below a said mark): the answers that
    stood at that mark and the mark's n. The table heard that game's lines up to the question for answer n;
    a resume says none of them again where the game still says the same (`Session.resume`)."""


class Chain:
    """Encodes a journal's lines, each chained on the one before (format 2), or plain (format 1, a game
    resumed from an old journal). `last` moves on only once the line is stored: call `advance`."""

    def __init__(self, fmt: int = FORMAT, last: str = "") -> None:
        self.format, self.last = fmt, last
        self._pending = last

    def header(self, header: Header) -> bytes:
        return self._line({MAGIC: self.format, "setup": encode_setup(header.setup), "seed": header.seed,
                           "lang": header.lang})

    def answer(self, n: int, kind: str, answer: Answer) -> bytes:
        return self._line({"n": n, "kind": kind, "answer": encode(answer)})

    def undo(self, n: int) -> bytes:
        return self._line({"undo": n})

    def said(self, n: int) -> bytes:
        """The table has heard every line up to and including the question for answer n."""
        assert self.format >= 2, "format 1 has no said marks"
        return self._line({"said": n})

    def advance(self) -> None:
        """The line last encoded is stored: the next one chains on it."""
        self.last = self._pending

    def _line(self, record: dict[str, object]) -> bytes:
        if self.format >= 2:
            self._pending = checksum(self.last, record)
            record = {**record, "sum": self._pending}
        return (_LINE.encode(record) + "\n").encode("utf-8")


_LINE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
"""A journal line's JSON (`json.dumps` with these options, without making an encoder per line)."""
_SUMMED = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))
"""The JSON a checksum is taken over: keys sorted, compact."""


def checksum(previous: str, record: dict[str, object]) -> str:
    """The chained checksum of `record` (without its own sum) after the line whose sum is `previous`."""
    body = _SUMMED.encode(record)
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()[:16]


def encode_header(header: Header) -> bytes:
    """A lone format-2 header (the first line of a new journal)."""
    return Chain().header(header)


def load(store: JournalStore) -> Loaded:
    """Read and check every line of `store`; raises JournalError naming the first bad line."""
    name = store.name
    data = store.read()
    if not data:
        raise JournalError(name, 0, "the journal is empty")
    warnings: list[str] = []
    size = len(data)
    raw = data.split(b"\n")
    if raw[-1]:  # the process died while writing the last line: it was never acknowledged
        torn = len(raw)
        if torn == 1:
            raise JournalError(name, 1, "the header is cut short: the journal holds no game")
        warnings.append(f"{name} line {torn}: cut short (the process stopped while writing it); dropped")
        size -= len(raw[-1])
        log.warning(warnings[-1])
    raw = raw[:-1]
    first = _json(name, 1, raw[0])
    header = _header(name, first)
    fmt = first[MAGIC]
    assert isinstance(fmt, int)  # _header checked it
    last = _chained(name, 1, first, "", fmt)
    if fmt < 2:
        warnings.append(f"{name}: journal format {fmt} has no checksums (an edit cannot be detected) and no "
                        "said marks (a resume says only the question again)")
    answers: list[tuple[str, Answer]] = []
    lines: list[int] = []
    heard: tuple[int, bool] | None = (-1, False) if fmt >= 2 else None
    told: list[tuple[list[tuple[str, Answer]], int]] = []
    for i, text in enumerate(raw[1:], start=2):
        record = _json(name, i, text)
        last = _chained(name, i, record, last, fmt)
        keys = set(record) - {"sum"}
        if keys == {"undo"}:
            n, taken = record["undo"], len(answers) - 1
            if not answers or n != taken:
                raise JournalError(name, i, f"undo {n!r} does not take back the last answer ({taken})")
            if heard is not None and heard[1] and heard[0] >= taken:
                told.append((list(answers), heard[0]))
            answers.pop()
            lines.pop()
            if heard is not None and heard[0] >= taken:  # the taken-back answer's question is asked again
                heard = (taken, False)
            continue
        if keys == {"said"} and fmt >= 2:
            if record["said"] != len(answers):
                raise JournalError(name, i, f"said mark {record['said']!r} does not follow answer "
                                   f"{len(answers) - 1} (expected {len(answers)})")
            heard = (len(answers), True)
            continue
        if keys != {"n", "kind", "answer"}:
            raise JournalError(name, i, "neither an answer (n, kind, answer), an undo nor a said mark")
        if record["n"] != len(answers):
            raise JournalError(name, i, f"answer number {record['n']!r} out of order (expected {len(answers)})")
        if not isinstance(record["kind"], str) or not record["kind"]:
            raise JournalError(name, i, "the prompt kind must be a non-empty string")
        try:
            answer = decode(record["answer"])
        except ValueError as exc:
            raise JournalError(name, i, str(exc)) from None
        answers.append((record["kind"], answer))
        lines.append(i)
    return Loaded(header, answers, lines, size, warnings, fmt, heard, last, told)


def _chained(name: str, line: int, record: dict[str, object], previous: str, fmt: int) -> str:
    """The line's checksum, checked against the chain (format 2); "" in format 1."""
    if fmt < 2:
        if "sum" in record:
            raise JournalError(name, line, "a checksum in a format 1 journal")
        return ""
    got = record.get("sum")
    if not isinstance(got, str):
        raise JournalError(name, line, "no checksum (every line of a format 2 journal has one)")
    body = {k: v for k, v in record.items() if k != "sum"}
    if checksum(previous, body) != got:
        why = ("the header was changed, or is another game's" if line == 1 else
               "the line was changed, moved, repeated or taken from another game (or one before it was removed)")
        raise JournalError(name, line, f"checksum does not match: {why}")
    return got


def _json(name: str, line: int, text: bytes) -> dict[str, object]:
    try:
        record: object = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JournalError(name, line, f"not a JSON line ({exc})") from None
    if not isinstance(record, dict):
        raise JournalError(name, line, "not a JSON object")
    return record


def _header(name: str, record: dict[str, object]) -> Header:
    version = record.get(MAGIC)
    if not isinstance(version, int) or isinstance(version, bool):
        raise JournalError(name, 1, "not a narrator journal (no format number in the first line)")
    if version > FORMAT:
        raise JournalError(name, 1, f"journal format {version} is newer than this narrator reads ({FORMAT})")
    if version < 1:
        raise JournalError(name, 1, f"unknown journal format {version}")
    if set(record) - {"sum"} != {MAGIC, "setup", "seed", "lang"}:
        raise JournalError(name, 1, "the header needs exactly setup, seed and lang")
    seed, lang = record["seed"], record["lang"]
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise JournalError(name, 1, f"the seed must be an integer, not {seed!r}")
    if not isinstance(lang, str):
        raise JournalError(name, 1, f"the language must be a string, not {lang!r}")
    try:
        setup = decode_setup(record["setup"])
    except (ValueError, TypeError) as exc:
        raise JournalError(name, 1, f"bad set-up: {exc}") from None
    return Header(setup, seed, lang)


# ---- the set-up -----------------------------------------------------------------------------------------


def encode_setup(setup: Setup) -> dict[str, object]:
    rules: dict[str, object] = {}
    for f in fields(Rules):
        value = getattr(setup.rules, f.name)
        rules[f.name] = list(value) if isinstance(value, tuple) else value
    return {"players": setup.players, "deck": [r.value for r in setup.deck], "rules": rules}


def decode_setup(data: object) -> Setup:
    """The set-up back, checked as a new game's would be (Setup.build); switches missing from an older
    journal take their defaults."""
    if not isinstance(data, dict) or set(data) != {"players", "deck", "rules"}:
        raise ValueError("a set-up is {players, deck, rules}")
    if not isinstance(data["rules"], dict):
        raise ValueError("rules must be a mapping of switches")
    deck = [_role(x) for x in _list(data["deck"], "deck")]
    try:
        rules = Rules().with_overrides(data["rules"])
        dealt = list(deck)
        if Role.THIEF in dealt:
            for _ in range(2):
                if Role.VILLAGER not in dealt:
                    raise ValueError("a deck with a thief holds two extra villagers")
                dealt.remove(Role.VILLAGER)
        setup = Setup.build(dealt, rules, players=_int(data["players"], "players"))
    except SetupError as exc:
        raise ValueError(str(exc)) from None
    if setup.deck != tuple(deck):
        raise ValueError("the deck is not in the order a set-up keeps it")
    return setup


# ---- answers --------------------------------------------------------------------------------------------


def encode(answer: Answer) -> dict[str, object]:
    """One answer as a JSON object, tagged with its slug (`ANSWER_SLUGS`)."""
    out: dict[str, object] = {"type": ANSWER_SLUGS[type(answer)]}
    if isinstance(answer, Seats):
        out["seats"] = list(answer.seats)
    elif isinstance(answer, YesNo):
        out["yes"] = answer.yes
    elif isinstance(answer, SelfExplode):
        out["seat"] = answer.seat
    elif isinstance(answer, Cards):
        out["roles"] = [r.value for r in answer.roles]
    elif isinstance(answer, TakeCard):
        out["role"] = None if answer.role is None else answer.role.value
    elif isinstance(answer, Ballots):
        out["votes"] = [list(v) for v in answer.votes]
    elif isinstance(answer, VoteResult):
        out["out"], out["tied"] = answer.out, list(answer.tied)
    elif isinstance(answer, Direction):
        out["side"] = answer.side
    elif isinstance(answer, Duel):  # --- modern roles: the knight's duel ---
        out["knight"], out["target"] = answer.knight, answer.target
    return out


_FIELDS: dict[str, set[str]] = {
    "seats": {"seats"}, "yes_no": {"yes"}, "pass": set(), "self_explode": {"seat"}, "cards": {"roles"},
    "take_card": {"role"}, "ballots": {"votes"}, "vote_result": {"out", "tied"}, "direction": {"side"},
    "duel": {"knight", "target"},
}  # fmt: skip


def decode(data: object) -> Answer:
    """An answer back from its JSON object; ValueError says what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError("an answer is an object with a type")
    slug = data["type"]
    if slug not in _FIELDS:
        raise ValueError(f"unknown answer type {slug!r}")
    if set(data) - {"type"} != _FIELDS[slug]:
        raise ValueError(f"a {slug} answer holds exactly: {', '.join(sorted(_FIELDS[slug])) or 'nothing'}")
    if slug == "seats":
        return Seats(tuple(_int(x, "seat") for x in _list(data["seats"], "seats")))
    if slug == "yes_no":
        if not isinstance(data["yes"], bool):
            raise ValueError("yes must be true or false")
        return YesNo(data["yes"])
    if slug == "pass":
        return Pass()
    if slug == "self_explode":
        return SelfExplode(_int(data["seat"], "seat"))
    if slug == "cards":
        return Cards(tuple(_role(x) for x in _list(data["roles"], "roles")))
    if slug == "take_card":
        return TakeCard(None if data["role"] is None else _role(data["role"]))
    if slug == "ballots":
        votes = []
        for pair in _list(data["votes"], "votes"):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError("each vote is [voter, target]")
            votes.append((_int(pair[0], "voter"), _int(pair[1], "target")))
        return Ballots(tuple(votes))
    if slug == "vote_result":
        out = None if data["out"] is None else _int(data["out"], "out")
        return VoteResult(out, tuple(_int(x, "tied") for x in _list(data["tied"], "tied")))
    if slug == "duel":
        return Duel(_int(data["knight"], "knight"), _int(data["target"], "target"))
    side = data["side"]
    if side not in ("left", "right"):
        raise ValueError(f"side must be left or right, not {side!r}")
    return Direction(side)


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} must be an integer, not {value!r}")
    return value


def _list(value: object, what: str) -> list[object]:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, not {value!r}")
    return value


def _role(value: object) -> Role:
    try:
        if not isinstance(value, str):
            raise ValueError
        return Role(value)
    except ValueError:
        raise ValueError(f"unknown card {value!r}") from None
