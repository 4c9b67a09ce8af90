"""The judge's lines for the modern roles' events (docs/rule-book.md). Mixed into `Judge`.

Everything a night step learns goes to the host; the table hears only the step lines (the same whoever is
alive), the knight's duel, the 狼王's shot (said as the hunter's is), a 血月使徒's turned card and the
sheriff's decision on a tie.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from narrator.engine import events as ev
from narrator.engine.roles import Role
from narrator.engine.state import State
from narrator.judge.lines import Line
from narrator.judge.script import Script, Seat, seats


class ModernLines:
    script: Script
    if TYPE_CHECKING:  # Judge's own helpers

        def _ev(self, key: str, event: ev.Event | None = None, **values: object) -> Line: ...

        def _optional(self, key: str, e: Any) -> list[Line]: ...

    def _name(self, role: Role) -> str:
        return self.script.role(role.value)

    def _half_blood_camp(self, e: ev.HalfBloodCamp, s: State) -> list[Line]:
        return [self._ev("half_blood_camp", e, model=Seat(e.model), camp=self.script.camp(e.camp.value))]

    def _magician_swapped(self, e: ev.MagicianSwapped, s: State) -> list[Line]:
        if e.seats is None:
            return [self._ev("magician_swapped.none")]
        return [self._ev("magician_swapped", a=Seat(e.seats[0]), b=Seat(e.seats[1]))]

    def _nightmare_feared(self, e: ev.NightmareFeared, s: State) -> list[Line]:
        return self._optional("nightmare_feared", e)

    def _seal_told(self, e: ev.SealTold, s: State) -> list[Line]:
        return [self._ev("seal_told", role=self._name(e.role))]

    def _knife_inherited(self, e: ev.KnifeInherited, s: State) -> list[Line]:
        return [self._ev("knife_inherited", e)]

    def _dream_chosen(self, e: ev.DreamChosen, s: State) -> list[Line]:
        return self._optional("dream_chosen", e)

    def _demon_checked(self, e: ev.DemonChecked, s: State) -> list[Line]:
        key = "demon_checked.unknown" if e.god is None else "demon_checked" if e.god else "demon_checked.no"
        return [self._ev(key, e)]

    def _demon_briefed(self, e: ev.DemonBriefed, s: State) -> list[Line]:
        out = [self._ev("demon_briefed")]
        for group in ("wolves", "gods", "folk", "unknown"):
            found: tuple[int, ...] = getattr(e, group)
            if found:
                out.append(self._ev(f"demon_briefed.{group}", seats=seats(found)))
        return out

    def _card_checked(self, e: ev.CardChecked, s: State) -> list[Line]:
        who = self._name(e.role)
        if e.result is None:
            return [self._ev("card_checked.unknown", e, role=who)]
        return [self._ev("card_checked", e, role=who, result=self.script.seer_result(e.result))]

    def _mech_wolf_learned(self, e: ev.MechWolfLearned, s: State) -> list[Line]:
        return self._optional("mech_wolf_learned", e)

    def _mech_wolf_protected(self, e: ev.MechWolfProtected, s: State) -> list[Line]:
        return self._optional("mech_wolf_protected", e)

    def _mech_wolf_poisoned(self, e: ev.MechWolfPoisoned, s: State) -> list[Line]:
        return self._optional("mech_wolf_poisoned", e)

    def _gravekeeper_told(self, e: ev.GravekeeperTold, s: State) -> list[Line]:
        if e.seat is None:
            return [self._ev("gravekeeper_told.none")]
        return [self._ev("gravekeeper_told", e, result=self.script.seer_result("wolf" if e.wolf else "good"))]

    def _witcher_hunted(self, e: ev.WitcherHunted, s: State) -> list[Line]:
        if e.seat is None:
            return [self._ev("witcher_hunted.none")]
        if not e.wolf:
            return [self._ev("witcher_hunted.miss", e)]
        immune = s.roles.get(e.seat) in (Role.DEMON, Role.SPIRIT_KNIGHT)
        return [self._ev("witcher_hunted.immune" if immune else "witcher_hunted", e)]

    def _king_shoot_status_told(self, e: ev.KingShootStatusTold, s: State) -> list[Line]:
        key = "king_shoot_status_told" if e.can_shoot else "king_shoot_status_told.no"
        return [self._ev(key, e, role=self._name(e.role))]

    def _king_shot(self, e: ev.KingShot, s: State) -> list[Line]:
        if e.target is None:
            return [self._ev("king_shot.none", e, role=self._name(e.role))]
        return [self._ev("king_shot", e)]

    def _knight_dueled(self, e: ev.KnightDueled, s: State) -> list[Line]:
        return [self._ev("knight_dueled" if e.wolf else "knight_dueled.good", knight=Seat(e.knight),
                         target=Seat(e.target))]

    def _sheriff_decided_tie(self, e: ev.SheriffDecidedTie, s: State) -> list[Line]:
        key = "sheriff_decided_tie" if e.seat is not None else "sheriff_decided_tie.none"
        return [self._ev(key, e, sheriff=Seat(e.sheriff))]

    def _self_exploded(self, e: ev.SelfExploded, s: State) -> list[Line]:
        key = "self_exploded.blood_moon" if s.roles.get(e.seat) is Role.BLOOD_MOON else "self_exploded"
        return [self._ev(key, e)]

    def modern_prompt_values(self, kind: str, info: Any) -> dict[str, object]:
        """What a modern prompt's line needs beyond the seat: the card the 机械狼 copied."""
        if kind == "mech_wolf.use":
            power = info["power"]
            assert isinstance(power, Role)
            return {"role": self._name(power)}
        return {}
