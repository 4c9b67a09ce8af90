"""A whole 12-player game by voice alone through the room (roomkit.Room), for the room test and the room
benchmark (scripts/bench_room.py game).

The real `narrator play` process (espeak-ng judge over the night bed; `--input voice --model ko --grammar
ko`: the real microphone adapter, Silero VAD and Vosk decoder) plays into the room's table; a scripted host
who listens to the table and to his earpiece (a VAD on each, like a person) answers in Korean from his own
place in the room once the judge has finished, and says it again when nothing was taken 8 s later; a read-back
("二号，对吗？", every answer: `--read-back always`, as the Korean stand-in's accuracy calls for) gets 确认
when it is what he said, else 不对 and the answer again; a 暂停 the ear thought it heard gets 继续; during every
speech a player talks, ending with 过 but without the judge's name. Nobody types anything.

The game (屠边 on the second night) is the scenario GAME: `host_script` gives the host's words and the game
`simulate` plays from them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from roomkit import Ears, Room, espeak, play

from narrator.judge.presets import make_setup
from narrator.judge.script import Script
from narrator.listen.grammar import Pack, load_pack
from narrator.play.scripted import Scripted, host_script
from narrator.play.store import SavedGame, save_game
from narrator.session.session import Session
from narrator.sim.scenario import Output, Run, Scenario

SPEECH_KINDS = ("speech.end", "last_words.end")
SPEECH_CALL = re.compile("请[一二三四五六七八九十]+号(?:发言|发表遗言)")
"""The judge's call of one speech (not "发言结束，请大家举手投票")."""
REPLY_S = 8.0
"""s after the host's utterance ended within which what the ear reports, and the judge's reply, answer it
(the ear decides within 1.5 s of his last word even on a busy machine: printed.log)."""
SPEECH_SECONDS = 16
"""s. Just over the 15 s cue, so every speech hears "还剩十五秒" before 时间到."""
GAME = {
    "title": "屠边：两夜一天，全部村民出局",
    "preset": "12人预女猎白",
    "rules": {"sheriff": False, "speech_seconds": SPEECH_SECONDS},
    "seats": ["狼人", "村民", "预言家", "狼人", "女巫", "村民", "猎人", "狼人", "村民", "白痴", "狼人", "村民"],
    "answers": [["wolves.kill", "二号"], ["witch.save", "不救"], ["witch.poison", "六号"], ["seer.check", "一号"],
                ["vote.exile", "九号出局"], ["wolves.kill", "十二号"], ["witch.save", "不救"],
                ["seer.check", "四号"]],
}
_KO = load_pack("ko")
PLAYER_TALKS = "저는 좋은 사람입니다 " + _KO.say["过"][0]
"""A player's speech: ends with 过 as grammars/ko.yaml says it, without the judge's name."""
QUIET_S = 1.2
"""s of the judge's silence after which the host speaks."""
HOST_PASS = f"{_KO.say['法官'][0]} {_KO.say['过'][0]}"
"""法官，过 (grammars/ko.yaml): the host ends a speech, with the judge's name."""
HOST_VOICES = ((150, 5), (140, 5), (130, 10), (150, 10))
"""espeak-ng -s SPEED -g GAP of the host's 1st, 2nd … try at one answer: he says it again a little slower, with
short pauses between seats (shorter than the ear's 0.4 s trailing silence); chosen with
scripts/bench_korean_pack.py (docs/benchmarks.md)."""
MAX_TRIES = 6
"""Times the host says one answer (each in his next voice and form) before the test gives up."""
READ_BACK = "对吗"
"""What the judge's read-back of an irreversible answer ends with ("七号，对吗？")."""


def korean(words: str, pack: Pack, attempt: int = 0) -> str:
    """The host's words as the Korean stand-in says them (grammars/ko.yaml `say:`), longest match first; at
    his `attempt`-th try at one answer each word in its next spoken form, where it has several (the
    recogniser's errors stick to a form: saying the same form again rarely helps)."""
    keys = sorted(pack.say, key=len, reverse=True)
    out, rest = [], words.replace(" ", "")
    while rest:
        key = next((k for k in keys if rest.startswith(k)), None)
        if key is None:
            raise AssertionError(f"grammars/ko.yaml cannot say {rest!r} of {words!r}")
        forms = pack.say[key]
        out.append(forms[attempt % len(forms)])
        rest = rest[len(key):]
    return " ".join(out)


def answers_in(data: Path, game: int = 0) -> list[dict[str, object]]:
    """The `game`-th game's journal's answer and undo lines so far (none before the game's folder exists)."""
    journals = sorted((data / "games").glob("*/journal.jsonl"))
    if len(journals) <= game:
        return []
    lines = journals[game].read_text(encoding="utf-8").splitlines()[1:]
    records = [json.loads(x) for x in lines if x.endswith("}")]
    return [r for r in records if "said" not in r]  # a said mark is no answer


@dataclass
class GameRun:
    scenario: Scenario
    scripted: Scripted
    simulated: Output
    data: Path
    printed: list[tuple[float, str]] = field(default_factory=list)
    """Every line `play` printed, with the time (monotonic)."""
    host_log: list[str] = field(default_factory=list)
    host_ends: list[tuple[float, str]] = field(default_factory=list)
    """When each of the host's utterances ended in the room (monotonic), and what it answered."""
    host_wavs: list[Path] = field(default_factory=list)
    """The clip of each of those utterances."""
    judge_onsets: list[float] = field(default_factory=list)
    """When the judge's voice started on the table (monotonic, the table VAD's onsets)."""
    returncode: int | None = None
    stderr: str = ""
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    failure: BaseException | None = None
    tries: list[tuple[str, int]] = field(default_factory=list)
    """Each answer taken (not the speeches): its kind and the times the host said it."""
    read_backs: int = 0
    """The judge's read-backs ("…，对吗？") the host answered."""
    resumed: int = 0
    """Printed lines up to which a 暂停 the ear heard was answered with 继续."""
    started: float = field(default_factory=time.monotonic)
    """When the run began (monotonic): printed.log's times count from here."""
    ears: list[Ears] = field(default_factory=list)
    """The host's ears on the table and the earpiece (while `live` runs)."""
    spoke_at: int = 0
    """Printed lines when the host last began to speak."""
    stop_when_done: bool = False
    """Stop `narrator` once the host is done (a part of a game)."""
    cut_power_when_done: bool = False
    """SIGKILL `narrator` once the host is done (the power is cut)."""
    held_s: float = 10.0
    """s the host waits to hear a table line the judge has printed (it is synthesised first, and may be held
    by the table's fair wait) before he takes the judge as finished and speaks."""

    def unprompted(self, lines: list[tuple[float, str]], within_s: float = REPLY_S) -> list[str]:
        """Those of `lines` that no utterance of the host's had just ended before (within `within_s`): the ear
        took something he did not say (the judge's own words, a player's), or the judge spoke unasked."""
        return [line for t, line in lines if not any(-4 <= t - end <= within_s for end, _ in self.host_ends)]

    def heard_unprompted(self) -> list[str]:
        """The ear's reports (👂) that follow no utterance of the host: the judge's or a player's words taken."""
        return self.unprompted([(t, x) for t, x in self.printed if x.lstrip().startswith("👂")])

    def heard_first_try(self, kind: str) -> bool:
        """The ear reported something (👂) for the host's first utterance at `kind` — before he spoke again
        (night 1's first answer used to be dropped under the table's 请稍等)."""
        ends = [t for t, _ in self.host_ends]
        first = next((i for i, (_, k) in enumerate(self.host_ends) if k == kind), None)
        if first is None:
            return False
        until = ends[first + 1] if first + 1 < len(ends) else float("inf")
        return any(ends[first] - 1.0 <= t < until and x.lstrip().startswith("👂") for t, x in self.printed)

    def extra_table_lines(self) -> list[str]:
        """Lines the judge said to the table that the typed game has not (the deal line, read-backs and the
        timer's cues aside) and that answer no utterance of the host's (a refusal at a day's open prompt is
        said to the table, after his words)."""
        expected = {line.text for line in self.simulated.lines if line.to == "all"}
        extra = [(t, x) for t, x in self.printed[1:] if x.startswith("🔊") and x.removeprefix("🔊 ") not in expected
                 and "十五秒" not in x and "时间到" not in x and READ_BACK not in x]
        return self.unprompted(extra)

    def speech_lengths(self) -> list[tuple[str, float]]:
        """Each speech the judge called ("请七号发言。") and the s until his next table line: the timer's end
        (SPEECH_SECONDS after the call was said) or an early one — a player's 过, or the cue, taken for the
        host's command. The timer's own lines (还剩十五秒, 时间到) are played, not printed."""
        table = [(t, x) for t, x in self.printed if x.startswith("🔊")]
        out = []
        for t, x in table:
            if SPEECH_CALL.search(x):
                later = [u for u, _ in table if u > t]
                out.append((x, (later[0] if later else float("inf")) - t))
        return out

    def said(self, text: str) -> int:
        return sum(1 for _, line in self.printed if text in line)

    def context(self) -> str:
        printed = "\n".join(line for _, line in self.printed)
        # narrator's own log lines, not ALSA's underrun reports (a loaded machine writes thousands of them)
        logged = "\n".join(x for x in self.stderr.splitlines() if not x.startswith("ALSA lib"))
        return (f"\n--- host ---\n{chr(10).join(self.host_log)}\n--- play ---\n{printed[-3000:]}"
                f"\n--- stderr ---\n{logged[-2000:]}")


@dataclass
class Listening:
    """The host hears the table and his earpiece."""

    parts: list[Ears]

    def wait_quiet(self, seconds: float, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not all(e.quiet_for(seconds) for e in self.parts):
            if time.monotonic() > deadline:
                raise AssertionError(f"the judge never stopped talking for {seconds} s")
            time.sleep(0.05)


def _host(run: GameRun, ears: Listening, done: threading.Event) -> None:
    """The whole game's host (see the module docstring)."""
    while not run.printed and not done.is_set():  # the judge starts with the cards to deal
        time.sleep(0.1)
    judge_started(run, run.printed[0][0], timeout_s=30)  # printed before it is played: he hears it first
    steps = [("start", "开始"), *zip(run.scripted.kinds, run.scripted.utterances, strict=True)]
    play_steps(run, ears, done, steps, game_progress(run), asked_s=ASKED_S)


def game_progress(run: GameRun, game: int = 0, since: int = 0) -> Callable[[], int]:
    """The host's steps done in the data's `game`-th game: its answers, one for 天黑 (printed after the
    `since`-th line: the game has started), and each 过 taken where a step asked nothing (not journaled)."""
    return lambda: (len(answers_in(run.data, game)) + any("天黑" in line for _, line in run.printed[since:])
                    + passes_taken([line for _, line in run.printed[since:]]))


def passes_taken(printed: list[str]) -> int:
    """The judge's 过 questions (where a step asks nothing) followed by a table line: taken. Its reminders
    and refusals go to the host, so until the 过 is taken no table line follows it."""
    asked = Script("zh-Hans").line("prompts", "host.pass").text
    taken, pending = 0, False
    for line in printed:
        if asked in line:
            pending = True
        elif pending and line.startswith("🔊"):
            taken, pending = taken + 1, False
    return taken


def play_steps(run: GameRun, ears: Listening, done: threading.Event, steps: list[tuple[str, str]],
               progress: Callable[[], int], passes: bool = False, asked_s: float = 60) -> None:
    """The host says each step's words once the judge has finished, until `progress()` counts it done; at a
    speech a player talks and the timer ends it, or (`passes`) the host ends it at once with 法官，过. He waits
    up to `asked_s` for the step's question (the table's fair wait may come before it: ASKED_S)."""
    pack = load_pack("ko")
    for i, (kind, words) in enumerate(steps):
        tries = 0
        asked_for(run, kind, partial(step_done, progress, i, done), timeout_s=asked_s)
        while progress() <= i and not done.is_set():
            wait_judge(run, ears, timeout_s=300)
            if progress() > i or done.is_set():
                break
            if any(line.strip() == "👂 暂停" for _, line in run.printed[run.resumed:]):
                run.resumed = len(run.printed)  # the ear took something for 暂停: the host goes on
                say(run, "resume", "继续", pack)
                continue
            if kind in SPEECH_KINDS and passes:
                words = "法官过"
            elif kind in SPEECH_KINDS:  # the host waits for the time; a player talks
                if tries == 0:
                    play(espeak(PLAYER_TALKS, "ko+m3")).wait(timeout=30)
                    run.host_log.append(f"player: {PLAYER_TALKS}")
                tries = 1
                time.sleep(0.2)
                continue
            tries += 1
            if tries > MAX_TRIES:
                raise AssertionError(f"the judge never took {words!r} ({kind}) after {MAX_TRIES} tries")
            answer(run, ears, kind, words, pack, lambda i=i: progress() > i or done.is_set(), attempt=tries - 1)
        if kind not in SPEECH_KINDS and progress() > i:
            run.tries.append((kind, tries))


ASKED_S = 600.0
"""s a host waits for the judge's question where the table's fair wait holds it back (a person waits to be
asked). The table waits in silence for the host's answer time and repairs as measured (narrator/data/pacing.yaml
`host_words`) before a step's question too — 141 s before 请说过 at a dawn's skill call through the room (the
whole session's run): more than the 60 s after which a host who hears the judge quiet speaks unasked."""


def step_done(progress: Callable[[], int], i: int, done: threading.Event) -> bool:
    return progress() > i or done.is_set()


HEARD_S = 15.0
"""s the host waits for the judge to take his words (or read them back) before he says them again. 8 s was too
short on a busy machine: the device, starved, read "关机" back after the host had said it again, and asked
once more (right, but not the session the test expects)."""


def answer(run: GameRun, ears: Listening, kind: str, words: str, pack: Pack, taken: Callable[[], bool],
           quiet_s: float = QUIET_S, attempt: int = 0) -> None:
    """Say `words` once (the judge has finished; the `attempt`-th try, HOST_VOICES), then listen to the judge
    as a person does, until `taken()`: what the judge asks about his answer he answers (`reply_to`: a
    read-back gets 确认 if it is what was said, else the right seat, "不是X是Y" where one seat of several is
    wrong, or 不对; "还差一个" the seats missing ("X去掉" first when one seat kept is not his);
    "是一号还是七号？" the one he said; "是七号吗？" 确认 or 不对) and listens on; anything else the judge
    says to him (a refusal, "好，请重新回答", the question asked again) or `HEARD_S` of nothing: he returns,
    and the caller says the answer again."""
    seen = len(run.printed)  # before he speaks: the judge may read back before the clip's tail has played
    say(run, kind, words, pack, attempt)
    deadline = time.monotonic() + HEARD_S
    reply: str | None = None
    replied, again = 0.0, 0
    while not taken() and time.monotonic() < deadline:
        new = [(t, line) for t, line in run.printed[seen:] if judge_line(line)]
        if not new and reply is not None and again < REPLY_AGAIN and time.monotonic() > replied + REPLY_WAIT_S:
            again += 1  # nothing came of his 对: he says it again, as a person would
            wait_judge(run, ears, quiet_s, timeout_s=60)
            if taken() or any(judge_line(x) for _, x in run.printed[seen:]):
                continue
            say(run, "repair", reply, pack, attempt)
            replied = time.monotonic()
            continue
        if not new:
            time.sleep(0.1)
            continue
        t, line = new[-1]
        if "🎧" not in line:
            judge_started(run, t, timeout_s=run.held_s)  # printed before it is played: the host waits for it
        wait_judge(run, ears, quiet_s, timeout_s=60)
        if taken():
            return
        # what the judge said last, once he has finished (a refusal may be followed by "是五号吗？")
        t, line = [(t, x) for t, x in run.printed[seen:] if judge_line(x)][-1]
        seen = len(run.printed)
        if not asks_host(line):
            return  # a refusal, "请重新回答", the question again: he says it again
        reply = reply_to(line, words)
        if READ_BACK in line or AGAIN.search(line):
            run.read_backs += 1
        if reply is None:
            return
        say(run, "repair", reply, pack, attempt)
        replied, again = time.monotonic(), 0
        deadline = time.monotonic() + HEARD_S


REPLY_WAIT_S = 6.0
"""s without a word from the judge after the host's reply (对, 不对, a seat) before he says it again."""
REPLY_AGAIN = 1
"""Times he says a reply again before he starts over with the answer."""


def judge_line(line: str) -> bool:
    """A line the judge says (to the table or to the host), not the ear's own report of what it heard."""
    return line.lstrip().startswith(("🔊", "🎧"))


MISSING = "还差"
CHOICE = re.compile(r"是(?P<a>[一二三四五六七八九十]+号)还是(?P<b>[一二三四五六七八九十]+号)")
OFFER = re.compile(r"是(?P<seat>[一二三四五六七八九十]+号)吗")


AGAIN = re.compile(r"还是听成(?P<answer>.+?)。")
"""The read-back said again when the host answered it with what it said ("还是听成七号。是七号请说对…")."""


def asks_host(line: str) -> bool:
    """A judge's line that waits for the host's word about his answer."""
    return (READ_BACK in line or MISSING in line
            or bool(CHOICE.search(line) or OFFER.search(line) or AGAIN.search(line)))


def reply_to(line: str, words: str) -> str | None:
    """What the host says to the judge's question `line` about his answer `words`; None: nothing fits
    (he says the answer again). A wrong read-back of one seat he answers with the right seat (the judge
    takes it as 不对 and reads that back), a wrong one of more with 不对."""
    said = _SEAT.findall(words)
    if (m := AGAIN.search(line)) is not None:
        line = f"{m['answer']}，{READ_BACK}"
    if READ_BACK in line:
        if read_back_right(line, words):
            return "确认"
        one = _SEAT.fullmatch(words.replace("出局", "").replace("法官", "").strip()) is not None
        if one:
            return words
        heard = _seats_of(line)
        wrong = [s for s in heard if s not in said]
        right = [s for s in said if s not in heard]
        seats_only = "投" not in line and "出局" not in words  # a seat list, not ballots or a vote's result
        if seats_only and len(said) > 1 and len(wrong) == 1 and len(right) == 1 and len(heard) == len(said):
            return f"不是{wrong[0]}是{right[0]}"  # one seat of several wrong: corrected in place
        return "不对"  # "九号出局" at a vote: a bare seat is no vote's answer
    if (m := CHOICE.search(line)) is not None:
        right = [s for s in (m["a"], m["b"]) if s in said]
        return right[0] if len(right) == 1 else None
    if (m := OFFER.search(line)) is not None:
        return "确认" if m["seat"] in said else "不对"
    if MISSING in line:
        kept = _seats_of(line.split(MISSING)[0])
        wrong = [s for s in kept if s not in said]
        if len(wrong) == 1:
            return f"{wrong[0]}去掉"  # a seat kept that he did not say: taken out, the rest asked for again
        if wrong:
            return None
        return " ".join(s for s in said if s not in kept) or None
    return None


_SEAT = re.compile("[一二三四五六七八九十]+号")


def _seats_of(line: str) -> list[str]:
    return _SEAT.findall(line)


def read_back_right(line: str, words: str) -> bool:
    """Whether the judge's read-back `line` ("一号，四号，十一号，对吗？") is what the host said: the same seats,
    none more ("一号" is not in "十一号"), and every other word in it."""
    said = words.replace("出局", "").replace("法官", "")
    others = _SEAT.sub(" ", said).split()
    return sorted(_SEAT.findall(said)) == sorted(_SEAT.findall(line)) and all(w in line for w in others)


HOST_LINE_S_PER_CHAR = 0.16
"""s. How long the judge takes over one character of a line to the host (the console prints each at its start,
the next once it has been said: 3.9 s for the 26 characters of a 手势约定 line, 1.5 s for 没听懂，请说座位号。)."""


def wait_judge(run: GameRun, ears: Listening, quiet_s: float = QUIET_S, timeout_s: float = 60) -> None:
    """Until the judge has finished: the table and the earpiece quiet for `quiet_s`, and the last line to the
    host on the console said out (its length) `quiet_s` ago — a person lets the judge finish before he
    answers, and the judge's next line may follow a refusal at once ("是五号吗？…")."""
    deadline = time.monotonic() + timeout_s
    while True:
        table = [t for t, line in run.printed if line.startswith("🔊")]
        if table and time.monotonic() - table[-1] < run.held_s:  # a table line printed, not yet played
            judge_started(run, table[-1], timeout_s=run.held_s - (time.monotonic() - table[-1]))  # not finished
        ears.wait_quiet(quiet_s, timeout_s=max(1.0, deadline - time.monotonic()))
        hosts = [(t, line) for t, line in run.printed if line.lstrip().startswith("🎧")]
        if not hosts:
            return
        t, line = hosts[-1]
        until = t + len(line.split("：", 1)[-1]) * HOST_LINE_S_PER_CHAR + quiet_s
        if time.monotonic() >= until or time.monotonic() > deadline:
            return
        time.sleep(until - time.monotonic())


def question_text(kind: str) -> str | None:
    """The fixed start of the judge's question for a step ("狼人刀了谁", "今晚被刀的是"); None: none known."""
    if kind in SPEECH_KINDS:
        return None
    entry = Script("zh-Hans").data["prompts"].get("identify" if kind.endswith(".identify") else kind)
    text = entry.get("text") if isinstance(entry, dict) else entry
    if not isinstance(text, str):
        return None
    return text.split("{", 1)[0].split("，", 1)[0].rstrip("。？") or None


def asked_for(run: GameRun, kind: str, done: Callable[[], bool], timeout_s: float = 60) -> None:
    """A person answers a question once it is asked: wait until the judge's question for this step (its fixed
    words) is printed after the host last spoke (or `timeout_s`, or the step is done)."""
    question = question_text(kind)
    if question is None:
        return
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        if any(question in line for _, line in run.printed[run.spoke_at:] if judge_line(line)):
            return
        time.sleep(0.1)


def judge_started(run: GameRun, printed: float, timeout_s: float = 10) -> None:
    """Wait until the judge's voice starts on the table after a line was printed at `printed` (monotonic):
    a line is printed before it is synthesised and played, and the table is quiet meanwhile."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        # the onsets are on the recordings' sample clocks, which fall behind on a starved machine: the ears'
        # last voice is on the monotonic clock
        if any(t > printed for t in run.judge_onsets) or any(e.last_voice > printed for e in run.ears):
            return
        time.sleep(0.05)


def say(run: GameRun, kind: str, words: str, pack: Pack, attempt: int = 0) -> None:
    spoken = korean(words, pack, attempt)
    speed, gap = HOST_VOICES[attempt % len(HOST_VOICES)]
    run.host_log.append(f"host [{kind}]: {words} = {spoken} (-s {speed} -g {gap})")
    wav = espeak(spoken, "ko", speed, gap)
    begun = time.monotonic()
    run.spoke_at = len(run.printed)  # the judge's next question may be printed before his last word's echo
    play(wav).wait(timeout=30)
    run.host_ends.append((time.monotonic(), kind))
    with (run.data.parent / "printed.log").open("a", encoding="utf-8") as seen:
        ended = run.host_ends[-1][0] - run.started
        seen.write(f"{begun - run.started:7.1f} ### {run.host_log[-1]} (ended {ended:.1f})\n")
    run.host_wavs.append(wav)


def _peak_rss(pid: int, out: list[float], done: threading.Event) -> None:
    while not done.is_set():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return
        for row in status.splitlines():
            if row.startswith("VmHWM:"):
                out.append(int(row.split()[1]) / 1024)
        time.sleep(0.5)


def play_game(room: Room, tmp: Path, seed: int, pace: float = 0.1, timeout_s: float = 1800) -> GameRun:
    """The whole game by voice, `narrator play` from the cards to the recap."""
    scenario = Scenario.from_dict({**GAME, "seed": seed}, name=f"room-{seed}")
    run = GameRun(scenario, host_script(scenario), Run(scenario).execute(), tmp / "data")
    command = ["play", "--preset", str(GAME["preset"]), "--seed", str(seed), "--rule", "sheriff=false",
               "--rule", f"speech_seconds={SPEECH_SECONDS}"]
    return live(run, room, tmp, command, pace, _host, timeout_s, earpiece=False)


FIRST_DAY = {
    "title": "八人：狼人刀五号，白天放逐一号（一夜一天由语音）",
    "preset": "8人标准局",
    "rules": {"sheriff": False, "speech_seconds": SPEECH_SECONDS},
    "seats": ["狼人", "村民", "预言家", "狼人", "村民", "村民", "村民", "村民"],
    "answers": [["wolves.kill", "五号"], ["seer.check", "一号"], ["vote.exile", "一号出局"],
                ["wolves.kill", "三号"], ["seer.check", "四号"]],
}
"""The shortest game with a night and a day: eight players, two wolves, the seer. Night 1 and day 1 are
played by voice (the second night only makes the scenario a whole game)."""


def first_day_steps(scripted: Scripted) -> list[tuple[str, str]]:
    """开始 and the host's steps up to the end of day 1 (the last words after the vote)."""
    kinds = list(scripted.kinds)
    vote = kinds.index("vote.exile")
    end = next(i for i in range(vote + 1, len(kinds)) if kinds[i] == "last_words.end") + 1
    return [("start", "开始"), *zip(kinds[:end], scripted.utterances[:end], strict=True)]


HELD_S = 120.0
"""s the host of the first day waits to hear a table line printed: the call of a dead player's last words is
printed at once and played after the fair wait of the skill call before it (12-20 s through the room); a host
who ended the last words before he heard them called spoke to a judge not yet listening, and said it again
15 s later (HEARD_S)."""


def play_first_day(room: Room, tmp: Path, seed: int, pace: float = 0.1, timeout_s: float = 600) -> GameRun:
    """FIRST_DAY's night 1 and day 1 by voice (the host ends each speech with 法官，过), under the default
    read-back policy; `narrator` is stopped once the host is done."""
    scenario = Scenario.from_dict({**FIRST_DAY, "seed": seed}, name=f"room-first-day-{seed}")
    run = GameRun(scenario, host_script(scenario), Run(scenario).execute(), tmp / "data", stop_when_done=True,
                  held_s=HELD_S)

    def host(run: GameRun, ears: Listening, done: threading.Event) -> None:
        while not run.printed and not done.is_set():
            time.sleep(0.1)
        judge_started(run, run.printed[0][0], timeout_s=30)
        play_steps(run, ears, done, first_day_steps(run.scripted), game_progress(run), passes=True)

    command = ["play", "--preset", str(FIRST_DAY["preset"]), "--seed", str(seed), "--rule", "sheriff=false",
               "--rule", f"speech_seconds={SPEECH_SECONDS}"]
    return live(run, room, tmp, command, pace, host, timeout_s, earpiece=False, read_back="irreversible")


Host = Callable[[GameRun, "Listening", threading.Event], None]


def live(run: GameRun, room: Room, tmp: Path, command: list[str], pace: float, host: Host,
         timeout_s: float, launcher: list[str] | None = None, earpiece: bool = True,
         read_back: str = "always") -> GameRun:
    """Run `narrator COMMAND` by voice in the room while `host` talks; fills `run` and returns it.
    `launcher`: what runs narrator (default `python -m narrator.cli.main`; scripts/trace_narrator.py …).
    `earpiece=False`: the host's lines go to the console (printed) instead of the earpiece — an earpiece's
    lines are not printed, and the scripted host reads the judge's questions about his answer from the print."""
    env = {**os.environ, "NARRATOR_DATA_DIR": str(run.data), "NARRATOR_CONFIG_DIR": str(tmp / "config"),
           "PYTHONUNBUFFERED": "1"}
    argv = [*(launcher or [sys.executable, "-m", "narrator.cli.main"]), *command,
            "--input", "voice", "--model", "ko", "--grammar", "ko", "--mic", f"pulse:{room.mic}",
            "--table-device", f"pulse:{room.table}", *(["--host-device", "pulse:earpiece"] if earpiece else []),
            "--backend", "espeak",
            "--rate=+60%", "--pace", str(pace), "--read-back", read_back, "--cache-dir", str(tmp / "cache")]
    done = threading.Event()
    ears = Listening([Ears(source, onsets=run.judge_onsets) for source in ("table.monitor", "earpiece.monitor")])
    run.ears = ears.parts
    started = run.started = time.monotonic()
    # A file: a long log never blocks `narrator`. Appended to: a second run in the same folder (a serve
    # started again after a power cut) keeps the first run's log on disk; `run.stderr` is this run's part.
    log = (tmp / "stderr.log").open("a+", encoding="utf-8")
    log_start = log.tell()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, text=True, env=env, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    stdout = proc.stdout

    def read() -> None:
        with (tmp / "printed.log").open("a", encoding="utf-8") as seen:  # to follow a run as it goes
            for raw in stdout:
                run.printed.append((time.monotonic(), raw.rstrip("\n")))
                seen.write(f"{run.printed[-1][0] - started:7.1f} {raw}")
                seen.flush()

    def talk() -> None:
        try:
            host(run, ears, done)
        except BaseException as exc:  # reported by the caller
            run.failure = exc
        finally:
            if proc.poll() is None and (run.cut_power_when_done or run.failure is not None):
                proc.kill()  # the power is cut; or the host gave up: `narrator` would wait for him for ever
            elif proc.poll() is None and run.stop_when_done:
                proc.terminate()  # every accepted answer is already in the journal

    rss: list[float] = []
    threads = [threading.Thread(target=f, daemon=True) for f in (read, talk)]
    threads.append(threading.Thread(target=_peak_rss, args=(proc.pid, rss, done), daemon=True))
    for t in threads:
        t.start()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        run.failure = run.failure or AssertionError(f"`narrator {command[0]}` still running after {timeout_s:.0f} s")
    finally:
        done.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for part in ears.parts:
            part.close()
        for t in threads:
            t.join(timeout=30)
    run.returncode = proc.returncode
    log.seek(log_start)
    run.stderr = log.read()
    log.close()
    run.seconds = time.monotonic() - started
    run.peak_rss_mb = max(rss, default=0.0)
    return run


# --- the day's speeches alone (tests/room/test_room_speeches.py, bench_room.py speeches) ---

def calls(line: str) -> bool:
    """The judge's call of a speech: "请二号发表遗言。", "请七号发言。"."""
    return "请" in line and ("发言" in line or "遗言" in line)


def saved_before_speeches(data: Path, seed: int = 3) -> tuple[SavedGame, GameRun, int]:
    """GAME saved in `data` up to its first speech (as the host would have answered by then); the run to
    fill and the number of answers before the speeches."""
    scenario = Scenario.from_dict({**GAME, "seed": seed}, name=f"room-speeches-{seed}")
    scripted = host_script(scenario)
    first = next(i for i, kind in enumerate(scripted.kinds) if kind in SPEECH_KINDS)
    rules = GAME["rules"]
    assert isinstance(rules, dict)
    session = Session(make_setup(str(GAME["preset"]), rules=rules), seed, lang="zh-Hans")
    session.acks = True  # the host's words hold his 过 where a step asks nothing, as the live loop asks it
    saved = save_game(session, str(GAME["preset"]), {}, data / "games")
    try:
        for words in scripted.utterances[:first]:
            session.take_lines()
            session.heard()  # the table heard everything up to here: a resume re-asks only the speech
            if not hasattr(session.submit(words), "events"):
                raise AssertionError(f"{words!r} refused before the speeches")
        session.take_lines()
        session.heard()
        answered = len(session.answers)  # the 过s where a step asked nothing are no answers
    finally:
        session.close()  # the game's lock, for the `narrator resume` that plays on
    return saved, GameRun(scenario, scripted, Run(scenario).execute(), data, stop_when_done=True), answered


@dataclass
class Speech:
    called: float
    """When the judge's "请N号发言" / "请N号发表遗言" was printed (queued)."""
    player_done: float = 0.0
    host_done: float | None = None
    ended: float = 0.0


def speeches_host(spoken: list[Speech], speeches: int, host_ends: int) -> Host:
    """In each of `speeches` speeches a player talks; in the first `host_ends` the host then says HOST_PASS."""
    def host(run: GameRun, ears: Listening, done: threading.Event) -> None:
        seen = 0  # printed lines up to the last speech's call
        for n in range(speeches):
            # The next call after the last one, however soon it came (the last words of two dead follow each
            # other); the answers counted once it is printed, when the speech before is in the journal.
            while not (called := [i for i, (_, line) in enumerate(run.printed) if i >= seen and calls(line)]):
                time.sleep(0.1)
            seen = called[0] + 1
            before = len(answers_in(run.data))
            speech = Speech(run.printed[called[0]][0])
            spoken.append(speech)
            run.host_log.append(f"{speech.called:.1f} called")
            # The judge says the call (and the cue, a second in) after it is printed: wait for his voice, then
            # for quiet — the next call is printed as soon as the last speech ends, while the room is quiet.
            deadline = time.monotonic() + 30
            while all(e.last_voice < speech.called for e in ears.parts) and time.monotonic() < deadline:
                time.sleep(0.05)
            ears.wait_quiet(QUIET_S, timeout_s=120)
            play(espeak(PLAYER_TALKS, "ko+m3")).wait(timeout=30)
            speech.player_done = time.monotonic()
            run.host_log.append(f"{speech.player_done:.1f} player: {PLAYER_TALKS}")
            time.sleep(1.5)
            if n < host_ends:
                play(espeak(HOST_PASS, "ko")).wait(timeout=30)
                speech.host_done = time.monotonic()
                run.host_log.append(f"{speech.host_done:.1f} host: {HOST_PASS}")
                run.host_ends.append((speech.host_done, "speech.end"))
            deadline = time.monotonic() + SPEECH_SECONDS + 15
            while len(answers_in(run.data)) == before:
                if time.monotonic() > deadline:
                    raise AssertionError(f"speech {n + 1} never ended")
                time.sleep(0.05)
            speech.ended = time.monotonic()
            run.host_log.append(f"{speech.ended:.1f} speech {n + 1} ended")

    return host


def start_host(tries: int) -> Host:
    """Say 开始 after the cards line until the judge takes it (`tries` times at most), then stop."""
    def host(run: GameRun, ears: Listening, done: threading.Event) -> None:
        pack = load_pack("ko")
        while not run.printed and not done.is_set():
            time.sleep(0.1)
        # The cards line is printed before it is played (its voice, the stream): wait for the judge's voice,
        # then for quiet — a host who spoke as soon as it was printed said 开始 before the judge did, into an
        # ear that listens only once the cards line was heard, and "the first 开始 was never heard".
        printed = run.printed[0][0]
        deadline = time.monotonic() + 30
        while all(e.last_voice < printed for e in ears.parts) and time.monotonic() < deadline and not done.is_set():
            time.sleep(0.05)
        for _ in range(tries):
            ears.wait_quiet(QUIET_S, timeout_s=120)
            seen = len(run.printed)
            say(run, "start", "开始", pack)
            deadline = time.monotonic() + 6
            while time.monotonic() < deadline:
                if any("👂" in line for _, line in run.printed[seen:]):
                    break
                time.sleep(0.1)
            if any(line.strip() == "👂 开始" for _, line in run.printed[seen:]):
                ended = run.host_ends[-1][0]
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline and not [t for t in run.judge_onsets if t > ended]:
                    time.sleep(0.1)  # until the judge's next line is heard
                return
    return host
