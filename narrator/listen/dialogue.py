"""The ear's dialogue: one prompt answered by voice or keys, with repairs, and secrecy first.

`Dialogue(session, ear, say, clock, config).answer()` listens until an answer is accepted by the Session
and returns its `Accepted` (None once the game is over, every input has ended, or — with `give_up_after` —
the host stayed silent). The session may also be the lobby of `narrator serve` (`Questions`). On the way:

* **Secrecy**: at night, or when the prompt is secret, every line the dialogue says (read-backs,
  refusals, reminders, repeats, the re-asked question after 撤销) goes to the host channel only; the
  table never hears a night answer, and no dialogue line at night changes what the table hears.
* **Read-back** ("七号，对吗？"; 对 / 确认 accepts, 不对 drops it, a new answer replaces it), by the policy
  `read_back` (`play --read-back`, the config's `game.read_back`): `irreversible` (the default) reads back
  every spoken irreversible answer — kill, poison, shot, take, exile, badge, duel; `doubt` only those the
  recogniser is in doubt about (the best two readings that parse to *different* answers are closer than
  `doubt_gap`); `always` every answer, typed and keyed ones too. Typed text and keys are never misheard,
  so `irreversible` and `doubt` take them at once. A doubtful irreversible answer is never submitted
  without 对, whatever the policy.
* **撤销** takes back the last accepted answer (`Session.undo`) and asks that prompt again; with a read-back
  waiting it drops that answer instead. **重复** says the last line again. **暂停** / **继续** hold the
  reminders; an answer typed or keyed while paused is kept ("记下了") and taken after 继续.
* Speech whose best reading means nothing ("一号 四号 八号 열 是": a word cut in two, a stray word at the
  end) takes the first of the recogniser's other readings that is a legal answer here, and reads it back
  (对 needed, whatever the policy); when there is none it is refused like any other.
* Refused answers (not understood, or illegal) get their reason said and change nothing. Where the reason
  is said is the Session's rule (`Session.refusal_line`): by day at an open prompt to the table, but a
  refused 自爆 / 过 at a speech to the host alone ("七号不是狼人，不能自爆" would out a good player), and
  the refusal of a typed or keyed answer to the host alone too (the table never heard that answer).
* "规则 …" at any prompt has the judge explain the rules (`Session.explain`, which routes the lines).
* A silent host hears the question again after `ask_again_s`, then `remind` every `remind_s`.
* Nothing heard is never an answer.

`say(line)` plays or prints a line and returns once it was heard. The dialogue does nothing to keep the
ear from hearing the judge: the ear follows what the device plays (`Ear.follow`, the Mixer's
`voiced_until`), whoever said it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from narrator.clock import Clock
from narrator.engine.answers import Answer, Ballots, Duel, YesNo
from narrator.engine.game import Accepted
from narrator.engine.prompts import Prompt
from narrator.hostwords import Ambiguous, NotUnderstood, parse
from narrator.judge.lines import Line
from narrator.judge.script import Entry, Pieces, Script, Seat, seats
from narrator.listen.base import Ear, Heard
from narrator.listen.grammar import UNK, WAKE_KINDS, Pack, load_pack
from narrator.session import Refused, Session, names_secret
from narrator.zh import to_script

IRREVERSIBLE_ENDINGS = ("kill", "poison", "shoot", "shot", "take", "exile")
IRREVERSIBLE_KINDS = frozenset({"vote.exile", "pk.vote", "badge.pass"})
PASS_WORDS = frozenset({"过", "过了", "跳过", "過", "過了", "跳過"})
"""Words that skip a step: at an irreversible prompt they mean nobody only once read back and confirmed
(放弃, 不开枪, the keypad's 0 say it at once)."""
ReadBack = Literal["always", "irreversible", "doubt"]
READ_BACK: tuple[ReadBack, ...] = ("always", "irreversible", "doubt")


def irreversible(kind: str, answer: Answer | None = None) -> bool:
    """Kill, poison, shot, take, exile, badge, duel: answers that end a life or move the badge."""
    return (kind in IRREVERSIBLE_KINDS or kind.rsplit(".", 1)[-1] in IRREVERSIBLE_ENDINGS
            or isinstance(answer, Duel))


@dataclass(frozen=True)
class DialogueConfig:
    read_back: ReadBack = "irreversible"
    doubt_gap: float = 3.0
    """Score units of Vosk's N-best list: readings closer than this, meaning different answers, are a doubt."""
    ask_again_s: float = 20.0
    """s of silence before the question is asked again."""
    remind_s: float = 10.0
    """s between the shorter reminders after that."""
    give_up_after: int | None = None
    """Reminders after which a silent host is given up on (`answer()` returns None, `gave_up` is set): the
    lobby of `narrator serve` goes back to waiting. None: ask for ever (a game)."""
    pack: str = "zh"
    judge_name: str | None = None
    """The judge's name (a host word; None: the pack's, 法官): what the host is told to say before 继续 where
    people talk."""


def host_answer(text: str, prompt: Prompt) -> Answer:
    """The game's reader (hostwords.parse for the prompt's answer types)."""
    return parse(text, prompt.accepts)


def meaning(text: str, prompt: Prompt, pack: Pack, read: Callable[[str, Prompt], Any] = host_answer) -> object:
    """What a reading means here: a control name, an Answer, or None (not understood)."""
    words = " ".join(t for t in text.split() if t != UNK)
    control = pack.control(words)
    if control is not None and control not in ("confirm", "deny"):
        return control
    try:
        return read(words, prompt)
    except (NotUnderstood, Ambiguous):
        return control


def doubtful(heard: Heard, prompt: Prompt, pack: Pack, gap: float,
             read: Callable[[str, Prompt], Any] = host_answer) -> bool:
    """Speech whose best reading is unsure: [unk] in it, or another reading meaning something else
    within `gap` of its score. Keys and typed text are never in doubt."""
    if heard.source not in ("voice", "file"):
        return False
    if not heard.alternatives:
        return True
    best_text, best_score = heard.alternatives[0]
    if UNK in best_text.split():
        return True
    best = meaning(best_text, prompt, pack, read)
    for text, score in heard.alternatives[1:]:
        other = meaning(text, prompt, pack, read)
        if other is not None and other != best:
            return best_score - score < gap
    return False


def aloud(heard: Heard) -> bool:
    """Whether the table heard the host give this answer (he said it aloud): only then is its refusal said to
    the table; a typed or keyed mistake is the host's own, told on his console."""
    return heard.source in ("voice", "file")


class Seated(Protocol):
    """What the dialogue asks of a set-up: the highest seat an answer may name (a game's Setup)."""

    @property
    def players(self) -> int: ...


class Scripted(Protocol):
    """Who speaks the dialogue's own lines: the game's Judge, or the lobby's, with the script."""

    @property
    def script(self) -> Script: ...


class Questions(Protocol):
    """What the dialogue asks through: a game's `Session`, or the lobby of `narrator serve`
    (narrator/serve/lobby.py), each with its own reader (`read`)."""

    @property
    def prompt(self) -> Prompt | None: ...
    @property
    def night(self) -> bool: ...
    @property
    def setup(self) -> Seated: ...
    @property
    def judge(self) -> Scripted: ...
    def repeat_lines(self) -> list[Line]: ...
    def take_lines(self) -> list[Line]: ...
    def read(self, text: str, prompt: Prompt) -> object:
        """The answer (or the lobby's choice) the words say at `prompt`; NotUnderstood says why not."""
        ...
    def submit(self, answer: Any) -> Any: ...
    def undo(self) -> bool: ...
    def refusal(self, prompt: Prompt, answer: Any) -> Any: ...
    def refusal_line(self, prompt: Prompt | None, refusal: Any) -> Line: ...
    def hidden(self, prompt: Prompt | None) -> bool: ...
    def explain(self, words: str, *, before_start: bool = False) -> Any: ...


class Dialogue:
    def __init__(self, session: Questions | Session, ear: Ear, say: Callable[[Line], object],
                 clock: Clock, config: DialogueConfig | None = None) -> None:
        self.session = session
        self.ear = ear
        self._say = say
        self.clock = clock
        self.cfg = config or DialogueConfig()
        self.pack = load_pack(self.cfg.pack).named(self.cfg.judge_name)
        self.script: Script = session.judge.script
        self.last: list[Line] = []
        self.paused = False
        self.held: list[Heard] = []
        """Answers typed or keyed while paused: answered in turn after 继续."""
        self.gave_up = False
        self.refused_in_secret = False
        """An answer to this public prompt was refused for a secret reason (the host alone heard why): its
        reminders go to the host too, so the table never hears that the answer is asked again."""
        self.wake: Callable[[], float | None] | None = None
        """Called while the host is waited for: does what is due at the table now (the Conductor's "请稍等",
        narrator/audio/conductor.py) and returns s until it must be called again (None: never)."""

    # ---- saying ---------------------------------------------------------------------------------------

    def secret_now(self, prompt: Prompt | None) -> bool:
        return self.session.hidden(prompt)  # one rule for every front end: narrator/session.py

    def say(self, line: Line, prompt: Prompt | None, *, remember: bool = True, quiet: bool = False) -> None:
        """Say a line of the dialogue, routed: to the host at a hidden prompt (or `quiet`: a reminder after a
        refusal for a secret reason), else its own lines ("listening.") to the table."""
        if (self.secret_now(prompt) or quiet) and line.to != "host":
            line = Line(line.text, "host", line.pieces, line.key, line.pause, line.cue, line.bed)
        elif not self.secret_now(prompt) and not quiet and line.key.startswith("listening."):
            line = Line(line.text, "all", line.pieces, line.key, line.pause, line.cue, line.bed)
        if remember:
            self.last = [line]
        self._say(line)

    def own(self, key: str, prompt: Prompt | None, **values: Any) -> None:
        self.say(self.script.line("listening", key, **values), prompt)

    def question(self, prompt: Prompt) -> list[Line]:
        return self.session.repeat_lines()

    def read(self, text: str, prompt: Prompt) -> Any:
        """The answer the words say at this prompt (the session's reader: the game's, or the lobby's)."""
        return self.session.read(text, prompt)

    def read_back(self, answer: Answer, prompt: Prompt) -> None:
        if isinstance(answer, Ballots):
            groups: dict[int, list[int]] = {}
            for voter, target in answer.votes:
                groups.setdefault(target, []).append(voter)
            parts: list[Any] = []
            for target, voters in groups.items():
                if parts:
                    parts.append("，")
                said = self.script.render(Entry(self.script.data["listening"]["ballots_group"]),
                                          "listening.ballots_group", voters=seats(voters), target=Seat(target))
                parts.extend(said.pieces)
            value: Any = Pieces(parts)
        elif hasattr(answer, "said"):
            value = answer.said  # the lobby's choices say themselves ("关机")
        else:
            value = self.script._refusal_value("answer", answer)
        self.own("read_back", prompt, answer=value)

    # ---- listening ------------------------------------------------------------------------------------

    def answer(self, asked: Sequence[Line] = ()) -> Accepted | None:
        """Listen until the Session accepts an answer; its Accepted, or None (game over, inputs ended)."""
        if asked:
            self.last = list(asked)
        self.refused_in_secret = False
        pending: Answer | None = None
        silent_since = self.clock.now()
        reminders = 0
        while True:
            prompt = self.session.prompt
            if prompt is None:
                return None
            if not self.last:
                self.last = self.question(prompt)
            wait = None if self.paused else (self.cfg.ask_again_s if reminders == 0 else self.cfg.remind_s)
            timeout = None if wait is None else max(0.0, wait - (self.clock.now() - silent_since))
            due = self.wake() if self.wake is not None else None
            if due is not None:
                timeout = due if timeout is None else min(timeout, due)
            held = self.held.pop(0) if self.held and not self.paused else None
            heard = held or self.ear.listen(prompt, self.session.setup.players, timeout)
            if heard is None:
                if self.ear.ended():
                    return None
                if wait is not None and self.clock.now() - silent_since >= wait - 1e-6:
                    if self.cfg.give_up_after is not None and reminders >= self.cfg.give_up_after:
                        self.gave_up = True
                        return None
                    self._remind(prompt, reminders)
                    reminders += 1
                    silent_since = self.clock.now()
                continue
            silent_since, reminders = self.clock.now(), 0
            outcome = self._heard(heard, prompt, pending)
            if isinstance(outcome, _Pending):
                pending = outcome.answer
            elif isinstance(outcome, Accepted):
                return outcome

    def _remind(self, prompt: Prompt, reminders: int) -> None:
        quiet = self.refused_in_secret
        if reminders == 0:
            lines = self.question(prompt)
            for line in lines:
                self.say(line, prompt, remember=False, quiet=quiet)
            self.last = [self._routed(x, prompt, quiet) for x in lines]
        else:
            self.say(self.script.line("listening", "remind"), prompt, remember=False, quiet=quiet)

    def _routed(self, line: Line, prompt: Prompt, quiet: bool = False) -> Line:
        if self.secret_now(prompt) or quiet:
            return Line(line.text, "host", line.pieces, line.key, line.pause, line.cue, line.bed)
        return line

    def _heard(self, heard: Heard, prompt: Prompt, pending: Answer | None) -> Any:
        """Act on one heard thing: an Accepted to return, a _Pending read-back, or None to go on listening."""
        text = heard.text.strip()
        control = self.pack.control(text)
        if self.paused:
            if control == "resume":
                self.paused = False
                self.own("resumed", prompt)
            elif control is None and heard.source in ("text", "keypad"):  # typed on purpose: kept, not lost
                self.held.append(heard)
                self.own("held", prompt)
            return _Pending(pending)
        if control == "repeat":
            for line in self.last or []:
                self.say(line, prompt, remember=False)
            if not self.last:
                self.own("nothing_to_repeat", prompt)
            return _Pending(pending)
        if control == "undo":
            if pending is not None:
                self.own("dropped", prompt)
                return _Pending(None)
            return self._undo(prompt)
        if control == "pause":
            self.paused = True
            self.own("paused_named" if prompt.kind in WAKE_KINDS else "paused", prompt,
                     judge=to_script(self.pack.wake[0], self.script.lang))
            return _Pending(pending)
        if control == "resume" and not self._reads(text, prompt):
            return _Pending(pending)  # 继续 while nothing is paused (the lobby's "继续吗？" takes it as an answer)
        if control in ("confirm", "deny") and (pending is not None or YesNo not in prompt.accepts):
            if pending is None:
                self.own("not_pending", prompt)
                return _Pending(None)
            if control == "deny":
                self.own("dropped", prompt)
                return _Pending(None)
            return self._submit(pending, prompt)
        explained = self.session.explain(text)  # 规则 …: the Session routes the judge's lines
        if explained is not None:
            lines = [explained.line] if isinstance(explained, Refused) else explained
            for line in lines:
                self.say(line, prompt, remember=False)
            self.last = lines
            return _Pending(pending)
        text = self._strip_deny(text)
        try:
            answer = self.read(text, prompt)
        except (NotUnderstood, Ambiguous) as e:
            other = self._alternative(heard, prompt)
            if other is not None:  # never taken without 对: it is not what the recogniser heard best
                self.read_back(other, prompt)
                return _Pending(other)
            self.say(self.session.refusal_line(prompt, e.refusal), prompt, remember=self._remember_refusals,
                     quiet=self._unheard(heard))
            return _Pending(pending)
        refusal = self.session.refusal(prompt, answer)
        if refusal is not None:
            line = self.session.refusal_line(prompt, refusal)
            if names_secret(refusal) and not self.secret_now(prompt):
                self.refused_in_secret = True  # a lover's ballot: the table must not hear it asked again
            self.say(line, prompt, remember=self._remember_refusals, quiet=self._unheard(heard))
            return _Pending(pending)
        if getattr(answer, "confirm", False) or self._reads_back(heard, answer, prompt):
            self.read_back(answer, prompt)
            return _Pending(answer)
        return self._submit(answer, prompt)

    def _unheard(self, heard: Heard) -> bool:
        """A game's answer the table did not hear given (typed or keyed): its refusal is the host's alone. The
        lobby of `narrator serve` keeps no secret from the people setting up the game: it says them all."""
        return not aloud(heard) and isinstance(self.session, Session)

    @property
    def _remember_refusals(self) -> bool:
        """Whether 重复 says a refusal again: in a game yes (the host asks what was wrong); the lobby of
        `narrator serve` says False (`repeat_refusals`): 重复 there says the question it asked."""
        return bool(getattr(self.session, "repeat_refusals", True))

    def _alternative(self, heard: Heard, prompt: Prompt) -> Answer | None:
        """When the best reading of speech means nothing ("一号 四号 八号 열 是": a word cut in two, a stray
        word at the end), the first of the recogniser's other readings that is a legal answer here (read back
        by the caller, whatever the policy); None when there is none."""
        if heard.source not in ("voice", "file"):
            return None
        for text, _ in heard.alternatives[1:]:
            words = " ".join(t for t in text.split() if t != UNK)
            if not words or self.pack.control(words) is not None:
                continue
            try:
                answer: Answer = self.read(words, prompt)
            except (NotUnderstood, Ambiguous):
                continue
            if self.session.refusal(prompt, answer) is None:
                return answer
        return None

    def _reads_back(self, heard: Heard, answer: Answer, prompt: Prompt) -> bool:
        policy = self.cfg.read_back
        if policy == "always":
            return True
        if not irreversible(prompt.kind, answer):
            return False
        if heard.text.strip(" 。！!.") in PASS_WORDS:  # 过 at a kill, shot, poison …: a slip after many "请说过"
            return True
        spoken = heard.source in ("voice", "file")
        return spoken and (policy == "irreversible"
                           or doubtful(heard, prompt, self.pack, self.cfg.doubt_gap, self.read))

    def _reads(self, text: str, prompt: Prompt) -> bool:
        try:
            self.read(text, prompt)
        except (NotUnderstood, Ambiguous):
            return False
        return True

    def _strip_deny(self, text: str) -> str:
        """"不对，七号": the new answer after the correction."""
        for word in self.pack.controls.get("deny", ()):
            rest = text.removeprefix(word).lstrip("，, ")
            if rest != text and rest:
                return rest
        return text

    def _submit(self, answer: Answer, prompt: Prompt) -> Any:
        result = self.session.submit(answer)
        if isinstance(result, Accepted):
            return result
        self.say(result.line, prompt)
        return _Pending(None)

    def _undo(self, prompt: Prompt) -> Any:
        if not self.session.undo():
            self.own("nothing_to_undo", prompt)
            return _Pending(None)
        again = self.session.prompt
        self.own("undone", again)
        lines = self.session.take_lines()
        for line in lines:
            self.say(line, again, remember=False)
        self.last = [self._routed(x, again) for x in lines] if again is not None else []
        return _Pending(None)


@dataclass(frozen=True, slots=True)
class _Pending:
    """Keep listening; `answer` is the read-back waiting for 对 (or None)."""

    answer: Answer | None
