"""The journal: a codec for every answer and set-up, durable appends, and loads that refuse, never guess."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journal_drill import drive
from test_properties import PRESETS, setups

from narrator.engine import answers as a
from narrator.engine.roles import Role
from narrator.engine.rules import Setup
from narrator.judge.presets import make_setup
from narrator.session.journal import (
    FORMAT,
    Chain,
    FileStore,
    Header,
    JournalError,
    JournalStore,
    JournalWriteError,
    MemoryStore,
    checksum,
    decode,
    decode_setup,
    encode,
    encode_setup,
    load,
)
from narrator.session.session import Refused, Session
from narrator.sim.autohost import AutoHost, Deal

HERE = Path(__file__).parent


def roundtrip_setup(setup: Setup) -> Setup:
    return decode_setup(json.loads(json.dumps(encode_setup(setup))))


def roundtrip(answer: a.Answer) -> a.Answer:
    return decode(json.loads(json.dumps(encode(answer))))


# ---- the codec ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_round_trips(name: str) -> None:
    setup = make_setup(name)
    assert roundtrip_setup(setup) == setup


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups())
def test_random_house_rules_round_trip(setup: Setup) -> None:
    assert roundtrip_setup(setup) == setup


seats = st.integers(-3, 25)
roles = st.sampled_from(list(Role))
ANSWERS: dict[type, st.SearchStrategy[a.Answer]] = {
    a.Seats: st.builds(a.Seats, st.tuples(seats) | st.lists(seats, max_size=5).map(tuple)),
    a.YesNo: st.builds(a.YesNo, st.booleans()),
    a.Pass: st.just(a.Pass()),
    a.SelfExplode: st.builds(a.SelfExplode, seats),
    a.Cards: st.builds(a.Cards, st.lists(roles, max_size=3).map(tuple)),
    a.TakeCard: st.builds(a.TakeCard, st.none() | roles),
    a.Ballots: st.builds(a.Ballots, st.lists(st.tuples(seats, seats), max_size=12).map(tuple)),
    a.VoteResult: st.builds(a.VoteResult, st.none() | seats, st.lists(seats, max_size=3).map(tuple)),
    a.Direction: st.builds(a.Direction, st.sampled_from(("left", "right"))),
    a.Duel: st.builds(a.Duel, seats, seats),  # the knight's duel (modern roles)
}


def test_the_codec_knows_every_answer_type() -> None:
    assert set(ANSWERS) == set(typing.get_args(a.Answer))


@settings(max_examples=300, deadline=None)
@given(answer=st.one_of(*ANSWERS.values()))
def test_every_answer_round_trips(answer: a.Answer) -> None:
    assert roundtrip(answer) == answer


@pytest.mark.parametrize("name", PRESETS)
def test_random_games_resume_from_their_journal(name: str) -> None:
    """Every preset: games written through a Session (with undos) resume to the same game."""
    for seed in range(3):
        store = MemoryStore()
        states: list[Session] = []
        drive(store, 7919 * seed + len(name), states.append)
        played = states[-1]
        again = Session.resume(MemoryStore(store.read()))
        assert again.answers == played.answers and again.game.journal == played.game.journal
        assert (again.setup, again.seed, again.lang) == (played.setup, played.seed, played.lang)


@pytest.mark.parametrize(
    "bad",
    [{"type": "seats", "seats": [1.5]}, {"type": "seats"}, {"type": "yes_no", "yes": 1}, {"type": "shrug"},
     {"type": "cards", "roles": ["dragon"]}, {"type": "direction", "side": "up"}, {"seats": [1]}, [1],
     {"type": "ballots", "votes": [[1, 2, 3]]}, {"type": "pass", "extra": 1}],
)  # fmt: skip
def test_bad_answers_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        decode(bad)


# ---- loading: refused with the line named ---------------------------------------------------------------


def game_file(tmp_path: Path, answers: int = 12) -> tuple[Path, list[str], AutoHost]:
    """A journal file of a real game after `answers` answers, its lines, and the host who answered."""
    path = tmp_path / "game.jsonl"
    setup = make_setup("12人预女猎白")
    rng = random.Random(3)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    s = Session(setup, 3, store=FileStore(path))
    for _ in range(answers):
        assert s.prompt is not None
        s.submit(host.answer(s.game, s.prompt))
    s.close()
    return path, path.read_text(encoding="utf-8").splitlines(), host


def write(path: Path, lines: list[str], end: str = "\n") -> FileStore:
    path.write_text("\n".join(lines) + end, encoding="utf-8")
    return FileStore(path)


def resigned(lines: list[str]) -> list[str]:
    """The lines with their checksum chain made anew: an edit that keeps the chain whole, so that the
    checks behind the chain (answer types, numbers, the replay) are what refuses it."""
    out, last = [], ""
    for text in lines:
        record = {k: v for k, v in json.loads(text).items() if k != "sum"}
        last = checksum(last, record)
        out.append(json.dumps({**record, "sum": last}, ensure_ascii=False))
    return out


def refused(store: JournalStore) -> JournalError:
    with pytest.raises(JournalError) as info:
        Session.resume(store)
    return info.value


def test_a_good_file_resumes(tmp_path: Path) -> None:
    path, lines, _ = game_file(tmp_path)
    s = Session.resume(FileStore(path))
    assert len(lines) >= 12 and not s.warnings and s.prompt is not None
    assert s.take_lines() and s.take_lines() == []  # the re-asked prompt, once


def test_bad_json_is_refused_naming_the_line(tmp_path: Path) -> None:
    path, lines, _ = game_file(tmp_path)
    lines[4] = lines[4][:-3] + "!!}"
    err = refused(write(path, lines))
    assert err.line == 5 and "line 5" in str(err) and "JSON" in err.reason and str(path) in str(err)


def test_an_unknown_answer_type_is_refused(tmp_path: Path) -> None:
    path, lines, _ = game_file(tmp_path)
    record = json.loads(lines[6])
    record["answer"] = {"type": "telepathy"}
    lines[6] = json.dumps(record)
    err = refused(write(path, lines))
    assert err.line == 7 and "checksum does not match" in err.reason
    err = refused(write(path, resigned(lines)))
    assert err.line == 7 and "telepathy" in err.reason


def test_a_future_format_is_refused(tmp_path: Path) -> None:
    path, lines, _ = game_file(tmp_path)
    header = json.loads(lines[0])
    header["narrator_journal"] = FORMAT + 1
    lines[0] = json.dumps(header)
    err = refused(write(path, lines))
    assert err.line == 1 and f"format {FORMAT + 1}" in err.reason


def test_a_file_that_is_no_journal_is_refused(tmp_path: Path) -> None:
    err = refused(write(tmp_path / "notes.txt", ['{"hello": "world"}']))
    assert err.line == 1 and "not a narrator journal" in err.reason
    assert refused(write(tmp_path / "empty.jsonl", [], end="")).line == 0


def test_answers_in_the_wrong_kind_order_are_refused(tmp_path: Path) -> None:
    """Two answers swapped: the first of them meets a prompt of another kind; the load names its line."""
    path, lines, _ = game_file(tmp_path, answers=20)
    records = [json.loads(x) for x in lines[1:]]
    i = next(i for i in range(len(records) - 1)
             if "n" in records[i] and "n" in records[i + 1] and records[i]["kind"] != records[i + 1]["kind"])
    records[i]["kind"], records[i + 1]["kind"] = records[i + 1]["kind"], records[i]["kind"]
    records[i]["answer"], records[i + 1]["answer"] = records[i + 1]["answer"], records[i]["answer"]
    err = refused(write(path, resigned([lines[0], *(json.dumps(r) for r in records)])))
    assert err.line == i + 2 and "diverged" in err.reason


def test_numbers_out_of_order_and_stray_undos_are_refused(tmp_path: Path) -> None:
    path, lines, _ = game_file(tmp_path)
    record = json.loads(lines[3])
    record["n"] += 1
    assert refused(write(path, [*lines[:3], json.dumps(record), *lines[4:]])).line == 4
    assert refused(write(path, resigned([*lines[:3], json.dumps(record), *lines[4:]]))).line == 4
    assert refused(write(path, [lines[0], '{"undo": 0}'])).line == 2


def test_a_torn_last_line_is_dropped_with_a_warning_and_cut(tmp_path: Path) -> None:
    path, lines, host = game_file(tmp_path)
    store = write(path, [*lines, lines[-1][: len(lines[-1]) // 2]], end="")
    s = Session.resume(store)
    assert len(s.warnings) == 1 and f"line {len(lines) + 1}" in s.warnings[0]
    assert path.read_text(encoding="utf-8").splitlines() == lines  # cut, so the next append starts clean
    assert s.prompt is not None
    assert not isinstance(s.submit(host.answer(s.game, s.prompt)), Refused)
    store.close()
    assert len(Session.resume(FileStore(path)).answers) == len(s.answers)


def test_a_new_game_will_not_overwrite_a_journal(tmp_path: Path) -> None:
    path, lines, _ = game_file(tmp_path)
    with pytest.raises(JournalError, match="already holds a game"):
        Session(make_setup("12人预女猎白"), store=FileStore(path))
    assert path.read_text(encoding="utf-8").splitlines() == lines


def test_the_header_names_setup_seed_and_language() -> None:
    store = MemoryStore()
    Session(make_setup("经典9人"), 42, lang="zh-Hant", store=store)
    loaded = load(store)
    assert loaded.header == Header(make_setup("经典9人"), 42, "zh-Hant") and loaded.answers == []


# ---- kill -9 ------------------------------------------------------------------------------------------


def expected_steps(seed: int) -> list[list[tuple[str, a.Answer]]]:
    """The standing answers after each step of the drill's game with this seed."""
    states: list[list[tuple[str, a.Answer]]] = []
    drive(MemoryStore(), seed, lambda s: states.append(list(s.answers)))
    return states


def kill_and_load(tmp_path: Path, seed: int, rng: random.Random) -> None:
    """Let the drill acknowledge a random number of steps, kill it a random moment later (while it writes
    the next ones), then load: every acknowledged step is there, and at most the one under way."""
    steps = expected_steps(seed)
    path = tmp_path / f"drill-{seed}.jsonl"
    child = subprocess.Popen([sys.executable, str(HERE / "journal_drill.py"), str(path), str(seed)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    target = rng.randrange(len(steps) - 1)
    acked = -1
    while acked < target:
        said = child.stdout.readline()
        assert said.strip().isdigit(), f"the drill stopped early: {said!r}"
        acked = int(said)
    time.sleep(rng.uniform(0, 0.004))
    os.kill(child.pid, signal.SIGKILL)
    rest, _ = child.communicate()
    told = [int(x) for x in rest.splitlines() if x != "END"]
    last = told[-1] if told else acked  # the drill may even have finished: then it is all there
    got = Session.resume(FileStore(path)).answers
    assert got in (steps[last], *steps[last + 1 : last + 2]), f"seed {seed} killed after step {last}"


def test_kill_9_loses_no_acknowledged_answer(tmp_path: Path) -> None:
    rng = random.Random(2024)
    for seed in range(6):
        kill_and_load(tmp_path, seed, rng)


@pytest.mark.slow
def test_kill_9_at_many_moments(tmp_path: Path) -> None:
    rng = random.Random(99)
    for seed in range(100, 140):
        kill_and_load(tmp_path, seed, rng)


# ---- said marks: a resume says what the table missed ------------------------------------------------------


def live_game(seed: int) -> tuple[bytes, list[str], list[tuple[int, int, list[str], int]], list[object]]:
    """A game journaled as the live loop does it (take the lines, say them, mark them heard, then the host's
    answer or 撤销), with an undo now and then. Returns the journal, every line the table heard in order, a
    cut after each journal line (its end in bytes, the lines heard by then, the question lines a resume says
    again there, the operations done), and the operations (an Answer, or None for an undo)."""
    setup = make_setup(PRESETS[seed % len(PRESETS)])
    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    store = MemoryStore()
    s = Session(setup, seed, store=store)
    heard: list[str] = []
    cuts: list[tuple[int, int, list[str], int]] = [(len(store.data), 0, [], 0)]
    ops: list[object] = []
    while s.prompt is not None:
        taken = s.take()
        question = [line.text for line in taken[-1][1] if line.to == "all"]
        heard += [line.text for _, lines in taken for line in lines if line.to == "all"]
        s.heard()
        if len(store.data) > cuts[-1][0]:
            cuts.append((len(store.data), len(heard), question, len(ops)))
        if s.answers and rng.random() < 0.05:
            s.undo()
            ops.append(None)
        else:
            answer = host.answer(s.game, s.prompt)
            s.submit(answer)
            ops.append(answer)
        cuts.append((len(store.data), len(heard), [], len(ops)))
    heard += [line.text for line in s.take_lines() if line.to == "all"]
    return store.read(), heard, cuts, ops


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_a_resume_at_every_line_of_the_journal_says_what_the_table_missed(seed: int) -> None:
    """A crash at any moment between two answers leaves the journal cut after one of its lines. Resumed
    there and played on with the same host, the table hears exactly the rest of the uninterrupted game:
    the lines after the last said mark (the opening too, when nothing was marked), the question again when
    it was heard already, then everything after; nothing lost, nothing else repeated."""
    data, reference, cuts, ops = live_game(seed)
    for end, heard, question, done in cuts:
        resumed = Session.resume(MemoryStore(data[:end]))
        said: list[str] = []
        for op in ops[done:]:
            said += [line.text for line in resumed.take_lines() if line.to == "all"]
            resumed.heard()
            if op is None:
                resumed.undo()
            else:
                assert not isinstance(resumed.submit(op), Refused)  # type: ignore[arg-type]
        said += [line.text for line in resumed.take_lines() if line.to == "all"]
        assert said == question + reference[heard:], f"seed {seed}, cut at byte {end}"


# ---- a checked journal: edits are refused, never taken silently --------------------------------------------


def mutations(data: bytes, other: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    """Ways a journal gets damaged or edited, each at a random place: cut, a flipped byte, a seat, the seed
    or a rule changed (still valid JSON, sums kept), another game's header, a line repeated, two swapped,
    one removed."""
    lines = data.split(b"\n")[:-1]
    pick = rng.randrange(1, len(lines))
    answers = [i for i, line in enumerate(lines) if b'"seats": [' in line and b'"seats": []' not in line]
    header = json.loads(lines[0])
    out = [("truncate", data[: rng.randrange(len(data))])]
    flipped = bytearray(data)
    flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    out.append(("flip", bytes(flipped)))
    if answers:
        i = rng.choice(answers)
        record = json.loads(lines[i])
        seats = record["answer"]["seats"]
        seats[rng.randrange(len(seats))] = rng.randrange(1, 13)
        out.append(("seat", join([*lines[:i], dumps(record), *lines[i + 1:]])))
    for key, value in (("seed", header["seed"] + rng.randrange(1, 9)), ("lang", "zh-Hant")):
        out.append((key, join([dumps({**header, key: value}), *lines[1:]])))
    rules = header["setup"]["rules"]
    switch = rng.choice([k for k, v in rules.items() if isinstance(v, bool)])
    setup = {**header["setup"], "rules": {**rules, switch: not rules[switch]}}
    out.append(("rule", join([dumps({**header, "setup": setup}), *lines[1:]])))
    out.append(("header", join([other.split(b"\n")[0], *lines[1:]])))
    out.append(("duplicate", join([*lines[:pick], lines[pick], *lines[pick:]])))
    if pick + 1 < len(lines):
        out.append(("reorder", join([*lines[:pick], lines[pick + 1], lines[pick], *lines[pick + 2:]])))
        out.append(("remove", join([*lines[:pick], *lines[pick + 1:]])))
    return out


def dumps(record: dict[str, object]) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": ")).encode()


def join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def test_a_mutation_fuzz_over_journals_finds_nothing_silently_wrong() -> None:
    """Each mutated journal is refused naming a line, or loads as the same game cut shorter: a cut (or a
    flipped last newline) drops whole lines at the end, with a warning when a line is torn. Anything else
    that loads (a different seat, seed, rule, header or order taken as good) is silently wrong: none."""
    rng = random.Random(19)
    games = [live_game(seed)[0] for seed in range(6)]
    outcomes: dict[str, int] = {}
    wrong: list[str] = []
    for round_ in range(40):
        k = round_ % len(games)
        data, other = games[k], games[(k + 1) % len(games)]
        original = Session.resume(MemoryStore(data))
        for kind, mutated in mutations(data, other, rng):
            try:
                got = Session.resume(MemoryStore(mutated))
            except JournalError as exc:
                assert exc.line >= 0 and str(exc)
                outcomes["refused"] = outcomes.get("refused", 0) + 1
                continue
            same = (got.setup, got.seed, got.lang) == (original.setup, original.seed, original.lang)
            prefix = got.answers == original.answers[: len(got.answers)]
            whole_lines_cut = data.startswith(mutated[: len(mutated) - len(mutated.split(b"\n")[-1])])
            if same and prefix and whole_lines_cut and (got.warnings or mutated.endswith(b"\n")):
                outcomes["shorter, same game"] = outcomes.get("shorter, same game", 0) + 1
            else:
                wrong.append(f"round {round_}: {kind}")
    print(outcomes)
    assert wrong == [] and outcomes["refused"] > 300


# ---- readers never write; a refused write keeps no half line; one writer ----------------------------------


def test_a_reader_never_changes_the_file_not_even_a_torn_tail(tmp_path: Path) -> None:
    """`games`, `recap` and the choice of a game to resume read with writable=False: the torn tail (which may
    be a line another process is writing right now) stays; only the writer cuts it."""
    path, lines, _ = game_file(tmp_path)
    torn = ("\n".join(lines) + "\n" + lines[-1][:10]).encode()
    path.write_bytes(torn)
    reader = Session.resume(FileStore(path, writable=False))
    assert reader.warnings and path.read_bytes() == torn
    with pytest.raises(PermissionError):
        reader.submit(a.Pass()) if reader.prompt and a.Pass in reader.prompt.accepts else reader.undo()
    assert path.read_bytes() == torn
    Session.resume(FileStore(path)).close()
    assert path.read_bytes() == torn[: torn.rindex(b"\n") + 1]


def test_a_write_the_disk_refuses_halfway_leaves_no_half_line(tmp_path: Path) -> None:
    """A file-size limit a few bytes past the end stands in for a disk that fills up mid-line: the write
    takes part of the line, then fails; the store cuts the part back off and says why."""
    import resource

    path, _, host = game_file(tmp_path)
    before = path.read_bytes()
    s = Session.resume(FileStore(path))
    assert s.prompt is not None
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_signal = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 20, old_limit[1]))
    try:
        with pytest.raises(JournalWriteError) as info:
            s.submit(host.answer(s.game, s.prompt))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_signal)
    assert path.read_bytes() == before and str(path) in str(info.value)
    assert len(s.answers) == len(Session.resume(FileStore(path, writable=False)).answers)  # not taken
    assert not isinstance(s.submit(host.answer(s.game, s.prompt)), Refused)  # room again: it goes on
    s.close()


def test_one_writer_per_game_and_a_dead_holders_lock_is_taken_over(tmp_path: Path) -> None:
    from narrator.play.store import GameLocked, SavedGame

    folder = tmp_path / "20261202-010203"
    folder.mkdir()
    path, _, _ = game_file(folder)
    path.rename(folder / "journal.jsonl")
    saved = SavedGame(folder)
    writer = saved.open()
    with pytest.raises(GameLocked, match=f"pid {os.getpid()}"):
        saved.open()
    assert saved.load().answers == writer.answers  # a reader needs no lock
    writer.close()
    (folder / "lock").write_text("999999\n")  # a holder that died: its flock died with it
    saved.open().close()


def test_a_format_1_journal_still_loads_with_a_note_and_goes_on_in_format_1(tmp_path: Path) -> None:
    """Journals written before checksums and said marks: loaded, with a note that edits cannot be detected;
    a resume says the question again (there is no mark) and appends plain format 1 lines."""
    setup = make_setup("12人预女猎白")
    rng = random.Random(3)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    played = Session(setup, 3)
    old = Chain(fmt=1)
    path = tmp_path / "old.jsonl"
    lines = [old.header(Header(setup, 3, "zh-Hans"))]
    for n in range(8):
        assert played.prompt is not None
        answer = host.answer(played.game, played.prompt)
        lines.append(old.answer(n, played.prompt.kind, answer))
        played.submit(answer)
    path.write_bytes(b"".join(lines))
    assert b'"sum"' not in path.read_bytes() and b'"narrator_journal": 1' in lines[0]
    s = Session.resume(FileStore(path))
    assert any("format 1" in note and "checksums" in note for note in s.warnings)
    assert s.answers == played.answers
    assert [line.text for line in s.take_lines()] == [line.text for line in played.repeat_lines()]
    s.heard()  # no marks in format 1
    assert s.prompt is not None
    s.submit(host.answer(s.game, s.prompt))
    s.close()
    tail = path.read_bytes().split(b"\n")[-2]
    assert tail.startswith(b'{"n": 8,') and b'"sum"' not in tail and b'"said"' not in path.read_bytes()
    assert len(Session.resume(FileStore(path, writable=False)).answers) == 9
