"""The night's shot status follows every death of the night (issue 29, item 7): told from the same chain of
deaths the dawn announces (`dying_with`: love, the 摄梦人's dream …), so a hunter or 狼王 who will die of a
death that follows another — his dream holder dies of love — is told he cannot shoot, as the dawn then rules."""

from __future__ import annotations

import random

import pytest

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Seats, YesNo
from narrator.engine.game import Game
from narrator.engine.roles import Role
from narrator.judge.presets import make_setup
from narrator.sim.autohost import AutoHost, Deal

# seats 1-3 wolves (狼王 at 3 in the second case), 4-6 villagers, 7 丘比特, 8 预言家, 9 女巫, 10 猎人,
# 11 摄梦人, 12 守卫: the lovers are 9 and 11, the dream is on 10, the wolves kill 9.
FORCED: dict[str, Answer] = {"cupid.link": Seats((9, 11)), "dreamcatcher.dream": Seats((10,)),
                             "wolves.kill": Seats((9,)), "guard.protect": Seats(()), "witch.save": YesNo(False),
                             "witch.poison": Seats(())}


def night_one(wolf: str, dreamed: int) -> Game:
    roles = {"狼人": 3} if wolf == "狼人" else {"狼人": 2, wolf: 1}
    roles |= {"村民": 3, "丘比特": 1, "女巫": 1, "摄梦人": 1, "猎人": 1, "预言家": 1, "守卫": 1}
    setup = make_setup(roles=roles)
    wolf_role = Role.WEREWOLF if wolf == "狼人" else next(r for r in setup.deck if r not in (
        Role.WEREWOLF, Role.VILLAGER, Role.CUPID, Role.WITCH, Role.DREAMCATCHER, Role.HUNTER, Role.SEER, Role.GUARD))
    seats = [Role.WEREWOLF, Role.WEREWOLF, wolf_role, *[Role.VILLAGER] * 3, Role.CUPID, Role.SEER, Role.WITCH,
             Role.HUNTER, Role.DREAMCATCHER, Role.GUARD]
    game, host = Game(setup, 1), AutoHost(Deal.from_list(setup, seats), random.Random(1))
    forced = {**FORCED, "dreamcatcher.dream": Seats((dreamed,))}
    while game.prompt is not None and game.prompt.kind not in ("speech.end", "vote.exile"):
        prompt = game.prompt
        game.answer(forced.get(prompt.kind) or host.answer(game, prompt))
    return game


@pytest.mark.parametrize(("wolf", "dreamed"), [("狼人", 10), ("狼王", 3)], ids=["hunter", "wolf_king"])
def test_a_shooter_who_dies_of_a_dream_after_a_love_death_is_told_he_cannot_shoot(wolf: str, dreamed: int) -> None:
    game = night_one(wolf, dreamed)
    died = {e.seat: e.cause for e in game.journal if isinstance(e, ev.PlayerDied) and e.when.night}
    assert died == {9: "wolves", 11: "lover", dreamed: "dream"}
    told = [e for e in game.journal if isinstance(e, ev.ShootStatusTold | ev.KingShootStatusTold)
            and e.seat == dreamed]
    assert len(told) == 1 and not told[0].can_shoot
