"""Cards on night 1: identification, who acts for a card tonight, and what a check shows."""

from __future__ import annotations

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Seats
from narrator.engine.base import SEATS, FlowBase, Flowing
from narrator.engine.modern_state import blocked
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import Refusal, refuse
from narrator.engine.roles import WOLF_CARDS, Role

SLUG = {role: role.value for role in Role}
"""Each card's slug (an enum's `.value` is a property call: this is read in every night's checks)."""
IDENTIFY = {role: f"{role.value}.identify" for role in Role}
"""Each card's identification prompt kind."""


class CardsFlow(FlowBase):
    # ---- identification (night 1) -------------------------------------------------------------------

    def identify(self, role: Role) -> Flowing:
        """The host names the seats holding `role`; skipped when no such card is in play."""
        expected = self.s.in_play()[role]
        if role is Role.VILLAGER or expected == 0:
            return
        roles = self.s.roles
        known = [x for x, r in roles.items() if r is role]
        if len(known) == expected:
            return  # the thief already took this card, and it is the only one

        def check(answer: Answer) -> Refusal | None:
            assert isinstance(answer, Seats)
            for x in answer.seats:
                other = roles.get(x)
                if other is not None and other is not role:
                    return refuse("identify.other_card", seat=x, role=other)
            for x in known:
                if x not in answer.seats:
                    return refuse("identify.missing", seat=x, role=role)
            return None

        answer = yield Prompt(IDENTIFY[role], SEATS, role, None, self.plan.seats, expected, expected, True, {}, check)
        assert isinstance(answer, Seats)
        self.emit(ev.RoleIdentified(role, tuple(sorted(answer.seats))))

    def acting(self, role: Role) -> int | None:
        """The living seat that acts for `role` tonight, or None (dead, absent, buried, powerless, feared by
        the 梦魇 or sealed by a 血月使徒's explosion)."""
        s = self.s
        seat = s.living_seat_of(role)
        if seat is None or (s.powers_lost and not s.has_power(role)) or (self.plan.blockers and blocked(s, seat)):
            return None
        return seat

    def exact_card(self, seat: int) -> str | None:
        """What an exact-card check shows: the card's slug, or None when it is not identified yet (the host
        then shows the card itself)."""
        role = self.s.roles.get(seat)
        return SLUG[role] if role is not None else None

    def seer_result(self, seat: int) -> str | None:
        role = self.s.roles.get(seat)
        if self.rules.seer_sees == "role":
            if role is Role.WILD_CHILD and self.s.wild_turned:
                return Role.WEREWOLF.value
            return SLUG[role] if role is not None else None
        if self.s.is_wolf(seat):
            return "wolf"
        if role is not None:
            return "good"
        # Every wolf card is identified before the seer wakes in the modern order; in an order where the
        # seer wakes first, an unidentified card is shown by the host instead.
        wolves_known = sum(1 for r in self.s.roles.values() if r in WOLF_CARDS)
        all_wolves = sum(c for r, c in self.s.in_play().items() if r in WOLF_CARDS)
        return "good" if wolves_known == all_wolves else None
