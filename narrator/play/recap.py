"""After the game: a recap from the journal of events — every night's actions, every election and exile
vote (票型), the deaths with their causes, the winner and why, and every player's card.

`build_recap(journal, lang)` reads only the events (so it works for a finished game and for one that
stopped half-way); `recap_page` renders it as Markdown and as a self-contained HTML page with the votes
drawn as a picture.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from narrator.engine import events as ev
from narrator.engine.roles import Camp, Role
from narrator.judge.script import Script

LABELS: dict[str, dict[str, str]] = {
    "zh-Hans": {
        "night": "第{n}夜", "day": "第{n}天", "guard": "守卫守护{seat}", "guard.none": "守卫空守",
        "kill": "狼人刀{seat}", "kill.none": "狼人空刀", "save": "女巫用解药救{seat}", "poison": "女巫毒{seat}",
        "check": "预言家查验{seat}：{result}", "check.unknown": "预言家查验{seat}", "curse": "乌鸦诅咒{seat}",
        "curse.none": "乌鸦没有诅咒", "charm": "乐师魅惑{seats}", "beauty": "狼美人魅惑{seat}",
        "beauty.none": "狼美人没有魅惑", "lovers": "丘比特连{seats}为情侣", "model": "野孩子选{seat}做榜样",
        "thief": "盗贼{seat}拿了{role}", "thief.kept": "盗贼{seat}没有换牌", "wild": "野孩子{seat}变成狼人",
        "nothing": "（这一夜没有行动）", "sheriff.vote": "警长投票", "vote.exile": "放逐投票", "pk.vote": "PK投票",
        "elected": "{seat}当选警长", "no_sheriff": "没有警长", "exiled": "{seat}被放逐", "no_exile": "没有人出局",
        "tied": "{seats}平票", "abstain": "弃票", "result_only": "（只报了结果，没有票型）",
        "cause.wolves": "被狼人杀害", "cause.poison": "被女巫毒死", "cause.shot": "被猎人带走", "cause.exile": "被放逐",
        "cause.lover": "殉情", "cause.explode": "自爆", "cause.taken": "被白狼王带走", "cause.charm": "被狼美人带走",
        "cause.scapegoat": "替罪羊代死", "cause.elder": "长老被村民所杀",
        "shot": "{seat}开枪带走{target}", "shot.none": "{seat}没有开枪", "exploded": "{seat}自爆",
        "took": "白狼王{seat}带走{target}", "badge": "警徽从{a}交给{b}", "badge.torn": "{a}撕掉警徽",
        "idiot": "{seat}翻牌：白痴", "winner": "{camp}胜利", "not_over": "游戏还没有结束", "seat": "{n}号",
        "title": "狼人之夜 · 复盘", "nights": "经过", "votes": "投票（票型）", "deaths": "出局",
        "cards": "身份牌", "why": "原因", "dead": "出局", "alive": "存活", "vote_picture": "谁投了谁",
        "voter": "投票人", "target": "被投", "alive_end": "存活到最后",
    },
}
LABELS["zh-Hant"] = {
    **LABELS["zh-Hans"],
    "night": "第{n}夜", "guard": "守衛守護{seat}", "guard.none": "守衛空守", "kill": "狼人刀{seat}",
    "kill.none": "狼人空刀", "save": "女巫用解藥救{seat}", "check": "預言家查驗{seat}：{result}",
    "check.unknown": "預言家查驗{seat}", "curse": "烏鴉詛咒{seat}", "curse.none": "烏鴉沒有詛咒",
    "charm": "樂師魅惑{seats}", "beauty.none": "狼美人沒有魅惑", "lovers": "丘比特連{seats}為情侶",
    "model": "野孩子選{seat}做榜樣", "thief.kept": "盜賊{seat}沒有換牌", "thief": "盜賊{seat}拿了{role}",
    "wild": "野孩子{seat}變成狼人", "nothing": "（這一夜沒有行動）", "sheriff.vote": "警長投票",
    "vote.exile": "放逐投票", "elected": "{seat}當選警長", "no_sheriff": "沒有警長", "no_exile": "沒有人出局",
    "tied": "{seats}平票", "abstain": "棄票", "result_only": "（只報了結果，沒有票型）", "cause.wolves": "被狼人殺害",
    "cause.shot": "被獵人帶走", "cause.exile": "被放逐", "cause.explode": "自爆", "cause.taken": "被白狼王帶走",
    "cause.charm": "被狼美人帶走", "cause.scapegoat": "替罪羊代死", "cause.elder": "長老被村民所殺",
    "cause.lover": "殉情", "shot": "{seat}開槍帶走{target}", "shot.none": "{seat}沒有開槍", "exploded": "{seat}自爆",
    "took": "白狼王{seat}帶走{target}", "badge": "警徽從{a}交給{b}", "badge.torn": "{a}撕掉警徽",
    "idiot": "{seat}翻牌：白痴", "winner": "{camp}勝利", "not_over": "遊戲還沒有結束", "title": "狼人之夜 · 復盤",
    "nights": "經過", "votes": "投票（票型）", "cards": "身份牌", "why": "原因", "vote_picture": "誰投了誰",
    "voter": "投票人", "target": "被投", "alive_end": "存活到最後", "alive": "存活",
}


@dataclass
class Vote:
    day: int
    kind: str
    ballots: tuple[tuple[int, int], ...]
    tally: tuple[tuple[int, float], ...]
    outcome: str = ""
    title: str = ""


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
    nights: list[tuple[str, list[str]]] = field(default_factory=list)
    days: list[tuple[str, list[str]]] = field(default_factory=list)
    votes: list[Vote] = field(default_factory=list)
    deaths: list[Death] = field(default_factory=list)
    roles: dict[int, Role] = field(default_factory=dict)
    winner: Camp | None = None
    termination: str | None = None
    sheriff: int | None = None
    title: str = ""
    labels: dict[str, str] = field(default_factory=dict)

    def role_name(self, seat: int) -> str:
        role = self.roles.get(seat)
        return Script(self.lang).role(role.value) if role else "?"

    @property
    def result(self) -> str:
        if self.winner is None:
            return self.labels["not_over"]
        script = Script(self.lang)
        text = self.labels["winner"].format(camp=script.camp(self.winner.value))
        if not self.termination or not script.has("terminations", self.termination):
            return text
        why = script.line("terminations", self.termination).text.rstrip("。.")
        return f"{text}（{why}）"

    def alive_at_end(self) -> list[int]:
        dead = {d.seat for d in self.deaths}
        return [s for s in range(1, self.players + 1) if s not in dead]


class _Builder:
    def __init__(self, lang: str) -> None:
        self.script = Script(lang)
        self.L = LABELS[lang]
        self.out = Recap(lang, labels=self.L)
        self.night = self.day = 0
        self.vote: Vote | None = None

    def seat(self, n: int | None) -> str:
        return self.L["seat"].format(n=n)

    def seats(self, ns: Iterable[int]) -> str:
        return "、".join(self.seat(n) for n in ns)

    def night_note(self, text: str) -> None:
        self.out.nights[-1][1].append(text)

    def day_note(self, text: str) -> None:
        if not self.out.days or self.out.days[-1][0] != self.L["day"].format(n=self.script.number(self.day)):
            self.out.days.append((self.L["day"].format(n=self.script.number(self.day)), []))
        self.out.days[-1][1].append(text)

    def note(self, text: str) -> None:
        if self.out.nights and (self.day < self.night):
            self.night_note(text)
        else:
            self.day_note(text)

    def finish_vote(self, outcome: str) -> None:
        if self.vote is not None and not self.vote.outcome:
            self.vote.outcome = outcome

    def apply(self, e: ev.Event) -> None:
        L, s = self.L, self.seat
        if isinstance(e, ev.GameStarted):
            self.out.players = e.players
        elif isinstance(e, ev.NightFell):
            self.night = e.night
            self.out.nights.append((L["night"].format(n=self.script.number(e.night)), []))
        elif isinstance(e, ev.DayBroke):
            self.day = e.day
        elif isinstance(e, ev.RoleIdentified):
            for seat in e.seats:
                self.out.roles[seat] = e.role
        elif isinstance(e, ev.GuardProtected):
            self.night_note(L["guard"].format(seat=s(e.seat)) if e.seat else L["guard.none"])
        elif isinstance(e, ev.WolvesChoseVictim):
            self.night_note(L["kill"].format(seat=s(e.seat)) if e.seat else L["kill.none"])
        elif isinstance(e, ev.WitchSaved):
            self.night_note(L["save"].format(seat=s(e.seat)))
        elif isinstance(e, ev.WitchPoisoned):
            self.night_note(L["poison"].format(seat=s(e.seat)))
        elif isinstance(e, ev.SeerChecked):
            if e.result is None:
                self.night_note(L["check.unknown"].format(seat=s(e.seat)))
            else:
                self.night_note(L["check"].format(seat=s(e.seat), result=self.script.seer_result(e.result)))
        elif isinstance(e, ev.RavenCursed):
            self.night_note(L["curse"].format(seat=s(e.seat)) if e.seat else L["curse.none"])
        elif isinstance(e, ev.PiperCharmed):
            self.night_note(L["charm"].format(seats=self.seats(e.seats)))
        elif isinstance(e, ev.WolfBeautyCharmed):
            self.night_note(L["beauty"].format(seat=s(e.seat)) if e.seat else L["beauty.none"])
        elif isinstance(e, ev.LoversLinked):
            self.night_note(L["lovers"].format(seats=self.seats(e.seats)))
        elif isinstance(e, ev.ModelChosen):
            self.night_note(L["model"].format(seat=s(e.seat)))
        elif isinstance(e, ev.ThiefTookCard):
            if e.role is None:
                self.night_note(L["thief.kept"].format(seat=s(e.seat)))
            else:
                self.out.roles[e.seat] = e.role
                self.night_note(L["thief"].format(seat=s(e.seat), role=self.script.role(e.role.value)))
        elif isinstance(e, ev.WildChildTurned):
            self.note(L["wild"].format(seat=s(e.seat)))
        elif isinstance(e, ev.VotesCounted):
            title = L.get(e.kind, e.kind)
            self.vote = Vote(self.day, e.kind, e.ballots, e.tally, title=title)
            self.out.votes.append(self.vote)
        elif isinstance(e, ev.SheriffElected):
            self.out.sheriff = e.seat
            self.finish_vote(L["elected"].format(seat=s(e.seat)))
            self.day_note(L["elected"].format(seat=s(e.seat)))
        elif isinstance(e, ev.NoSheriff):
            self.finish_vote(L["no_sheriff"])
        elif isinstance(e, ev.VoteTied):
            self.finish_vote(L["tied"].format(seats=self.seats(e.seats)))
        elif isinstance(e, ev.PlayerExiled):
            self.finish_vote(L["exiled"].format(seat=s(e.seat)))
        elif isinstance(e, ev.NoExile):
            self.finish_vote(L["no_exile"])
        elif isinstance(e, ev.PlayerDied):
            text = L.get(f"cause.{e.cause}", e.cause)
            self.out.deaths.append(Death(e.seat, e.cause, str(e.when), text))
        elif isinstance(e, ev.HunterShot):
            self.note(L["shot"].format(seat=s(e.shooter), target=s(e.target)) if e.target
                      else L["shot.none"].format(seat=s(e.shooter)))
        elif isinstance(e, ev.SelfExploded):
            self.note(L["exploded"].format(seat=s(e.seat)))
        elif isinstance(e, ev.WolfKingTook) and e.target:
            self.note(L["took"].format(seat=s(e.king), target=s(e.target)))
        elif isinstance(e, ev.BadgePassed):
            self.out.sheriff = e.to_seat
            self.note(L["badge"].format(a=s(e.from_seat), b=s(e.to_seat)) if e.to_seat
                      else L["badge.torn"].format(a=s(e.from_seat)))
        elif isinstance(e, ev.IdiotRevealed):
            self.note(L["idiot"].format(seat=s(e.seat)))
        elif isinstance(e, ev.GameEnded):
            self.out.winner = e.winner
            self.out.termination = getattr(e, "termination", None)
            self.out.roles.update(dict(e.roles))


def build_recap(journal: Iterable[ev.Event], lang: str = "zh-Hans", title: str = "") -> Recap:
    """The recap of a game (finished or not) from its events."""
    b = _Builder(lang)
    for event in journal:
        b.apply(event)
    for _, notes in b.out.nights:
        if not notes:
            notes.append(b.L["nothing"])
    b.out.title = title or b.L["title"]
    return b.out


def when_label(recap: Recap, when: str) -> str:
    """"night2" → "第2夜", "day1" → "第1天"."""
    for key in ("night", "day"):
        if when.startswith(key) and when[len(key):].isdigit():
            return recap.labels[key].format(n=Script(recap.lang).number(int(when[len(key):])))
    return when
