"""The host's console: the judge's lines as they are said, and (on a terminal) a live panel with the seats
(alive / dead, the roles the judge knows), the potions, the badge, the current prompt, what was heard and
the last refusal. Host-only information: it is drawn on the host's screen and never spoken or sent to the
table's speaker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from narrator.judge.lines import Line
from narrator.play.ears import Heard
from narrator.play.loop import View

if TYPE_CHECKING:
    from narrator.session import Session


def line_printer(console: Console) -> Any:
    def show(line: Line) -> None:
        if line.to == "host":
            console.print(f"  [dim]🎧 主持人：{escape(line.text)}[/dim]")
        else:
            console.print(f"🔊 {escape(line.text)}")

    return show


class HostConsole(View):
    """Prints lines, alerts and refusals; with `live`, keeps a status panel at the bottom of the screen."""

    def __init__(self, console: Console | None = None, live: bool | None = None) -> None:
        self.console = console or Console(highlight=False)
        self.use_live = self.console.is_terminal if live is None else live
        self.heard_text = ""
        self.refusal = ""
        self.status: Any = None
        self.players = 0
        self.prompt = ""
        self._live: Live | None = None

    def start(self) -> None:
        if self.use_live and self._live is None:
            self._live = Live(self.render(), console=self.console, refresh_per_second=4, transient=True)
            self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def line(self, line: Line) -> None:
        return None  # the mouth prints the lines it says

    def heard(self, heard: Heard) -> None:
        self.heard_text = heard.text
        if not self.use_live:
            self.console.print(f"  [green]👂 {escape(heard.text)}[/green]")
        self._refresh()

    def refused(self, text: str) -> None:
        self.refusal = text
        self._refresh()

    def alert(self, text: str) -> None:
        self.console.print(f"[bold yellow]⚠ {escape(text)}[/bold yellow]")
        self._refresh()

    def update(self, session: Session) -> None:
        self.status = session.status()
        self.players = session.setup.players
        prompt = session.prompt
        self.prompt = prompt.kind if prompt else ""
        self._refresh()

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self.render())

    def render(self) -> Any:
        s = self.status
        if s is None:
            return Text("")
        from narrator.engine.roles import Role

        table = Table.grid(padding=(0, 1))
        for _ in range(self.players):
            table.add_column(justify="center")
        seats, roles = [], []
        for seat in range(1, self.players + 1):
            dead = seat in s.dead
            badge = "★" if s.sheriff == seat else ""
            seats.append(Text(f"{seat}{badge}", style="dim strike" if dead else "bold"))
            role = s.roles.get(seat)
            roles.append(Text(role.zh if isinstance(role, Role) else "·", style="dim" if dead else ""))
        table.add_row(*seats)
        table.add_row(*roles)
        potions = "  ".join(f"{name}{'✓' if ok else '✗'}" for name, ok in
                            (("解药", "antidote" in s.potions), ("毒药", "poison" in s.potions)))
        where = {"night": f"第{s.night}夜", "day": f"第{s.day}天", "over": "结束"}.get(s.phase, s.phase)
        info = Text.assemble((f"{where}  ", "cyan"), (f"等：{self.prompt}  ", "bold"), (potions, "magenta"))
        rows: list[Any] = [table, info]
        if self.heard_text:
            rows.append(Text(f"听到：{self.heard_text}", style="green"))
        if self.refusal:
            rows.append(Text(f"没接受：{self.refusal}", style="red"))
        return Panel(Group(*rows), title="主持人（只给主持人看）", border_style="blue")
