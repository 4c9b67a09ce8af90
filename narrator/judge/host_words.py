"""How many secret host words a public line may hide: the table waits for that many whoever is alive.

At night a step's question ("你今晚要查验谁？") is followed by the host's answers on the earpiece when the
role is alive and dealt (on night 1 first the identification of its card, then the action), and by nothing
when it is dead or buried. By day an exile may hide the idiot's question (does he flip?), a skill call the
hunter's or a 狼王's shot, an explosion a 白狼王's take. The table must not hear the difference, so the judge
counts, from public facts only (the deck, the night number, the step), the most words a living role could
be asked there, and the Conductor (narrator/audio/conductor.py) waits that many of this host's answer times
after the line, asked or not. Over-counting only makes a step slower for every game alike.

A ballot at a vote may be refused for a secret reason (two lovers voting for each other): the host hears why
and reads the ballots again. So in a deck with 丘比特 a vote's call counts two words, and the table's next line
comes at the same time whether a ballot was refused or not.

Where a word's question may be irreversible and take nobody (the wolves' kill, the witch's poison, a shot, a
take: `confirms`), a typed 过 is read back and needs 对, a repair a dead role's 过 never has: such a word
allows one repair more, counted from the same public facts.

The host's answer time itself is measured only where every game asks him alike (`public_ask`: the wolves'
questions, the thief's buried cards, and on night 1 every identification when no card lies face down; marked
`Line.public_ask`), so no secret question, however slowly answered, moves a later wait.

And the host is asked something after every such line. Where the host questions after a table line number
fewer than its words' questions (`questions`: a gesture, as the hunter's shot status, asks nothing) — a
dead, buried or powerless role's step, a villager exiled in a deck with an idiot — the Session asks the
host, on the earpiece, right before the next table line, to say 过 (`ACKNOWLEDGEMENT`, kind `ACK`:
"请说过。", short, so that a step's host lines and it fit in `word_s`), so the table's next line waits for
the host's own word there as it waits for a living role's decision, however slowly he says it
(narrator/audio/conductor.py). It stands for one word, the step's decision; the words still missing (a
buried card's identification) count the host's measured answer time, as a living role's quick
identification does.
"""

from __future__ import annotations

from narrator.engine import events as ev
from narrator.engine.answers import Pass
from narrator.engine.night import STEPS
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Role, pack_cards
from narrator.engine.rules import STEP_CARD
from narrator.engine.state import State
from narrator.judge.lines import Line

NO_ANSWER_PARTS = frozenset({"result"})
"""A step's later public lines that ask the host nothing (he shows a result with a gesture)."""


def host_words(event: ev.Event, state: State) -> int:
    """The secret host words the table line of `event` may hide (0: none, the table goes on)."""
    if isinstance(event, ev.StepOpened):
        return 1 + (identifications(event.step, state) if event.night == 1 else 0)
    if isinstance(event, ev.StepAsked):
        return 0 if event.part in NO_ANSWER_PARTS else 1
    if isinstance(event, ev.SkillCalled):
        return 1  # the hunter's, 狼王's or 机械狼's shot
    if isinstance(event, ev.PlayerExiled):
        return 1 if Role.IDIOT in state.deck else 0  # does the idiot flip?
    if isinstance(event, ev.SelfExploded):
        return 1 if Role.WHITE_WOLF_KING in state.deck else 0  # whom does the 白狼王 take?
    return 0


CONFIRMED_STEPS = frozenset({("wolves", None), ("witch", "poison")})
"""Night steps (step, StepAsked part; None: its opening question) whose question is irreversible and takes
nobody: the wolves' kill (空刀), the witch's poison (不用)."""
SHOOTERS = frozenset({Role.HUNTER, Role.BLACK_WOLF_KING, Role.MECH_WOLF})
"""Cards whose death may bring a shot a skill call hides (the 机械狼 when it copied the hunter)."""


def confirms(event: ev.Event, state: State) -> int:
    """Of the host words `host_words` counts for `event`, those whose question may be irreversible and take
    nobody — the wolves' kill, the witch's poison, a shot, the 白狼王's take: there a typed or keyed 过 is read
    back ("没有人，对吗？") and needs 对 (narrator/listen/doubt.py, issue 29), a repair only a living role's
    decision can have. So the table waits for one read-back more at each such word, whoever is alive and
    whether or not it came (narrator/audio/conductor.py). From public facts only: the step, the deck."""
    deck = state.deck
    if isinstance(event, ev.StepOpened):
        return 1 if (event.step, None) in CONFIRMED_STEPS else 0
    if isinstance(event, ev.StepAsked):
        return 1 if (event.step, event.part) in CONFIRMED_STEPS else 0
    if isinstance(event, ev.SkillCalled):
        return 1 if SHOOTERS & set(deck) else 0
    if isinstance(event, ev.SelfExploded):
        return 1 if Role.WHITE_WOLF_KING in deck else 0
    return 0


GESTURE_STEPS = frozenset({"lovers", "charmed", "hunter", "gravekeeper", "black_wolf_king"})
"""Night steps whose role is shown something or sees someone and is never asked (the hunter's shot status,
the 守墓人's verdict): the step's word is the host's gesture, which no 过 stands in for."""


def questions(event: ev.Event | Prompt, words: int) -> int:
    """Of a table line's host `words`, those living roles' questions would take (the rest are gestures): a
    step that only shows its role something (`GESTURE_STEPS`, or a night-1 wake that only identifies) asks
    no action. Where fewer were asked, the Session asks the host for 过."""
    if isinstance(event, ev.StepOpened) and (event.step in GESTURE_STEPS or STEPS.get(event.step) is None):
        return max(0, words - 1)
    return words


PUBLIC_ASKS = frozenset({"thief.cards", "wolves.identify", "wolves.kill"})
"""Host questions every game asks alike where they are asked: the two cards under a thief's deck (buried or
not), the wolves (always dealt, alive while the game goes on)."""
BALLOTS = frozenset({"sheriff.vote", "vote.exile", "pk.vote", "vote.hands"})
"""Prompts whose answer is the ballots: a lover's ballot for his partner is refused to the host alone."""


def prompt_words(prompt: Prompt, state: State) -> int:
    """The host words a prompt's table line may hide: the ballots read again after a refused lovers' ballot."""
    return 2 if prompt.kind in BALLOTS and Role.CUPID in state.deck else 0


def mark_prompt(lines: list[Line], prompt: Prompt, state: State) -> list[Line]:
    """A prompt's lines, marked: its table line with `prompt_words`, a public host question `public_ask`."""
    words = prompt_words(prompt, state)
    out = list(lines)
    for i, line in enumerate(out):
        if line.to == "all" and words:
            out[i] = line.replaced(words=words)
        elif line.to == "host" and public_ask(prompt, state):
            out[i] = line.replaced(public_ask=True)
    return out


ACK = "host.pass"
"""The acknowledgement's prompt kind: the host says 过 for the words nobody was asked."""


ACKNOWLEDGEMENT = Prompt(ACK, frozenset({Pass}), secret=True)
"""The host question asked where a table line's words were not all asked: 过, on the earpiece. It carries no
game fact, so it is neither an engine prompt nor journaled (`Session.acks`)."""


def public_ask(prompt: Prompt, state: State) -> bool:
    """Is this host question asked in every game of the deck at this point? `PUBLIC_ASKS`, and on night 1
    every card's identification when no card lies face down (no thief: every card of the deck is dealt)."""
    if prompt.kind in PUBLIC_ASKS:
        return True
    return prompt.kind.endswith(".identify") and Role.THIEF not in state.deck


def identifications(step: str, state: State) -> int:
    """Night 1: the host words that identify the step's cards (asked only when a card is dealt: counted for
    every card of the deck), and the thief's two buried cards. A card of the pack is identified once, where it
    is first called (`with_wolves`)."""
    deck = state.deck
    if step == "wolves":
        return len(with_wolves(state))
    card = STEP_CARD.get(step)
    extra = 1 if step == "thief" else 0  # the two cards left face down
    if card in with_wolves(state):
        return extra
    return extra + (1 if card is not None and card in deck and card is not Role.VILLAGER else 0)


OWN_IDENTIFYING = frozenset({"wolf_beauty"})
"""Steps of a pack card that identify it on night 1 when the night order calls them before the wolves'
(`Night.step_wolf_beauty`); otherwise the card is identified with the wolves."""


def with_wolves(state: State) -> tuple[Role, ...]:
    """The pack's cards (`pack_cards`) identified — and shown at the table's cue — in the wolves' step on night
    1: all but one whose own step identifies it and comes first (the engine identifies a card once:
    CardsFlow.identify skips a card already known)."""
    order = state.rules.night_order
    wolves = order.index("wolves") if "wolves" in order else len(order)

    def first(role: Role) -> bool:
        own = [i for i, step in enumerate(order) if step in OWN_IDENTIFYING and STEP_CARD[step] is role]
        return not own or wolves < own[0]

    return tuple(role for role in pack_cards(state.deck, state.rules.demon) if first(role))
