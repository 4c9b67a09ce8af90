"""The judge explains the rules (docs/seed-coverage.md J1, seed 002:62 "玩家在发言时遇到规则上的问题时可以请教法官").

At the start the judge reads only the house rules that differ from the board's usual ones (本局房规：女巫可以
自救 …; `opening_lines`): the usual ones are the modern table's defaults (`Rules()`) or the classic set of the
经典 boards, whichever this game is closer to; a game played by the usual rules hears one short sentence. The
full list (本局规则：女巫不能自救，警长一票半，…, every switch that matters for the deck) is said on request: "规则";
"规则 女巫", "规则 警长" say what a role or a part of the game is, then this game's switches for it. By day that
is said to the table; at night to the host channel only (the table must not hear the judge talk while eyes are
closed).

`rules_lines(setup, topic, lang, night=...)` is what a front end calls (`Session.explain` routes it);
`narrator.hostwords.rules_request(text)` recognises the host's words for it.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache, lru_cache

from narrator.engine.roles import Role
from narrator.engine.rules import CLASSIC_NIGHT_ORDER, MODERN_NIGHT_ORDER, Rules, Setup
from narrator.judge.lines import Line
from narrator.judge.script import Joined, Pieces, Script, spoken_number

R = Role
# Every switch: the topic it belongs to, and the cards that make it matter (any of them in the deck; None:
# always). A switch whose topic is "setup" only checks the deck, and is said on request, not at the start.
SWITCHES: dict[str, tuple[str, frozenset[Role] | None]] = {
    "win": ("win", None),
    "wolf_kill_first": ("win", None),
    "idiot_counts_as": ("win", frozenset({R.IDIOT})),
    "cupid_two_wolves": ("cupid", frozenset({R.CUPID})),
    "call_dead_roles": ("night", None),
    "night_order": ("night", None),
    "lovers_close_at_nightfall": ("night", frozenset({R.CUPID})),
    "new_moon": ("night", None),
    "thief_must_take_wolf": ("thief", frozenset({R.THIEF})),
    "thief_may_keep": ("thief", frozenset({R.THIEF})),
    "thief_pair": ("thief", frozenset({R.THIEF})),
    "lovers_kill_each_other": ("cupid", frozenset({R.CUPID})),
    "guard_and_save": ("guard", frozenset({R.GUARD})),
    "guard_protects_little_girl": ("guard", frozenset({R.LITTLE_GIRL})),
    "seer_sees": ("seer", frozenset({R.SEER})),
    "seer_thumb_up": ("seer", frozenset({R.SEER})),
    "witch_self_save": ("witch", frozenset({R.WITCH})),
    "witch_one_potion_per_night": ("witch", frozenset({R.WITCH})),
    "witch_potions": ("witch", frozenset({R.WITCH})),
    "little_girl_savable": ("little_girl", frozenset({R.LITTLE_GIRL})),
    "hunter_shoots_on": ("hunter", frozenset({R.HUNTER})),
    "tell_shoot_status": ("hunter", frozenset({R.HUNTER})),
    "elder_takes_idiot": ("elder", frozenset({R.ELDER})),
    "raven_votes": ("raven", frozenset({R.RAVEN})),
    "wolf_beauty_charms": ("wolf_beauty", frozenset({R.WOLF_BEAUTY})),
    "wolf_king_takes": ("wolf_king", frozenset({R.WHITE_WOLF_KING})),
    "sheriff": ("sheriff", None),
    "sheriff_weight": ("sheriff", None),
    "election_at": ("sheriff", None),
    "election_voters": ("sheriff", None),
    "election_eyes_closed": ("sheriff", None),
    "election_speech_from": ("sheriff", None),
    "election_offstage_pk": ("sheriff", None),
    "badge_lost_on": ("sheriff", None),
    "badge_on_explode": ("sheriff", None),
    "sheriff_order": ("speaking", None),
    "no_sheriff_order": ("speaking", None),
    "speech_seconds": ("speaking", None),
    "vote_call": ("vote", None),
    "exile_tie": ("vote", None),
    "reveal_on_death": ("vote", None),
    "last_words": ("last_words", None),
    "exile_last_words_days": ("last_words", None),
    "self_explode": ("explode", None),
    "self_explode_until": ("explode", None),
    "explode_last_words": ("explode", None),
    "require_seer": ("setup", None),
    "require_villager": ("setup", None),
    # --- modern roles (docs/rule-book.md) ---
    "black_wolf_king_shoots_on": ("black_wolf_king", frozenset({R.BLACK_WOLF_KING})),
    "knight_duel_silences": ("knight", frozenset({R.KNIGHT})),
    "duel_wolf_last_words": ("knight", frozenset({R.KNIGHT})),
    "dreamcatcher_must_choose": ("dreamcatcher", frozenset({R.DREAMCATCHER})),
    "dream_link_by_day": ("dreamcatcher", frozenset({R.DREAMCATCHER})),
    "fear_blocks_shot": ("nightmare", frozenset({R.NIGHTMARE})),
    "magician_swap_limit": ("magician", frozenset({R.MAGICIAN})),
    "magician_witch_sees": ("magician", frozenset({R.MAGICIAN})),
    "mech_wolf_psychic_sees": ("mech_wolf", frozenset({R.MECH_WOLF})),
    "half_blood_counts_as": ("half_blood", frozenset({R.HALF_BLOOD})),
    "demon": ("demon", frozenset({R.DEMON})),
    "spirit_knight_reflects": ("spirit_knight", frozenset({R.SPIRIT_KNIGHT})),
    "end_at_once": ("win", None),
}
TOPICS = ("sheriff", "vote", "last_words", "explode", "speaking", "win", "night", "setup")
SHERIFF_ONLY = frozenset({"sheriff_weight", "election_at", "election_voters", "election_eyes_closed",
                          "election_speech_from", "election_offstage_pk", "badge_lost_on", "badge_on_explode",
                          "sheriff_order"})
EXPLODE_ONLY = frozenset({"self_explode_until", "explode_last_words", "badge_on_explode"})


def phrase_key(rules: Rules, name: str) -> tuple[str, int | None]:
    """The `house_rules` key saying switch `name` as `rules` set it, and the {n} it takes (number switches)."""
    value = getattr(rules, name)
    if name == "night_order":
        kind = {MODERN_NIGHT_ORDER: "modern", CLASSIC_NIGHT_ORDER: "classic"}.get(value, "custom")
        return f"night_order.{kind}", None
    if name == "new_moon":
        value = bool(value)  # the deck; said as on or off
    if isinstance(value, bool):
        return f"{name}.{'true' if value else 'false'}", None
    if isinstance(value, float):
        return f"{name}.{value}", None
    if isinstance(value, int):
        return (f"{name}.0", None) if value == 0 else (name, value)
    return f"{name}.{value}", None


def phrase(script: Script, rules: Rules, name: str) -> Pieces:
    """The switch as said; a number is a piece of its own, so the fixed words around it are cached once."""
    key, n = phrase_key(rules, name)
    text = str(script.data["house_rules"][key])
    if n is None:
        return Pieces((text,))
    before, _, after = text.partition("{n}")
    return Pieces(p for p in (before, spoken_number(n), after) if p)


def matters(setup: Setup, name: str) -> bool:
    """Whether switch `name` can change anything in this game (said in the paragraph at the start)."""
    topic, cards = SWITCHES[name]
    rules = setup.rules
    if topic == "setup" or (cards is not None and not cards & set(setup.deck)):
        return False
    if name in SHERIFF_ONLY and not rules.sheriff:
        return False
    if name in EXPLODE_ONLY and not rules.self_explode:
        return False
    if name == "new_moon":
        return bool(rules.new_moon)
    return not (name == "night_order" and rules.night_order == MODERN_NIGHT_ORDER)


def topic_of(word: str) -> str:
    """The topic slug a request names: a role's slug (any of its names) or one of TOPICS; ValueError if none."""
    if word in TOPICS:
        return word
    role = Role(word) if word in {r.value for r in Role} else None
    if role is None:
        raise ValueError(f"no rules topic {word!r}")
    return role.value


def rules_lines(setup: Setup, topic: str | None = None, lang: str = "zh-Hans", *, night: bool = False) -> list[Line]:
    """What the judge says about the rules: the whole paragraph (`topic` None or ""), or a role's or a part of
    the game's description and this game's switches for it. `night`: to the host channel only."""
    script = Script(lang)
    if not topic:
        names = [f.name for f in fields(Rules) if f.name in SWITCHES and matters(setup, f.name)]
        names.sort(key=list(SWITCHES).index)
        lines = [paragraph(script, setup.rules, names)]
    else:
        topic = topic_of(topic)
        names = [name for name, (t, _) in SWITCHES.items() if t == topic]
        lines = [script.line("rules_topics", topic)]
        if names:
            lines.append(paragraph(script, setup.rules, names))
    if night:
        return [Line(x.text, "host", x.pieces, x.key, x.pause, x.cue, x.bed) for x in lines]
    return lines


def opening_lines(setup: Setup, lang: str = "zh-Hans") -> list[Line]:
    """What the judge says of the house rules at the start: the switches that matter for this deck and differ
    from the usual rules (`usual_rules`), or one sentence saying the game is played by the usual rules."""
    script = Script(lang)
    names = differing(setup)
    if not names:
        return [script.line("events", "game_started.usual_rules")]
    joiner = str(script.data["house_rules"]["joiner"])
    said = Joined(joiner, [phrase(script, setup.rules, n) for n in names])
    return [script.line("events", "game_started.house_rules", rules=said)]


def differing(setup: Setup) -> list[str]:
    """The switches that matter for this deck and are not as the usual rules have them, in SWITCHES order."""
    return list(_differing(setup))


@lru_cache(maxsize=64)
def _differing(setup: Setup) -> tuple[str, ...]:
    """`differing`, worked out once per set-up (every game says it at its start; Setup and Rules are frozen)."""
    usual = usual_rules(setup)
    return tuple(name for name in SWITCHES
                 if matters(setup, name) and phrase_key(setup.rules, name) != phrase_key(usual, name))


def usual_rules(setup: Setup) -> Rules:
    """The board's usual rules: the modern defaults or the classic set (经典 boards), whichever this game's
    switches are closer to."""
    return min(_usual_candidates(), key=lambda usual: sum(getattr(usual, f.name) != getattr(setup.rules, f.name)
                                                          for f in fields(Rules)))


@cache
def _usual_candidates() -> tuple[Rules, Rules]:
    """The modern defaults and the classic set (Rules are frozen: made once)."""
    from narrator.judge.presets import classic_rules

    return Rules(), Rules().with_overrides(classic_rules())


def paragraph(script: Script, rules: Rules, names: list[str]) -> Line:
    joiner = str(script.data["house_rules"]["joiner"])
    return script.line("events", "game_started.rules", rules=Joined(joiner, [phrase(script, rules, n) for n in names]))
