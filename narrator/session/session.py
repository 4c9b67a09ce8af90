"""One game session for every front end: the Game, the Judge and the journal behind a few verbs.

    session = Session(setup, seed, lang="zh-Hans", store=FileStore("game.jsonl"))
    while not session.over:
        for line in session.take_lines():   # public ("all") and host lines, in the judge's order
            say(line)
        result = session.submit("七号")       # the host's words (parsed for the prompt) or an Answer
        if isinstance(result, Refused):
            say(result.line)                 # why: to the host when it would tell the table something

The scenario runner, render, the demo, the property tests and the live loop all drive this; nothing else
keeps its own prompt → answer loop. Lines are rendered lazily, when `take_lines` asks for them, against the
state as it stood at each event and prompt, so a loop that never reads them (the benchmark) pays nothing.
An accepted answer is in the journal store (flushed and fsynced for a file) before `submit` returns;
`undo` is journaled as a record of its own; `heard()` marks how far the table has heard (the live loop
calls it after each batch of lines has left the speaker). `Session.resume(store)` replays the stored
answers, checked, and the next `take_lines()` gives every line after the last mark — the opening too, when
the table heard nothing yet — then the question again. A store opened read-only (`games`, `recap`) is
only read: resuming never changes it.

With `acks` on (the live loop and the scenario runner: whoever times the lines for a table), a table line
whose host words' questions (`Line.words`, less its gestures: `host_words.questions`) were not all asked
before the next table line is followed by the host's acknowledgement (`host_words.ACKNOWLEDGEMENT`:
"请说过。"): `prompt` is that question, `submit("过")` takes it, and the lines after it come with the next
`take_lines()`. It carries no game fact, so it is not journaled: a resume says the lines since the last
said mark again and asks every 过 owed since then again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Literal

from narrator.engine import events as ev
from narrator.engine.answers import Answer, Pass, SelfExplode
from narrator.engine.game import Accepted, Game, Rejected, ReplayDiverged
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import DUEL_VOID, Refusal, refuse
from narrator.engine.roles import Camp, Role
from narrator.engine.rules import Setup
from narrator.engine.state import State
from narrator.hostwords import NotUnderstood, parse, rules_request
from narrator.judge.host_words import ACKNOWLEDGEMENT, questions
from narrator.judge.lines import Line
from narrator.judge.narrate import Judge
from narrator.judge.rules_talk import rules_lines
from narrator.judge.script import LANGS, Script
from narrator.session.journal import Chain, Header, JournalError, JournalStore, load

__all__ = ["Accepted", "Place", "Refused", "Session", "Status", "Submitted"]


@dataclass(frozen=True, slots=True)
class Refused:
    kind: str
    """The prompt's kind ("" once the game is over)."""
    refusal: Refusal
    """Code and values (from the engine, or from hostwords when the words were not understood)."""
    line: Line
    """The judge's reason in the game's script, routed by `Session.refusal_line`: to "host" when the prompt
    is hidden (night, a secret prompt, an eyes-closed vote) or the game is over, when it is about a
    self-explosion ("三号不是狼人，不能自爆" said aloud would tell the table a card) and when the reason names
    a card, a camp or the lovers; else to "all"."""
    understood: bool
    """False: the words were not understood (hostwords.NotUnderstood)."""


Submitted = Accepted | Refused


@dataclass(frozen=True, slots=True)
class Status:
    """Where the game stands, for a console."""

    night: int
    day: int
    phase: Literal["night", "day", "over"]
    alive: tuple[int, ...]
    dead: dict[int, str]
    """Seat → cause of death."""
    sheriff: int | None
    roles: dict[int, Role]
    """Seat → card, as far as the judge knows (identified on night 1)."""
    potions: tuple[str, ...]
    """The witch's potions left: "antidote", "poison"."""
    prompt: str | None
    """The kind of the prompt now (None once over)."""
    winner: Camp | None
    termination: ev.Termination | None


@dataclass(frozen=True, slots=True)
class Place:
    """Where the game stands as the host's questions go: the question the host was last asked (or is asked
    next, before any was), with the night and day the table's lines had reached then. Not the engine's state,
    which runs ahead of the table while lines are still to be said (a resumed game, a 过 owed): a stop in the
    night's last step is "第一夜", even when the game has decided the dawn already."""

    night: int
    day: int
    phase: Literal["night", "day", "over"]
    prompt: Prompt | None


_Group = tuple[ev.Event | Prompt, tuple[Line, ...]]
_Asked = tuple[int, int, Prompt]
"""A prompt answered before its lines were taken: its answer's index, the journal length when it was asked,
the prompt."""


class Session:
    store: JournalStore | None
    _chain: Chain
    repeat_refusals = True
    """重复 after a refusal says the refusal again (the ear's Dialogue; the lobby of `narrator serve` says its
    question)."""

    def __init__(self, setup: Setup, seed: int = 0, *, lang: str = "zh-Hans",
                 store: JournalStore | None = None) -> None:
        self._init(setup, seed, lang, None)
        self._start(Game(setup, seed))
        if store is not None:
            self.attach(store)

    def attach(self, store: JournalStore) -> None:
        """Start journaling this game into the new, empty `store` (the live loop does so once 开始 is heard;
        no answer may have been given yet)."""
        if self.store is not None or self.game.answers:
            raise ValueError("a game is attached to its journal before its first answer")
        if store.read():
            raise JournalError(store.name, 0, "the journal already holds a game (resume it instead)")
        self._chain = Chain()  # a new journal: its header chains on nothing (even after a failed attach)
        self._write(store, self._chain.header(Header(self.setup, self.seed, self.lang)))
        self.store = store

    def _init(self, setup: Setup, seed: int, lang: str, store: JournalStore | None) -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown script {lang!r}; choose one of {', '.join(LANGS)}")
        self.setup, self.seed, self.lang = setup, seed, lang
        self.judge = Judge(Script(lang))
        self.store = store
        self._chain = Chain()
        self.warnings: list[str] = []
        """What loading the journal had to say (a torn last line dropped, an old format)."""
        self.acks = False
        """Ask the host for 过 where a table line's words were not all asked (the module docstring)."""
        self._end_owed = False
        """Resumed: the game has ended, but its journal has no said mark after its last lines (the table has
        not heard the end): it is over only once they are taken again."""

    def _start(self, game: Game) -> None:
        self.game = game
        self._shadow: State | None = None  # the state as the lines said so far left it; made when first needed
        self._seen = 0
        self._asked: list[_Asked] = []
        self._said = False  # the current prompt's lines were taken
        self._marked = -1  # the answer count of the last said mark written by this process
        self._ack: Prompt | None = None  # the acknowledgement asked now
        self._held: list[_Group] = []  # lines taken from the game, said after the acknowledgement
        self._wait: list[int] | None = None  # the last table line's words, and how many were asked since
        self._again: Prompt | None = None  # a prompt asked again after 撤销: its words were counted already
        self._nd: tuple[int, int] | None = None  # night and day as the lines taken so far said (None: none taken)
        self._place: Prompt | None = None  # the last question taken (None: none yet)
        self._nd_pending: tuple[int, int] | None = None  # a night fallen or a day broken, not heard yet
        self._table: list[Line] = []  # every table line taken (or heard before a resume), in order
        self._told: list[tuple[str, str]] = []  # table lines heard past an undo's cut, not to be said again
        self._reasked: Prompt | None = None  # the prompt asked again after 撤销, until its lines are taken
        self._back: list[tuple[int, str, Answer]] = []  # answers 撤销 took back (index, kind, answer), the
        # last taken back last, until one is given otherwise (`taken_back`)

    @classmethod
    def resume(cls, store: JournalStore) -> Session:
        """The game in `store`, rebuilt by checked replay of its answers; JournalError names the line of the
        first bad record (or of the answer where the replay diverged). The next take_lines() says every line
        the table has not heard (after the last said mark), then the current prompt's lines again. A torn
        last line is cut from the file only when the store is writable (the writer holds the game's lock)."""
        loaded = load(store)
        h = loaded.header
        self = cls.__new__(cls)
        try:
            self._init(h.setup, h.seed, h.lang, store)
        except ValueError as exc:
            raise JournalError(store.name, 1, str(exc)) from None
        asked: list[tuple[int, Prompt]] = []
        try:
            game = Game.replay(h.setup, h.seed, loaded.answers, asked)
        except ReplayDiverged as exc:
            raise JournalError(store.name, loaded.lines[exc.index], str(exc)) from None
        if store.writable and loaded.size < len(store.read()):
            store.cut(loaded.size)
        self.warnings = loaded.warnings
        self._chain = Chain(loaded.format, loaded.sum)
        if loaded.heard is None:
            self._catch_up(game, asked)
        else:
            self._replay_unheard(game, *loaded.heard, asked)
        self._told_before(loaded.told)
        self._end_owed = game.prompt is None and self._seen < len(game.journal)
        return self

    def _told_before(self, told: list[tuple[list[tuple[str, Answer]], int]]) -> None:
        """Resume after a 撤销 that took back what the table had heard past: the table lines it heard then
        (the game as it stood at that said mark) that the game now still says alike, ahead of the lines it
        has heard since, are not said again (`_untold`) — the longest such past of the undos journaled."""
        best: list[tuple[str, str]] = []
        table = [(line.key, line.text) for line in self._table]
        for answers, n in told:
            asked: list[tuple[int, Prompt]] = []
            then = Game.replay(self.setup, self.seed, answers, asked)
            heard = [(line.key, line.text) for _, lines in self._heard_groups(then, n, True, asked)
                     for line in lines if line.to == "all"]
            if len(heard) > len(table) + len(best) and heard[:len(table)] == table:
                best = heard[len(table):]
        self._told = best
        if best:
            self._reasked = self.game.prompt

    def _catch_up(self, game: Game, asked: list[tuple[int, Prompt]]) -> None:
        """Continue from `game` as if every line up to its prompt had been said (`asked`: see `_asked_at`)."""
        self._start(game)
        self._follow_resumed(game, list(self._heard_groups(game, len(game.answers), True, asked)))
        self._shadow = State.fold(game.journal)
        self._seen = len(game.journal)
        self._nd = (self._shadow.night, self._shadow.day)

    def _replay_unheard(self, game: Game, n: int, question_heard: bool, asked: list[tuple[int, Prompt]]) -> None:
        """Continue from `game` as if the table had heard every line up to the question for answer `n`
        (and that question too, when `question_heard`; n = -1: nothing, not even the opening): the lines
        after it are still to be taken, each answered prompt's lines in its place (`asked`: see `_asked_at`)."""
        self._start(game)
        self._follow_resumed(game, list(self._heard_groups(game, n, question_heard, asked)))
        self._seen = _asked_at(game, asked, n)[0] if n >= 0 else 0
        self._shadow = State.fold(game.journal[: self._seen])
        self._nd = (self._shadow.night, self._shadow.day)
        if n >= 0 and question_heard:  # the host stopped at the question the mark covers
            self._place = _asked_at(game, asked, n)[1]
        for k in range(max(n, 0), len(game.answers)):
            if not (k == n and question_heard):
                self._asked.append((k, *asked[k]))

    # ---- reading ----------------------------------------------------------------------------------------

    @property
    def prompt(self) -> Prompt | None:
        """The question now: the game's, or the host's acknowledgement before it (`acks`)."""
        return self._ack or self.game.prompt

    @property
    def over(self) -> bool:
        """Nothing is asked any more: the game asks nothing and, with `acks`, no 过 is due before its last
        lines (they are all taken, or none follows a line with words). A resumed game whose end the table had
        not heard (no said mark after its last lines: stopped at the 过 before them, or while they played) is
        over once they are taken — the Session loaded without acks (`narrator games`, `resume`, `serve`'s
        power-on) judges it so too."""
        if self.prompt is not None:
            return False
        if not self.acks and not self._end_owed:
            return True
        return not self._held and self._seen >= len(self.game.journal)

    @property
    def winner(self) -> Camp | None:
        return self.game.state.winner

    @property
    def termination(self) -> ev.Termination | None:
        last = self.game.journal[-1] if self.game.journal else None
        return last.termination if isinstance(last, ev.GameEnded) else None

    @property
    def answers(self) -> list[tuple[str, Answer]]:
        return self.game.answers

    @property
    def night(self) -> bool:
        """It is night now (a night has fallen and its day has not broken)."""
        s = self.game.state
        return s.night > s.day

    def take_lines(self) -> list[Line]:
        """Every line said since the last call, public and host, in the judge's order: each event's lines
        (against the state as it stood then), then the prompt's lines, prompt after prompt."""
        return [line for _, lines in self.take() for line in lines]

    def take(self) -> list[_Group]:
        """Like take_lines, with what each group of lines says: an event, or a prompt (empty lines dropped)."""
        out = self._take()
        if self.acks:
            self._held += out
            out = self._release()
        self._follow_place(out)
        return self._untold(out)

    def _untold(self, out: list[_Group]) -> list[_Group]:
        """The groups as the table hears them: a table line it heard already before a 撤销 (`undo`), said
        again in the same place, is not said again — the table hears nothing twice, and nothing of the
        correction; the re-asked question's own table lines (by day "发言结束，请大家举手投票。") go to the
        host alone, as a short host line, so he hears what he is asked. From the first table line that
        differs (by day, an answer changed: "二号被放逐出局") the table hears every line again."""
        for i, (what, lines) in enumerate(out):
            if not self._told and not any(line.to == "all" for line in lines):
                continue
            kept: list[Line] = []
            for line in lines:
                if line.to == "all":
                    self._table.append(line)
                    if self._told and self._told[0] == (line.key, line.text):
                        self._told.pop(0)
                        if what is not self._reasked:
                            continue
                        line = line.replaced(to="host", pause="short", words=0, confirms=0, gestures=0,
                                             public_ask=False)
                    else:
                        self._told.clear()
                kept.append(line)
            out[i] = (what, tuple(kept))
            if what is self._reasked:
                self._reasked = None
        return out

    def _follow_place(self, out: list[_Group]) -> None:
        """The night and day the table has reached, and the last question taken, through the groups said. A
        NightFell / DayBroke counts from the next group the table hears or the next game question (a 过
        asked before "天亮了" is still the night's)."""
        night, day = self._nd or (0, 0)
        pending = self._nd_pending or (night, day)
        for what, lines in out:
            if isinstance(what, ev.NightFell):
                pending = what.night, pending[1]
            elif isinstance(what, ev.DayBroke):
                pending = pending[0], what.day
            if (isinstance(what, Prompt) and what is not self._ack) or any(line.to == "all" for line in lines):
                night, day = pending
            if isinstance(what, Prompt):
                self._place = what
        self._nd = (night, day)
        self._nd_pending = pending if pending != (night, day) else None

    def place(self) -> Place:
        """Where the game stands for the host (his console, his earpiece, `narrator games`): the question he
        was last asked, in the night or day the table had reached then (see `Place`)."""
        s = self.game.state
        if self.over:
            return Place(s.night, s.day, "over", None)
        prompt = self._place
        if prompt is None:  # nothing asked yet: the first question to come
            prompt = self._asked[0][2] if self._asked else self.prompt
        night, day = self._nd if self._nd is not None else (s.night, s.day)
        return Place(night, day, "night" if night > day else "day", prompt)

    def _release(self) -> list[_Group]:
        """The held groups up to the next acknowledgement due (`acks`): before a table line, when the last
        table line's host words were not all asked since. A prompt whose own table line has words (a vote's
        call) stands for all of them."""
        out: list[_Group] = []
        while self._held and self._ack is None:
            if self._held[0][0] is self._again:  # said again after 撤销: the host's words are followed already
                self._again = None
            elif self._ack_due(*self._held[0]):
                self._ack = ACKNOWLEDGEMENT
                out.append((self._ack, _said(self.judge.prompt_lines(self._ack, self.game.state))))
                break
            out.append(self._held.pop(0))
        return out

    def _ack_due(self, what: ev.Event | Prompt, lines: tuple[Line, ...]) -> bool:
        """Follow the last table line's words through one group of lines said next: True (the wait closed)
        when the host's 过 is due before them."""
        table = [line for line in lines if line.to == "all"]
        wait = self._wait
        if table and wait is not None and wait[1] < wait[0]:
            self._wait = None
            return True
        if table:
            words = questions(what, max(line.words for line in table))
            self._wait = [words, words if isinstance(what, Prompt) else 0] if words else None
        elif isinstance(what, Prompt) and wait is not None:
            wait[1] += 1
        return False

    def _follow_heard(self, groups: Iterable[_Group]) -> None:
        """Resume: follow the words of the table lines the table heard before the mark (`_heard_groups` of
        `_replay_unheard`'s n and question_heard), so a 过 the host owes after the mark is asked again; and
        note those lines as the table's (`_table`)."""
        for what, lines in groups:
            self._table += (line for line in lines if line.to == "all")
            if self._ack_due(what, lines):  # a 过 was asked (and answered) before them: the wait closed, and
                self._ack_due(what, lines)  # these lines' own words are followed from here, as _release does

    def _follow_resumed(self, game: Game, groups: list[_Group]) -> None:
        """`_follow_heard` for a resume: the question asked now, heard already, is said again (take), and
        noted as the table's then — once."""
        self._follow_heard(groups)
        if groups and groups[-1][0] is game.prompt:
            again = sum(line.to == "all" for line in groups[-1][1])
            del self._table[len(self._table) - again:]

    def _heard_groups(self, game: Game, n: int, question_heard: bool,
                      asked: list[tuple[int, Prompt]]) -> Iterator[_Group]:
        shadow, seen = State(), 0
        for k in range(n + 1):
            end, prompt = _asked_at(game, asked, k)
            for event in game.journal[seen:end]:
                shadow.apply(event)
                yield event, _said(self.judge.event_lines(event, shadow))
            seen = end
            if prompt is None or (k == n and not question_heard):
                return
            yield prompt, _said(self.judge.prompt_lines(prompt, shadow))

    def _take(self) -> list[_Group]:
        out: list[_Group] = []
        prompt_lines = self.judge.prompt_lines
        if self._shadow is None:
            self._shadow = State()
        shadow = self._shadow
        for _, at, asked in self._asked:
            self._events_until(at, shadow, out)
            out.append((asked, _said(prompt_lines(asked, shadow))))
        self._asked.clear()
        self._events_until(len(self.game.journal), shadow, out)
        prompt = self.game.prompt
        if prompt is not None and not self._said:
            out.append((prompt, _said(prompt_lines(prompt, shadow))))
            self._said = True
        return out

    def read(self, text: str, prompt: Prompt) -> Answer:
        """The answer the host's words say at `prompt` (hostwords; NotUnderstood says why not): the reader the
        ear's Dialogue uses, as the lobby of `narrator serve` offers its own."""
        return parse(text, prompt.accepts)

    def repeat_lines(self) -> list[Line]:
        """The current prompt's lines once more (重复, or after a refusal); [] once the game is over. Lines
        not yet taken stay for take_lines()."""
        prompt = self.prompt
        if prompt is None:
            return []
        return list(_said(self.judge.prompt_lines(prompt, self.game.state)))

    def _events_until(self, end: int, shadow: State, out: list[_Group]) -> None:
        journal, lines = self.game.journal, self.judge.event_lines
        for i in range(self._seen, end):
            event = journal[i]
            shadow.apply(event)
            out.append((event, _said(lines(event, shadow))))
        self._seen = max(self._seen, end)

    def status(self) -> Status:
        s = self.game.state
        place = self.place()
        potions = tuple(p for p, left in (("antidote", s.antidote), ("poison", s.poison)) if left)
        prompt = place.prompt
        return Status(
            night=place.night, day=place.day, phase=place.phase, alive=tuple(sorted(s.alive)),
            dead={seat: cause for seat, (cause, _) in sorted(s.deaths.items())}, sheriff=s.sheriff,
            roles=dict(sorted(s.roles.items())), potions=potions, prompt=None if prompt is None else prompt.kind,
            winner=s.winner, termination=self.termination,
        )

    # ---- acting -----------------------------------------------------------------------------------------

    def submit(self, answer: str | Answer) -> Submitted:
        """Answer the prompt now: the host's words (parsed with hostwords for this prompt) or an Answer.
        An accepted answer is in the journal store before this returns."""
        if self._ack is not None:
            return self._acknowledge(self._ack, answer)
        game = self.game
        prompt = game.prompt
        if isinstance(answer, str):
            if prompt is None:
                return self._refused(prompt, refuse("game.over"), True)
            try:
                answer = parse(answer, prompt.accepts)
            except NotUnderstood as exc:
                return self._refused(prompt, exc.refusal, False)
        at = len(game.journal)
        result = game.answer(answer)
        if type(result) is Rejected:
            return self._refused(prompt, result.refusal, True)
        assert prompt is not None and type(result) is Accepted
        index = len(game.answers) - 1
        if self.store is not None:
            try:
                self._write(self.store, self._chain.answer(index, prompt.kind, answer))
            except BaseException:
                marked = self._marked
                self._drop_last()  # not journaled: as if never given (its question stays marked heard)
                self._marked = marked
                raise
        if self._back:  # the answer taken back given again, or the game goes another way from here
            if self._back[-1] == (index, prompt.kind, answer):
                self._back.pop()
            else:
                self._back.clear()
        if not self._said:  # its lines are still to be taken, in their place
            self._asked.append((index, at, prompt))
        self._said = False
        return result

    def _acknowledge(self, ack: Prompt, answer: str | Answer) -> Submitted:
        """The host's 过 to the acknowledgement: nothing changes in the game, nothing is journaled."""
        if isinstance(answer, str):
            try:
                answer = parse(answer, ack.accepts)
            except NotUnderstood as exc:
                return self._refused(ack, exc.refusal, False)
        refusal = ack.refuse(answer)
        if refusal is not None:
            return self._refused(ack, refusal, True)
        self._ack = None
        return Accepted(())

    def _refused(self, prompt: Prompt | None, refusal: Refusal, understood: bool) -> Refused:
        return Refused("" if prompt is None else prompt.kind, refusal, self.refusal_line(prompt, refusal),
                       understood)

    def hidden(self, prompt: Prompt | None) -> bool:
        """Whether what the host says about `prompt` (his answers, their read-backs, refusals, reminders) is
        for the host alone: at night, at a secret prompt (a shot, a take, the idiot's flip …), and at a vote
        cast with eyes closed (`vote_call: eyes_closed`: who voted for whom is the host's)."""
        if self.night:
            return True
        if prompt is None:
            return False
        return prompt.secret or (prompt.kind in BALLOT_KINDS and self.setup.rules.vote_call == "eyes_closed")

    def refusal(self, prompt: Prompt, answer: Answer) -> Refusal | None:
        """Why `answer` would be refused at `prompt` (None: it would be taken); nothing changes."""
        return self.game.refusal(prompt, answer)

    def refusal_line(self, prompt: Prompt | None, refusal: Refusal) -> Line:
        """The judge's reason for a refusal, routed: to the table only by day, at a prompt that is not hidden
        (`hidden`), not about a self-explosion (a refused 自爆 or 过 at a speech would tell the table who is no
        wolf) and when the reason names no secret ("八号和九号是情侣，不能互投", "猎人不能选自己": `names_secret`)
        — but a void duel is said aloud (DUEL_VOID: the table heard the claim); else to the host alone. Every
        front end routes refusals through this one rule."""
        line = self.judge.script.refusal(refusal)
        if prompt is not None and not self.hidden(prompt) and (
                refusal.code in DUEL_VOID or (not _about_explosion(prompt, refusal) and not names_secret(refusal))):
            return replace(line, to="all")
        return line  # the script's refusals are the host's

    def explain(self, words: str, *, before_start: bool = False) -> list[Line] | Refused | None:
        """The host asks the judge about the rules ("规则", "规则 女巫") at any prompt: the judge's lines, routed
        as every front end must — to the table by day, to the host alone at night (the table must not hear the
        judge talk while eyes are closed) or at a secret prompt; to the table `before_start` (the cards are
        being dealt, no eye is closed yet). A Refused when the topic is not understood; None when the words
        are no rules request (then they are an answer). Changes nothing in the game."""
        prompt = None if before_start else self.prompt
        try:
            topic = rules_request(words)
        except NotUnderstood as exc:
            refused = self._refused(self.prompt, exc.refusal, False)
            return replace(refused, line=replace(refused.line, to="all")) if before_start else refused
        if topic is None:
            return None
        secret = not before_start and (self.night or (prompt is not None and prompt.secret))
        return rules_lines(self.setup, topic, self.lang, night=secret)

    def undo(self) -> bool:
        """Take back the last accepted answer (False if there is none). The next take_lines() says the
        re-asked prompt's lines again — its table lines, and every table line after them the table heard
        already, to the host alone (`_untold`)."""
        if not self.game.answers:
            return False
        n = len(self.game.answers) - 1
        if self.store is not None:
            self._write(self.store, self._chain.undo(n))
        self._back.append((n, *self.game.answers[-1]))
        self._drop_last()
        return True

    def taken_back(self, prompt: Prompt | None) -> Answer | None:
        """The answer 撤销 took back at `prompt` (the question now, asked again), or None: it was accepted there
        once — read back and confirmed, where the ear reads back — so the same answer given again is no new
        doubt (narrator/listen/repairs.py). Lost on a resume (a given-again answer is then read back)."""
        if prompt is None or self._ack is not None or not self._back:
            return None
        index, kind, answer = self._back[-1]
        return answer if (index, kind) == (len(self.game.answers), prompt.kind) else None

    def heard(self) -> None:
        """The table has heard every line taken so far (they have left the speaker): journal a said mark, so
        that a resume says only what comes after — after the game's last lines too (a game whose end was not
        heard resumes to say it). Nothing to mark before the lines were taken or in a format 1 journal."""
        n = len(self.game.answers)
        if self.store is None or self._chain.format < 2 or self._asked or self._held or self._ack is not None:
            return
        if self.game.prompt is None:
            if self._seen < len(self.game.journal):
                return
        elif not self._said:
            return
        if self._marked != n:
            self._write(self.store, self._chain.said(n))
            self._marked = n

    def _write(self, store: JournalStore, line: bytes) -> None:
        store.append(line)
        self._chain.advance()

    def _drop_last(self) -> None:
        """The game without its last answer; its prompt is asked (and said) again."""
        n = len(self.game.answers) - 1
        self._asked = [a for a in self._asked if a[0] < n]
        asked: list[tuple[int, Prompt]] = []  # where each answer left was asked (for the 过s owed, below)
        self.game = self.game.undo(asked)
        groups = list(self._heard_groups(self.game, len(self.game.answers), True, asked))  # up to the re-asked
        before = sum(line.to == "all" for _, lines in groups[:-1] for line in lines)  # … prompt's own lines
        self._told[:0] = [(line.key, line.text) for line in self._table[before:]]
        del self._table[before:]
        self._reasked = self.game.prompt
        self._said = False
        self._marked = -1
        self._ack, self._held, self._wait, self._again = None, [], None, None
        self._place, self._nd = None, (self.game.state.night, self.game.state.day)  # the re-asked question next
        self._nd_pending = None
        if self._seen > len(self.game.journal):  # lines after the cut were said: the state goes back too
            self._shadow, self._seen = State.fold(self.game.journal), len(self.game.journal)
        if self.acks:  # the host's words owed stand as when the re-asked prompt was first asked, 过s included
            table, self._table = self._table, []
            self._follow_heard(groups)
            self._table, self._again = table, self.game.prompt

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


BALLOT_KINDS = frozenset({"vote.exile", "pk.vote", "sheriff.vote"})
"""Prompts whose answer is who voted for whom."""

SECRET_REFUSALS = frozenset({"vote.lovers", "lovers.no_kill", "seat.self", "identify.other_card", "identify.missing",
                             "wolf_king.not_good", "wolf_beauty.not_good", "nightmare.not_wolf", "ally.wolf",
                             "wolves.no_self_knife"})
"""Refusals whose reason tells a card, a camp or the lovers: never said to the table."""


def names_secret(refusal: Refusal) -> bool:
    return refusal.code in SECRET_REFUSALS


def _about_explosion(prompt: Prompt, refusal: Refusal) -> bool:
    return SelfExplode in prompt.accepts or Pass in prompt.accepts or "explode" in refusal.code


def _asked_at(game: Game, asked: list[tuple[int, Prompt]], k: int) -> tuple[int, Prompt | None]:
    """The journal's length and the prompt when answer `k` was asked (`asked`: what `Game.replay` noted for
    each answer of `game`); for k past the last answer, the game as it stands."""
    return asked[k] if k < len(asked) else (len(game.journal), game.prompt)


def _said(lines: list[Line]) -> tuple[Line, ...]:
    return tuple(line for line in lines if line.text)
