"""Audit: in random games, a host who says every wrong thing at every prompt never lets the table hear a
secret, nor that a hidden question is pending.

At each prompt of random games (random deals, the AutoHost's legal answers) the host first tries wrong
words through the ear's Dialogue — 对 / 不对 with nothing to confirm, 重复, silence (the question again, then
reminders), 暂停 / 继续, nonsense, a seat that does not exist, the same seat twice, his own seat, a seat
at a yes/no question, a 是 at a seat question, a non-wolf's 自爆, the lovers voting for each other
(then silence: after that refusal its reminders go to the earpiece too), a voter named twice — then the
right answer (read back with `read_back: always`, then 对) — at the host's 过 where a step asks him nothing
too (`Session.acks`, as the live loop plays). Every line the Dialogue says goes through
`Session.hidden` / `Session.refusal_line`; the table may hear none while the prompt is hidden (night, a
shot, a take, the idiot's flip, an eyes-closed vote), none asking a public prompt again after a refusal
the host alone heard, and none that names a card, a camp or the lovers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from narrator.common.clock import FakeClock
from narrator.engine.answers import Ballots, Seats, YesNo
from narrator.engine.prompts import Prompt
from narrator.hostwords import Ambiguous, NotUnderstood, parse
from narrator.judge.host_words import ACK
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup
from narrator.listen.dialogue import Dialogue, DialogueConfig
from narrator.session.session import SECRET_REFUSALS, Session
from narrator.sim.autohost import AutoHost, Deal

from .listenkit import ScriptedEar, Step, words

PRESETS = [("12人预女猎白", {}), ("12人白狼王守卫", {}), ("12人狼王守卫", {}), ("12人机械狼通灵师", {}),
           ("经典12人", {}), ("经典12人", {"vote_call": "eyes_closed"})]
GAMES = 3


@dataclass
class Table:
    """The Dialogue's voice: every line it says, with whether the prompt was hidden when it was said."""

    session: Session
    said: list[tuple[Line, bool]] = field(default_factory=list)
    refused_at: Prompt | None = None
    """A public prompt where an answer was refused for a secret reason (the lovers' ballot): from then on the
    table must not hear it asked again (its question, "请回答")."""

    def __call__(self, line: Line) -> None:
        prompt = self.session.prompt
        secret = hidden(self.session)
        if line.key.removeprefix("refusals.") in SECRET_REFUSALS and not secret:
            self.refused_at = prompt
        asked_again = line.key == "listening.remind" or line.key.startswith("prompts.")
        self.said.append((line, secret or (prompt is self.refused_at and asked_again)))


SECRET_KINDS = frozenset({"hunter.shoot", "black_wolf_king.shoot", "mech_wolf.shoot", "wolf_king.take",
                          "idiot.reveal"})
"""Day questions whose answer tells a card: asked on the earpiece."""


def hidden(session: Session) -> bool:
    """The question now is one the table must not know is being asked (or answered)."""
    prompt = session.prompt
    if session.night or prompt is None:
        return session.night
    eyes_closed = session.setup.rules.vote_call == "eyes_closed" and prompt.kind in ("vote.exile", "pk.vote",
                                                                                       "sheriff.vote")
    return prompt.secret or prompt.kind in SECRET_KINDS or eyes_closed


def wrong_words(session: Session, prompt: Prompt, rng: random.Random) -> list[Step]:
    """What a confused host may say at `prompt` before the right answer."""
    s = session.game.state
    n = session.setup.players
    tries: list[Step] = ["对", "不对", "重复", None, None, "暂停", "继续", "听不懂的话", f"{n + 3}号", "一号 一号",
                         "是" if Seats in {*prompt.accepts} else "七号", f"{rng.choice(range(1, n + 1))}号自爆"]
    if prompt.actor is not None:
        tries.append(f"{prompt.actor}号")
    dead = sorted(set(range(1, n + 1)) - set(s.alive))
    if dead:
        tries.append(f"{dead[0]}号")
    if YesNo in prompt.accepts:
        tries.append("三号")
    if Ballots in prompt.accepts:
        alive = sorted(s.alive)
        tries.append(f"{alive[0]} {alive[0]} 投 {alive[-1]}号")
        if s.lovers is not None:
            a, b = s.lovers
            tries += [f"{a} 投 {b}号", None]  # refused on the earpiece, then silence: reminders
    return [t for t in tries if not legal(session, prompt, t)]


def legal(session: Session, prompt: Prompt, said: Step) -> bool:
    """Words the Session would accept here (not a wrong answer after all)."""
    if not isinstance(said, str):
        return False
    try:
        answer = parse(said, prompt.accepts)
    except (NotUnderstood, Ambiguous):
        return False
    return session.game.refusal(prompt, answer) is None


def audit(preset: str, rules: dict[str, object], seed: int) -> tuple[int, int, list[str], list[str]]:
    """Play one game; returns (wrong words tried, of them at the host's 过, table lines said while hidden,
    table lines naming a secret)."""
    setup = make_setup(preset, rules=dict(rules) or None)
    rng = random.Random(seed)
    session = Session(setup, seed)
    session.acks = True
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    table = Table(session)
    secrets = secret_words(session)
    tried = at_ack = acks = 0
    for _ in range(600):
        prompt = session.prompt
        if prompt is None:
            break
        session.take_lines()
        answer = host.answer(session.game, prompt)
        acks += prompt.kind == ACK
        # Every prompt gets the wrong words; of the 过s (alike everywhere), every third: the audit stays quick.
        script = [] if prompt.kind == ACK and acks % 3 else wrong_words(session, prompt, rng)
        tried += len(script)
        at_ack += len(script) if prompt.kind == ACK else 0
        script += [words(answer), "对"]  # read_back="always": every answer is read back and needs 对
        clock = FakeClock()
        dialogue = Dialogue(session, ScriptedEar(script, clock), table, clock, DialogueConfig(read_back="always"))
        if dialogue.answer() is None and session.prompt is prompt:
            pytest.fail(f"{preset}, game {seed}: {prompt.kind}: {words(answer)!r} was not accepted")
    pending = [f"{x.text} ({x.key})" for x, hidden in table.said if hidden and x.to == "all"]
    named = [f"{x.text} ({x.key})" for x, _ in table.said if x.to == "all" and any(w in x.text for w in secrets)]
    return tried, at_ack, pending, named


def secret_words(session: Session) -> tuple[str, ...]:
    """Words that, said by the dialogue at the table, would tell a card, a camp or the lovers."""
    names = session.judge.script.data["names"]
    return (*names["roles"].values(), *names["camps"].values(), "情侣", "狼人")


@pytest.mark.parametrize(("preset", "rules"), PRESETS, ids=[f"{p}{'-' + str(r) if r else ''}" for p, r in PRESETS])
def test_no_refusal_reminder_or_read_back_tells_the_table_a_secret(preset: str, rules: dict[str, object]) -> None:
    tried = at_ack = 0
    for seed in range(GAMES):
        n, acks, pending, named = audit(preset, rules, seed)
        tried, at_ack = tried + n, at_ack + acks
        assert pending == [], f"{preset}, game {seed}: the table heard that a hidden question is pending"
        assert named == [], f"{preset}, game {seed}: the table heard a secret"
    assert tried > 500 * GAMES  # every prompt of every game was tried
    assert at_ack > 10 * GAMES  # the host's 过 where a step asks him nothing among them
