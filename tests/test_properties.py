"""Property tests over thousands of seeded random games: every preset, and random house-rule combinations.

Each game is played by the random legal host (`AutoHost`) through a `Session`, taking every line the judge
says as it is said, while a shadow state folds the events taken, so one pass checks:

(a) the state is a fold of the journal at every prompt; resuming from the journal (its codec, then checked
    replay) and undo reproduce the journal exactly;
(b) every game ends with exactly one GameEnded, last, naming a winner and the true cards;
(c) no prompt goes to a dead player or to a dead, absent or powerless role, yet every night step is called;
(d) the public lines of a night depend only on the set-up and the night number; secrets stay with the host;
(e) illegal answers are rejected and change nothing.

The default run plays 30 games of each preset (shared by properties a–d), 300 games under illegal answers
and 60 random house-rule set-ups × 3 games. The slow run adds 1,000 distinct games per board family (the
presets that differ only in table size are one family: 18 families, 18,000 games) and 300 more house-rule
set-ups × 4 games.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from narrator.engine import events as ev
from narrator.engine.answers import (
    Answer,
    Ballots,
    Cards,
    Direction,
    Pass,
    Seats,
    SelfExplode,
    TakeCard,
    VoteResult,
    YesNo,
)
from narrator.engine.game import Game
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Role
from narrator.engine.rules import (
    CHOICES,
    CLASSIC_NIGHT_ORDER,
    FIRST_NIGHT_ONLY,
    MODERN_NIGHT_ORDER,
    NEW_MOON_DECK,
    STEP_CARD,
    Rules,
    Setup,
)
from narrator.engine.state import State
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup, preset_names
from narrator.session.journal import Chain, Header, MemoryStore
from narrator.session.session import Accepted, Refused, Session
from narrator.sim.autohost import AutoHost, Deal

PRESETS = preset_names()
GAMES = 30  # per preset and property in the default run
SLOW_GAMES = 1000  # per board family with -m slow (18 families: 18,000 games, every line rendered and checked)
MAX_ANSWERS = 5000
DEATH_SKILLS = frozenset({"hunter.shoot", "wolf_king.take", "badge.pass", "last_words.end", "scapegoat.voters",
                          "black_wolf_king.shoot", "mech_wolf.shoot"})

# ---- one game, checked as it is played --------------------------------------------------------------


@dataclass
class Played:
    setup: Setup
    seed: int
    session: Session
    held: dict[int, Role]
    """The true cards at the end (the deal, with the thief's swap)."""
    before: list[int] = field(default_factory=list)
    """Journal length just before each accepted answer."""
    faults: list[str] = field(default_factory=list)
    """Broken properties found while playing (state drift, prompts to the dead, leaked secrets …)."""
    nights: dict[int, tuple[Line, ...]] = field(default_factory=dict)
    """Night number → every public line from NightFell to DayBroke."""
    gone: dict[int, frozenset[str]] = field(default_factory=dict)
    """Night number → the steps whose card no living player held at nightfall."""

    @property
    def game(self) -> Game:
        return self.session.game


def play(setup: Setup, seed: int, *, attack: float = 0.0) -> Played:
    """A random legal game driven through a Session, every line taken as it is said. With `attack`, that
    share of prompts first receives illegal answers."""
    rng = random.Random(seed)
    host = AutoHost(Deal.shuffle(setup, rng), rng)
    session = Session(setup, seed)
    game = session.game
    rec = Played(setup, seed, session, host.held)
    attacker = random.Random(~seed)
    shadow = State()
    step: str | None = None
    night: list[Line] | None = None
    for _ in range(MAX_ANSWERS):
        for said, lines in session.take():
            public = [line for line in lines if line.to == "all"]
            if isinstance(said, Prompt):
                if said.secret and public:
                    rec.faults.append(f"secret prompt {said.kind} said aloud")
                if night is not None:
                    night.extend(public)
                continue
            event = said
            shadow.apply(event)
            if isinstance(event, ev.NightFell):
                night = []
                rec.gone[event.night] = frozenset(x for x in setup.steps() if not step_has_player(x, shadow))
            if event.secret and public:
                rec.faults.append(f"secret {event} said aloud: {[x.text for x in public]}")
            if night is not None:
                night.extend(public)
            if isinstance(event, ev.DayBroke) and night is not None:
                rec.nights[shadow.night], night = tuple(night), None
            if isinstance(event, ev.StepOpened):
                step = event.step
            elif isinstance(event, ev.StepClosed):
                step = None
        if shadow != game.state:
            rec.faults.append(f"state is not the fold of the journal after {len(game.answers)} answers")
        prompt = session.prompt
        if prompt is None:
            return rec
        rec.faults.extend(prompt_faults(prompt, game.state, step))
        answer = host.answer(game, prompt)
        if attack and attacker.random() < attack:
            rec.faults.extend(attack_faults(session, prompt, answer, shadow, attacker))
        rec.before.append(len(game.journal))
        if not isinstance(session.submit(answer), Accepted):
            rec.faults.append(f"legal answer {answer} to {prompt.kind} was rejected")
    raise AssertionError(f"game {seed} did not end after {MAX_ANSWERS} answers")


def step_has_player(step: str, s: State) -> bool:
    if step == "wolves":
        return any(s.is_wolf(x) for x in s.alive)
    return s.living_seat_of(STEP_CARD["piper" if step == "charmed" else step]) is not None


def prompt_faults(p: Prompt, s: State, step: str | None) -> list[str]:
    """(c): whom a prompt is about, and whom it offers, must be alive (and hold the card that acts)."""
    where = f"{p.kind} on {'night' if s.night > s.day else 'day'} {max(s.night, s.day)}"
    out: list[str] = []
    if p.actor is not None:
        alive = p.actor in s.alive
        if p.kind in DEATH_SKILLS and alive and p.actor != s.lingering:  # the exiled last 血月使徒's last words
            out.append(f"{where}: a death skill for living seat {p.actor}")
        if p.kind not in DEATH_SKILLS and not alive:
            out.append(f"{where}: asked of dead seat {p.actor}")
        if p.role is not None and s.roles.get(p.actor) is not p.role:
            out.append(f"{where}: seat {p.actor} does not hold {p.role}")
        if p.kind in ("badge.pass", "sheriff.order") and s.sheriff != p.actor:
            out.append(f"{where}: seat {p.actor} is not the sheriff")
    if s.night > s.day:
        if step is None:
            out.append(f"{where}: asked outside any night step")
        acting = p.role is not None and not p.kind.endswith(".identify") and p.kind != "thief.cards"
        if acting and p.role is Role.WEREWOLF and not any(s.is_wolf(x) for x in s.alive):
            out.append(f"{where}: asked with every wolf dead")
        elif acting and p.role is not Role.WEREWOLF and (p.actor is None or not s.has_power(p.role)):
            out.append(f"{where}: asked for a role that cannot act")
    if not p.kind.endswith(".identify") and not set(p.seats) <= s.alive:
        out.append(f"{where}: offers dead seats {sorted(set(p.seats) - s.alive)}")
    if not set(p.info.get("voters", ())) <= s.alive:
        out.append(f"{where}: dead voters {sorted(set(p.info['voters']) - s.alive)}")
    return out


# ---- (e) illegal answers ----------------------------------------------------------------------------

WRONG_TYPE: tuple[Answer, ...] = (
    Seats((1,)), YesNo(True), Pass(), SelfExplode(1), Cards((Role.VILLAGER, Role.VILLAGER)),
    TakeCard(None), Ballots(()), VoteResult(None), Direction("left"),
)  # fmt: skip


def illegal_answers(p: Prompt, s: State, legal: Answer, rng: random.Random) -> list[Answer]:
    """Answers that must be refused: a wrong type, seat 0 or 19, a dead seat, a non-wolf exploding …"""
    out = rng.sample([a for a in WRONG_TYPE if type(a) not in p.accepts], 2)
    dead = sorted(set(range(1, s.players + 1)) - s.alive)
    bad = [0, 19] + ([rng.choice(dead)] if dead else [])
    if isinstance(legal, Seats):
        out += [Seats((b, *legal.seats[1:])) for b in bad]
        if legal.seats:
            out.append(Seats((legal.seats[0], *legal.seats)))  # the same seat twice
    if Ballots in p.accepts:
        voters, targets = p.info["voters"], p.seats
        out += [Ballots(((b, targets[0]),)) for b in bad] + [VoteResult(b) for b in bad]
        if voters:
            out += [Ballots(((voters[0], b),)) for b in bad]
            out.append(Ballots(((voters[0], targets[0]), (voters[0], targets[-1]))))  # voted twice
    if SelfExplode in p.accepts:
        good = [x for x in sorted(s.alive) if not s.is_wolf(x)]
        out += [SelfExplode(b) for b in bad] + [SelfExplode(x) for x in rng.sample(good, min(1, len(good)))]
    if Cards in p.accepts:
        out += [Cards((Role.VILLAGER,)), Cards((Role.VILLAGER,) * 3)]
    if TakeCard in p.accepts:
        pair = p.info.get("cards", ())
        out += [TakeCard(r) for r in (Role.ELDER, Role.RAVEN) if r not in pair][:1]
    return out


def attack_faults(session: Session, p: Prompt, legal: Answer, state: State, rng: random.Random) -> list[str]:
    """Illegal answers to `p`, each of which must be refused; `state` is the fold of the journal so far."""
    game = session.game
    faults = []
    size, answered = len(game.journal), len(game.answers)
    for bad in illegal_answers(p, game.state, legal, rng):
        result = session.submit(bad)
        if not (isinstance(result, Refused) and result.kind == p.kind and result.refusal.code):
            faults.append(f"illegal {bad} to {p.kind} was not refused: {result}")
        if len(game.journal) != size or len(game.answers) != answered or game.prompt is not p:
            faults.append(f"illegal {bad} to {p.kind} changed the game")
            break
        if p.secret and isinstance(result, Refused) and result.line.to != "host":
            faults.append(f"the refusal of {bad} to secret {p.kind} was said aloud")
    if game.state != state:
        faults.append(f"illegal answers to {p.kind} changed the state")
    if session.take_lines():
        faults.append(f"illegal answers to {p.kind} made the judge say something new")
    return faults


# ---- checks over a finished game --------------------------------------------------------------------


def check_replay(rec: Played, depth: int = 2) -> None:
    """(a): the state was the fold of the journal at every prompt (checked while playing); with depth ≥ 1
    replay gives the same journal and state and undo is the game without its last answer; with depth 2 so
    are replays of all answers but the last, and of the answers up to a random point."""
    game, answers = rec.game, list(rec.game.answers)
    assert not rec.faults  # among them: the state differed from the fold of the journal at some prompt
    if depth < 1:
        return
    assert State.fold(game.journal) == game.state
    again = Session.resume(journal_of(rec)).game  # through the journal's codec, then checked replay
    assert again.journal == game.journal and again.state == game.state and again.over
    undone = game.undo()
    assert undone.journal == game.journal[: rec.before[-1]]
    assert undone.state == State.fold(undone.journal)
    assert undone.prompt is not None and undone.prompt.kind == game.answers[-1][0]
    if depth > 1:  # `undone` is the replay of all answers but the last (Game.undo): checked above
        k = random.Random(rec.seed).randrange(len(answers))
        part = Game.replay(rec.setup, rec.seed, answers[:k])
        assert part.journal == game.journal[: rec.before[k]]
        assert part.prompt is not None and part.prompt.kind == game.answers[k][0]


def journal_of(rec: Played) -> MemoryStore:
    """The game's journal as a Session writes it: the header, then every answer."""
    store, chain = MemoryStore(), Chain()
    store.append(chain.header(Header(rec.setup, rec.seed, "zh-Hans")))
    chain.advance()
    for n, (kind, answer) in enumerate(rec.game.answers):
        store.append(chain.answer(n, kind, answer))
        chain.advance()
    return store


def check_end(rec: Played) -> None:
    """(b): exactly one GameEnded, the last event, with a winner and every seat's true card."""
    game = rec.game
    ends = [e for e in game.journal if isinstance(e, ev.GameEnded)]
    assert len(ends) == 1 and game.journal[-1] is ends[0], f"seed {rec.seed}: {len(ends)} GameEnded"
    assert game.over and game.winner is ends[0].winner is not None
    assert dict(ends[0].roles) == rec.held, f"seed {rec.seed}: the cards read out are not the deal"


def expected_steps(setup: Setup, night: int, gone: frozenset[str], ally_night: int | None = None) -> list[str]:
    """Night 1 calls every step of the deck; later nights every step but the night-1 ones, the hunter's only
    when he is told whether he can shoot, and (when the house does not call dead roles) only living roles.
    The night after the New Moon's "wolves' ally" card was turned (a public card) starts with its step."""
    rules = setup.rules
    return ["wolves_ally"] * (night == ally_night) + [s for s in setup.steps()
            if night == 1 or (s not in FIRST_NIGHT_ONLY and (s != "hunter" or rules.tell_shoot_status)
                              and (rules.call_dead_roles or s not in gone))]


def check_prompts(rec: Played) -> None:
    """(c): nothing asked of the dead; every step of the set-up opened and closed on every night."""
    assert not rec.faults, f"seed {rec.seed}: {rec.faults[:5]}"
    calls: dict[int, list[ev.Event]] = {}
    for e in rec.game.journal:
        if isinstance(e, ev.StepOpened | ev.StepClosed):
            calls.setdefault(e.night, []).append(e)
    nights = [e.night for e in rec.game.journal if isinstance(e, ev.NightFell)]
    assert sorted(calls) == nights
    turned = [e.day + 1 for e in rec.game.journal if isinstance(e, ev.NewMoonCardTurned) and e.card == "wolves_ally"]
    for n, seen in calls.items():
        steps = expected_steps(rec.setup, n, rec.gone[n], turned[0] if turned else None)
        assert seen == [c(s, n) for s in steps for c in (ev.StepOpened, ev.StepClosed)], f"night {n}"


class NightLines:
    """(d): the first game to reach a night fixes its public lines; every later game must say the same."""

    def __init__(self) -> None:
        self.first: dict[int, tuple[tuple[Line, ...], int]] = {}

    def check(self, rec: Played) -> None:
        if not rec.setup.rules.call_dead_roles:
            return  # the house chose to let silence tell the table a role is gone
        for n, lines in rec.nights.items():
            ref, seed = self.first.setdefault(n, (lines, rec.seed))
            assert lines == ref, f"night {n} said differently in games {seed} and {rec.seed}: " + str(
                [(a.text, b.text) for a, b in zip(ref, lines, strict=False) if a != b][:3]
            )


def check_all(rec: Played, nights: NightLines, replay_depth: int = 2) -> None:
    check_end(rec)
    check_prompts(rec)
    nights.check(rec)
    check_replay(rec, replay_depth)


# ---- every preset -----------------------------------------------------------------------------------


@cache
def played(name: str) -> tuple[Played, ...]:
    setup = make_setup(name)
    return tuple(play(setup, seed) for seed in range(GAMES))


@pytest.mark.parametrize("name", PRESETS)
def test_state_is_a_fold_and_replay_is_exact(name: str) -> None:
    for rec in played(name):
        check_replay(rec)


@pytest.mark.parametrize("name", PRESETS)
def test_every_game_ends_once_with_a_winner(name: str) -> None:
    for rec in played(name):
        check_end(rec)


@pytest.mark.parametrize("name", PRESETS)
def test_no_prompt_goes_to_the_dead_and_every_step_is_called(name: str) -> None:
    for rec in played(name):
        check_prompts(rec)


@pytest.mark.parametrize("name", PRESETS)
def test_night_lines_depend_only_on_the_preset_and_night(name: str) -> None:
    nights = NightLines()
    for rec in played(name):
        nights.check(rec)
    assert len(nights.first) >= 2  # the games reached several nights, so the comparison means something


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(PRESETS), seed=st.integers(0, 2**32 - 1))
def test_illegal_answers_change_nothing(name: str, seed: int) -> None:
    rec = play(make_setup(name), seed, attack=0.2)
    assert not rec.faults, rec.faults[:5]
    assert Game.replay(rec.setup, seed, rec.game.answers).journal == rec.game.journal


def board_families() -> dict[str, list[str]]:
    """The presets grouped by board: the same cards and rules at other table sizes (12人预女猎白 and
    10人预女猎白; 8人标准局 … 18人标准局; 经典8人 … 经典18人) are one family."""
    families: dict[str, list[str]] = {}
    for name in PRESETS:
        families.setdefault(re.sub(r"\d+人", "", name), []).append(name)
    return families


FAMILIES = board_families()


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_thousands_of_games(family: str) -> None:
    """SLOW_GAMES distinct games per family, dealt in turn to each of its table sizes."""
    members = FAMILIES[family]
    setups = [make_setup(name) for name in members]
    nights = [NightLines() for _ in members]  # (d) holds per preset: the night order depends on the cards
    for i, seed in enumerate(range(10_000, 10_000 + SLOW_GAMES)):
        k = i % len(members)
        rec = play(setups[k], seed, attack=0.02)
        check_all(rec, nights[k], replay_depth=1 if seed % 8 == 0 else 0)  # replay one game in 8, to keep it fast


# ---- random house rules ------------------------------------------------------------------------------

FIRST_STEP = "thief"  # the thief's swap decides who holds which card: he must wake first (Setup.build checks)
GOOD_CARDS = (Role.SEER, Role.WITCH, Role.HUNTER, Role.GUARD, Role.IDIOT, Role.CUPID, Role.THIEF,
              Role.LITTLE_GIRL, Role.ELDER, Role.SCAPEGOAT, Role.PIPER, Role.WILD_CHILD, Role.RAVEN)


def night_orders() -> st.SearchStrategy[tuple[str, ...]]:
    rest = [s for s in MODERN_NIGHT_ORDER if s != FIRST_STEP]
    shuffled = st.permutations(rest).map(lambda p: (FIRST_STEP, *p))
    return st.sampled_from((MODERN_NIGHT_ORDER, CLASSIC_NIGHT_ORDER)) | shuffled


@st.composite
def house_rules(draw: st.DrawFn) -> dict[str, Any]:
    """A random value for every switch of Rules (a new switch of an unknown kind fails loudly here)."""
    out: dict[str, Any] = {}
    for f in fields(Rules):
        default = getattr(Rules(), f.name)
        if f.name in CHOICES:
            out[f.name] = draw(st.sampled_from(CHOICES[f.name]))
        elif f.name == "night_order":
            out[f.name] = draw(night_orders())
        elif f.name == "new_moon":
            out[f.name] = draw(st.sampled_from(((), NEW_MOON_DECK)))
        elif f.name == "sheriff_weight":
            out[f.name] = draw(st.sampled_from((1.5, 2)))
        elif isinstance(default, bool):
            out[f.name] = draw(st.booleans())
        elif isinstance(default, int):
            small = f.name in ("raven_votes", "exile_last_words_days")
            out[f.name] = draw(st.integers(0, 3 if small else 300))
        else:
            raise AssertionError(f"no strategy for the switch {f.name}")
    return out


@st.composite
def decks(draw: st.DrawFn, require_seer: bool, require_villager: bool = False) -> Counter[Role]:
    """A random legal deck of 8–18 cards: wolves (king, beauty), any special good cards, villagers."""
    players = draw(st.integers(8, 18))
    deck = Counter(draw(st.lists(st.sampled_from((Role.WHITE_WOLF_KING, Role.WOLF_BEAUTY)), unique=True)))
    deck[Role.WEREWOLF] = draw(st.integers(0 if deck else 1, 4))
    room = players - sum(deck.values()) - 1
    cards = draw(st.permutations(GOOD_CARDS))
    deck.update([r for r in cards if draw(st.booleans())][:room])
    if require_seer and not deck[Role.SEER]:
        deck[Role.SEER] = 1
    deck[Role.VILLAGER] = players - sum(deck.values())
    if require_villager and not deck[Role.VILLAGER] and not deck[Role.THIEF]:
        special = next(r for r in cards if deck[r] and r is not Role.SEER)  # a villager takes a special card's seat
        deck[special] -= 1
        deck[Role.VILLAGER] = 1
    return deck


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    rules = draw(house_rules())
    if draw(st.booleans()):
        return make_setup(draw(st.sampled_from(PRESETS)), rules=rules)
    return Setup.build(draw(decks(rules["require_seer"], rules["require_villager"])), Rules().with_overrides(rules))


def check_house_rules(setup: Setup, seeds: list[int]) -> None:
    nights = NightLines()
    for seed in seeds:
        check_all(play(setup, seed, attack=0.05), nights)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups(), seeds=st.lists(st.integers(0, 2**32 - 1), min_size=3, max_size=3, unique=True))
def test_random_house_rules(setup: Setup, seeds: list[int]) -> None:
    check_house_rules(setup, seeds)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups(), seeds=st.lists(st.integers(0, 2**32 - 1), min_size=4, max_size=4, unique=True))
def test_random_house_rules_at_length(setup: Setup, seeds: list[int]) -> None:
    check_house_rules(setup, seeds)
