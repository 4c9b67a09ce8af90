"""新月 (New Moon, seed 000:250-252): an event card is turned each morning while the deck (`Rules.new_moon`) lasts.

The one event the seed describes, "狼人的同盟" (`wolves_ally`): the night after the card is turned, all eyes
closed, the game's first dead player wakes and names a player who is not a wolf; that player wakes, is shown
the wolves, keeps his own card and does not wake with them, but wins when they win. The step is called that
night whether or not anyone has died yet (then nobody becomes the ally), so the night sounds the same.
"""

from __future__ import annotations

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Seats
from narrator.engine.base import FlowBase, Flowing
from narrator.engine.refusals import Refusal, refuse


class NewMoon(FlowBase):
    def wolves_ally(self, n: int) -> Flowing:
        self.emit(ev.StepOpened("wolves_ally", n))
        first = next(iter(self.s.deaths), None)  # deaths are recorded in the order they happened
        seat = None
        if first is not None:
            state = self.s

            def check(answer: Answer) -> Refusal | None:
                seats = answer.seats if isinstance(answer, Seats) else ()
                wolf = next((x for x in seats if state.is_wolf(x)), None)
                return None if wolf is None else refuse("ally.wolf", seat=wolf)

            seat = yield from self.ask_one("wolves_ally.name", self.living(), True, check=check, secret=True,
                                           info={"first_dead": first})
        self.emit(ev.WolvesAllyNamed(seat))
        self.emit(ev.StepClosed("wolves_ally", n))
