"""The host's console: the judge's lines as they are said, and (on a terminal) a live panel with the seats
(alive / dead, the cards the judge knows), the potions, the badge, the question waiting — in words, with
the line that asked it —, what was heard for each answer, the last refusal, and the line the host is typing.
Host-only information: it is drawn on the host's screen and never spoken or sent to the table's speaker.

On a terminal the panel is a rich `Live` region at the bottom. Typed text is read by `TypedLine` (the
terminal in cbreak mode, no echo) and drawn inside the panel on its own input line, so the terminal never
echoes into the region the panel redraws: no fragments of old panels in the scrollback, and a redraw never
overwrites what the host is typing. Everything is written in the game's script (zh-Hant in 繁體).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from narrator.common.zh import to_script
from narrator.judge.lines import Line
from narrator.judge.script import Script
from narrator.listen.base import Ear
from narrator.listen.doubt import shown_words
from narrator.listen.first import First
from narrator.listen.keypad import KeypadEar
from narrator.play.ears import Heard
from narrator.play.loop import QuietView

if TYPE_CHECKING:
    from narrator.session.session import Session, Status

WORDS_HANS = {
    "host": "主持人", "title": "主持人（只给主持人看）", "heard": "听到", "refused": "没接受", "asked": "问",
    "antidote": "解药", "poison": "毒药", "over": "结束", "typing": "输入", "typing_hint": "（打字回答，回车确认）",
    "badge": "警", "out": "出局", "keys": "按键", "keys_hint": "（回车确认）",
    "keymap": "键盘：7 回车 七号 · 3.5 三号和五号 · 0 没有/不 · * 是/过 · 1.2+7 一、二号投七号 · / 重复 · "
              "- 暂停/继续 · 退格 撤销",
    "not_heard": "没听懂",
    "saying": "（法官还在说，问完再回答）",
    "pass_hint": "（这一步不用回答：说“过”，或按 * 回车）",
    "pass_why": "“请说过”：这一步没有要问你的，但桌上每一步都等主持人一句话，和等活着的角色回答一样长，"
                "所以大家听不出谁还活着。说“过”，法官就接着往下说。",
}
"""The console's own words, written once in 简体 and shown in the game's script."""


def console_words(lang: str) -> dict[str, str]:
    return {key: to_script(text, lang) for key, text in WORDS_HANS.items()}


def line_printer(console: Console, lang: str = "zh-Hans") -> Callable[[Line], None]:
    host = console_words(lang)["host"]

    def show(line: Line) -> None:
        if line.to == "host":
            console.print(f"  [dim]🎧 {host}：{escape(line.text)}[/dim]")
        else:
            console.print(f"🔊 {escape(line.text)}")

    return show


def escape_done(seq: str) -> bool:
    """Whether `seq` (ESC and the characters after it) is a whole control sequence: CSI ends with a final
    byte (@ to ~), OSC with BEL or ESC \\, any other escape with its next character; 16 characters at most."""
    if len(seq) < 2:
        return False
    if len(seq) > 16:
        return True
    kind, last = seq[1], seq[-1]
    if kind == "[":
        return len(seq) > 2 and "@" <= last <= "~"
    if kind == "]":
        return last == "\x07" or seq.endswith("\x1b\\")
    return not " " <= last <= "/"  # an intermediate byte waits for the final one


@contextlib.contextmanager
def terminal_kept(stream: TextIO | None = None) -> Iterator[None]:
    """The terminal's mode (echo, line editing) as it was on entry, put back on the way out however the game
    ends — a second Ctrl-C, SIGTERM, an error — and whichever reader thread set cbreak mode: the shell gets
    its terminal back echoing, so the printed `narrator resume …` can be seen as it is typed."""
    import termios

    stream = sys.stdin if stream is None else stream
    try:
        fd = stream.fileno()
        saved = termios.tcgetattr(fd) if os.isatty(fd) else None
    except (OSError, ValueError, AttributeError, termios.error):
        saved = None
    try:
        yield
    finally:
        if saved is not None:
            with contextlib.suppress(OSError, termios.error):
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class TypedLine:
    """The host's typed answers from a terminal, one line each, read key by key without the terminal's echo
    (cbreak mode, restored on close): an iterable of lines for `TextEar`, whose line being typed (`buffer`)
    the console draws. Backspace rubs out a character, Ctrl-U the line; Enter hands the line over; Ctrl-D
    on an empty line ends the input. UTF-8 (an input method's Chinese) is decoded as it comes."""

    interactive = True
    """Typed by the host as the game goes (narrator/listen/text.py stamps each line with its time)."""

    def __init__(self, fd: int, on_change: Callable[[str], None]) -> None:
        self.fd, self.on_change = fd, on_change
        self.buffer = ""
        self._escape = ""
        """A control sequence being typed (ESC and what followed it so far)."""
        self._closed = threading.Event()
        self._old: list[int | list[bytes | int]] | None = None
        """The terminal's mode before cbreak (termios.tcgetattr), put back by `restore`."""

    def __iter__(self) -> Iterator[str]:
        import termios
        import tty

        self._old = termios.tcgetattr(self.fd)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            tty.setcbreak(self.fd)
            while not self._closed.is_set():
                ready, _, _ = select.select([self.fd], [], [], 0.2)
                if not ready:
                    continue
                data = os.read(self.fd, 64)
                if not data or (data == b"\x04" and not self.buffer):
                    return
                for ch in decoder.decode(data):
                    line = self.key(ch)
                    if line is not None:
                        yield line + "\n"
        finally:
            self.restore()

    def key(self, ch: str) -> str | None:
        """One character typed; the finished line on Enter. A control sequence (an arrow key, a pasted
        clear-screen or colour) is swallowed whole: never part of the line, never drawn."""
        if self._escape or ch == "\x1b":
            self._escape += ch
            if escape_done(self._escape):
                self._escape = ""
            return None
        if ch in "\r\n":
            line, self.buffer = self.buffer, ""
            self.on_change(self.buffer)
            return line
        if ch in "\x7f\x08":
            self.buffer = self.buffer[:-1]
        elif ch == "\x15":
            self.buffer = ""
        elif ch.isprintable():
            self.buffer += ch
        self.on_change(self.buffer)
        return None

    def restore(self) -> None:
        if self._old is not None:
            import termios

            with contextlib.suppress(OSError, termios.error):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._old)
            self._old = None

    def close(self) -> None:
        self._closed.set()


PASS_KEY = "prompts.host.pass"
"""请说过: where a step asks the host nothing (narrator/judge/host_words.py)."""
NOT_A_QUESTION = ("refusals.", "listening.", "rules_topics.", "events.game_started.rules", "events.please_wait",
                  "timer.")
"""Lines the judge says while a question waits that are not the question: refusals, the dialogue's own
lines, the rules explained (规则 女巫), the table's "请稍等" while the host is waited for, the speech timer's
cue."""


class HostConsole(QuietView):
    """Prints lines, alerts and refusals; with `live`, keeps a status panel at the bottom of the screen."""

    def __init__(self, console: Console | None = None, live: bool | None = None, lang: str = "zh-Hans") -> None:
        self.console = console or Console(highlight=False)
        self.use_live = self.console.is_terminal if live is None else live
        self.lang = lang
        self.words = console_words(lang)
        self.script = Script(lang)
        self.heard_text = ""
        self.refusal = ""
        self.status: Status | None = None
        self.players = 0
        self.doing = ""
        self.asked = ""
        self.open = False
        """The ear listens for the answer to `asked` (`listening`); False while the judge still says the lines
        before it: a line entered then is no answer (narrator/play/ears.py), so the panel does not invite it."""
        self.typing: str | None = None
        """The line being typed (None: typed text is not read by this console)."""
        self.keys: str | None = None
        """The keys pressed on the keypad since the last Enter (None: no keypad)."""
        self.pass_told = False
        self.witch_dealt = True
        self._live: Live | None = None
        self._lock = threading.RLock()

    def typed_input(self) -> TypedLine | None:
        """The typed text's stream, drawn in the panel: only with the live panel on a terminal."""
        if not self.use_live or not sys.stdin.isatty():
            return None
        self.typing = ""
        return TypedLine(sys.stdin.fileno(), self._typed)

    def follow_keys(self, ear: Ear) -> None:
        """Show on the panel the keys pressed on `ear`'s keypad (any of its ears) before Enter, and the key
        map; nothing when it has no keypad."""
        for one in ear.ears if isinstance(ear, First) else [ear]:
            if isinstance(one, KeypadEar):
                self.keys = ""
                one.on_keys = self._keyed

    def _keyed(self, buffer: str) -> None:
        self.keys = buffer
        self._refresh()

    def _typed(self, buffer: str) -> None:
        self.typing = buffer
        self._refresh()

    def start(self) -> None:
        if self.use_live and self._live is None:
            self._live = Live(self.render(), console=self.console, auto_refresh=False, transient=True,
                              redirect_stdout=True, redirect_stderr=True)
            self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def line(self, line: Line) -> None:
        if line.key == PASS_KEY and not self.pass_told:  # why the host must say 过 here: once, on the screen
            self.pass_told = True
            self.console.print(f"  [dim]ℹ {escape(self.words['pass_why'])}[/dim]")
        if line.text and not line.key.startswith(NOT_A_QUESTION):
            self.asked = line.text  # the judge's last line before the host answers is the question
            if line.key == PASS_KEY:
                self.asked += self.words["pass_hint"]
            self.open = False  # shown as asked once the ear listens for it (`listening`)
            self._refresh()  # the mouth prints the lines it says

    def listening(self) -> None:
        if not self.open:
            self.open = True
            self._refresh()

    def heard(self, heard: Heard) -> None:
        self.heard_text = shown_words(heard) or self.words["not_heard"]  # never the model's raw tokens
        self.refusal = ""
        self.console.print(f"  [green]👂 {escape(self.heard_text)}[/green]")
        self._refresh()

    def refused(self, text: str) -> None:
        self.refusal = text
        self._refresh()

    def alert(self, text: str) -> None:
        self.console.print(f"[bold yellow]⚠ {escape(to_script(text, self.lang))}[/bold yellow]")
        self._refresh()

    def update(self, session: Session) -> None:
        from narrator.play.lines import where_text

        self.status = session.status()
        self.players = session.setup.players
        self.witch_dealt = any(role.value == "witch" for role in session.setup.deck)
        place = session.place()
        self.doing = where_text(self.script, place) if place.prompt else self.words["over"]
        self._refresh()

    def _refresh(self) -> None:
        with self._lock:
            if self._live is not None:
                self._live.update(self.render(), refresh=True)

    def render(self) -> RenderableType:
        s = self.status
        W = self.words
        rows: list[RenderableType] = []
        if s is not None:
            table = Table.grid(padding=(0, 1))
            for _ in range(self.players):
                table.add_column(justify="center")
            seats, roles = [], []
            for seat in range(1, self.players + 1):
                dead = seat in s.dead
                badge = W["badge"] if s.sheriff == seat else ""
                out = W["out"] if dead else ""  # in words too: dim and struck through need colours and eyes for them
                seats.append(Text(f"{seat}{badge}{out}", style="dim strike" if dead else "bold"))
                role = s.roles.get(seat)
                roles.append(Text(self.script.role(role.value) if role is not None else "·",
                                  style="dim" if dead else ""))
            table.add_row(*seats)
            table.add_row(*roles)
            witch = next((seat for seat, role in s.roles.items() if role.value == "witch"), None)
            potions = ""
            if self.witch_dealt and (witch is None or witch not in s.dead):  # the living witch's potions only
                potions = "  ".join(f"{W[name]}{'✓' if name in s.potions else '✗'}" for name in ("antidote", "poison"))
            rows += [table, Text.assemble((f"{self.doing}  ", "bold cyan"), (potions, "magenta"))]
        if self.asked and self.open:
            rows.append(Text(f"{W['asked']}：{self.asked}", style="bold"))
        elif self.asked:
            rows.append(Text(W["saying"], style="dim"))
        if self.heard_text:
            rows.append(Text(f"{W['heard']}：{self.heard_text}", style="green"))
        if self.refusal:
            rows.append(Text(f"{W['refused']}：{self.refusal}", style="red"))
        if self.typing is not None:
            hint = W["typing_hint"] if self.open or not self.asked else W["saying"]
            rows.append(Text.assemble((f"{W['typing']} › ", "bold"), (self.typing, ""), ("▏", "blink"),
                                      ("" if self.typing else f"  {hint}", "dim")))
        if self.keys is not None:
            rows.append(Text.assemble((f"{W['keys']} › ", "bold"), (self.keys, ""), ("▏", "blink"),
                                      ("" if self.keys else f"  {W['keys_hint']}", "dim")))
            rows.append(Text(W["keymap"], style="dim"))
        if not rows:
            return Text("")
        return Panel(Group(*rows), title=W["title"], border_style="blue")
