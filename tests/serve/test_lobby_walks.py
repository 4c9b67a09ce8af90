"""No dead serve: random walks of `narrator serve`'s whole loop — the lobby and the games, in process — by a
host who says anything at any moment: the lobby's words and keys, counts and boards that fit or not, 重复 /
撤销 / 规则 / 暂停 anywhere, 再来一局 / 换板子 / 结束 / 好了 / 关机 in any order, legal answers in the games
(with now and then a wrong one), and power cuts at random moments (an ear or a line that never returns: the
next power-on takes up what was saved). Every run of the device must end only as asked: 0 after 关机 and its
确认, 3 when the host's input ran out. An unexpected error in a game (injected) ends that game saved, says
so, and the device goes back to the lobby. The microphone records in the lobby's mode at every lobby question
and in the game's at every question of a game (`Ear.set_mode`: its larger blocks never reach a game).

Each walk is one seed (`WALKS` of them; NARRATOR_WALKS=N for more, NARRATOR_WALKS_FROM=S to start at seed S):
a failure names it, and `NARRATOR_WALK_SEED=S` walks that one alone."""

from __future__ import annotations

import io
import os
import random
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from listen.listenkit import words as answer_words
from rich.console import Console

from narrator.engine.prompts import Prompt
from narrator.judge.lines import Line
from narrator.listen.base import Heard, MicMode, Recording
from narrator.listen.keypad import keys_to_words
from narrator.play import store
from narrator.play.config import Config
from narrator.play.mouth import PrintMouth
from narrator.play.run import Wiring
from narrator.serve.device import Device
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal

pytestmark = pytest.mark.slow

WALKS = int(os.environ.get("NARRATOR_WALKS", "100"))
ANYWHERE = ["重复", "撤销", "规则", "规则 女巫", "乱说", "确认", "不对", "对", "不", "好了", "继续", "暂停", "关机",
            "再来一局", "换板子", "结束", "开始", "开始新游戏", "九个", "十二个", "二十个", "预女猎", "更多",
            "声音大一点", "换人数", "你能做什么", "现在在干什么", "上一局复盘", "法官，开始新游戏", ""]
"""What a host may say at any lobby question besides its own words (some of them it cannot take)."""
IN_GAME = ["重复", "撤销", "规则", "乱说", "暂停", "继续", "确认", "不对", "三号", "没有", "过"]
"""What a host may say in a game instead of its answer (mostly refused, or repaired)."""


class PowerCut(BaseException):
    """The power goes: nothing after it runs but what a dying process runs anyway (the journal is on disk)."""


class Injected(RuntimeError):
    """A fault no one foresaw, thrown inside a game."""


@dataclass
class Walk:
    seed: int
    root: Path
    rng: random.Random = field(init=False)
    left: int = field(init=False)
    """Things the host still says before his input runs out (the walk's end)."""
    cut_chance: float = field(init=False)
    fault_chance: float = field(init=False)
    hosts: dict[int, AutoHost] = field(default_factory=dict)
    """The game's host per game seed: the deal he knows, across power cuts."""
    said: list[str] = field(default_factory=list)
    """Everything the device said and heard, in order (the failure's context)."""
    exits: list[int | str] = field(default_factory=list)
    faults: int = 0
    wrong_mode: list[str] = field(default_factory=list)
    """Questions asked with the microphone in the other place's mode (none may be)."""
    device: WalkDevice | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        # short walks (the lobby, a game cut early) and long ones (a game to its end, resumed, another one)
        self.left = self.rng.choice([self.rng.randint(10, 120), self.rng.randint(300, 900)])
        self.cut_chance = self.rng.choice([0.0, 0.002, 0.02])
        self.fault_chance = float(os.environ.get("NARRATOR_WALK_FAULTS", self.rng.choice([0.0, 0.0, 0.004])))

    def context(self) -> str:
        return f"walk {self.seed} (NARRATOR_WALK_SEED={self.seed}), exits {self.exits}:\n" + "\n".join(self.said[-60:])

    def maybe_cut(self) -> None:
        if self.rng.random() < self.cut_chance:
            self.said.append("⚡ power cut")
            raise PowerCut()


class WalkEar:
    """The host: hears the question (`prompt`) and says something, now and then cuts the power."""

    def __init__(self, walk: Walk) -> None:
        self.walk = walk
        self.closed = threading.Event()
        self.paused = False
        self.mode: MicMode | None = None

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        walk = self.walk
        if self.closed.is_set():
            return None
        walk.maybe_cut()
        if walk.left <= 0:
            self.closed.set()  # the host's input ran out
            return None
        walk.left -= 1
        lobby = prompt.kind.startswith("lobby.")
        if self.mode != ("lobby" if lobby else "game"):
            walk.wrong_mode.append(f"{prompt.kind} with the microphone in {self.mode}")
        heard = self._lobby(prompt) if lobby else self._game(prompt)
        walk.said.append(f"  ← {heard.text} ({heard.source})")
        return heard

    def _lobby(self, prompt: Prompt) -> Heard:
        rng = self.walk.rng
        roll = rng.random()
        if roll < 0.55:
            return Heard(rng.choice(prompt.info["words"]))
        if roll < 0.7:
            keys = rng.choice([*prompt.info["keys"], "*", "0", str(rng.randint(1, 20))])
            return Heard(keys_to_words(keys, prompt), source="keypad")
        return Heard(rng.choice(ANYWHERE))

    def _game(self, prompt: Prompt) -> Heard:
        walk, rng = self.walk, self.walk.rng
        if walk.fault_chance and rng.random() < walk.fault_chance:
            walk.faults += 1
            walk.said.append("  ✗ injected fault")
            raise Injected("a fault in the game")
        session = walk.device.session if walk.device is not None else None
        if session is None or session.prompt is None or prompt is not session.prompt:
            return Heard(rng.choice(["开始", "开始", "重复", "乱说"]))  # before the game's first question
        if rng.random() < 0.06:
            return Heard(rng.choice(IN_GAME))
        host = walk.hosts.get(session.seed)
        if host is None:
            host = walk.hosts[session.seed] = AutoHost(Deal.shuffle(session.setup, random.Random(session.seed)),
                                                       random.Random(session.seed), duel_chance=0.0)
        try:
            return Heard(answer_words(host.answer(session.game, prompt)))
        except AssertionError:  # the host's deal and the game parted (an undone thief's card): any seat
            return Heard(rng.choice(["一号", "没有", "过", "是"]))

    def follow(self, playing: object) -> None:
        return None

    def close(self) -> None:
        self.closed.set()

    def ended(self) -> bool:
        return self.closed.is_set()

    def microphones(self) -> list[Recording]:
        return []

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        """Typed words: every word is heard."""

    def set_mode(self, mode: MicMode) -> None:
        self.mode = mode


def heard_by_the_table(walk: Walk) -> Any:
    """The mouth's printer: keeps the line; now and then the power goes while one is said."""

    def printer(line: Line) -> None:
        walk.said.append(("🔊 " if line.to == "all" else "🎧 ") + line.text)
        walk.maybe_cut()

    return printer


class WalkWiring(Wiring):
    def __init__(self, walk: Walk, ear: WalkEar) -> None:
        super().__init__(("text",), "none", "", "default")
        self.walk, self.given = walk, ear

    def ear(self, players: int, stdin: Any = None) -> Any:
        return self.given

    def mouth(self, console: Console, seed: int, lang: str) -> Any:
        return PrintMouth(heard_by_the_table(self.walk))


class WalkDevice(Device):
    session: Session | None = None

    def _play(self, lobby: Any, session: Session, **kw: Any) -> int:
        self.session = session
        try:
            return super()._play(lobby, session, **kw)
        finally:
            self.session = None


def walk(seed: int, root: Path) -> Walk:
    """Power on, serve until it ends, power on again … until the host's words run out."""
    walked = Walk(seed, root)
    power_ons = 0
    while True:
        power_ons += 1
        ear = WalkEar(walked)
        device = WalkDevice(WalkWiring(walked, ear), Config(), seed=seed * 1000 + power_ons * 100,
                            console=Console(file=io.StringIO(), width=200), games_root=root / "games")
        device.ask_again_s = 0.01
        walked.device = device
        walked.said.append(f"⏻ power-on {power_ons}")
        try:
            code = device.run()
        except PowerCut:
            walked.exits.append("cut")
            continue
        walked.exits.append(code)
        assert code in (0, 3), walked.context()
        assert not walked.wrong_mode, f"{walked.wrong_mode[:5]}\n{walked.context()}"
        if code == 0:
            assert walked.said[-1].endswith("关机了，再见。"), walked.context()
        if code == 3 and walked.left <= 0:
            return walked


def seeds() -> list[int]:
    one = os.environ.get("NARRATOR_WALK_SEED")
    first = int(os.environ.get("NARRATOR_WALKS_FROM", "0"))  # more walks in pieces: seeds FROM … FROM+WALKS-1
    return [int(one)] if one else list(range(first, first + WALKS))


def test_serve_never_dies_on_a_random_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # the walks test the device's logic, not the disk
    totals = {"games": 0, "ended": 0, "cuts": 0, "shutdowns": 0, "faults": 0}
    for seed in seeds():
        root = tmp_path / f"walk{seed}"
        walked = walk(seed, root)
        games = store.all_games(root / "games")
        totals["games"] += len(games)
        totals["ended"] += sum(1 for g in games if "复盘" in g.recap_stem.name or g.load().over)
        totals["cuts"] += walked.exits.count("cut")
        totals["shutdowns"] += walked.exits.count(0)
        totals["faults"] += walked.faults
        if walked.faults:
            assert any("出了点问题，这一局停在这里，已经保存。" in s for s in walked.said), walked.context()
    print(f"{len(seeds())} walks: {totals}")
    if len(seeds()) >= 50:  # the walks went where they should: games played to the end, cut, shut down
        assert min(totals.values()) > 0, totals


def test_the_listening_cue_is_the_hosts_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each lobby question, once said, starts listening with a tick in the host's earpiece — the table's
    channel gets none; with no earpiece the host's console shows 🎤."""
    from narrator.audio.beds import builtin_sounds
    from narrator.audio.mixer import Mixer

    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NARRATOR_CONFIG_DIR", str(tmp_path / "config"))
    cues: list[tuple[str, str | None]] = []

    class Recorded(Mixer):
        def enqueue(self, clip: Any, channel: str = "all", pause_after_s: float = 0.0, cue: str | None = None,
                    bed: str | None = None, lead_s: float = 0.0) -> Any:
            cues.append((channel, cue))
            return super().enqueue(clip, channel, pause_after_s, cue, bed, lead_s)

    class EarpieceMouth(PrintMouth):
        mixer = Recorded(builtin_sounds())

        def cue_host(self, cue: str) -> bool:  # as AudioMouth's: the cue on the mixer's host channel
            self.mixer.enqueue(np.zeros(0, np.float32), "host", 0.0, cue=cue)
            return True

    for host in ("earpiece", ""):
        walked = Walk(0, tmp_path / f"cue{host}")
        walked.left, walked.cut_chance = 0, 0.0
        ear = WalkEar(walked)
        script = iter(["开始新游戏", "九个", "关机", "确认"])
        ear._lobby = lambda prompt, said=script: Heard(next(said))  # type: ignore[method-assign,misc]
        walked.left = 4
        wiring = WalkWiring(walked, ear)
        wiring.host = host
        wiring.mouth = lambda console, seed, lang, w=walked: EarpieceMouth(heard_by_the_table(w))  # type: ignore
        out = io.StringIO()
        device = WalkDevice(wiring, Config(), console=Console(file=out, width=200), games_root=tmp_path / "g")
        assert device.run() == 0
        if host:
            assert cues == [("host", "tick")] * 3 and "🎤" not in out.getvalue()  # the ready line, 几个人, the boards
        else:
            assert out.getvalue().count("🎤") == 3
