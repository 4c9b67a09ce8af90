"""The game state, as a fold over the journal of events. Only `State.apply` changes it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from narrator.engine import events as ev
from narrator.engine.roles import FOLK, GODS, WOLF_CARDS, Camp, Role
from narrator.engine.rules import Rules

NO_RULES = Rules()
"""The rules of a state no game has started in yet (GameStarted brings the game's)."""


@dataclass
class Tonight:
    """The night's pending actions, resolved at dawn."""

    protected: int | None = None
    victim: int | None = None
    saved: int | None = None
    poisoned: int | None = None
    # --- modern roles (chosen seats; the 魔术师's swap is applied when they take effect, see modern.land) ---
    swap: tuple[int, int] | None = None
    feared: int | None = None
    dreamed: int | None = None
    hunted: int | None = None
    mech_protected: int | None = None
    mech_poisoned: int | None = None
    reflected: tuple[int, ...] = ()  # checkers and poisoners the 恶灵骑士 sends back
    kill_blocked: bool = False


@dataclass
class State:
    players: int = 0
    deck: tuple[Role, ...] = ()
    rules: Rules = NO_RULES
    roles: dict[int, Role] = field(default_factory=dict)
    """Seat → the card it plays (identified on night 1; the thief's taken card; a kept thief plays 村民)."""
    alive: set[int] = field(default_factory=set)
    deaths: dict[int, tuple[str, ev.When]] = field(default_factory=dict)
    """Seat → (cause, when)."""
    night: int = 0
    day: int = 0
    buried: tuple[Role, ...] = ()
    thief_seat: int | None = None
    lovers: tuple[int, int] | None = None
    cupid_seat: int | None = None
    model: int | None = None
    wild_turned: bool = False
    guard_last: int | None = None  # last night's protection (None: nobody, or no night before)
    raven_last: int | None = None  # last night's curse
    curse: int | None = None
    antidote: bool = True
    poison: bool = True
    tonight: Tonight = field(default_factory=Tonight)
    pending: tuple[tuple[int, ev.Cause], ...] = ()
    elder_lives: int = 2
    powers_lost: bool = False
    idiot_revealed: bool = False
    charmed: set[int] = field(default_factory=set)  # the piper's
    beauty_charm: int | None = None  # the wolf beauty's
    sheriff: int | None = None
    badge_gone: bool = False
    election_done: bool = False
    election_explosions: int = 0
    candidates: tuple[int, ...] = ()
    ran: frozenset[int] = frozenset()
    scapegoat_voters: tuple[int, ...] | None = None
    last_death: int | None = None
    winner: Camp | None = None
    # --- modern roles ---
    half_blood_model: int | None = None
    half_blood_camp: Camp | None = None
    swapped_seats: frozenset[int] = frozenset()
    last_swap: tuple[int, tuple[int, int]] | None = None  # (night, seats)
    fear_last: int | None = None
    dream_prev: int | None = None  # the previous night's sleepwalker (after the swap)
    mech_learned: int | None = None
    mech_poison: bool = True
    mech_guard_last: int | None = None  # last night's protection by a 机械狼 with the guard's power
    exiled_day: tuple[int, int] | None = None  # (day, seat) of the last exile by vote that stood
    knight_used: bool = False
    reflections: int = 0
    knife_told: bool = False
    sealed_night: int | None = None  # the night a 血月使徒's explosion seals every good power
    lingering: int | None = None  # the exiled last 血月使徒, until the next dawn
    # --- seed rules ---
    dawn_dead: tuple[int, ...] = ()
    """The seats announced dead this morning (speaking order: 死左/死右, the smaller of two dead)."""
    last_clockwise: bool | None = None
    """The direction of the last day's round of speeches (F9: the next goes the other way)."""
    electing: bool = False
    """A sheriff election is under way (its speeches are the candidates')."""
    new_moon_turned: tuple[str, ...] = ()
    ally_due: bool = False
    """新月 "狼人的同盟" was turned: the first dead names the wolves' ally on the next night."""
    wolves_ally: int | None = None
    # --- derived from the above, rebuilt on demand after the events that change it (not part of the value) ---
    _living: tuple[int, ...] | None = field(default=None, repr=False, compare=False)
    _wolves: frozenset[int] | None = field(default=None, repr=False, compare=False)
    _seats: dict[Role, int] | None = field(default=None, repr=False, compare=False)
    _in_play: Counter[Role] | None = field(default=None, repr=False, compare=False)
    _groups: tuple[bool, bool] | None = field(default=None, repr=False, compare=False)

    # ---- the fold -------------------------------------------------------------------------------------

    @classmethod
    def fold(cls, journal: Iterable[ev.Event]) -> State:
        state = cls()
        for event in journal:
            state.apply(event)
        return state

    def apply(self, event: ev.Event) -> None:
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    # ---- questions the rules ask ----------------------------------------------------------------------

    def role(self, seat: int) -> Role | None:
        return self.roles.get(seat)

    def living(self) -> tuple[int, ...]:
        """The living seats, in seat order."""
        living = self._living
        if living is None:
            living = self._living = tuple(sorted(self.alive))
        return living

    def seat_of(self, role: Role) -> int | None:
        """The first seat (in the order cards were identified) known to hold `role`."""
        seats = self._seats
        return (self.holders() if seats is None else seats).get(role)

    def living_seat_of(self, role: Role) -> int | None:
        seats = self._seats
        seat = (self.holders() if seats is None else seats).get(role)
        return seat if seat is not None and seat in self.alive else None

    def holders(self) -> dict[Role, int]:
        """Each known card's first seat, in the order cards were identified (shared: do not change it)."""
        seats = self._seats
        if seats is None:
            seats = {}
            for seat, r in self.roles.items():
                seats.setdefault(r, seat)
            self._seats = seats
        return seats

    def is_wolf(self, seat: int) -> bool:
        """In the wolves' camp: a wolf card, or the wild child after his model died."""
        wolves = self._wolves
        return seat in (self.wolves() if wolves is None else wolves)

    def wolves(self) -> frozenset[int]:
        """Every seat in the wolves' camp (living or dead, as far as the cards are known)."""
        wolves = self._wolves
        if wolves is None:
            turned = self.wild_turned
            wolves = self._wolves = frozenset(
                x for x, role in self.roles.items() if role in WOLF_CARDS or (role is Role.WILD_CHILD and turned)
            )
        return wolves

    def has_power(self, role: Role) -> bool:
        """A good role keeps its power until the elder is killed by the village."""
        return not (self.powers_lost and role not in WOLF_CARDS and role is not Role.PIPER)

    def lovers_camp(self) -> frozenset[int]:
        """人狼恋: one wolf and one non-wolf lover, with 丘比特, form their own camp."""
        if self.lovers is None:
            return frozenset()
        a, b = self.lovers
        if self.is_wolf(a) == self.is_wolf(b):
            return frozenset()
        camp = {a, b}
        if self.cupid_seat is not None:
            camp.add(self.cupid_seat)
        return frozenset(camp)

    def in_play(self) -> Counter[Role]:
        """Cards held by players: the deck less the two the thief left face down (shared: do not change it)."""
        counts = self._in_play
        if counts is None:
            counts = _counted(self.deck)
            if self.buried:
                counts = counts.copy()
                counts.subtract(Counter(self.buried))
                counts = +counts
            self._in_play = counts
        return counts

    def exile_voters(self) -> tuple[int, ...]:
        voters = [s for s in self.living() if not (self.idiot_revealed and self.roles.get(s) is Role.IDIOT)]
        if self.scapegoat_voters is not None:
            voters = [s for s in voters if s in self.scapegoat_voters]
        return tuple(voters)

    def vote_weight(self, seat: int) -> float:
        return self.rules.sheriff_weight if seat == self.sheriff else 1.0

    def groups_at_start(self) -> tuple[bool, bool]:
        """Whether the game had any 神 and any 民 (屠边 only counts a side that existed)."""
        groups = self._groups
        if groups is None:
            roles = set(self.roles.values())
            gods, folk = self.sides()
            half = Role.HALF_BLOOD in roles and self.rules.half_blood_counts_as == "folk"
            groups = self._groups = (bool(roles & gods), bool(roles & folk) or Role.WILD_CHILD in roles or half)
        return groups

    def sides(self) -> tuple[frozenset[Role], frozenset[Role]]:
        """The cards counted as 神 and as 民 for 屠边 (D27: the idiot is either, by the house rule)."""
        return IDIOT_FOLK if self.rules.idiot_counts_as == "folk" else IDIOT_GOD

    def cards_changed(self, *, dealt: bool = False) -> None:
        """Forget what is derived from the cards (a card identified or taken, the wild child turned; `dealt`:
        the cards in play changed too, the thief's pair named or one taken)."""
        self._wolves = self._seats = self._groups = None
        if dealt:
            self._in_play = None

    def wolves_allies(self) -> tuple[int, ...]:
        """Seats outside the wolves' camp that win with it: 丘比特 who linked two wolves (D33), the wolves' ally
        of the New Moon (A16)."""
        out: set[int] = set() if self.wolves_ally is None else {self.wolves_ally}
        if self.rules.cupid_two_wolves == "wolves" and self.lovers is not None and self.cupid_seat is not None:
            a, b = self.lovers
            if self.is_wolf(a) and self.is_wolf(b) and not self.is_wolf(self.cupid_seat):
                out.add(self.cupid_seat)
        return tuple(sorted(out))


@lru_cache(maxsize=64)
def _counted(deck: tuple[Role, ...]) -> Counter[Role]:
    """A deck's cards counted (shared by every game of the deck: do not change it)."""
    return Counter(deck)


IDIOT_GOD = (GODS, FOLK)
IDIOT_FOLK = (GODS - {Role.IDIOT}, FOLK | {Role.IDIOT})


# ---- where tonight's actions land (the 魔术师's swap) --------------------------------------------------

def swap_now(s: State) -> tuple[int, int] | None:
    """Tonight's 魔术师 swap, unless the 梦魇 feared the magician (his swap is then void)."""
    swap = s.tonight.swap
    if swap is None:
        return None
    feared = s.tonight.feared
    if feared is not None and s.roles.get(feared) is Role.MAGICIAN:
        return None
    return swap


def land(s: State, seat: int | None) -> int | None:
    """Where a night action aimed at `seat` lands: the other seat of tonight's swap, else `seat`."""
    if seat is None or s.tonight.swap is None:
        return seat
    swap = swap_now(s)
    if swap is None:
        return seat
    a, b = swap
    return b if seat == a else a if seat == b else seat


# ---- handlers: one per event type that changes the state ------------------------------------------------

def _started(s: State, e: ev.GameStarted) -> None:
    s.players, s.deck, s.rules = e.players, e.deck, e.rules
    s.alive = set(range(1, e.players + 1))
    s._living = None
    s.cards_changed(dealt=True)


def _night(s: State, e: ev.NightFell) -> None:
    t = s.tonight
    s.night = e.night
    s.dream_prev = land(s, t.dreamed)  # 梦死 counts consecutive nights only
    # "Never the same player two nights running" looks at the night before, not at the last time he was
    # asked: a guard or raven feared, sealed or guarding nobody (空守) picked nobody last night.
    s.guard_last, s.raven_last, s.mech_guard_last = t.protected, s.curse, t.mech_protected
    s.tonight = Tonight()
    s.curse = None  # a curse counts in the vote of the day after it was laid, then never again


def _identified(s: State, e: ev.RoleIdentified) -> None:
    for seat in e.seats:
        s.roles[seat] = e.role
    s.cards_changed()


def _villagers(s: State, e: ev.VillagersIdentified) -> None:
    for seat in e.seats:
        s.roles[seat] = Role.VILLAGER
    s.cards_changed()


def _thief_cards(s: State, e: ev.ThiefCardsNamed) -> None:
    s.buried = e.cards
    s.cards_changed(dealt=True)


def _thief_took(s: State, e: ev.ThiefTookCard) -> None:
    s.thief_seat = e.seat
    s.cards_changed(dealt=True)
    if e.role is None:
        s.roles[e.seat] = Role.VILLAGER
        return
    s.roles[e.seat] = e.role
    left = list(s.buried)
    left.remove(e.role)
    s.buried = (left[0], Role.THIEF)


def _lovers(s: State, e: ev.LoversLinked) -> None:
    s.lovers = e.seats
    s.cupid_seat = s.seat_of(Role.CUPID)  # 人狼恋: 丘比特 joins the lovers' camp


def _model(s: State, e: ev.ModelChosen) -> None:
    s.model = e.seat


def _guard(s: State, e: ev.GuardProtected) -> None:
    s.tonight.protected = e.seat


def _victim(s: State, e: ev.WolvesChoseVictim) -> None:
    s.tonight.victim = e.seat


def _beauty(s: State, e: ev.WolfBeautyCharmed) -> None:
    s.beauty_charm = land(s, e.seat)  # the 魔术师's swap moves the charm too


def _saved(s: State, e: ev.WitchSaved) -> None:
    s.tonight.saved = e.seat
    s.antidote = False
    if s.rules.witch_potions == "one":
        s.poison = False  # D15: one potion in all, 要不救人，要不杀人


def _poisoned(s: State, e: ev.WitchPoisoned) -> None:
    s.tonight.poisoned = e.seat
    s.poison = False
    if s.rules.witch_potions == "one":
        s.antidote = False


def _cursed(s: State, e: ev.RavenCursed) -> None:
    s.curse = e.seat


def _piper(s: State, e: ev.PiperCharmed) -> None:
    s.charmed.update(e.seats)


def _resolved(s: State, e: ev.NightResolved) -> None:
    s.pending = e.deaths
    if e.elder_survived:
        s.elder_lives -= 1


def _day(s: State, e: ev.DayBroke) -> None:
    s.day = e.day


def _opened(s: State, e: ev.ElectionOpened) -> None:
    s.electing = True


def _ordered(s: State, e: ev.SpeechesOrdered) -> None:
    if e.clockwise is not None:
        s.last_clockwise = e.clockwise


def _raised(s: State, e: ev.CandidatesRaised) -> None:
    s.candidates = e.seats
    s.ran = frozenset(e.seats)


def _withdrew(s: State, e: ev.CandidatesWithdrew) -> None:
    s.candidates = tuple(c for c in s.candidates if c not in e.seats)


def _elected(s: State, e: ev.SheriffElected) -> None:
    s.sheriff = e.seat
    s.election_done = True
    s.electing = False


def _no_sheriff(s: State, e: ev.NoSheriff) -> None:
    s.election_done = True
    s.electing = False
    if e.reason == "badge_lost":
        s.badge_gone = True


def _postponed(s: State, e: ev.ElectionPostponed) -> None:
    s.election_explosions += 1
    s.electing = False


def _announced(s: State, e: ev.DeathsAnnounced) -> None:
    s.pending = ()
    s.dawn_dead = e.seats


def _died(s: State, e: ev.PlayerDied) -> None:
    s.alive.discard(e.seat)
    s._living = None
    s.deaths[e.seat] = (e.cause, e.when)
    s.last_death = e.seat
    s.charmed.discard(e.seat)


def _turned(s: State, e: ev.WildChildTurned) -> None:
    s.wild_turned = True
    s.cards_changed()


def _powers(s: State, e: ev.VillagePowersLost) -> None:
    s.powers_lost = True


def _badge(s: State, e: ev.BadgePassed) -> None:
    s.sheriff = e.to_seat
    if e.to_seat is None:
        s.badge_gone = True


def _vote_called(s: State, e: ev.VoteCalled) -> None:
    if e.kind == "vote.exile":
        s.scapegoat_voters = None  # the scapegoat's choice holds for one exile vote


def _revealed(s: State, e: ev.IdiotRevealed) -> None:
    s.idiot_revealed = True


def _scapegoat(s: State, e: ev.ScapegoatChoseVoters) -> None:
    s.scapegoat_voters = e.voters


def _new_moon(s: State, e: ev.NewMoonCardTurned) -> None:
    s.new_moon_turned = (*s.new_moon_turned, e.card)
    if e.card == "wolves_ally":
        s.ally_due = True


def _ally(s: State, e: ev.WolvesAllyNamed) -> None:
    s.ally_due = False
    s.wolves_ally = e.seat


def _ended(s: State, e: ev.GameEnded) -> None:
    s.winner = e.winner


_HANDLERS: dict[type, Callable[[State, Any], None]] = {
    ev.GameStarted: _started,
    ev.NightFell: _night,
    ev.RoleIdentified: _identified,
    ev.VillagersIdentified: _villagers,
    ev.ThiefCardsNamed: _thief_cards,
    ev.ThiefTookCard: _thief_took,
    ev.LoversLinked: _lovers,
    ev.ModelChosen: _model,
    ev.GuardProtected: _guard,
    ev.WolvesChoseVictim: _victim,
    ev.WolfBeautyCharmed: _beauty,
    ev.WitchSaved: _saved,
    ev.WitchPoisoned: _poisoned,
    ev.RavenCursed: _cursed,
    ev.PiperCharmed: _piper,
    ev.NightResolved: _resolved,
    ev.DayBroke: _day,
    ev.ElectionOpened: _opened,
    ev.SpeechesOrdered: _ordered,
    ev.CandidatesRaised: _raised,
    ev.CandidatesWithdrew: _withdrew,
    ev.SheriffElected: _elected,
    ev.NoSheriff: _no_sheriff,
    ev.ElectionPostponed: _postponed,
    ev.DeathsAnnounced: _announced,
    ev.PlayerDied: _died,
    ev.WildChildTurned: _turned,
    ev.VillagePowersLost: _powers,
    ev.BadgePassed: _badge,
    ev.VoteCalled: _vote_called,
    ev.IdiotRevealed: _revealed,
    ev.ScapegoatChoseVoters: _scapegoat,
    ev.NewMoonCardTurned: _new_moon,
    ev.WolvesAllyNamed: _ally,
    ev.GameEnded: _ended,
}


def recorder(journal: list[ev.Event], state: State) -> Callable[[ev.Event], None]:
    """The flow's `emit`: append each event to `journal` and fold it into `state` (State.apply, inlined: it
    runs for every event of every game)."""
    append, handler_of = journal.append, _HANDLERS.get

    def record(event: ev.Event) -> None:
        append(event)
        handler = handler_of(type(event))
        if handler is not None:
            handler(state, event)

    return record


Handler = Callable[[State, Any], None]


def register(handlers: dict[type, Handler], after: dict[type, Handler]) -> None:
    """Fold more event types (`handlers`), and run `after` each after the classic handler of its event: how
    the modern roles (modern_state.py) join the fold without this module importing them."""
    _HANDLERS.update(handlers)
    for kind, then in after.items():
        _HANDLERS[kind] = _chain(_HANDLERS.get(kind), then)


def _chain(first: Handler | None, then: Handler) -> Handler:
    def both(s: State, e: Any) -> None:
        if first is not None:
            first(s, e)
        then(s, e)

    return both
