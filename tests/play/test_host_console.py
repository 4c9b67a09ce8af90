"""The host's console panel: seats (alive / dead, known cards, the badge), potions, the question waiting,
what was heard and the last refusal. It is drawn on the host's screen only."""

from __future__ import annotations

from play_testkit import demo_scenario
from rich.console import Console

from narrator.play.console import HostConsole
from narrator.play.ears import Heard
from narrator.play.scripted import host_script
from narrator.session import Session


def test_the_panel_shows_the_game_as_the_judge_knows_it() -> None:
    scripted = host_script(demo_scenario())
    session = Session(scripted.game.setup, scripted.game.seed)
    for words in scripted.utterances[:30]:  # into day 1: 1号 exiled, 3号 sheriff, the antidote used
        session.submit(words)
    console = Console(record=True, width=140, force_terminal=False)
    view = HostConsole(console, live=False)
    view.update(session)
    view.heard(Heard("过"))
    view.refused("本局只有十二名玩家，没有十三号。")
    console.print(view.render())
    text = console.export_text()
    status = session.status()
    assert status.sheriff == 3 and 1 in status.dead
    assert "3★" in text  # the badge
    assert "狼人" in text and "预言家" in text and "女巫" in text  # the cards the judge knows
    assert "解药✗" in text and "毒药✓" in text
    assert f"等：{session.prompt.kind}" in text  # type: ignore[union-attr]
    assert "听到：过" in text and "没接受：本局只有十二名玩家，没有十三号。" in text
    assert "只给主持人看" in text
