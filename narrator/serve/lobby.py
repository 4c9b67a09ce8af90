"""The voice lobby of `narrator serve`: the questions between games, asked as prompts.

`Lobby` offers the ear's `Dialogue` (narrator/listen/dialogue.py) the same verbs a game `Session` does —
`prompt`, `read`, `refusal`, `refusal_line`, `submit`, `undo`, `take_lines`, `repeat_lines` — so a lobby
question is answered exactly like a game prompt: by voice (each question's grammar is its own words, checked
against the model's vocabulary), keypad (`info["keys"]`: "1" is the first choice said) or typed text, with
重复, 撤销 and the read-back of 关机. Every choice is said back; a word the lobby cannot take gets what it can
take ("十二人可以玩：…"), a rule that contradicts another names it.

The questions (`lobby.<step>`): recover (an unfinished game: 继续 / 不), idle (开始新游戏), players (几个人玩),
board (four boards at a time, 更多), ready (the cards to deal, the house rules that differ: 开始 / 改规则 /
换板子), rules (rule phrases, 好了), after (the recap: 再来一局 / 换板子 / 再说一遍复盘 / 结束). At every one:
大声点, 小声点, 慢一点, 快一点, 关机. What the lobby decided is `action` ("play", "resume", "abandon",
"shutdown", or a setting); the serve loop takes it (`take_action`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields, replace
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, TypedDict

from narrator.common.zh import to_script
from narrator.engine.answers import YesNo
from narrator.engine.game import Accepted
from narrator.engine.prompts import Prompt
from narrator.engine.refusals import Refusal
from narrator.engine.rules import Setup, SetupError
from narrator.hostwords import NotUnderstood
from narrator.hostwords.rules_words import KEYWORDS as RULES_WORDS
from narrator.judge.lines import Line
from narrator.judge.rules_talk import phrase_key
from narrator.judge.script import DEFAULT_JUDGE_NAME, Joined, Pieces, Script, Seat
from narrator.serve import words as w

if TYPE_CHECKING:
    from narrator.session.session import Session

PAGE = 4
"""Boards said at a time."""
USUAL_PLAYERS = 12
"""The table whose board 规则 explains before a count is chosen."""
RULES_WORD = RULES_WORDS[0]
"""规则, offered by voice at every lobby question (a pack whose `extra: rules:` offers it at every game prompt
too has it twice; one that does not, the Korean stand-in's, offers it here alone)."""
EXAMPLES = ("witch_self_save.always", "sheriff.false", "sheriff_weight.1.5", "win.city")
"""The rules named when a rule is not understood (`house_rules` keys)."""


@dataclass(frozen=True)
class Choice:
    """One lobby answer: a command slug, or "count", "board", "rule" with its value."""

    what: str
    value: int | w.Board | w.RulePhrase | None = None
    """The count, the board or the rule phrase chosen (None: a command)."""
    said: str | Pieces = ""
    """What the read-back says ("关机", "十二个人", "预女猎", "没有警长"): what the lobby understood, never empty."""
    confirm: bool = False
    """Read back and wait for 对 / 确认 before it is taken."""
    numbered: bool = False
    """A number the recogniser misreads with confidence, as it does a seat (a count: 十八个 heard as 八个):
    read back when spoken, whatever the scores (narrator/listen/doubt.py `Policy`)."""


def _refuse(code: str, **values: object) -> Refusal:
    """Why the lobby cannot take the words: `lobby.refused.<code>` of the script (said to the table: the lobby
    has no secrets), filled by `Lobby.refusal_line`."""
    return Refusal(code, MappingProxyType(values))


class LobbyState(TypedDict):
    """Where the lobby stands, as plain values: what `narrator serve` keeps on disk (lobby.json)."""

    kind: str
    players: int | None
    board: str | None
    """The board's preset."""
    page: int
    rules: list[str]
    """The rule phrases' `house_rules` keys, in the order said."""


def lobby_state(raw: object) -> LobbyState | None:
    """A LobbyState from what json.loads read back, or None when it is none (a damaged or foreign file)."""
    if not isinstance(raw, dict):
        return None
    kind, players, board, page, rules = (raw.get(k) for k in ("kind", "players", "board", "page", "rules"))
    if (isinstance(kind, str) and (players is None or isinstance(players, int))
            and (board is None or isinstance(board, str)) and isinstance(page, int)
            and isinstance(rules, list) and all(isinstance(r, str) for r in rules)):
        return LobbyState(kind=kind, players=players, board=board, page=page, rules=[str(r) for r in rules])
    return None


@dataclass(frozen=True)
class Step:
    kind: str
    players: int | None = None
    board: w.Board | None = None
    page: int = 0
    rules: tuple[w.RulePhrase, ...] = ()
    """The host's changes to the board's rules, in the order said (one per switch)."""


@dataclass(frozen=True)
class Planned:
    """A game the lobby set up: what `serve` starts after "开始"."""

    setup: Setup
    preset: str
    board: w.Board
    rules: tuple[w.RulePhrase, ...]


@dataclass
class _Judge:
    script: Script


@dataclass
class _Seats:
    players: int = 18


@dataclass
class Lobby:
    lang: str = "zh-Hans"
    played: Counter[str] = field(default_factory=Counter)
    """Games played per preset (most played boards first)."""
    step: Step = field(default_factory=lambda: Step("idle"))
    action: str | None = None
    planned: Planned | None = None
    recap: list[Line] = field(default_factory=list)
    """The last game's spoken recap (said after it, again on 再说一遍复盘)."""
    night: bool = False
    judge_name: str = DEFAULT_JUDGE_NAME
    """What the judge is called (`--judge-name`, a host word): "法官准备好了。要开始，请说：法官，开始新游戏。"."""

    def __post_init__(self) -> None:
        self.script = Script(self.lang)
        self.judge = _Judge(self.script)
        self.setup = _Seats()
        self._history: list[Step] = []
        self._lines: list[Line] = []
        self._prompt: tuple[Step, Prompt] | None = None
        self._recover_where: Pieces | None = None
        self.taken: Choice | None = None
        """The last choice taken (for the log)."""

    # ---- where the lobby stands -----------------------------------------------------------------------

    def go(self, step: Step, *lines: Line, ask: bool = True) -> None:
        """Move to `step` (forgetting what came before: 撤销 cannot go back past it) and say its question."""
        self._history.clear()
        self.step = step
        self._lines += lines
        if ask:
            self._lines += self.question()

    def recover(self, where: Pieces) -> None:
        """Power-on with an unfinished game: "上一局还没结束。继续吗？" to the table — where it stopped goes to the
        host alone ("上一局停在第三天白天，正在猎人开枪。": which step a game stopped at can be a secret)."""
        self._recover_where = where
        self.go(Step("recover"))

    def ready(self) -> None:
        """Power-on: the ready line, then waiting for 开始新游戏."""
        self.go(Step("idle"), self.line("ready"), ask=False)

    def after_game(self, recap: list[Line], preset: str | None = None, setup: Setup | None = None) -> None:
        """The game is over: its recap, then what next. 再来一局 deals the game just played again — its board
        and rule changes, taken from the game itself (`preset`, `setup`), not from where the lobby stood: a
        game resumed at power-on was set up before it."""
        self.recap = recap
        self.go(self.after_step(preset, setup) if setup is not None else replace(self.step, kind="after"), *recap)

    def after_step(self, preset: str | None, setup: Setup) -> Step:
        """The lobby's "after" question for a game of `preset` set up as `setup`: its board and the rule
        phrases that make its rules from the board's; without a board when the game is none of the lobby's
        boards or has rules no phrase says (再来一局 then asks for the board)."""
        from narrator.judge.presets import make_setup

        board = next((b for b in w.all_boards() if b.preset == preset), None)
        if board is None or board.players != setup.players:
            return Step("after", players=setup.players)
        usual = make_setup(preset=board.preset).rules
        phrases = {(p.switch, p.value): p for p in w.rule_phrases().values()}
        rules = []
        for f in fields(usual):
            value = getattr(setup.rules, f.name)
            if value != getattr(usual, f.name):
                phrase = phrases.get((f.name, value))
                if phrase is None:
                    return Step("after", players=setup.players)
                rules.append(phrase)
        return Step("after", players=setup.players, board=board, rules=tuple(rules))

    # ---- kept across a power cut ----------------------------------------------------------------------

    def state(self) -> LobbyState:
        """Where the lobby stands, as plain values (`narrator serve` keeps it on disk after every answer)."""
        step = self.step
        return LobbyState(kind=step.kind, players=step.players, board=step.board.preset if step.board else None,
                          page=step.page, rules=[r.key for r in step.rules])

    def restore(self, raw: object) -> bool:
        """Power-on after a cut: back at the question the lobby stood at (`state()`), said again with a word
        that it is taken up ("接着刚才的"); False (the ready line instead) for nothing worth taking up — the
        waiting question, a recovery question (the game is offered anew), or a state that is no longer
        valid (a board or rule this version lacks), or what `raw` (what json.loads read back) is not a state."""
        state = lobby_state(raw)
        if state is None:
            return False
        kind, players, page = state["kind"], state["players"], state["page"]
        try:
            board = None if state["board"] is None else next(b for b in w.all_boards() if b.preset == state["board"])
            by_key = {p.key: p for p in w.rule_phrases().values()}
            rules = tuple(by_key[k] for k in state["rules"])
        except (KeyError, StopIteration):
            return False
        if kind not in ("players", "board", "ready", "rules", "after") or (players is not None and
                                                                            players not in w.counts()):
            return False
        if (kind == "board" and players is None) or (kind in ("ready", "rules") and board is None):
            return False
        if board is not None and board.players != players:
            return False
        step = Step(kind, players=players, board=board, page=page, rules=rules)
        self.go(step, self.line("back"), ask=False)
        try:
            self._lines += self.question()
        except (SetupError, ValueError):
            self.step, self._lines = Step("idle"), []
            return False
        return True

    def take_action(self) -> str | None:
        action, self.action = self.action, None
        return action

    # ---- what the dialogue uses -----------------------------------------------------------------------

    @property
    def prompt(self) -> Prompt:
        if self._prompt is None or self._prompt[0] is not self.step:
            words, keys = self._choices()
            info = {"words": tuple(words), "keys": keys}
            # 继续吗？ is a yes/no question: 对 / 不对 there are answers, not a read-back's controls
            accepts = frozenset({Choice, YesNo}) if self.step.kind == "recover" else frozenset({Choice})
            self._prompt = (self.step, Prompt(f"lobby.{self.step.kind}", accepts, info=info))
        return self._prompt[1]

    @property
    def over(self) -> bool:
        return False

    repeat_refusals = False
    """重复 says the lobby's last question or answer, never a refusal (the Dialogue asks)."""

    def hidden(self, prompt: Prompt | None) -> bool:
        """Nothing the lobby says is secret: the table chooses its game together."""
        return False

    def explain(self, words: str, *, before_start: bool = False) -> list[Line] | None:
        """规则 … at any lobby question, as in a game: the rules of the board being chosen (with the changes
        said so far), else of the count's first board, else of the usual twelve-player board; said to the
        table (the lobby has no secrets). None when the words are no rules request, or a lobby answer
        ("改规则")."""
        from narrator.hostwords.rules_words import rules_request
        from narrator.judge.rules_talk import rules_lines

        try:
            self.read(words, self.prompt)
            return None
        except NotUnderstood:
            pass
        try:
            topic = rules_request(words)
        except NotUnderstood as exc:
            refused = self.script.refusal(exc.refusal)
            return [Line(refused.text, "all", refused.pieces, refused.key, refused.pause)]
        if topic is None:
            return None
        return rules_lines(self._rules_setup(), topic, self.lang)

    def _rules_setup(self) -> Setup:
        from narrator.judge.presets import make_setup

        if self.step.board is not None:
            return self._setup(self.step.rules)
        boards = w.boards_for(self.step.players or USUAL_PLAYERS)
        return make_setup(preset=(boards or w.boards_for(USUAL_PLAYERS))[0].preset)

    def take_lines(self) -> list[Line]:
        lines, self._lines = self._lines, []
        return lines

    def repeat_lines(self) -> list[Line]:
        return self.question()

    def read(self, text: str, prompt: Prompt) -> Choice:
        """The choice the words make at this question; NotUnderstood says what can be said instead. Every
        choice carries what its read-back says (`Choice.said`): what the lobby understood."""
        step = self.step
        text = self._unnamed(text)
        anytime = w.read_command(text, w.ANYTIME)
        if anytime is not None:
            return Choice(anytime, said=self._said(w.ANYTIME[anytime][0]), confirm=anytime == "shutdown")
        asked = w.read_command(text, w.ASK)
        if asked is not None:
            return Choice(asked, said=self._said(w.ASK[asked][0]))
        slug = w.read_command(text, self._commands())
        if slug is not None:
            return Choice(slug, said=self._command_said(slug))
        n = w.read_count(text) if step.kind in ("players", "board") else None
        if n is not None and n in w.counts():  # at the board question too: 换板子 lets the count change
            return Choice("count", n, said=Pieces(self.line("said.count", n=self.script.number(n)).pieces),
                          numbered=True)
        if step.kind == "players":  # what it can take: the counts (it has no command to name)
            raise NotUnderstood(_refuse("no_count", low=w.PLAYER_RANGE[0], high=w.PLAYER_RANGE[1]))
        if step.kind == "board" and step.players is not None:
            board = w.read_board(text, self._boards())
            if board is not None:
                return Choice("board", board, said=Pieces((self._said(board.said),)))
            raise NotUnderstood(_refuse("no_board", n=step.players, boards=self._page_names()))
        if step.kind == "rules":
            phrase = w.read_rule(text)
            if phrase is not None:
                return Choice("rule", phrase, said=Pieces((self._rule_text(phrase.key),)))
            raise NotUnderstood(_refuse("no_rule", examples=EXAMPLES))
        raise NotUnderstood(_refuse("say", words=tuple(self._said_commands())))

    def _command_said(self, slug: str) -> str | Pieces:
        """A command's read-back: its own line where the bare word would say too little ("不" → "不继续"),
        else the word the judge tells the host to say."""
        if self.script.has("lobby", f"said.{slug}"):
            return Pieces(self.line(f"said.{slug}").pieces)
        return self._said(w.COMMANDS[slug][0])

    def _unnamed(self, text: str) -> str:
        """The words without the judge's name in front ("法官，开始新游戏" → "开始新游戏"), as the ready line
        tells the host to say them."""
        rest = w.clean(text).removeprefix(w.clean(self.judge_name))
        return rest if rest else text

    def refusal(self, prompt: Prompt, answer: object) -> Refusal | None:
        if not isinstance(answer, Choice) or not isinstance(answer.value, w.RulePhrase) or self.step.board is None:
            return None
        phrase = answer.value
        for old in self.step.rules:
            if old.switch == phrase.switch and old.value != phrase.value:
                return _refuse("contradicts", rule=phrase.key, other=old.key)
        changed = self._with_rule(phrase)
        try:
            rules = self._setup(changed).rules
        except SetupError as exc:
            return _refuse("cannot", why=str(exc))
        found = w.clash(changed, rules)
        if found is not None:
            needs, off = found
            # the one said last is refused; the other is named ("没有警长", or the board's own rule)
            other = next((r.key for r in changed if r.switch == off), None) or phrase_key(rules, off)[0]
            first, second = (phrase.key, other) if phrase.switch != off else (phrase.key, needs.key)
            return _refuse("contradicts", rule=first, other=second)
        return None

    def refusal_line(self, prompt: Prompt | None, refusal: Refusal) -> Line:
        values = {k: self._value(k, v) for k, v in refusal.values.items()}
        return self.line(f"refused.{refusal.code}", **values)

    def submit(self, answer: object) -> Accepted:
        if not isinstance(answer, Choice):
            raise TypeError(f"the lobby takes Choice answers, not {answer!r}")
        before = self.step
        self.taken = answer
        self._take(answer)
        if self.step is not before:
            self._history.append(before)
        return Accepted(())

    def undo(self) -> bool:
        if not self._history:
            return False
        self.step = self._history.pop()
        self._lines += self.question()
        return True

    def taken_back(self, prompt: Prompt | None) -> None:
        """None: what the lobby reads back (a count, 关机) is read back again after 撤销 as the first time."""
        return None

    # ---- choices --------------------------------------------------------------------------------------

    def _take(self, c: Choice) -> None:
        step = self.step
        if c.what in w.ANYTIME:
            self.action = c.what
            if c.what not in ("shutdown", "calibrate"):  # 校准 says its own lines (narrator/play/calibration.py)
                self._lines.append(self.line(f"setting.{c.what}"))
            return
        if c.what in w.ASK:
            self._lines += self._answer(c.what)
            return
        if c.what == "go_on":
            self.action = "resume"
        elif c.what == "drop" and step.kind == "recover":
            self.action = "abandon"
            self.go(Step("idle"), self.line("abandoned"), ask=False)
            self._lines.append(self.line("idle"))
        elif c.what == "new_game":
            self._to(Step("players"))
        elif c.what == "count" and isinstance(c.value, int):
            self._to(Step("board", players=c.value), self.line("players.said", n=self.script.number(c.value)))
        elif c.what == "more":
            pages = max(1, -(-len(self._boards()) // PAGE))
            self._to(replace(step, page=(step.page + 1) % pages))
        elif c.what == "board" and isinstance(c.value, w.Board):
            self._to(Step("ready", players=step.players, board=c.value),
                     self.line("board.said", board=self._said(c.value.said)))
        elif c.what == "change_rules":
            self._to(replace(step, kind="rules"))
        elif c.what == "rule" and isinstance(c.value, w.RulePhrase):
            rules = self._with_rule(c.value)
            self._step(replace(step, rules=rules), self.line("rule.said", rule=self._rule_text(c.value.key)))
        elif c.what in ("rules_done", "again", "start") and step.board is None:
            self._to(self._choose_board())  # no board to deal (a game of another board was resumed)
        elif c.what in ("rules_done", "again"):  # 再来一局: the same board and rules, a new deal
            self._to(replace(step, kind="ready"))
        elif c.what == "start":
            board = step.board
            assert board is not None
            self.planned = Planned(self._setup(step.rules), board.preset, board, step.rules)
            self.action = "play"
            self.step = replace(step, kind="ready")
        elif c.what == "change_board":
            self._to(self._choose_board())
        elif c.what == "change_count":
            self._to(Step("players"))
        elif c.what == "recap_again":
            self._lines += self.recap
            self._lines += self.question()
        elif c.what == "end":
            self._history.clear()
            self.step = Step("idle")
            self._lines += [self.line("ended"), self.line("idle")]

    def _answer(self, what: str) -> list[Line]:
        """你能做什么 / 现在在干什么 / 上一局复盘: said, then the question again (help ends in what to say)."""
        if what == "help":
            return [self._help(), self.line("help.anytime")]
        if what == "status":
            return [*self._status(), *self.question()]
        return [*(self.recap or [self.line("no_recap")]), *self.question()]

    def _help(self) -> Line:
        step = self.step
        if step.kind == "players":
            return self.line("help.players", low=self.script.number(w.PLAYER_RANGE[0]),
                             high=self.script.number(w.PLAYER_RANGE[1]))
        if step.kind == "board":
            more = (self._said(w.COMMANDS["more"][0]),) if len(self._boards()) > PAGE else ()
            return self.line("help.board", boards=self._value("boards", (*self._page_names(), *more)))
        if step.kind == "rules":
            return self.line("help.rules", examples=self._value("examples", EXAMPLES))
        return self.line("help", words=self._value("words", tuple(self._said_commands())))

    def _status(self) -> list[Line]:
        """Where the lobby stands, in what the table chose (no secret: the lobby has none)."""
        step = self.step
        if step.kind == "recover":  # the question says it: where the game stopped to the host alone
            return []
        if step.kind in ("idle", "players"):
            return [self.line(f"status.{step.kind}")]
        n = self.script.number(step.players or 0)
        if step.board is None:
            return [self.line("status.after_any" if step.kind == "after" else "status.board", n=n)]
        out = [self.line("status.after" if step.kind == "after" else "status.ready", n=n,
                         board=self._said(step.board.said))]
        if step.rules:
            out.append(self.line("status.rules", rules=self._value("rule", tuple(r.key for r in step.rules))))
        return out

    def _choose_board(self) -> Step:
        """The board question for the count chosen (a count no board is made for: the count question)."""
        players = self.step.players
        return Step("board", players=players) if players in w.counts() else Step("players")

    def _to(self, step: Step, *lines: Line) -> None:
        self._step(step, *lines)
        self._lines += self.question()

    def _step(self, step: Step, *lines: Line) -> None:
        self.step = step
        self._lines += lines

    def _with_rule(self, phrase: w.RulePhrase) -> tuple[w.RulePhrase, ...]:
        return (*[r for r in self.step.rules if r.switch != phrase.switch], phrase)

    def _setup(self, rules: tuple[w.RulePhrase, ...]) -> Setup:
        from narrator.judge.presets import make_setup

        assert self.step.board is not None
        return make_setup(preset=self.step.board.preset, rules={r.switch: r.value for r in rules})

    def _boards(self) -> list[w.Board]:
        return w.boards_for(self.step.players or 0, self.played)

    def _page(self) -> list[w.Board]:
        return self._boards()[self.step.page * PAGE:(self.step.page + 1) * PAGE]

    def _page_names(self) -> tuple[str, ...]:
        return tuple(b.said for b in self._page())

    def _commands(self) -> tuple[str, ...]:
        return {
            "recover": ("go_on", "drop"),
            "idle": ("new_game",),
            "players": (),
            "board": ("more", "change_count"),
            "ready": ("start", "change_rules", "change_board"),
            "rules": ("rules_done", "start"),
            "after": ("again", "change_board", "recap_again", "end"),
        }[self.step.kind]

    def _said_commands(self) -> list[str]:
        return [w.COMMANDS[s][0] for s in self._commands()]

    def _choices(self) -> tuple[list[str], dict[str, str]]:
        """The words offered at this question (its grammar) and what each key of the keypad says."""
        kind = self.step.kind
        words = [word for s in self._commands() for word in w.COMMANDS[s]]
        if kind == "idle":  # "法官，开始新游戏", as the ready line says it
            words.insert(1, w.clean(self.judge_name) + w.COMMANDS["new_game"][0])
        words += [word for table in (w.ANYTIME, w.ASK) for s in table for word in table[s]]
        words.append(RULES_WORD)  # 规则: the rules explained at every question (`explain`), in every pack
        keys: dict[str, str] = {}
        if kind == "players":
            for n in w.counts():
                words += w.count_words(n)
                keys[str(n)] = w.count_words(n)[0]
        elif kind == "board":
            for board in self._boards():
                words += board.words()
            page = self._page_names()
            keys = {str(i + 1): said for i, said in enumerate(page)}
            keys[str(len(page) + 1)] = w.COMMANDS["more"][0]
            keys[str(len(page) + 2)] = w.COMMANDS["change_count"][0]
        elif kind == "rules":
            words += w.spoken_rule_words()
            keys["1"] = w.COMMANDS["rules_done"][0]
        else:
            keys = {str(i + 1): w.COMMANDS[s][0] for i, s in enumerate(self._commands())}
        # 0 is 关机 (read back: * is 确认), or 不 at the recovery question; * is always 确认 (keypad.py)
        keys["0"] = w.COMMANDS["drop"][0] if kind == "recover" else w.ANYTIME["shutdown"][0]
        return list(dict.fromkeys(words)), {k: v for k, v in keys.items() if v}

    # ---- what the judge says --------------------------------------------------------------------------

    def line(self, key: str, **values: object) -> Line:
        return self.script.line("lobby", key, judge=self._said(self.judge_name), **values)

    def question(self) -> list[Line]:
        step = self.step
        if step.kind == "recover":
            return [self.line("recover.where", where=self._recover_where), self.line("recover")]
        if step.kind == "idle":
            return [self.line("idle")]
        if step.kind == "players":
            return [self.line("players")]
        if step.kind == "board":
            assert step.players is not None
            out = [self.line("boards", n=self.script.number(step.players),
                             boards=self._value("boards", self._page_names()))]
            if len(self._boards()) > PAGE:
                out.append(self.line("boards.more"))
            return out
        if step.kind == "ready":
            return self._ready_lines()
        if step.kind == "rules":
            return [self.line("rules")]
        return [self.line("after")]

    def _ready_lines(self) -> list[Line]:
        """The cards to deal and what to say next. The rules that differ from the board's usual ones are said
        once, by the game's opening after 开始 (as `play` says them); each rule the host changes is read back
        when said."""
        from narrator.play.lines import deal_line

        return [deal_line(self.script, self._setup(self.step.rules)), self.line("ready_hint")]

    def _rule_text(self, key: str) -> str:
        return str(self.script.data["house_rules"][key])

    def _value(self, key: str, value: object) -> object:
        if isinstance(value, tuple):
            return Joined(self.script.joiner, [self._value(key, v) for v in value])
        if key in ("rule", "other", "examples"):
            return self._rule_text(str(value))
        if isinstance(value, int) and not isinstance(value, bool):
            return self.script.number(value)
        return Pieces((self._said(str(value)),))

    def _said(self, words: str) -> str:
        """Board names and the host's words of the lobby, in the game's script."""
        return to_script(words, self.lang)


@cache
def every_prompt() -> tuple[Prompt, ...]:
    """One prompt of each lobby question (the board question once per player count): what `serve` checks
    against the speech model's vocabulary at power-on, as the ear checks every game prompt."""
    lobby = Lobby()
    steps = [Step("recover"), Step("idle"), Step("players"), *[Step("board", players=n) for n in w.counts()],
             Step("ready"), Step("rules"), Step("after")]
    out = []
    for step in steps:
        lobby.step = step
        out.append(lobby.prompt)
    return tuple(out)


def recap_lines(script: Script, session: Session) -> list[Line]:
    """The spoken recap in short: the winner, why, and every seat's card."""
    from narrator.engine.events import GameEnded

    ended = next((e for e in reversed(session.game.journal) if isinstance(e, GameEnded)), None)
    if ended is None:
        return []
    why = script.line("terminations", ended.termination)
    cards = Joined(script.joiner, [Pieces((Seat(seat), script.role(role.value))) for seat, role in ended.roles])
    return [script.line("lobby", "recap", winner=script.camp(ended.winner.value), why=Pieces(why.pieces),
                        cards=cards)]
