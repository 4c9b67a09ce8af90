"""The game as printed, readable by a newcomer: a legend of the marks, a header for each night and day, what the
judge says to the table (🔊) and to the host alone (🎧), and the host's own words (🗣 主持人：七号), so the
page shows who decided what. Texts are in the game's script (简体 / 繁體)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from narrator.engine.answers import Answer
    from narrator.judge.lines import Line
    from narrator.judge.script import Script

WORDS = {
    "zh-Hans": {"legend": "图例：🔊 法官对全桌说（音箱）　🎧 法官只对主持人说（耳机）　🗣 主持人说的话"
                          "　（按发牌）模拟时按发牌代答",
                "host": "主持人", "auto": "（按发牌）", "night": "第{n}夜", "day": "第{n}天", "nobody": "没有",
                "pass": "过", "end": "终局", "reveal": "亮牌"},
    "zh-Hant": {"legend": "圖例：🔊 法官對全桌說（音箱）　🎧 法官只對主持人說（耳機）　🗣 主持人說的話"
                          "　（按發牌）模擬時按發牌代答",
                "host": "主持人", "auto": "（按發牌）", "night": "第{n}夜", "day": "第{n}天", "nobody": "沒有",
                "pass": "過", "end": "終局", "reveal": "亮牌"},
}  # fmt: skip
NIGHT_KEYS = ("events.night_fell", "events.night_fell.first")
DAY_KEYS = ("events.day_broke",)
END_KEY = "events.game_ended"
REVEAL_KEY = "events.game_ended.role"


class GamePrinter:
    """Prints one game as it runs: give `line` every line the judge says and `answer` every answer."""

    def __init__(self, lang: str = "zh-Hans", console: Console | None = None) -> None:
        from rich.console import Console

        from narrator.judge.script import Script

        self.script: Script = Script(lang)
        self.words = WORDS[lang]
        self.console = console or Console(highlight=False, soft_wrap=True)
        self.nights = self.days = 0
        self.revealed = False

    def legend(self) -> None:
        self.console.print(self.words["legend"], style="dim", markup=False)

    def header(self, text: str) -> None:
        self.console.print(f"\n── {text} ──", style="bold", markup=False)

    def line(self, line: Line) -> None:
        if line.key in NIGHT_KEYS:
            self.nights += 1
            self.header(self.words["night"].format(n=self.script.number(self.nights)))
        elif line.key in DAY_KEYS:
            self.days += 1
            self.header(self.words["day"].format(n=self.script.number(self.days)))
        elif line.key == END_KEY:
            self.header(self.words["end"])
        elif line.key == REVEAL_KEY and not self.revealed:
            self.revealed = True
            self.header(self.words["reveal"])
        if line.to == "host":
            self.console.print(f"  🎧 {line.text}", style="dim", markup=False)
        else:
            self.console.print(f"🔊 {line.text}", markup=False)

    def answer(self, kind: str, words: str | None, answer: Answer | None) -> None:
        """The host's words; an answer the runner gave from the deal is marked so."""
        host = self.words["host"]
        if words is not None:
            from narrator.common.zh import to_script

            words = to_script(words, self.script.lang)  # the host may say 七号; the page is in the game's script
            self.console.print(f"  🗣 {host}：{words}", style="cyan", markup=False)
        elif answer is not None:
            said = self.said(answer)
            self.console.print(f"  🗣 {host}：{said}{self.words['auto']}", style="dim cyan", markup=False)

    def said(self, answer: Answer) -> str:
        """What a host says for an answer the runner makes itself (seats, the thief's cards, 过)."""
        from narrator.engine.answers import Cards, Pass, Seats

        joiner = "、"
        if isinstance(answer, Seats):
            return joiner.join(self.script.seat(s) for s in answer.seats) or self.words["nobody"]
        if isinstance(answer, Cards):
            return joiner.join(self.script.role(role.value) for role in answer.roles)
        if isinstance(answer, Pass):
            return self.words["pass"]
        return str(answer)


def print_line(line: object) -> None:
    """One line as `render` and the live demo echo it: 🔊 to the table, 🎧 (dimmed) to the host alone."""
    from rich.console import Console

    from narrator.judge.lines import Line

    assert isinstance(line, Line)
    console = Console(highlight=False, soft_wrap=True)
    if line.to == "host":
        console.print(f"  🎧 {line.text}", style="dim", markup=False)
    else:
        console.print(f"🔊 {line.text}", markup=False)
