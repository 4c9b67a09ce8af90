"""From the engine's events and prompts to the judge's lines.

Public lines ("all") are computed only from public facts: the step being called, the night number, what
was announced. Everything secret (identifications, the victim, a check's result) goes to the host.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from functools import cache
from typing import Any

from narrator.engine import events as ev
from narrator.engine.prompts import Prompt
from narrator.engine.roles import Camp, Role, told_apart
from narrator.engine.rules import STEP_CARD
from narrator.engine.state import State
from narrator.judge import seed_lines
from narrator.judge.host_words import confirms, host_words, mark_prompt, questions, with_wolves
from narrator.judge.lines import Line
from narrator.judge.modern_lines import ModernLines
from narrator.judge.script import Pieces, Script, Seat, seats

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def event_key(event: ev.Event) -> str:
    return _snake_case(type(event).__name__)


@cache
def _snake_case(class_name: str) -> str:
    """PlayerDied → player_died (an event's key depends on its class only)."""
    return _CAMEL.sub("_", class_name).lower()


SEAT_FIELDS = ("seat", "seats", "target", "shooter", "king")
"""An event's fields that name seats: said as seat phrases in its line unless the handler says them itself."""


_SEAT_FIELDS: dict[type, tuple[str, ...]] = {}
_HANDLERS: dict[tuple[type, type], Any] = {}


def _seat_fields(event_type: type) -> tuple[str, ...]:
    """Those of SEAT_FIELDS an event type has (looked up once per type, not tried on every event)."""
    found = _SEAT_FIELDS.get(event_type)
    if found is None:
        known = {f.name for f in fields(event_type)} if is_dataclass(event_type) else set()
        found = _SEAT_FIELDS[event_type] = tuple(n for n in SEAT_FIELDS if n in known or hasattr(event_type, n))
    return found


def _handler(judge_type: type, event_type: type) -> Any:
    """The judge's own method for an event type (`_<event_key>`), None when the line is the plain one."""
    key = (judge_type, event_type)
    if key not in _HANDLERS:
        _HANDLERS[key] = getattr(judge_type, "_" + _snake_case(event_type.__name__), None)
    return _HANDLERS[key]


class Judge(ModernLines):
    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()

    # ---- events ----------------------------------------------------------------------------------------

    def event_lines(self, event: ev.Event, state: State) -> list[Line]:
        lines = self._event_lines(event, state)
        words = host_words(event, state)
        if words and lines and lines[-1].to == "all":  # the table waits for the host's words after it
            lines[-1] = lines[-1].replaced(words=words, confirms=min(words, confirms(event, state)),
                                           gestures=words - questions(event, words))
        return lines

    def _event_lines(self, event: ev.Event, state: State) -> list[Line]:
        special = _handler(type(self), type(event))
        if special is not None:
            result: list[Line] = special(self, event, state)
            return result
        key = event_key(event)
        if not self.script.has("events", key):
            return []
        return [self._ev(key, event)]

    def _ev(self, key: str, event: ev.Event | None = None, **values: object) -> Line:
        if event is not None:
            for name in _seat_fields(type(event)):
                value = getattr(event, name)
                if name not in values and value is not None:
                    values[name] = seats(value) if isinstance(value, tuple) else Seat(value)
        return self.script.line("events", key, **values)

    def _game_started(self, e: ev.GameStarted, s: State) -> list[Line]:
        return [self._ev("game_started", count=self.script.number(e.players)), *seed_lines.started(self.script, e)]

    def _night_fell(self, e: ev.NightFell, s: State) -> list[Line]:
        out = [self._ev("night_fell.first" if e.night == 1 else "night_fell")]
        if s.rules.lovers_close_at_nightfall and Role.CUPID in s.deck:
            out.append(self._ev("night_fell.lovers"))  # B2: 天黑请闭眼，情侣请闭眼
        return out

    def _step_opened(self, e: ev.StepOpened, s: State) -> list[Line]:
        entry = self.script.data["steps"][e.step]
        shown = with_wolves(s)  # the pack's cards shown and identified in the wolves' step
        first = e.night == 1 and not (e.step != "wolves" and STEP_CARD.get(e.step) in shown)  # (a 狼美人 once)
        ask = "ask_first" if first and "ask_first" in entry else "ask"
        if e.step == "demon" and s.rules.demon == "offline":  # the two 恶魔 versions say different things
            ask = "ask_first.offline" if e.night == 1 else "ask.offline"
        out = [self._step(e.step, "open"), self._step(e.step, ask)]
        if e.step == "wolves" and e.night == 1:  # the host must see which wolf holds which card: every game
            out[1:1] = [self.script.step_line("wolves", "show", role=self.script.role(role.value))  # of the
                        for role in told_apart(s.deck, s.rules.demon) if role in shown]  # board says it, dealt
        return out  # or buried

    def _step_asked(self, e: ev.StepAsked, s: State) -> list[Line]:
        return [self._step(e.step, e.part)]

    def _step_closed(self, e: ev.StepClosed, s: State) -> list[Line]:
        return [self._step(e.step, "close")]

    def _step(self, step: str, part: str) -> Line:
        return self.script.step_line(step, part)

    def _role_identified(self, e: ev.RoleIdentified, s: State) -> list[Line]:
        return [self._ev("role_identified", e, role=self.script.role(e.role.value))]

    def _villagers_identified(self, e: ev.VillagersIdentified, s: State) -> list[Line]:
        return [self._ev("villagers_identified" if e.seats else "villagers_identified.none", e)]

    def _thief_cards_named(self, e: ev.ThiefCardsNamed, s: State) -> list[Line]:
        a, b = (self.script.role(c.value) for c in e.cards)
        return [self._ev("thief_cards_named", a=a, b=b)]

    def _thief_took_card(self, e: ev.ThiefTookCard, s: State) -> list[Line]:
        if e.role is None:
            return [self._ev("thief_took_card.kept", e)]
        return [self._ev("thief_took_card", e, role=self.script.role(e.role.value))]

    def _lovers_linked(self, e: ev.LoversLinked, s: State) -> list[Line]:
        # B6: 法官绕场一周，悄悄拍两名情侣 — so the steps do not give them away
        return [self._ev("lovers_linked", a=Seat(e.seats[0]), b=Seat(e.seats[1])), self._ev("lovers_linked.walk")]

    def _optional(self, key: str, e: Any) -> list[Line]:
        return [self._ev(key if e.seat is not None else key + ".none", e)]

    def _guard_protected(self, e: ev.GuardProtected, s: State) -> list[Line]:
        return self._optional("guard_protected", e)

    def _wolves_chose_victim(self, e: ev.WolvesChoseVictim, s: State) -> list[Line]:
        return self._optional("wolves_chose_victim", e)

    def _wolf_beauty_charmed(self, e: ev.WolfBeautyCharmed, s: State) -> list[Line]:
        return self._optional("wolf_beauty_charmed", e)

    def _witch_told_victim(self, e: ev.WitchToldVictim, s: State) -> list[Line]:
        return self._optional("witch_told_victim", e)

    def _witch_declined(self, e: ev.WitchDeclined, s: State) -> list[Line]:
        return [self._ev(f"witch_declined.{e.potion}")]

    def _raven_cursed(self, e: ev.RavenCursed, s: State) -> list[Line]:
        votes = s.rules.raven_votes  # the curse's real extra votes (house rule), told to the host
        if e.seat is None:
            return [self._ev("raven_cursed.none")]
        if not votes:
            return [self._ev("raven_cursed.no_votes", e)]
        return [self._ev("raven_cursed", e, n=self.script.count(votes))]

    def _seer_checked(self, e: ev.SeerChecked, s: State) -> list[Line]:
        if e.result is None:  # a card not identified yet: the host reads it and shows what the seer may see
            if s.rules.seer_sees == "camp":  # the camp gesture, by this game's convention (C8), never the card
                return [self._ev("seer_checked.unknown_camp." + s.rules.seer_thumb_up, e)]
            return [self._ev("seer_checked.unknown", e)]
        out = [self._ev("seer_checked", e, result=self.script.seer_result(e.result))]
        if e.result in ("good", "wolf"):  # C8: the gesture, by this game's convention
            up = e.result == s.rules.seer_thumb_up
            out.append(self._ev("seer_checked.thumb_up" if up else "seer_checked.thumb_down"))
        return out

    def _shoot_status_told(self, e: ev.ShootStatusTold, s: State) -> list[Line]:
        return [self._ev("shoot_status_told" if e.can_shoot else "shoot_status_told.no", e)]

    def _night_resolved(self, e: ev.NightResolved, s: State) -> list[Line]:
        dead = tuple(sorted(x for x, _ in e.deaths))
        out = [self._ev("night_resolved" if dead else "night_resolved.none", seats=seats(dead))]
        if e.elder_survived:
            out.append(self._ev("night_resolved.elder"))
        return out

    def _election_opened(self, e: ev.ElectionOpened, s: State) -> list[Line]:
        key = "election_opened.again" if s.election_explosions else "election_opened"
        return [self._ev(key + (".eyes_closed" if s.rules.election_eyes_closed else ""))]

    def _candidates_raised(self, e: ev.CandidatesRaised, s: State) -> list[Line]:
        key = "candidates_raised" if e.seats else "candidates_raised.none"
        return [self._ev(key + (".eyes_closed" if s.rules.election_eyes_closed else ""), e)]

    def _candidates_withdrew(self, e: ev.CandidatesWithdrew, s: State) -> list[Line]:
        return [self._ev("candidates_withdrew" if e.seats else "candidates_withdrew.none", e)]

    def _votes_counted(self, e: ev.VotesCounted, s: State) -> list[Line]:
        hidden = ".host" if s.rules.vote_call == "eyes_closed" else ""  # H9: the table hears only the result
        if not e.tally:
            return [self._ev("votes_counted.none" + hidden)]
        by_target: dict[int, list[int]] = {}
        for voter, target in e.ballots:
            by_target.setdefault(target, []).append(voter)
        parts: list[object] = []
        sc = self.script
        for target, amount in sorted(e.tally, key=lambda t: (-t[1], t[0])):
            voters = by_target.get(target, [])
            if parts:
                parts.append("，")
            if voters:
                parts.extend([seats(voters), sc.voted_for])
            parts.extend([Seat(target), sc.votes(amount)])
        flat = parts
        return [self._ev("votes_counted" + hidden, breakdown=Pieces(flat))]

    def _no_sheriff(self, e: ev.NoSheriff, s: State) -> list[Line]:
        return [self._ev(f"no_sheriff.{e.reason}")]

    def _deaths_announced(self, e: ev.DeathsAnnounced, s: State) -> list[Line]:
        return [self._ev("deaths_announced" if e.seats else "deaths_announced.none", e)]

    def _player_died(self, e: ev.PlayerDied, s: State) -> list[Line]:
        out = []
        if e.when.day and e.cause in ("lover", "charm", "elder", "dream"):
            out.append(self._ev(f"player_died.{e.cause}", e))
        role = s.roles.get(e.seat)
        if s.rules.reveal_on_death == "role" and role is not None:
            out.append(self._ev("player_died.role", e, role=self.script.role(role.value)))
        return out

    def _village_powers_lost(self, e: ev.VillagePowersLost, s: State) -> list[Line]:
        return [self._ev("village_powers_lost", seat=Seat(e.elder))]

    def _scapegoat_chose_voters(self, e: ev.ScapegoatChoseVoters, s: State) -> list[Line]:
        return [self._ev("scapegoat_chose_voters", seats=seats(e.voters))]

    def _hunter_shot(self, e: ev.HunterShot, s: State) -> list[Line]:
        return [self._ev("hunter_shot" if e.target is not None else "hunter_shot.none", e)]

    def _wolf_king_took(self, e: ev.WolfKingTook, s: State) -> list[Line]:
        return [self._ev("wolf_king_took" if e.target is not None else "wolf_king_took.none", e)]

    def _badge_passed(self, e: ev.BadgePassed, s: State) -> list[Line]:
        if e.to_seat is None:
            return [self.script.line("events", "badge_passed.torn", **{"from": Seat(e.from_seat)})]
        return [self._ev("badge_passed", to=Seat(e.to_seat))]

    def _speeches_ordered(self, e: ev.SpeechesOrdered, s: State) -> list[Line]:
        first = Seat(e.order[0]) if e.order else Seat(1)
        if e.pk:
            return [self._ev("speeches_ordered.pk", seats=seats(e.order))]
        if e.direction is not None:
            side = f"dead_{e.direction}" if e.dead is not None else e.direction  # F8: 死左 / 死右
            return [self._ev(f"speeches_ordered.{side}", first=first)]
        if s.electing:
            return [self._ev("speeches_ordered.election", first=first)]
        return [self._ev("speeches_ordered" if e.clockwise is not False else "speeches_ordered.counter", first=first)]

    def _new_moon_card_turned(self, e: ev.NewMoonCardTurned, s: State) -> list[Line]:
        return [self._ev("new_moon_card_turned", card=self.script.data["new_moon_cards"][e.card])]

    def _wolves_ally_named(self, e: ev.WolvesAllyNamed, s: State) -> list[Line]:
        return self._optional("wolves_ally_named", e)

    def _offstage_pk_opened(self, e: ev.OffstagePkOpened, s: State) -> list[Line]:
        return [self._ev("offstage_pk_opened", seats=seats(e.speakers), tied=seats(e.tied))]

    def _speech_ended(self, e: ev.SpeechEnded, s: State) -> list[Line]:
        return []

    def _vote_called(self, e: ev.VoteCalled, s: State) -> list[Line]:
        if not e.voters:  # nobody may vote: the table hears that, not "请大家举手投票"
            return [self._ev("vote_called.nobody")]
        return []  # the vote prompt's own line calls the vote

    def _no_exile(self, e: ev.NoExile, s: State) -> list[Line]:
        return [self._ev(f"no_exile.{e.reason}")]

    def _game_ended(self, e: ev.GameEnded, s: State) -> list[Line]:
        out = [self._ev("game_ended", winner=self.script.camp(e.winner.value)),
               self.script.line("terminations", e.termination)]
        allies = s.wolves_allies()
        if e.winner is Camp.WOLVES and allies:
            out.append(self._ev("game_ended.allies", seats=seats(allies)))  # D33 / A16: they win with the wolves
        for seat, role in e.roles:
            out.append(self._ev("game_ended.role", seat=Seat(seat), role=self.script.role(role.value)))
        return out

    # ---- prompts ---------------------------------------------------------------------------------------

    def prompt_lines(self, prompt: Prompt, state: State) -> list[Line]:
        """The prompt's lines, marked for the Conductor's waits (narrator/judge/host_words.py)."""
        return mark_prompt(self._prompt_lines(prompt, state), prompt, state)

    def _prompt_lines(self, prompt: Prompt, state: State) -> list[Line]:
        kind = prompt.kind
        values: dict[str, object] = {}
        if prompt.actor is not None:
            values["seat"] = Seat(prompt.actor)
        if kind.endswith(".identify"):
            assert prompt.role is not None
            values.update(role=self.script.role(prompt.role.value),
                          n=self.script.number(prompt.min_seats))
            return [self.script.line("prompts", "identify", **values)]
        if kind == "witch.save":
            values["seat"] = Seat(int(prompt.info["victim"]))
        if kind == "piper.charm":
            values["n"] = self.script.number(prompt.min_seats)
        if kind in ("pk.vote", "sheriff.tie"):
            values["seats"] = seats(prompt.seats)
        values.update(self.modern_prompt_values(kind, prompt.info))
        return seed_lines.prompt(self.script, prompt, state, values)
