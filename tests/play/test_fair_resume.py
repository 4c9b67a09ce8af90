"""What the table hears around a stop (issue 29): a game stopped anywhere and taken up again says only the
neutral "继续游戏。" to the table — never where it stopped (a phase, a step, a role: "第三天白天，正在猎人开枪"
would tell the table who the exiled player is, "第一天白天" before "白痴请闭眼。天亮了" that the night is over) —
then every table line after the journal's last said mark, as the uncut game says them. Where the game stands
goes to the host alone, as his question had it: a night step is a night step.

Played by the real live loop (`Live`) on a fake clock through the real Conductor, the Session journaling into
memory; the input ends at a given word (as `narrator play` does when typed input runs out: saved, exit 3),
and the game is resumed from the journal alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from play_testkit import SCENARIOS, answer_words
from test_speech_timer_loop import PacedEar, TimedMouth

from narrator.common.clock import FakeClock
from narrator.judge.host_words import ACK
from narrator.play.loop import Live
from narrator.play.scripted import Scripted, host_script
from narrator.session.journal import MemoryStore
from narrator.session.session import Session
from narrator.sim.scenario import Scenario

NIGHTS = Path(__file__).parent.parent / "fair_nights"
RESUMED = "继续游戏。"


class MarkedStore(MemoryStore):
    """A journal in memory that notes how many table lines had been heard at each said mark."""

    def __init__(self, mouth: TimedMouth, data: bytes = b"") -> None:
        super().__init__(data)
        self.mouth = mouth
        self.heard_at_mark = 0

    def append(self, line: bytes) -> None:
        super().append(line)
        if line.startswith(b'{"said"'):
            self.heard_at_mark = len(self.mouth.table)


def live(session: Session, words: list[str], *, resumed: bool = False) -> TimedMouth:
    clock = FakeClock()
    mouth = TimedMouth(clock)
    if isinstance(session.store, MarkedStore):
        session.store.mouth = mouth
    Live(session, mouth, PacedEar(clock, list(words)), now=clock.now, clock=clock, poll_s=0.5).run(resumed=resumed)
    return mouth


def texts(mouth: TimedMouth, to: str = "all") -> list[str]:
    return [text for _, text in (mouth.table if to == "all" else mouth.heard_at)]


def uncut(scripted: Scripted) -> list[str]:
    session = Session(scripted.game.setup, scripted.game.seed)
    mouth = live(session, ["开始", *scripted.utterances])
    assert session.game.journal == scripted.game.journal
    return texts(mouth)[1:]  # the deal line aside


def words_after(scripted: Scripted, journal: bytes) -> list[str]:
    """What the host says to the game resumed from `journal`: the answers still to come and every 过 asked
    (those owed since the last said mark again), up to where the scenario's words end."""
    session = Session.resume(MemoryStore(journal))
    session.acks = True
    answers, out = answer_words(scripted), []
    trailing = len(scripted.kinds) - 1 - max(i for i, kind in enumerate(scripted.kinds) if kind != ACK)
    while True:
        session.take_lines()
        prompt = session.prompt
        if prompt is None or (len(session.answers) == len(answers) and (prompt.kind != ACK or trailing == 0)):
            return out
        if prompt.kind == ACK:
            trailing -= len(session.answers) == len(answers)
            out.append("过")
        else:
            out.append(answers[len(session.answers)])
        session.submit(out[-1])


def stopped(scripted: Scripted, stop: int) -> tuple[Session, MarkedStore, list[str]]:
    """The game played until the host's words run out before word `stop`."""
    clock = FakeClock()
    store = MarkedStore(TimedMouth(clock))
    session = Session(scripted.game.setup, scripted.game.seed, store=store)
    mouth = live(session, ["开始", *scripted.utterances[:stop]])
    return session, store, texts(mouth)[1:]


def resumed(scripted: Scripted, journal: bytes) -> tuple[Session, TimedMouth]:
    session = Session.resume(MemoryStore(journal))
    return session, live(session, words_after(scripted, journal), resumed=True)


def from_mark(first: Session, store: MarkedStore) -> int:
    """How many table lines of the uncut game the resumed game does not say again: those heard by the last
    said mark (the deal line aside), less the question asked when the game stopped (it is asked again)."""
    again = 0
    if first.prompt is not None and first.prompt.kind != ACK:
        again = sum(1 for line in first.repeat_lines() if line.to == "all")
    return store.heard_at_mark - 1 - again


@pytest.mark.parametrize("name", ["witch_saves", "classic_thief_buried", "guard_dead"])
def test_a_night_stopped_anywhere_resumes_saying_only_continue_and_what_was_not_heard(name: str) -> None:
    scripted = host_script(Scenario.load(NIGHTS / f"{name}.yaml"))
    reference = uncut(scripted)
    for stop in range(1, len(scripted.utterances)):
        first, store, heard = stopped(scripted, stop)
        assert heard == reference[: len(heard)]
        place = first.place()
        second, mouth = resumed(scripted, store.read())
        assert second.game.journal == scripted.game.journal, f"stopped before word {stop}"
        table = texts(mouth)
        assert table[0] == RESUMED, (stop, table[:2])
        assert table[1:] == reference[from_mark(first, store):], f"stopped before word {stop}"
        told = [text for text in texts(mouth, "host") if text.startswith("继续游戏：")]
        assert len(told) == 1 and told[0] not in table
        phase = f"第{'一二三四五'[place.night - 1]}夜" if place.phase == "night" else \
            f"第{'一二三四五'[place.day - 1]}天白天"
        assert told[0].startswith(f"继续游戏：{phase}，正在"), (stop, told[0], place)


def test_a_stop_while_an_exiled_hunter_decides_tells_the_table_no_role() -> None:
    """Scenario 010: 七号 is exiled and asked in public to confirm his skill; the host is asked for his word
    (a 过 here, as for any card). Stopped there, the table hears "继续游戏。" — not "正在猎人开枪"."""
    scripted = host_script(Scenario.load(SCENARIOS / "010_parity_win.yaml"))
    reference = uncut(scripted)
    stop = len(scripted.utterances) - 1  # the game's last word: the 过 after 七号's skill call
    first, store, heard = stopped(scripted, stop)
    assert heard[-1] == "七号，请确认是否发动技能。"
    second, mouth = resumed(scripted, store.read())
    table = texts(mouth)
    assert table[0] == RESUMED and not any("猎人" in t or "正在" in t for t in table)
    assert table[1:] == reference[from_mark(first, store):]
    assert second.over


def test_the_games_list_names_the_step_the_table_was_at() -> None:
    """Stopped while the host owes the 过 after the witch's 救 (her poison question said; one potion a night):
    the game has moved on to the seer already, but the table was at the witch's step, at night — that is
    where `narrator games` and the panel say the game stands (before: "预言家的回合")."""
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    stop = scripted.kinds.index("witch.save") + 1
    assert scripted.kinds[stop] == ACK
    first, store, heard = stopped(scripted, stop)
    assert heard[-1] == "今晚你要用毒药吗？" and first.game.prompt is not None
    assert first.game.prompt.kind == "seer.identify"
    again = Session.resume(MemoryStore(store.read()))
    place = again.place()
    assert place.phase == "night" and place.night == 1 and place.prompt is not None
    assert place.prompt.kind == "witch.save"
    status = again.status()
    assert status.phase == "night" and status.night == 1 and status.prompt == "witch.save"
