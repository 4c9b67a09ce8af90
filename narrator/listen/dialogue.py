"""The ear's dialogue: one prompt answered by voice or keys, with repairs, and secrecy first.

`Dialogue(session, ear, say, clock, config).answer()` listens until an answer is accepted by the Session
and returns its `Accepted` (None once the game is over, every input has ended, or — with `give_up_after` —
the host stayed silent). The session may also be the lobby of `narrator serve` (`Questions`,
narrator/listen/questions.py: the dialogue is generic over what its reader reads). On the way:

* **Secrecy**: at night, or when the prompt is secret, every line the dialogue says (read-backs,
  refusals, reminders, repeats, the re-asked question after 撤销) goes to the host channel only; the
  table never hears a night answer, and no dialogue line at night changes what the table hears.
* **Read-back** ("七号，对吗？"; 对 / 确认 accepts, 不对 drops it, a new answer replaces it — itself read back
  when spoken, never taken), by the policy of narrator/listen/doubt.py: what the recogniser doubts (the N-best
  gap, at every prompt), every spoken seat (`seat_doubt`: no score told a misread seat), every spoken
  irreversible answer (kill, poison, shot, exile, badge, duel, identification, check) under `read_back =
  "irreversible"`, and a 过 there typed or said (a slip after many "请说过"); `always` reads back typed and
  keyed answers too. A read-back always says what was heard:
  an answer with no words of its own is said as the words heard.
* **Raw tokens** never reach the host: spoken words the parser does not know are refused as "没听懂".
* **撤销** takes back the last accepted answer (`Session.undo`) and asks that prompt again; with a read-back
  waiting it drops that answer instead. The same answer given again is taken without a second read-back
  (it was confirmed when first taken; `taken_again` says it back with the next question), unless the
  recogniser's scores doubt it now; another answer is read back as any. **重复** says the last line
  again. **暂停** / **继续** hold the reminders; an answer typed or keyed while paused is kept ("记下了") and
  taken after 继续.
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
from typing import Generic, Protocol, runtime_checkable

from narrator.common.clock import Clock
from narrator.common.zh import to_script
from narrator.engine.answers import Ballots, Seats, YesNo
from narrator.engine.game import Accepted
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import Refusal, refuse
from narrator.hostwords import Ambiguous, NotUnderstood
from narrator.judge.lines import Line
from narrator.judge.script import Entry, Pieces, Script, Seat, seats
from narrator.listen.base import Ear, Heard
from narrator.listen.converge import (
    STRAY_CODES,
    Correction,
    Gathered,
    multi_seat,
    offer_confirmed,
    partial,
    read_correction,
)
from narrator.listen.doubt import (
    READ_BACK,
    SEAT_DOUBT,
    SPOKEN,
    Policy,
    ReadBack,
    SeatDoubt,
    doubtful,
    heard_words,
    host_answer,
    irreversible,
    meaning,
    shown_words,
)
from narrator.listen.grammar import START, UNK, WAKE_KINDS, load_pack
from narrator.listen.questions import A, Questions
from narrator.listen.repairs import Pending, Repairs
from narrator.session.session import Refused, Session

__all__ = ["READ_BACK", "SEAT_DOUBT", "Dialogue", "DialogueConfig", "doubtful", "host_answer",
           "irreversible", "meaning"]


@dataclass(frozen=True)
class DialogueConfig:
    read_back: ReadBack = "irreversible"
    """Which answers are read back: narrator/listen/doubt.py (`play --read-back`, the config's game.read_back)."""
    doubt_gap: float = 3.0
    """Score units of Vosk's N-best list: readings closer than this, meaning different answers, are a doubt
    (game.doubt_gap)."""
    seat_doubt: SeatDoubt = "always"
    """"always": every spoken seat answer is read back (no score told a misread seat: measured); "score": the
    gap alone decides (game.seat_doubt)."""
    doubt_everywhere: bool = True
    """Read back what the scores doubt at every prompt (False: irreversible ones only)."""
    ask_again_s: float = 20.0
    """s of silence before the question is asked again."""
    remind_s: float = 10.0
    """s between the shorter reminders after that."""
    give_up_after: int | None = None
    """Reminders after which a silent host is given up on (`answer()` returns None, `gave_up` is set): the
    lobby of `narrator serve` goes back to waiting. None: ask for ever (a game)."""
    pack: str = "zh"
    drop_forms: str = ""
    """Spoken forms left out of the pack (`Pack.without`; the config's game.drop_forms)."""
    judge_name: str | None = None
    """The judge's name (a host word; None: the pack's, 法官): what the host is told to say before 继续 where
    people talk."""

    @property
    def policy(self) -> Policy:
        return Policy(self.read_back, self.seat_doubt, self.doubt_gap, self.doubt_everywhere)


def aloud(heard: Heard) -> bool:
    """Whether the table heard the host give this answer (he said it aloud): only then is its refusal said to
    the table; a typed or keyed mistake is the host's own, told on his console."""
    return heard.source in ("voice", "file")


@runtime_checkable
class SaysItself(Protocol):
    """An answer that says itself in a read-back (the lobby's choices: "关机")."""

    @property
    def said(self) -> str | Pieces: ...


class Dialogue(Repairs[A], Generic[A]):
    session: Questions[A]

    def __init__(self, session: Questions[A], ear: Ear, say: Callable[[Line], object],
                 clock: Clock, config: DialogueConfig | None = None) -> None:
        self.session = session
        self.ear = ear
        self._say = say
        self.clock = clock
        self.cfg = config or DialogueConfig()
        self.pack = load_pack(self.cfg.pack).named(self.cfg.judge_name).without(self.cfg.drop_forms)
        self.script: Script = session.judge.script
        self.last: list[Line] = []
        self.paused = False
        self.held: list[Heard] = []
        """Answers typed or keyed while paused: answered in turn after 继续."""
        self.gave_up = False
        self.refused_in_secret = False
        """An answer to this public prompt was refused for a secret reason (the host alone heard why): its
        reminders go to the host too, so the table never hears that the answer is asked again."""
        self.gathered = Gathered(START)
        """What the question being answered has gathered (narrator/listen/converge.py)."""
        self.wake: Callable[[], float | None] | None = None
        """Called while the host is waited for: does what is due at the table now (the Conductor's "请稍等",
        narrator/audio/conductor.py) and returns s until it must be called again (None: never)."""
        self.moved: Callable[[], None] | None = None
        """Called when the question asked changed without an answer taken (撤销): the host's panel follows."""

    # ---- saying ---------------------------------------------------------------------------------------

    def secret_now(self, prompt: Prompt | None) -> bool:
        return self.session.hidden(prompt)  # one rule for every front end: narrator/session/session.py

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

    def refuse(self, line: Line, prompt: Prompt | None, heard: Heard | None = None) -> None:
        """Say why an answer was refused — to the host alone when the table did not hear the answer given
        (`_unheard`). 重复 says it again — unless the session says a refusal is never what 重复 repeats
        (`repeat_refusals = False`: the lobby, where 重复 means the question)."""
        self.say(line, prompt, remember=self.session.repeat_refusals,
                 quiet=heard is not None and self._unheard(heard))

    def own(self, key: str, prompt: Prompt | None, **values: object) -> None:
        self.say(self.script.line("listening", key, **values), prompt)

    def question(self, prompt: Prompt) -> list[Line]:
        return self.session.repeat_lines()

    def read(self, text: str, prompt: Prompt) -> A:
        """The answer the words say at this prompt (the session's reader: the game's, or the lobby's)."""
        return self.session.read(text, prompt)

    def read_back(self, answer: A | Seats, prompt: Prompt, heard: Heard | None = None, *, again: bool = False) -> None:
        """"七号，对吗？": the answer in the judge's words — never an empty "，对吗？": an answer with no words
        of its own is said as the words heard."""
        self.own("read_back_again" if again else "read_back", prompt, answer=self._said(answer, prompt, heard))

    def taken_again(self, answer: A | Seats, prompt: Prompt, heard: Heard) -> Accepted | Pending[A]:
        """The answer 撤销 took back, given again (`_given_again`): taken at once, and said back on the earpiece
        ("还是七号，记下了。") with the next question — no 对 asked: it was confirmed when first taken. A
        correction is the host's alone, so the table never hears it, by day either."""
        self.say(self.script.line("listening", "taken_again", answer=self._said(answer, prompt, heard)), prompt,
                 quiet=True)
        return self._submit(answer, prompt)

    def _given_again(self, heard: Heard, answer: A | Seats, prompt: Prompt) -> bool:
        """The answer 撤销 took back at this question, given again — and the recogniser's own scores do not doubt
        the reading now (no other reading close by): an answer that differs is read back as ever."""
        return answer == self.session.taken_back(prompt) and not doubtful(
            heard, prompt, self.pack, self.cfg.doubt_gap, self.read)

    def _said(self, answer: A | Seats, prompt: Prompt, heard: Heard | None) -> object:
        """The answer in the judge's words, for a read-back: an answer with no words of its own is said as the
        words heard."""
        if isinstance(answer, Ballots):
            groups: dict[int, list[int]] = {}
            for voter, target in answer.votes:
                groups.setdefault(target, []).append(voter)
            parts: list[object] = []
            for target, voters in groups.items():
                if parts:
                    parts.append("，")
                said = self.script.render(Entry(self.script.data["listening"]["ballots_group"]),
                                          "listening.ballots_group", voters=seats(voters), target=Seat(target))
                parts.extend(said.pieces)
            value: object = Pieces(parts)
        elif isinstance(answer, YesNo) and prompt.kind in self.script.data["names"].get("yes_no_said", {}):
            value = self.script.data["names"]["yes_no_said"][prompt.kind][0 if answer.yes else 1]
        elif isinstance(answer, SaysItself):
            value = answer.said  # the lobby's choices say themselves ("关机")
        else:
            value = self.script._refusal_value("answer", answer)
        if not self.script.render(Entry("{answer}"), "listening.read_back", answer=value).text.strip():
            value = (heard_words(heard) if heard is not None else "") or self.script.line(
                "listening", "that_answer").text
        return value

    # ---- listening ------------------------------------------------------------------------------------

    def answer(self, asked: Sequence[Line] = ()) -> Accepted | None:
        """Listen until the Session accepts an answer; its Accepted, or None (game over, inputs ended)."""
        if asked:
            self.last = list(asked)
        self.refused_in_secret = False
        pending: A | Seats | None = None
        self.gathered = Gathered(self.session.prompt or START)
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
            if self.gathered.prompt is not prompt:  # a new question (or the same asked again after 撤销)
                self.gathered, pending = Gathered(prompt), None
            held = self.held.pop(0) if self.held and not self.paused else None
            heard = held or self.ear.listen(self.gathered.listening(), self.session.setup.players, timeout)
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
            if isinstance(outcome, Pending):
                pending = outcome.answer
            elif isinstance(outcome, Accepted):
                return outcome

    def _remind(self, prompt: Prompt, reminders: int) -> None:
        quiet = self.refused_in_secret
        if self.gathered.offer is not None:
            # "是八号吗？" is still waiting for 对 / 不对: that is what is asked again, not the question — a host
            # who hears the question again gives his whole answer, and the ear, listening for 对, may read it so
            seat = self.gathered.offer
            self.say(self.script.line("listening", "offer", seat=Seat(seat), keys=str(seat)), prompt, quiet=quiet)
            return
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

    def _heard(self, heard: Heard, prompt: Prompt, pending: A | Seats | None) -> Accepted | Pending[A]:
        """Act on one heard thing: an Accepted to return, a Pending read-back, or None to go on listening."""
        text = heard.text.strip()
        control = self.pack.control(text)
        if control is None and heard.source in SPOKEN and self._deny_heard(text, pending):
            control = "deny"  # a 不对 with noise around it: no answer is ever taken on it, so it is safe
        elif (control is None and heard.source in SPOKEN and pending is None and self.gathered.offer is not None
              and offer_confirmed(text, self.gathered.offer, self.pack.control)):
            control = "confirm"  # "九号 确认" at "是九号吗？": the seat offered and 对, nothing else
        elif (control is None and heard.source in SPOKEN and (pending is not None or self.gathered.offer is not None)
              and self._confirm_heard(heard)):
            control = "confirm"  # "안 确认": 对 and nothing the host says — [unk], a pause, a model's raw token
        if self.paused:
            if control == "resume":
                self.paused = False
                self.own("resumed", prompt)
            elif control is None and heard.source in ("text", "keypad"):  # typed on purpose: kept, not lost
                self.held.append(heard)
                self.own("held", prompt)
            return Pending(pending)
        if control == "repeat":
            for line in self.last or []:
                self.say(line, prompt, remember=False)
            if not self.last:
                self.own("nothing_to_repeat", prompt)
            return Pending(pending)
        if control == "undo":
            if pending is not None or self.gathered.open():
                self.gathered = Gathered(prompt)  # what this question gathered goes; the question stays
                self.own("dropped", prompt)
                return Pending(None)
            return self._undo(prompt)
        if control == "pause":
            self.paused = True
            self.own("paused_named" if prompt.kind in WAKE_KINDS else "paused", prompt,
                     judge=to_script(self.pack.wake[0], self.script.lang))
            return Pending(pending)
        if control == "resume" and not self._reads(text, prompt):
            return Pending(pending)  # 继续 while nothing is paused (the lobby's "继续吗？" takes it as an answer)
        if control in ("confirm", "deny") and pending is None and self.gathered.offer is not None:
            return self._offer_answered(control == "confirm", prompt)
        if control in ("confirm", "deny") and (pending is not None or YesNo not in prompt.accepts):
            if pending is None:
                self.own("not_pending", prompt)
                return Pending(None)
            if control == "deny":
                self.gathered.close()
                if isinstance(pending, Seats) and len(pending.seats) == 1:
                    self.gathered.declined.add(pending.seats[0])  # that seat is not it: never offered
                if self.gathered.offer is None and self.gathered.missed():
                    return self._offer_next(prompt)  # the offer is what comes next, not "请重新回答"
                self.own("dropped", prompt)
                return Pending(None)
            return self._submit(pending, prompt)
        explained = self.session.explain(text)  # 规则 …: the Session routes the judge's lines
        if explained is not None:
            lines = [explained.line] if isinstance(explained, Refused) else explained
            for line in lines:
                self.say(line, prompt, remember=False)
            self.last = lines
            return Pending(pending)
        if heard.source in SPOKEN:
            self.gathered.note(heard)
        fix = self._correction(heard, text, prompt) if isinstance(pending, Seats) or self.gathered.kept else None
        if fix is not None:
            return self._corrected(fix, heard, prompt, pending)
        text = self._strip_deny(text)
        other = self._other_seat(heard, text, prompt) if pending is None else None
        if other is not None:  # "七号" at "是九号吗？": his correction, read back like any seat
            return self._answered(other, heard, prompt, pending)
        try:
            answer = self.read(text, prompt)
        except (NotUnderstood, Ambiguous) as e:
            if heard.source in SPOKEN and self.gathered.offer is not None:
                # "是七号吗？" waits for 对 / 不对: what was not understood gets the offer again, not the
                # question's own refusal ("请说几号出局" while only 对 or 不对 is listened for)
                self.own("offer", prompt, seat=Seat(self.gathered.offer), keys=str(self.gathered.offer))
                return Pending(pending)
            other = self._alternative(heard, prompt)
            if other is not None:  # never taken without 对: it is not what the recogniser heard best
                self.read_back(other, prompt, heard)
                return Pending(other)
            part = partial(text, prompt) if heard.source in SPOKEN and e.refusal.code in STRAY_CODES else ()
            if part:  # "一号 四号 八号 열 是", "四号 六号 是": the seats heard are kept, the rest asked for
                if e.refusal.code == "words.stray" and self.gathered.offer is None and self.gathered.missed():
                    return self._offer_next(prompt)  # a stray word is a miss still: at the second, the offers
                return self._answered(Seats(part), heard, prompt, pending, doubted=True)
            self.refuse(self.session.refusal_line(prompt, plain(e.refusal, heard)), prompt, heard)
            return self._missed(prompt, pending) if heard.source in SPOKEN else Pending(pending)
        return self._answered(answer, heard, prompt, pending)

    def _correction(self, heard: Heard, text: str, prompt: Prompt) -> Correction | None:
        """The one-seat correction the host's words say ("不是十号，是十一号", "十号去掉", "十号不对") — in the best
        reading, or, when that is neither a correction nor an answer here, in the first of the recogniser's
        other readings that is one ("열 一号 去掉" / "八号 去掉"). What it makes is always read back."""
        fix = read_correction(text)
        if fix is not None or heard.source not in SPOKEN or self._reads(text, prompt):
            return fix
        for other, _ in heard.alternatives[1:]:
            fix = read_correction(other)
            if fix is not None:
                return fix
        return None

    def _other_seat(self, heard: Heard, text: str, prompt: Prompt) -> A | Seats | None:
        """Another seat said alone at an offer ("七号" at "是九号吗？"): the answer it makes (that seat; who is out
        at a vote), the seat offered declined at a one-seat question (at a multi-seat one it may be a seat
        more); None when no offer waits or the words are not one other seat of the question."""
        offer = self.gathered.offer
        if offer is None or heard.source not in SPOKEN:
            return None
        try:
            said = self.read(text, self.gathered.listening())
        except (NotUnderstood, Ambiguous):
            return None
        if not isinstance(said, Seats) or len(said.seats) != 1 or said.seats[0] == offer:
            return None
        if not multi_seat(prompt):
            self.gathered.declined.add(offer)
        return self._offered(said.seats[0], prompt)

    def _confirm_heard(self, heard: Heard) -> bool:
        """Speech whose host words are 对 and nothing else, with noise beside it ("안 确认", "确认 确认", "确认 [unk]"):
        the room read the host's 맞아 so at the witch's read-back and it was refused. Measured (docs/benchmarks.md,
        "What a read-back hears"): 맞아 3 of 45 so; 아니야, 살려, 안 살려, 좋아요, 아니요 0 of 45 each."""
        words = shown_words(heard).split()
        return bool(words) and all(self.pack.control(w) == "confirm" for w in words)

    def _deny_heard(self, text: str, pending: object) -> bool:
        """Speech with 不对 in it where 对 / 不对 is asked: at a one-seat offer whatever else was heard with it,
        at a read-back when every word is 对 or 不对 ("确认 不对": the stand-in reads 아니야 so in the room).
        不对 wins because it only ever costs a question: a misread 对 would take a wrong answer."""
        words = [self.pack.control(w) for w in text.split()]
        if "deny" not in words:
            return False
        if self.gathered.offer is not None and pending is None:
            return True
        return pending is not None and all(w in ("confirm", "deny") for w in words)

    def _unheard(self, heard: Heard) -> bool:
        """A game's answer the table did not hear given (typed or keyed): its refusal is the host's alone. The
        lobby of `narrator serve` keeps no secret from the people setting up the game: it says them all."""
        return not aloud(heard) and isinstance(self.session, Session)

    def _alternative(self, heard: Heard, prompt: Prompt) -> A | None:
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
                answer = self.read(words, prompt)
            except (NotUnderstood, Ambiguous):
                continue
            if self.session.refusal(prompt, answer) is None:
                return answer
        return None

    @property
    def policy(self) -> Policy:
        return self.cfg.policy

    def _reads_back(self, heard: Heard, answer: A | Seats, prompt: Prompt) -> bool:
        return self.policy.reads_back(heard, answer, prompt, self.pack, self.read)

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

    def _submit(self, answer: A | Seats, prompt: Prompt) -> Accepted | Pending[A]:
        result = self.session.submit(answer)
        if isinstance(result, Accepted):
            return result
        self.refuse(result.line, prompt)
        return Pending(None)

    def _undo(self, prompt: Prompt) -> Pending[A]:
        if not self.session.undo():
            self.own("nothing_to_undo", prompt)
            return Pending(None)
        again = self.session.prompt
        if self.moved is not None:
            self.moved()
        # a game's correction is the host's alone (the table heard the answer, not that it was taken back);
        # the lobby of `narrator serve` keeps nothing from the people setting up the game
        self.say(self.script.line("listening", "undone"), again, quiet=isinstance(self.session, Session))
        lines = self.session.take_lines()
        for line in lines:
            self.say(line, again, remember=False)
        self.last = [self._routed(x, again) for x in lines] if again is not None else []
        return Pending(None)


def plain(refusal: Refusal, heard: Heard) -> Refusal:
    """A refusal fit for the host's ears: the recogniser's own tokens ("没听懂“하나”", a model's word for a
    stray sound) never reach him — spoken words not understood are "没听懂" and what to say."""
    if heard.source in SPOKEN and refusal.code == "words.unknown":
        return refuse("words.not_understood", wanted=refusal.values.get("wanted", ()))
    return refusal
