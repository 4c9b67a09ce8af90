"""After the game: a recap from the journal of events — the game's story night by night and day by day
(经过), every election and exile vote (票型) with who abstained, who ran and who withdrew, the deaths with
their causes in words, the winner and why, and every player's card.

`build_recap(journal, lang)` reads only the events (so it works for a finished game and for one that
stopped half-way); `recap_page` renders it as the console's text, Markdown and a self-contained HTML page
with the votes drawn as pictures. Everything is written in the game's script (zh-Hant recaps in 繁體: the
labels below are written once in 简体 and converted), and seats are said as the judge says them (六号).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from narrator.common.zh import to_script
from narrator.engine import events as ev
from narrator.engine.roles import Camp, Role
from narrator.judge.script import Script

LABELS_HANS: dict[str, str] = {
    "night": "第{n}夜", "day": "第{n}天", "guard": "守卫守护{seat}", "guard.none": "守卫空守",
    "kill": "狼人刀{seat}", "kill.none": "狼人空刀", "save": "女巫用解药救{seat}", "poison": "女巫毒{seat}",
    "check": "预言家查验{seat}：{result}", "check.unknown": "预言家查验{seat}", "curse": "乌鸦诅咒{seat}",
    "curse.none": "乌鸦没有诅咒", "charm": "吹笛者魅惑{seats}", "beauty": "狼美人魅惑{seat}",
    "beauty.none": "狼美人没有魅惑", "lovers": "丘比特连{seats}为情侣", "model": "野孩子选{seat}做榜样",
    "thief": "盗贼{seat}拿了{role}", "thief.kept": "盗贼{seat}没有换牌", "wild": "野孩子{seat}变成狼人",
    "same_guard_save": "同守同救：{seat}被守护又被救，仍然出局",
    "nothing": "（这一夜没有行动）", "unfinished": "（游戏停在这里，未完）",
    "sheriff.vote": "警长投票", "vote.exile": "放逐投票", "pk.vote": "PK投票",
    "election": "竞选警长：{seats}上警", "election.none": "竞选警长：没有人上警", "withdrew": "{seats}退水",
    "elected": "{seat}当选警长", "no_sheriff": "没有警长", "exiled": "{seat}被放逐", "no_exile": "没有人出局",
    "tied": "{seats}平票", "abstain": "弃票", "result_only": "（只报了结果，没有票型）",
    "dawn": "天亮：{seats}死亡", "dawn.none": "天亮：平安夜", "idiot.stays": "{seat}翻牌是白痴，留在场上",
    "self_vote": "（自投）", "candidates": "上警", "withdrawn": "退水", "sheriff": "警长",
    "cause.wolves": "被狼人杀害", "cause.poison": "被女巫毒死", "cause.shot": "被猎人带走", "cause.exile": "被放逐",
    "cause.lover": "殉情", "cause.explode": "自爆", "cause.taken": "被白狼王带走", "cause.charm": "被狼美人带走",
    "cause.scapegoat": "替罪羊代死", "cause.elder": "长老被村民所杀", "cause.dream": "被摄梦人梦死",
    "cause.hunt": "被猎魔人猎杀", "cause.reflect": "被恶灵骑士反伤", "cause.duel": "死于骑士的决斗",
    "cause.king_shot": "被狼王带走", "cause.lingered": "血月使徒在天亮时出局",
    "cause.same_guard_save": "被狼人刀，同守同救仍然出局",
    "shot": "{seat}开枪带走{target}", "shot.none": "{seat}没有开枪", "exploded": "{seat}自爆",
    "took": "白狼王{seat}带走{target}", "king_shot": "{seat}开枪带走{target}", "duel": "骑士{seat}与{target}决斗",
    "badge": "警徽从{a}交给{b}", "badge.torn": "{a}撕掉警徽", "idiot": "{seat}翻牌：白痴",
    "winner": "{camp}胜利", "not_over": "游戏还没有结束", "title": "狼人之夜 · 复盘", "story": "经过",
    "votes": "投票（票型）", "deaths": "出局", "cards": "身份牌", "why": "原因", "when": "时间", "end": "结局",
    "vote_picture": "谁投了谁", "alive_end": "存活到最后", "seat_col": "座位",
    "saved": "复盘已保存：{page}（以及 {md}）", "copied": "复盘写到了 {page}",
}  # fmt: skip

SKILL_CAUSES = frozenset({"shot", "taken", "king_shot", "duel"})
"""Deaths by a skill used when it was said (a shot at dawn is the day's): dated by when they happened."""


@cache
def labels(lang: str) -> dict[str, str]:
    """The recap's words in the game's script."""
    return {key: to_script(text, lang) for key, text in LABELS_HANS.items()}


@dataclass
class Vote:
    day: int
    kind: str
    ballots: tuple[tuple[int, int], ...]
    tally: tuple[tuple[int, float], ...]
    outcome: str = ""
    title: str = ""
    voters: tuple[int, ...] = ()
    """Who could vote (VoteCalled); () when the vote was not called with its voters."""
    candidates: tuple[int, ...] = ()
    """A sheriff vote: who stood when it was held."""
    withdrawn: tuple[int, ...] = ()
    """A sheriff vote: who ran and withdrew (退水)."""
    sheriff: int | None = None
    """The sheriff when the vote was held."""
    exiled: int | None = None

    @property
    def abstained(self) -> tuple[int, ...]:
        """Voters who gave no vote (only known when the votes were recorded one by one)."""
        if not self.ballots:
            return ()
        voted = {voter for voter, _ in self.ballots}
        return tuple(s for s in self.voters if s not in voted)

    @property
    def self_votes(self) -> tuple[int, ...]:
        return tuple(voter for voter, target in self.ballots if voter == target)


@dataclass
class Death:
    seat: int
    cause: str
    when: str
    text: str = ""


@dataclass
class Recap:
    lang: str
    players: int = 0
    story: list[tuple[str, list[str]]] = field(default_factory=list)
    """经过: 第一夜, 第一天, 第二夜 … in the order they happened, each with what happened in it."""
    votes: list[Vote] = field(default_factory=list)
    deaths: list[Death] = field(default_factory=list)
    """In the order they happened (a night's deaths before the day's, whenever they were announced)."""
    roles: dict[int, Role] = field(default_factory=dict)
    winner: Camp | None = None
    termination: str | None = None
    sheriff: int | None = None
    title: str = ""
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def script(self) -> Script:
        return Script(self.lang)

    def seat(self, n: int) -> str:
        """A seat as the judge says it: 六号 (六號)."""
        return self.script.seat(n)

    def seats(self, ns: Iterable[int]) -> str:
        return "、".join(self.seat(n) for n in ns)

    def role_name(self, seat: int) -> str:
        role = self.roles.get(seat)
        return self.script.role(role.value) if role else "?"

    @property
    def result(self) -> str:
        if self.winner is None:
            return self.labels["not_over"]
        script = self.script
        text = self.labels["winner"].format(camp=script.camp(self.winner.value))
        if not self.termination or not script.has("terminations", self.termination):
            return text
        why = script.line("terminations", self.termination).text.rstrip("。.")
        return f"{text}（{why}）"

    def alive_at_end(self) -> list[int]:
        dead = {d.seat for d in self.deaths}
        return [s for s in range(1, self.players + 1) if s not in dead]


def _order(when: str) -> tuple[int, int]:
    """"night2" → (2, 0), "day2" → (2, 1): night n comes before day n."""
    phase = 0 if when.startswith("night") else 1
    digits = "".join(ch for ch in when if ch.isdigit())
    return (int(digits) if digits else 0, phase)


class _Builder:
    def __init__(self, lang: str) -> None:
        self.L = labels(lang)
        self.out = Recap(lang, labels=self.L)
        self.script = self.out.script
        self.night = self.day = 0
        self.now = "night0"
        self.vote: Vote | None = None
        self.voters: tuple[int, ...] = ()
        self.ran: tuple[int, ...] = ()
        self.withdrawn: tuple[int, ...] = ()
        self.guarded: int | None = None
        self.saved: int | None = None

    def seat(self, n: int | None) -> str:
        return self.out.seat(n or 0)

    def seats(self, ns: Iterable[int]) -> str:
        return self.out.seats(ns)

    def period(self, key: str, n: int) -> None:
        self.out.story.append((self.L[key].format(n=self.script.number(n)), []))
        self.now = f"{key}{n}"

    def note(self, text: str) -> None:
        if not self.out.story:
            self.period("night", max(self.night, 1))
        self.out.story[-1][1].append(text)

    def finish_vote(self, outcome: str) -> None:
        if self.vote is not None and not self.vote.outcome:
            self.vote.outcome = outcome

    def same_guard_save(self, seat: int) -> bool:
        return self.guarded == seat and self.saved == seat

    def apply(self, e: ev.Event) -> None:
        L, s = self.L, self.seat
        if isinstance(e, ev.GameStarted):
            self.out.players = e.players
        elif isinstance(e, ev.NightFell):
            self.night = e.night
            self.guarded = self.saved = None
            self.period("night", e.night)
        elif isinstance(e, ev.DayBroke):
            self.day = e.day
            self.period("day", e.day)
        elif isinstance(e, ev.RoleIdentified):
            for seat in e.seats:
                self.out.roles[seat] = e.role
        elif isinstance(e, ev.GuardProtected):
            self.guarded = e.seat
            self.note(L["guard"].format(seat=s(e.seat)) if e.seat else L["guard.none"])
        elif isinstance(e, ev.WolvesChoseVictim):
            self.note(L["kill"].format(seat=s(e.seat)) if e.seat else L["kill.none"])
        elif isinstance(e, ev.WitchSaved):
            self.saved = e.seat
            self.note(L["save"].format(seat=s(e.seat)))
        elif isinstance(e, ev.WitchPoisoned):
            self.note(L["poison"].format(seat=s(e.seat)))
        elif isinstance(e, ev.SeerChecked):
            if e.result is None:
                self.note(L["check.unknown"].format(seat=s(e.seat)))
            else:
                self.note(L["check"].format(seat=s(e.seat), result=self.script.seer_result(e.result)))
        elif isinstance(e, ev.RavenCursed):
            self.note(L["curse"].format(seat=s(e.seat)) if e.seat else L["curse.none"])
        elif isinstance(e, ev.PiperCharmed):
            self.note(L["charm"].format(seats=self.seats(e.seats)))
        elif isinstance(e, ev.WolfBeautyCharmed):
            self.note(L["beauty"].format(seat=s(e.seat)) if e.seat else L["beauty.none"])
        elif isinstance(e, ev.LoversLinked):
            self.note(L["lovers"].format(seats=self.seats(e.seats)))
        elif isinstance(e, ev.ModelChosen):
            self.note(L["model"].format(seat=s(e.seat)))
        elif isinstance(e, ev.ThiefTookCard):
            if e.role is None:
                self.note(L["thief.kept"].format(seat=s(e.seat)))
            else:
                self.out.roles[e.seat] = e.role
                self.note(L["thief"].format(seat=s(e.seat), role=self.script.role(e.role.value)))
        elif isinstance(e, ev.WildChildTurned):
            self.note(L["wild"].format(seat=s(e.seat)))
        elif isinstance(e, ev.NightResolved):
            for seat, cause in e.deaths:
                if cause == "wolves" and self.same_guard_save(seat):
                    self.note(L["same_guard_save"].format(seat=s(seat)))
        elif isinstance(e, ev.DeathsAnnounced):
            self.note(L["dawn"].format(seats=self.seats(e.seats)) if e.seats else L["dawn.none"])
        elif isinstance(e, ev.ElectionOpened):
            self.ran = self.withdrawn = ()
        elif isinstance(e, ev.CandidatesRaised):
            self.ran = e.seats
            self.note(L["election"].format(seats=self.seats(e.seats)) if e.seats else L["election.none"])
        elif isinstance(e, ev.CandidatesWithdrew):
            self.withdrawn += e.seats
            if e.seats:
                self.note(L["withdrew"].format(seats=self.seats(e.seats)))
        elif isinstance(e, ev.VoteCalled):
            self.voters = e.voters
        elif isinstance(e, ev.VotesCounted):
            sheriff_vote = e.kind.startswith("sheriff")
            self.vote = Vote(self.day, e.kind, e.ballots, e.tally, title=L.get(e.kind, e.kind),
                             voters=self.voters, sheriff=self.out.sheriff,
                             candidates=tuple(x for x in self.ran if x not in self.withdrawn) if sheriff_vote else (),
                             withdrawn=self.withdrawn if sheriff_vote else ())
            self.voters = ()
            self.out.votes.append(self.vote)
        elif isinstance(e, ev.SheriffElected):
            self.out.sheriff = e.seat
            self.finish_vote(L["elected"].format(seat=s(e.seat)))
            self.note(L["elected"].format(seat=s(e.seat)))
        elif isinstance(e, ev.NoSheriff):
            self.finish_vote(L["no_sheriff"])
        elif isinstance(e, ev.VoteTied):
            self.finish_vote(L["tied"].format(seats=self.seats(e.seats)))
        elif isinstance(e, ev.PlayerExiled):
            self.finish_vote(L["exiled"].format(seat=s(e.seat)))
            if self.vote is not None:
                self.vote.exiled = e.seat
            self.note(L["exiled"].format(seat=s(e.seat)))
        elif isinstance(e, ev.NoExile):
            self.finish_vote(L["no_exile"])
            self.note(L["no_exile"])
        elif isinstance(e, ev.IdiotRevealed):
            stays = L["idiot.stays"].format(seat=s(e.seat))
            if self.vote is not None and self.vote.exiled == e.seat:
                self.vote.outcome = stays
            story = self.out.story[-1][1] if self.out.story else []
            exiled = L["exiled"].format(seat=s(e.seat))
            if story and story[-1] == exiled:
                story[-1] = stays
            else:
                self.note(stays)
        elif isinstance(e, ev.PlayerDied):
            self.died(e)
        elif isinstance(e, ev.HunterShot):
            self.note(L["shot"].format(seat=s(e.shooter), target=s(e.target)) if e.target
                      else L["shot.none"].format(seat=s(e.shooter)))
        elif isinstance(e, ev.KingShot) and e.target:
            self.note(L["king_shot"].format(seat=s(e.shooter), target=s(e.target)))
        elif isinstance(e, ev.KnightDueled):
            self.note(L["duel"].format(seat=s(e.knight), target=s(e.target)))
        elif isinstance(e, ev.SelfExploded):
            self.note(L["exploded"].format(seat=s(e.seat)))
        elif isinstance(e, ev.WolfKingTook) and e.target:
            self.note(L["took"].format(seat=s(e.king), target=s(e.target)))
        elif isinstance(e, ev.BadgePassed):
            self.out.sheriff = e.to_seat
            self.note(L["badge"].format(a=s(e.from_seat), b=s(e.to_seat)) if e.to_seat
                      else L["badge.torn"].format(a=s(e.from_seat)))
        elif isinstance(e, ev.GameEnded):
            self.out.winner = e.winner
            self.out.termination = e.termination
            self.out.roles.update(dict(e.roles))

    def died(self, e: ev.PlayerDied) -> None:
        when = self.now if e.cause in SKILL_CAUSES else str(e.when)
        key = f"cause.{e.cause}"
        if e.cause == "wolves" and e.when.phase == "night" and self.same_guard_save(e.seat):
            key = "cause.same_guard_save"
        self.out.deaths.append(Death(e.seat, e.cause, when, self.L.get(key, e.cause)))


def build_recap(journal: Iterable[ev.Event], lang: str = "zh-Hans", title: str = "") -> Recap:
    """The recap of a game (finished or not) from its events."""
    b = _Builder(lang)
    for event in journal:
        b.apply(event)
    # A game that stopped half-way ends its story where it stopped, saying so: the night or day it stopped in
    # is unfinished (an empty one has not happened yet, so it is not "a night without actions").
    if b.out.winner is None and b.out.story:
        b.out.story[-1][1].append(b.L["unfinished"])
    for name, notes in b.out.story:
        if not notes and name.endswith(b.L["night"][-1]):
            notes.append(b.L["nothing"])
    b.out.story = [(name, notes) for name, notes in b.out.story if notes]
    b.out.deaths.sort(key=lambda d: _order(d.when))  # stable: the order said within a night or a day
    b.out.title = to_script(title, lang) if title else b.L["title"]
    return b.out


def when_label(recap: Recap, when: str) -> str:
    """"night2" → "第二夜", "day1" → "第一天"."""
    for key in ("night", "day"):
        if when.startswith(key) and when[len(key):].isdigit():
            return recap.labels[key].format(n=recap.script.number(int(when[len(key):])))
    return when
