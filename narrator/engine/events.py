"""Events: what happened, in the past tense. Frozen; the journal of them is the game.

`State` is a fold over these (see state.py), so the journal is at once the save file, the undo stack and
the bug report. `SECRET` events carry what only the host may hear (a seer's result, the witch's victim).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from narrator.engine.roles import Camp, Role
from narrator.engine.rules import Rules
from narrator.engine.values import quick_init, quick_init_all

Cause = Literal[
    "wolves", "poison", "shot", "exile", "lover", "explode", "taken", "charm", "scapegoat", "elder",
    # --- modern roles: 梦死 / dream link, the 猎魔人's hunt, the 恶灵骑士's reflection, the knight's duel,
    # the 狼王's shot, the exiled last 血月使徒 dying at the next dawn ---
    "dream", "hunt", "reflect", "duel", "king_shot", "lingered",
]  # fmt: skip

Termination = Literal["wolves_dead", "gods_dead", "villagers_dead", "good_dead", "parity", "lovers", "piper"]
"""Why a game ended (GameEnded.termination): every wolf dead (the good side wins); every god, every villager
(屠边) or every good player (屠城, or no one left to stand against the wolves) dead; wolves at least as many
as the others (`win: parity`); only the lovers left; every living player charmed by the piper."""
TERMINATIONS: tuple[Termination, ...] = (
    "wolves_dead", "gods_dead", "villagers_dead", "good_dead", "parity", "lovers", "piper",
)  # fmt: skip


@dataclass(frozen=True, slots=True, order=True)
class When:
    """A moment of the game: night N or day N. `str(when)` is "night1", "day2" (scenario files use it)."""

    phase: Literal["night", "day"]
    n: int

    def __str__(self) -> str:
        return f"{self.phase}{self.n}"

    @property
    def night(self) -> bool:
        return self.phase == "night"

    @property
    def day(self) -> bool:
        return self.phase == "day"

    @classmethod
    def parse(cls, text: str) -> When:
        """ "night1" / "day2" back to a When; ValueError for anything else."""
        for phase in ("night", "day"):
            rest = text[len(phase):] if text[: len(phase)] == phase else ""
            if rest.isdigit() and rest[0] != "0":
                return cls(phase, int(rest))
        raise ValueError(f"not a moment of the game: {text!r} (night1, day2, …)")


@dataclass(frozen=True, slots=True)
class Event:
    secret: ClassVar[bool] = False


# ---- set-up and night ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    players: int
    deck: tuple[Role, ...]
    rules: Rules


@dataclass(frozen=True, slots=True)
class NightFell(Event):
    night: int


@dataclass(frozen=True, slots=True)
class StepOpened(Event):
    """"X请睁眼": said the same way whether X is alive, dead or buried."""

    step: str
    night: int


@dataclass(frozen=True, slots=True)
class StepAsked(Event):
    """A night step's next public question or gesture (`part`: the witch's "poison" question after the
    antidote one, the seer's "result" gesture after his choice). Emitted at the same point of the step every
    night, whether its player is alive, dead, powerless or out of potions: one prompt, one question."""

    step: str
    part: str
    night: int


@dataclass(frozen=True, slots=True)
class StepClosed(Event):
    step: str
    night: int


@dataclass(frozen=True, slots=True)
class RoleIdentified(Event):
    """Night 1: the host told the judge which seats hold this card."""

    secret: ClassVar[bool] = True
    role: Role
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ThiefCardsNamed(Event):
    secret: ClassVar[bool] = True
    cards: tuple[Role, Role]


@dataclass(frozen=True, slots=True)
class ThiefTookCard(Event):
    """The thief swapped for `role`, or kept his card (None) and plays as a villager."""

    secret: ClassVar[bool] = True
    seat: int
    role: Role | None


@dataclass(frozen=True, slots=True)
class LoversLinked(Event):
    secret: ClassVar[bool] = True
    seats: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ModelChosen(Event):
    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class GuardProtected(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class WolvesChoseVictim(Event):
    secret: ClassVar[bool] = True
    seat: int | None  # None: 空刀


@dataclass(frozen=True, slots=True)
class WolfBeautyCharmed(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class WitchToldVictim(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class WitchSaved(Event):
    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class WitchPoisoned(Event):
    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class WitchDeclined(Event):
    """不救 / 不用: the witch kept a potion tonight (acknowledged to the host like 救 and 毒)."""

    secret: ClassVar[bool] = True
    potion: Literal["antidote", "poison"]


@dataclass(frozen=True, slots=True)
class SeerChecked(Event):
    """`result`: "good"/"wolf" (camp) or a role slug (role); None when the card is not known yet, and the
    host shows the seer the card itself."""

    secret: ClassVar[bool] = True
    seat: int
    result: str | None


@dataclass(frozen=True, slots=True)
class RavenCursed(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class PiperCharmed(Event):
    secret: ClassVar[bool] = True
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ShootStatusTold(Event):
    secret: ClassVar[bool] = True
    seat: int
    can_shoot: bool


@dataclass(frozen=True, slots=True)
class VillagersIdentified(Event):
    secret: ClassVar[bool] = True
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NightResolved(Event):
    """Dawn: who died in the night and why, known to the judge before it is announced."""

    secret: ClassVar[bool] = True
    deaths: tuple[tuple[int, Cause], ...]
    elder_survived: bool = False


# ---- day ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayBroke(Event):
    day: int


@dataclass(frozen=True, slots=True)
class ElectionOpened(Event):
    day: int


@dataclass(frozen=True, slots=True)
class CandidatesRaised(Event):
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CandidatesWithdrew(Event):
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class VotesCounted(Event):
    """A vote's breakdown (票型): who voted whom, and the weighted tally. `kind` is the prompt kind."""

    kind: str
    ballots: tuple[tuple[int, int], ...]
    tally: tuple[tuple[int, float], ...]


@dataclass(frozen=True, slots=True)
class VoteTied(Event):
    kind: str
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SheriffElected(Event):
    seat: int


@dataclass(frozen=True, slots=True)
class NoSheriff(Event):
    reason: Literal["no_candidate", "all_candidates", "tie", "badge_lost"]


@dataclass(frozen=True, slots=True)
class ElectionPostponed(Event):
    """A wolf exploded during the election: it is held again the next day, once (单爆)."""


@dataclass(frozen=True, slots=True)
class DeathsAnnounced(Event):
    """Dawn announcement in seat order; empty: 平安夜."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayerDied(Event):
    seat: int
    cause: Cause
    when: When  # str(): "night1", "day2", …


@dataclass(frozen=True, slots=True)
class WildChildTurned(Event):
    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class VillagePowersLost(Event):
    """The elder was killed by the village (poison, shot, exile): good roles lose their powers."""

    secret: ClassVar[bool] = True
    elder: int


@dataclass(frozen=True, slots=True)
class SkillCalled(Event):
    """A dead player is asked in public whether he uses a skill (七号，请确认是否发动技能), before any skill
    of his death is asked: said for every death but a self-explosion, whatever the card, so the table knows
    why it waits and learns nothing from who is asked."""

    seat: int


@dataclass(frozen=True, slots=True)
class HunterShot(Event):
    shooter: int
    target: int | None


@dataclass(frozen=True, slots=True)
class SelfExploded(Event):
    seat: int


@dataclass(frozen=True, slots=True)
class WolfKingTook(Event):
    king: int
    target: int | None


@dataclass(frozen=True, slots=True)
class BadgePassed(Event):
    """The dead sheriff hands the badge on; None: 撕警徽, no sheriff for the rest of the game."""

    from_seat: int
    to_seat: int | None


@dataclass(frozen=True, slots=True)
class SpeechesOrdered(Event):
    order: tuple[int, ...]
    direction: Literal["left", "right"] | None
    pk: bool = False
    clockwise: bool | None = None
    """The day's round of speeches: whether it goes up the seat numbers (None: election or PK speeches)."""
    dead: int | None = None
    """死左 / 死右: the dead player the sheriff's side counts from (None: 警左 / 警右 from the sheriff)."""


@dataclass(frozen=True, slots=True)
class SpeechEnded(Event):
    seat: int
    last_words: bool = False


@dataclass(frozen=True, slots=True)
class VoteCalled(Event):
    kind: str
    voters: tuple[int, ...]
    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayerExiled(Event):
    seat: int


@dataclass(frozen=True, slots=True)
class NoExile(Event):
    reason: Literal["tie", "no_votes", "sheriff"]


@dataclass(frozen=True, slots=True)
class IdiotRevealed(Event):
    seat: int


@dataclass(frozen=True, slots=True)
class ScapegoatChoseVoters(Event):
    seat: int
    voters: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NightComes(Event):
    """The day ended (after the exile, or at once after a self-explosion)."""

    day: int


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    winner: Camp
    roles: tuple[tuple[int, Role], ...]  # every seat's card, read out at the end
    termination: Termination  # why: the judge says it, the recap shows it


# --- modern roles (docs/rule-book.md) ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HalfBloodChose(Event):
    """混血儿: his model (榜样); `camp` is filled at the end of night 1, once every card is known."""

    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class HalfBloodCamp(Event):
    secret: ClassVar[bool] = True
    seat: int
    model: int
    camp: Camp


@dataclass(frozen=True, slots=True)
class MagicianSwapped(Event):
    secret: ClassVar[bool] = True
    seats: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class NightmareFeared(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class FearTold(Event):
    """At each step of the feared player: "请向N号示意：今晚被恐惧，不能行动"."""

    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class SealTold(Event):
    """After a 血月使徒's explosion, at each good role's step: it asks nothing tonight."""

    secret: ClassVar[bool] = True
    role: Role


@dataclass(frozen=True, slots=True)
class KillBlocked(Event):
    """Night 1: the 梦魇 feared a wolf, so the pack cannot kill tonight."""

    secret: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class KnifeInherited(Event):
    """Every pack wolf is dead: the lone wolf cards (石像鬼, 机械狼, offline 恶魔) now hold the knife."""

    secret: ClassVar[bool] = True
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DreamChosen(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class DemonChecked(Event):
    """`god`: 是神 / 不是神; None when the card is not known yet (the host reads it and signals)."""

    secret: ClassVar[bool] = True
    seat: int
    god: bool | None


@dataclass(frozen=True, slots=True)
class DemonBriefed(Event):
    """The offline 恶魔's night-1 briefing: seats by group, as far as the cards are known at his step."""

    secret: ClassVar[bool] = True
    wolves: tuple[int, ...]
    gods: tuple[int, ...]
    folk: tuple[int, ...]
    unknown: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardChecked(Event):
    """An exact-card check (通灵师, 石像鬼, 机械狼 learning or copying a check). `result`: a role slug, "good" /
    "wolf" for a copied seer's camp view, or None: the host shows the card itself."""

    secret: ClassVar[bool] = True
    role: Role
    seat: int
    result: str | None


@dataclass(frozen=True, slots=True)
class MechWolfLearned(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class MechWolfProtected(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class MechWolfPoisoned(Event):
    secret: ClassVar[bool] = True
    seat: int | None


@dataclass(frozen=True, slots=True)
class PowerNone(Event):
    """The 机械狼 copied a card with no night power (or learned nothing): his step asks nothing."""

    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class GravekeeperTold(Event):
    """Yesterday's exiled player's camp (seer's view), or None: nobody was exiled by vote."""

    secret: ClassVar[bool] = True
    seat: int | None
    wolf: bool = False


@dataclass(frozen=True, slots=True)
class WitcherHunted(Event):
    secret: ClassVar[bool] = True
    seat: int | None
    wolf: bool = False


@dataclass(frozen=True, slots=True)
class KingShootStatusTold(Event):
    """The 狼王's (or a 机械狼 that copied the hunter) shoot status, to the host."""

    secret: ClassVar[bool] = True
    role: Role
    seat: int
    can_shoot: bool


@dataclass(frozen=True, slots=True)
class KingShot(Event):
    """The 狼王 (or a 机械狼 with the hunter's gun) fired on death; said as the hunter's shot is."""

    role: Role
    shooter: int
    target: int | None


@dataclass(frozen=True, slots=True)
class KnightDueled(Event):
    """The knight revealed himself and dueled `target`: a wolf dies (the day ends), else the knight does."""

    knight: int
    target: int
    wolf: bool


@dataclass(frozen=True, slots=True)
class BloodMoonLingers(Event):
    """The exiled 血月使徒 is the last wolf: he stays until the next dawn and names that night's kill."""

    secret: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True, slots=True)
class SheriffDecidedTie(Event):
    """`exile_tie: sheriff_decides`: the sheriff named one of the tied players (None: nobody)."""

    sheriff: int
    seat: int | None
# --- seed rules --- (issue 11)


@dataclass(frozen=True, slots=True)
class OffstagePkOpened(Event):
    """场外PK after a second tie: the players off the PK stage speak, then a third vote among `tied`."""

    tied: tuple[int, ...]
    speakers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class VoteClosed(Event):
    """An eyes-closed vote (`vote_call: eyes_closed`) is over: everyone opens their eyes."""

    kind: str


@dataclass(frozen=True, slots=True)
class NewMoonCardTurned(Event):
    """新月: the morning's event card, read to the table (`Rules.new_moon` is the deck)."""

    day: int
    card: str


@dataclass(frozen=True, slots=True)
class WolvesAllyNamed(Event):
    """新月 "狼人的同盟": the game's first dead named a non-wolf who wins with the wolves (None: nobody)."""

    secret: ClassVar[bool] = True
    seat: int | None


quick_init_all(Event)  # every event type is built through its slots (values.py): hundreds a game
quick_init(When)
