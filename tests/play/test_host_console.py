"""The host's console: seats (alive / dead, known cards, the badge), potions, the question waiting in words,
what was heard for every answer, the last refusal, the line being typed — on the host's screen only, in the
game's script. Played for real in a pseudo-terminal (read back through a terminal emulator, pyte) as a host
at a terminal would: the panel never smears into the scrollback and never overwrites what is typed."""

from __future__ import annotations

import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from fcntl import ioctl
from pathlib import Path

import pyte
import pytest
from play_testkit import demo_scenario, simplified_only
from rich.console import Console

from narrator.play.console import HostConsole
from narrator.play.ears import Heard
from narrator.play.scripted import host_script
from narrator.session.session import Session

IDS = re.compile(r"\b[a-z_]+\.[a-z_]+\b")
"""A prompt kind ("speech.end", "sheriff.order"): never shown to the host."""


def panel_after(answers: int, lang: str = "zh-Hans") -> tuple[Session, str, int]:
    """The panel once the game has taken `answers` answers (the host's 过 where a step asks him nothing
    besides: the live loop asks it, `Session.acks`), and how many words the host said."""
    scripted = host_script(demo_scenario())
    session = Session(scripted.game.setup, scripted.game.seed, lang=lang)
    session.acks = True
    view = HostConsole(Console(record=True, width=140, force_terminal=False), live=False, lang=lang)
    heard = 0
    for said in scripted.utterances:
        if len(session.answers) == answers:
            break
        heard += 1
        for line in session.take_lines():
            view.line(line)
        session.submit(said)
        view.heard(Heard(said))
    for line in session.take_lines():
        view.line(line)
    view.listening()  # the lines were heard: the ear listens for the answer
    view.update(session)
    view.refused("本局只有十二名玩家，没有十三号。")
    view.console.print(view.render())
    return session, view.console.export_text(), heard


def test_the_panel_shows_the_game_as_the_judge_knows_it() -> None:
    session, text, heard = panel_after(30)  # into day 1: 1号 exiled, 3号 sheriff, the antidote used
    status = session.status()
    assert status.sheriff == 3 and 1 in status.dead
    assert "3警" in text  # the badge
    assert "狼人" in text and "预言家" in text and "女巫" in text  # the cards the judge knows
    assert "解药✗" in text and "毒药✓" in text
    # The question in words: where the game is and the line that asked it; never the prompt's id.
    assert "第二夜，正在" in text and "问：" in text
    assert not IDS.search(text), IDS.findall(text)
    # What was heard for every answer: each one printed, the last one in the panel.
    assert text.count("👂") == heard > 30 and "听到：三号" in text  # the 过s where a step asks nothing too
    assert "没接受：本局只有十二名玩家，没有十三号。" in text and "只给主持人看" in text



def test_the_panel_speaks_the_games_script() -> None:
    _, text, _ = panel_after(30, "zh-Hant")
    panel = text[text.index("╭"):]
    assert "解藥✗" in panel and "預言家" in panel and "聽到" in panel and "主持人" in panel
    # Everything but what the host himself typed (heard, and the refusal passed in above).
    ours = "\n".join(line for line in panel.splitlines() if not line.startswith(("│ 聽到", "│ 沒接受")))
    assert simplified_only(ours) == [], ours


def drawn(view: HostConsole) -> str:
    view.console.print(view.render())
    text = view.console.export_text()
    return text[text.rindex("╭"):]


def test_dead_seats_are_marked_in_words_and_a_dead_witchs_potions_are_gone() -> None:
    """Dim and struck through is lost on a monochrome terminal or to a colour-blind host: a dead seat says
    出局. The potions are the living witch's: once she is out (or with no witch dealt) they are not shown."""
    session, _, _ = panel_after(30)  # 1号 exiled
    view = HostConsole(Console(record=True, width=140, force_terminal=False), live=False)
    view.update(session)
    panel = drawn(view)
    assert "1出局" in panel and "2出局" not in panel, panel
    assert "解药✗" in panel and "毒药✓" in panel
    witch = next(seat for seat, role in session.status().roles.items() if role.value == "witch")
    status = session.status()
    view.status = replace(status, dead={**status.dead, witch: "poison"})
    panel = drawn(view)
    assert f"{witch}出局" in panel and "解药" not in panel and "毒药" not in panel, panel


def test_a_rules_answer_does_not_take_the_place_of_the_question() -> None:
    """"规则 女巫" while a question waits: the judge explains, the panel still shows the question asked."""
    session, _, _ = panel_after(5)
    view = HostConsole(Console(record=True, width=140, force_terminal=False), live=False)
    for line in session.repeat_lines():
        view.line(line)
    view.listening()
    asked = view.asked
    assert asked
    explained = session.explain("规则 女巫")
    assert isinstance(explained, list) and explained
    for line in explained:
        view.line(line)
    assert view.asked == asked
    assert f"问：{asked}" in drawn(view)


def test_the_question_is_shown_as_asked_only_once_the_ear_listens_for_it() -> None:
    """The judge's lines go to the console as they are queued, before the table has heard them; a line typed
    then is no answer (narrator/play/ears.py drops it). So the panel says the judge is still speaking until the
    ear listens for the question, and only then shows it and invites the answer; "请稍等" and the speech timer's
    cue while the host is waited for do not close it again."""
    from narrator.judge.script import Script

    script = Script("zh-Hans")
    view = HostConsole(Console(record=True, width=140, force_terminal=False), live=False)
    view.typing = ""
    ask = script.line("prompts", "host.pass")
    view.line(ask)
    panel = drawn(view)
    assert "问：" not in panel and "法官还在说" in panel and "打字回答" not in panel, panel
    view.listening()
    panel = drawn(view)
    assert f"问：{ask.text}" in panel and "法官还在说" not in panel and "打字回答" in panel, panel
    for waiting in (script.line("events", "please_wait"), script.line("timer", "speech.warning")):
        view.line(waiting)
        assert f"问：{ask.text}" in drawn(view), waiting


def test_the_hosts_pass_is_explained_on_the_console_once() -> None:
    """"请说过。" where a step asks the host nothing: the console says once why (the table waits for his word
    at every step, so it cannot tell who is alive), and the panel says how to answer it each time."""
    from narrator.judge.script import Script

    view = HostConsole(Console(record=True, width=140, force_terminal=False), live=False)
    ask = Script("zh-Hans").line("prompts", "host.pass")
    for _ in range(3):
        view.line(ask)
    text = view.console.export_text()
    assert text.count("每一步都等主持人一句话") == 1, text
    view.listening()
    assert "说“过”" in drawn(view)


def test_keypad_keys_show_as_they_are_pressed_beside_a_key_map() -> None:
    """With the keypad the keys typed are on the panel before Enter, and the key map is on the screen."""
    import io

    from narrator.listen.keypad import KeypadEar

    view = HostConsole(Console(record=True, width=140, force_terminal=False), live=False)
    ear = KeypadEar(io.BytesIO(b""))
    view.follow_keys(ear)
    for key in "3.5":
        ear.key(key)
    panel = drawn(view)
    assert "按键 › 3.5" in panel, panel
    assert "0 没有" in panel and "* 是" in panel and "/ 重复" in panel and "- 暂停" in panel, panel
    ear.close()


EARLY = "问题问完之前输入的没有用上"
"""The console's note for a line entered before its question was asked (script key play.typed_early)."""


class Terminal:
    """`narrator …` in a pseudo-terminal of 120×40, its output read into a terminal emulator."""

    def __init__(self, home: Path, *args: str) -> None:
        self.screen = pyte.HistoryScreen(120, 40, history=2000)
        self.stream = pyte.ByteStream(self.screen)
        master, slave = pty.openpty()
        ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config"),
               "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.proc = subprocess.Popen([sys.executable, "-m", "narrator.cli.main", *args], stdin=slave,
                                     stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.master = master
        self.lock = threading.Lock()
        self.raw = bytearray()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.raw += data
                self.stream.feed(data)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))

    def lines(self) -> list[str]:
        """Every line: the scrollback, then the screen."""
        with self.lock:
            top = ["".join(ch.data for ch in row.values()) for row in self.screen.history.top]
            return [line.rstrip() for line in [*top, *self.screen.display]]

    def wait(self, found: Callable[[str], bool], what: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = "\n".join(self.lines())
            if found(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"never saw {what}:\n" + "\n".join(self.lines()[-45:]))

    def answer(self, text: str, found: Callable[[str], bool], what: str, whole: str | None = None) -> str:
        """Types `text` (ending with Enter) as the host does, and waits for `found`. The panel shows a question
        while the judge still says the lines before it; a line entered before the question is asked is no
        answer to it, and the console says so once ("问题问完之前输入的没有用上，请现在回答。",
        narrator/play/ears.py). That note is printed when the ear listens for the question, so the host types
        the answer again then, as the note asks him to."""
        early = sum(EARLY in line for line in self.lines())
        self.type(text)
        text_now = self.wait(lambda t: found(t) or t.count(EARLY) > early, what)
        if found(text_now):
            return text_now
        self.type(whole or text)  # `whole`: the line again from its start, when `text` ended a line typed before
        return self.wait(found, what)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        os.close(self.master)


@pytest.mark.slow
def test_a_host_at_a_terminal_sees_a_clean_panel_and_what_he_types(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "play", "--input", "text", "--table-device", "none", "--seed", "2026")
    try:
        term.wait(lambda t: "准备好了说开始" in t and "输入 ›" in t, "the start and the input line")
        term.answer("开始\r", lambda t: "问：请告诉我狼人的座位号" in t, "the wolves' question, asked")
        term.type("一号 四号")  # half typed: shown on the panel's own input line, under the question
        screen = term.wait(lambda t: "输入 › 一号 四号" in t, "the line being typed")
        assert screen.index("问：请告诉我狼人的座位号") < screen.index("输入 › 一号 四号")
        term.answer(" 八号 十一号\r", lambda t: "狼人刀了谁" in t and "👂 一号 四号 八号 十一号" in t,
                    "the answer heard", whole="一号 四号 八号 十一号\r")
        term.answer("十三号\r", lambda t: "没接受：本局只有十二名玩家，没有十三号。" in t, "the refusal")
        # Paused with Ctrl-C, a typed answer is kept and said, then taken after 继续.
        os.killpg(term.proc.pid, signal.SIGINT)
        term.wait(lambda t: "已暂停" in t, "the pause")
        term.type("七号\r")
        term.wait(lambda t: "这个回答记下了" in t, "the kept answer")
        term.type("继续\r")
        text = term.wait(lambda t: "女巫的座位号" in t and "\n╰" in t and "问：请告诉我女巫" in t,
                         "the witch's turn after 继续, drawn")
        lines = term.lines()
        # One panel, drawn in place: no old borders or titles left in the scrollback, and no prompt id.
        assert sum("只给主持人看" in line for line in lines) == 1, "\n".join(lines)
        assert sum(line.startswith("╰") for line in lines) == 1, "\n".join(lines)
        assert not IDS.search(text), IDS.findall(text)
        assert "第一夜，正在女巫的回合" in text
    finally:
        term.close()


def echo_on(fd: int) -> bool:
    """The terminal (the pty's far side) echoes and reads lines: the shell's usual mode."""
    lflag = termios.tcgetattr(fd)[3]
    return bool(lflag & termios.ECHO) and bool(lflag & termios.ICANON)


@pytest.mark.slow
@pytest.mark.parametrize("inputs", ["text", "keypad"])
def test_ctrl_c_twice_leaves_the_terminal_echoing(tmp_path: Path, inputs: str) -> None:
    """After a second Ctrl-C (exit 130) the shell gets its terminal back as it was: the printed `narrator
    resume …` can be seen as it is typed."""
    term = Terminal(tmp_path, "play", "--input", inputs, "--table-device", "none", "--seed", "2026")
    try:
        assert echo_on(term.master)
        term.wait(lambda t: "准备好了说开始" in t, "the start")
        if inputs == "keypad":  # the keys pressed show on the panel before Enter, beside the key map
            term.type("3.5")
            term.wait(lambda t: "按键 › 3.5" in t and "键盘：" in t, "the keys pressed and the key map")
        time.sleep(0.5)  # the input is being read (cbreak, no echo)
        assert not echo_on(term.master)
        os.killpg(term.proc.pid, signal.SIGINT)
        term.wait(lambda t: "已暂停" in t, "the pause")
        os.killpg(term.proc.pid, signal.SIGINT)
        assert term.proc.wait(timeout=20) == 130
        assert echo_on(term.master), "the terminal was left without echo"
    finally:
        term.close()


@pytest.mark.slow
def test_typed_control_sequences_never_reach_the_screen(tmp_path: Path) -> None:
    """Escape sequences typed or pasted (a clear screen, a colour, an arrow key) are not echoed raw: they
    neither clear nor recolour the host's screen, and what is left of the line is heard."""
    term = Terminal(tmp_path, "play", "--input", "text", "--table-device", "none", "--seed", "2026")
    try:
        term.wait(lambda t: "准备好了说开始" in t and "输入 ›" in t, "the start and the input line")
        term.answer("开始\r", lambda t: "请告诉我狼人的座位号" in t, "the wolves' question")
        term.answer("\x1b[2J\x1b[31m一号\x1b[A\x1b[D 四号\x07 八号 十一号\r", lambda t: "👂 一号 四号 八号 十一号" in t,
                    "the answer heard without the sequences")
        with term.lock:
            raw = bytes(term.raw)
        assert b"\x1b[2J" not in raw and b"\x1b[31m" not in raw and b"\x07" not in raw
        assert "欢迎来到狼人之夜" in "\n".join(term.lines()), "the screen was cleared"
    finally:
        term.close()
