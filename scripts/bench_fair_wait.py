"""Where the fair wait's seconds go: night lengths, and each step's wait for the host's words, by host.

    python scripts/bench_fair_wait.py [--steps] [--game NAME ...] [--host NAME ...]

Method. Each game is played by the real live loop (`narrator.play.loop.Live`) through the real Conductor and
Dialogue on a fake clock (tests/play/test_speech_timer_loop.py's TimedMouth: a silent voice of 0.1 s a
character), so no machine load matters and every figure is exact. The hosts:

- `typed0`, `typed4`, `typed8`: a typed host answering each question 0, 4, 8 s after he heard it (PacedEar);
- `typed0p2`, `typed4p2`: the same, with two words the judge does not understand before each answer at the
  questions every game asks alike (measured at two repairs: what hiding one answer taken back by 撤销 costs,
  tests/play/test_fair_undo.py; an undo allowance every night carried would cost every host this);
- `voice0`, `voice8`: a host by voice (tests/play/test_fair_stumbling_host_loop.py's VoiceHost): every spoken
  seat and irreversible answer is read back ("七号，对吗？") and he says 对, each try 0 / 8 s after he heard
  the judge;
- `voice8x1`: the same, saying one word the judge does not understand before every answer (a 没听懂 round);
- `voice8c2`, `voice15c3`: a first try 8 / 15 s after the question, his 对 to a read-back 2 / 3 s after it (he
  decided already), as a person by voice would.

It prints the table's night 1 / night 2 (天黑请闭眼 → 天亮了) per game and host, and with `--steps` every table
line that waits for the host's words: its words, its hold, the wait the Conductor gave it (from the line's
end to the next table line's start), the host's measured answer time and repairs then, and his own time at
each question asked since (as counted, repairs included).

With `--undo`: what one 撤销 costs the table (tests/fair_nights/witch_saves.yaml, tests/play/test_fair_undo.py's
cases: at night 2's seer's check, at night 1's witch's 救, by day at the 过 after the exile), the host saying 撤销
and the same answers again; `typedNpK` as above, `voiceNpK` a host by voice (every seat and irreversible answer
read back, 对 at once) with K words not understood before each answer at the public questions, each try N s
after he heard the judge. Per case: how much later the game's last table line comes than without the undo, and
the "请稍等" each table heard (0 s and the same count: the table's tape is the same to the ms).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "play"))
sys.path.insert(0, str(ROOT / "tests"))

from test_fair_stumbling_host_loop import STUMBLE, VoiceHost  # noqa: E402
from test_fair_undo import words as stumbling_words  # noqa: E402
from test_speech_timer_loop import PacedEar, TimedMouth  # noqa: E402

from narrator.audio import conductor as cond  # noqa: E402
from narrator.common.clock import FakeClock  # noqa: E402
from narrator.play.loop import Live  # noqa: E402
from narrator.play.scripted import host_script  # noqa: E402
from narrator.session.session import Session  # noqa: E402
from narrator.sim.scenario import Scenario  # noqa: E402

NIGHTS = ROOT / "tests" / "fair_nights"
WOLF_KING_GUARD = {
    "title": "12人狼王守卫：两夜",
    "preset": "12人狼王守卫",
    "rules": {"sheriff": False},
    "seats": ["狼人", "村民", "预言家", "狼人", "女巫", "村民", "猎人", "狼王", "村民", "守卫", "狼人", "村民"],
    "seed": 3,
    "answers": [["guard.protect", "六号"], ["wolves.kill", "二号"], ["witch.save", "不救"],
                ["witch.poison", "不用"], ["seer.check", "一号"], ["vote.exile", "十二号出局"],
                ["guard.protect", "九号"], ["wolves.kill", "六号"], ["witch.save", "不救"],
                ["witch.poison", "不用"], ["seer.check", "四号"]],
    "expect": {"awaiting": "vote.exile"},
}
GAMES = {"reference": lambda: Scenario.load(NIGHTS / "reference.yaml"),
         "classic_thief_plays": lambda: Scenario.load(NIGHTS / "classic_thief_plays.yaml"),
         "12人狼王守卫": lambda: Scenario.from_dict(WOLF_KING_GUARD, name="wolf-king-guard")}
HOSTS = ("typed0", "typed4", "typed8", "typed0p2", "typed4p2", "voice0", "voice8", "voice8x1", "voice8c2", "voice15c3")


@dataclass
class Step:
    """A table line that waited for the host's words, as the Conductor saw it when the next table line came."""

    text: str
    words: int
    hold_s: float
    waited_s: float
    answer_s: float
    repairs: int
    took: list[float] = field(default_factory=list)
    next_text: str = ""


class Recorder:
    """Wraps `Conductor._put` to note each table line's wait when the next table line is placed."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self._orig = cond.Conductor._put

    def __enter__(self) -> Recorder:
        orig, steps = self._orig, self.steps

        def put(conductor: cond.Conductor, line, ch, wait_at=None, aside=False):  # type: ignore[no-untyped-def]
            word = conductor._word
            placed = orig(conductor, line, ch, wait_at, aside)
            if ch == "all" and wait_at is None and not aside and word is not None:
                sr = cond.SR
                steps.append(Step(word.text, word.words, (word.end - word.said) / sr, placed.start_s - word.said / sr,
                                  conductor.answer_s, conductor.repairs, list(word.took), line.text))
            return placed

        cond.Conductor._put = put  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        cond.Conductor._put = self._orig  # type: ignore[method-assign]


class QuickToConfirm(VoiceHost):
    """VoiceHost, saying 对 to a read-back `confirm_s` after it rather than `host_s`."""

    def __init__(self, *args: object, confirm_s: float) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.confirm_s = confirm_s

    def listen(self, prompt, max_seat, timeout_s=None):  # type: ignore[no-untyped-def]
        if self.left is None:
            since = self.mouth.conductor.timeline[self.seen:]
            read_back = any(p.line.key.startswith("listening.read_back") for p in since)
            self.left = self.confirm_s if read_back else self.host_s
        return super().listen(prompt, max_seat, timeout_s)


def play(scenario: Scenario, host: str) -> tuple[list[tuple[float, str]], list[Step]]:
    scripted = host_script(scenario)
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)
    if host.startswith("typed"):
        host_s, _, stumbles = host[len("typed"):].partition("p")
        ear: object = PacedEar(clock, stumbling_words(scripted, float(host_s), stumbles=int(stumbles or 0)))
    elif "c" in host[len("voice"):]:
        host_s, _, confirm_s = host[len("voice"):].partition("c")
        ear = QuickToConfirm(clock, mouth, ["开始", *scripted.utterances], float(host_s), 0,
                             confirm_s=float(confirm_s))
    else:
        host_s, _, wrong = host[len("voice"):].partition("x")
        ear = VoiceHost(clock, mouth, ["开始", *scripted.utterances], float(host_s), int(wrong or 0))
        ear.stumbled = ear.wrong  # none before 开始
    with Recorder() as rec:
        Live(session, mouth, ear, now=clock.now, clock=clock, poll_s=0.5).run()  # type: ignore[arg-type]
    assert session.game.journal == scripted.game.journal, "the game went another way"
    return mouth.table, rec.steps


UNDO_CASES = {"night2_seer": ("seer.check", 1), "night1_witch": ("witch.save", 0), "day_exile": ("host.pass", 1)}
UNDO_HOSTS = ("typed0p0", "typed0p2", "typed4p2", "voice0p0", "voice8p0", "voice0p1", "voice8p1", "voice0p2",
              "voice4p2", "voice8p2")


def undo_game(scripted: object, host: str, at: int | None) -> list[tuple[float, str]]:
    """witch_saves played by `host` (`typedNpK` / `voiceNpK`), with 撤销 before word `at` and the same words again."""
    kind, (host_s, _, stumbles) = host[:5], host[5:].partition("p")
    said = stumbling_words(scripted, 0.0 if kind == "voice" else float(host_s), at, stumbles=int(stumbles))
    clock = FakeClock()
    mouth = TimedMouth(clock)
    session = Session(scripted.game.setup, scripted.game.seed)  # type: ignore[attr-defined]
    ear: object = PacedEar(clock, said) if kind == "typed" else \
        VoiceHost(clock, mouth, [w for w in said if isinstance(w, str)], float(host_s), 0)
    Live(session, mouth, ear, now=clock.now, clock=clock, poll_s=0.5).run()  # type: ignore[arg-type]
    assert session.game.journal == scripted.game.journal, "the game went another way"  # type: ignore[attr-defined]
    return mouth.table


def undo_rows(hosts: list[str]) -> None:
    scripted = host_script(Scenario.load(NIGHTS / "witch_saves.yaml"))
    for host in hosts:
        plain = undo_game(scripted, host, None)
        waits = sum(text == "请稍等。" for _, text in plain)
        cells = []
        for case, (kind, nth) in UNDO_CASES.items():
            at = [i for i, k in enumerate(scripted.kinds) if k == kind][nth]
            undone = undo_game(scripted, host, at)
            later = undone[-1][0] - plain[-1][0]
            same = "=" if undone == plain else "≠"
            cells.append(f"{case} +{later:.1f} s 请稍等 ×{sum(text == '请稍等。' for _, text in undone)} {same}")
        print(f"{host:9} game {plain[-1][0]:.0f} s 请稍等 ×{waits} | " + " | ".join(cells))


def nights(table: list[tuple[float, str]]) -> list[float]:
    out, start = [], None
    for t, text in table:
        if text.startswith("天黑请闭眼"):
            start = t
        elif text.startswith("天亮了") and start is not None:
            out.append(t - start)
            start = None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--host", nargs="*", default=list(HOSTS), choices=list(HOSTS))
    parser.add_argument("--steps", action="store_true", help="every step's wait for the host's words")
    parser.add_argument("--undo", nargs="*", choices=UNDO_HOSTS, help="what one 撤销 costs the table, by host")
    args = parser.parse_args()
    if args.undo is not None:
        undo_rows(args.undo or list(UNDO_HOSTS))
        return
    assert STUMBLE  # the stumbling word is VoiceHost's "嗯" here; STUMBLE is the typed host's
    for game in args.game:
        for host in args.host:
            table, steps = play(GAMES[game](), host)
            lengths = " / ".join(f"{s:.0f}" for s in nights(table))
            waits = sum(text == "请稍等。" for _, text in table)
            print(f"{game:20} {host:9} nights {lengths} s  请稍等 ×{waits}")
            if args.steps:
                for s in steps[:40]:
                    took = ",".join(f"{t:.0f}" for t in s.took)
                    print(f"    {s.text[:18]:18} w{s.words} hold {s.hold_s:5.1f} waited {s.waited_s:6.1f}"
                          f"  A={s.answer_s:.0f} R={s.repairs} took[{took}] → {s.next_text[:12]}")


if __name__ == "__main__":
    main()
