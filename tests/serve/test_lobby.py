"""The voice lobby of `narrator serve`, answered through the ear's Dialogue like a game prompt: boards for a
count (most played first, four at a time, 更多), rule phrases both ways from the judge's `house_rules`, what
it can take when it cannot take the words, contradictions named, 撤销 / 重复, the keypad, 关机 read back,
silence, and every line it says pre-rendered by `voices build`."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from listen.listenkit import Said, ScriptedEar, Step, voice

from narrator.common.clock import FakeClock
from narrator.common.zh import to_hans
from narrator.judge.script import LANGS, Script
from narrator.listen.dialogue import Dialogue, DialogueConfig
from narrator.listen.keypad import keys_to_words
from narrator.serve import words as w
from narrator.serve.lobby import Lobby, recap_lines
from narrator.session.session import Session
from narrator.sim.autohost import AutoHost, Deal


def talk(lobby: Lobby, script: list[Step], **cfg: object) -> tuple[list[str], Dialogue]:
    """Answer the lobby's questions with `script` until an action is taken or the words run out; every
    text said, in order."""
    clock = FakeClock()
    ear = ScriptedEar(script, clock)
    said = Said()
    dialogue = Dialogue(lobby, ear, said, clock, DialogueConfig(**cfg))  # type: ignore[arg-type]
    texts: list[str] = []
    while True:
        asked = lobby.take_lines()
        texts += [x.text for x in asked]
        if dialogue.answer(asked) is None:
            break
        texts += [x.text for x in said]
        said.clear()
        if lobby.action is not None:
            texts += [x.text for x in lobby.take_lines()]
            break
    texts += [x.text for x in said]
    return texts, dialogue


def test_a_twelve_player_game_with_changed_rules() -> None:
    lobby = Lobby(played=Counter({"12人狼美骑士": 3, "12人狼王守卫": 1}))
    lobby.ready()
    said, _ = talk(lobby, ["开始新游戏", "十二个", "更多", "撤销", "狼美骑士", "改规则", "女巫可以自救", "不要警长",
                           "屠城", "好了", "开始"])
    assert said[:4] == ["法官准备好了。要开始，请说：法官，开始新游戏。", "几个人玩？", "好的，十二人。",
                        "十二人可以玩：狼美骑士、狼王守卫、预女猎白、预女猎守。"]  # most played first, four
    assert "还有更多，请说“更多”。" in said
    assert "十二人可以玩：白狼王守卫、白狼王骑士、石像鬼守墓人、机械狼通灵师。" in said
    assert "已撤销上一个回答。" in said
    taken = [s for s in said if s.startswith("记下了")]
    assert taken == ["记下了：女巫可以自救。", "记下了：没有警长。", "记下了：屠城，好人全部出局狼人才获胜。"]
    planned = lobby.planned
    assert lobby.take_action() == "play" and planned is not None and planned.preset == "12人狼美骑士"
    # The changed rules are said once, by the game's opening (as `play` says them), not by the lobby too.
    assert not any("本局规则" in s or "本局房规" in s for s in said)
    opening = [x.text for x in Session(planned.setup, 1).take_lines() if "房规" in x.text or "本局规则" in x.text]
    assert opening == ["本局房规：屠城，好人全部出局狼人才获胜，女巫可以自救，没有警长。"
                       "其余按常规玩法，想听全部规则可以问法官。"]
    rules = planned.setup.rules
    assert (rules.witch_self_save, rules.sheriff, rules.win) == ("always", False, "city")


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_calls_the_judge_by_the_configured_name(lang: str) -> None:
    """--judge-name 小狼: the host is told to say "小狼，开始新游戏", which is what the ear takes."""
    lobby = Lobby(lang, judge_name="小狼")
    lobby.ready()
    said, _ = talk(lobby, ["小狼，开始新游戏", "关机", "确认"])
    assert [to_hans(x) for x in said] == ["小狼准备好了。要开始，请说：小狼，开始新游戏。", "几个人玩？",
                                          "关机，对吗？"]
    idle = Lobby(lang, judge_name="小狼")
    assert "小狼开始新游戏" in idle.prompt.info["words"] and "法官开始新游戏" not in idle.prompt.info["words"]
    assert to_hans(lobby.line("shutdown").text) == "小狼关机了，再见。"
    assert to_hans(Lobby(lang).line("ready").text) == "法官准备好了。要开始，请说：法官，开始新游戏。"


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_the_judge_says_is_heard_back_as_itself(lang: str) -> None:
    """Both ways: each house_rules line (with no number in it), in either script, reads as its own switch."""
    table = Script(lang).data["house_rules"]
    phrases = w.rule_phrases()
    keys = {p.key for p in phrases.values()}
    assert len(keys) > 100
    for key in keys:
        assert w.read_rule(table[key]) == next(p for p in phrases.values() if p.key == key), key
    for saying in ("女巫可以自救", "不要警长", "警长一票半", "屠城"):
        phrase = w.read_rule(saying)
        assert phrase is not None and phrase.key in table


def test_what_the_lobby_cannot_take_gets_what_it_can() -> None:
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["开始", "开始新游戏", "二十个", "九个", "狼美骑士", "预女猎", "改规则", "女巫会飞",
                           "不要警长", "警长两票", "女巫可以自救", "女巫不能自救"])
    assert "现在可以说：开始新游戏。" in said
    assert "可以玩八到十八人，请说几个人。" in said
    assert "九人没有这个板子。可以玩：预女猎、标准局、经典。" in said
    assert "这条规则我不认识。可以说，比如：女巫可以自救、没有警长、警长一票半、屠城，好人全部出局狼人才获胜。" in said
    assert "“警长一票算两票”和刚才的“没有警长”矛盾。要改，请先说撤销。" in said
    assert "“女巫不能自救”和刚才的“女巫可以自救”矛盾。要改，请先说撤销。" in said


def test_shutdown_is_read_back_and_volume_and_pace_are_actions() -> None:
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["大声点"])
    assert lobby.take_action() == "louder" and "好的，大声一点。" in said
    said, _ = talk(lobby, ["关机", "不对", "关机", "重复", "确认"])
    assert said.count("关机，对吗？") == 3  # asked, asked again, repeated
    assert "好，请重新回答。" in said
    assert lobby.take_action() == "shutdown"


def test_the_keypad_drives_every_question() -> None:
    lobby = Lobby()
    lobby.ready()
    lobby.take_lines()
    assert keys_to_words("1", lobby.prompt) == "开始新游戏"
    talk(lobby, [keys_to_words("1", lobby.prompt)])
    assert keys_to_words("12", lobby.prompt) == "十二个"
    talk(lobby, ["十二个"])
    assert keys_to_words("2", lobby.prompt) == "预女猎守" and keys_to_words("5", lobby.prompt) == "更多"
    talk(lobby, [keys_to_words("2", lobby.prompt)])
    assert keys_to_words("1", lobby.prompt) == "开始" and keys_to_words("2", lobby.prompt) == "改规则"
    assert keys_to_words("0", lobby.prompt) == "关机" and keys_to_words("*", lobby.prompt) == "确认"
    talk(lobby, [keys_to_words("1", lobby.prompt)])
    assert lobby.take_action() == "play" and lobby.planned is not None and lobby.planned.preset == "12人预女猎守"


def test_silence_asks_again_then_gives_up() -> None:
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["开始新游戏"])
    assert said[-1] == "几个人玩？"
    said, dialogue = talk(lobby, [None, None], ask_again_s=20.0, remind_s=20.0, give_up_after=1)
    assert said == ["几个人玩？"] and dialogue.gave_up  # asked again once, then given up on


def test_after_a_game_the_recap_in_short_and_what_next() -> None:
    lobby = Lobby()
    lobby.ready()
    talk(lobby, ["开始新游戏", "九个", "预女猎", "开始"])
    assert lobby.take_action() == "play" and lobby.planned is not None
    session = Session(lobby.planned.setup, 3)
    host = AutoHost(Deal.shuffle(lobby.planned.setup, random.Random(3)), random.Random(3))
    while session.prompt is not None:
        session.submit(host.answer(session.game, session.prompt))
    lobby.after_game(recap_lines(lobby.script, session))
    said, _ = talk(lobby, ["再说一遍复盘", "再来一局", "开始"])
    recap = [s for s in said if s.startswith("复盘：")]
    assert len(recap) == 2 and recap[0].count("号") == 9  # after the game, and again on request: every card
    assert "再来一局，换板子，再说一遍复盘，还是结束？" in said
    assert lobby.take_action() == "play" and lobby.planned.preset == "9人预女猎"


@pytest.mark.parametrize("lang", LANGS)
def test_every_lobby_line_is_said_from_prerendered_pieces(lang: str) -> None:
    script = Script(lang)
    built = set(script.fixed_pieces())
    lobby = Lobby(lang)
    lobby.ready()
    said, _ = talk(lobby, ["开始新游戏", "九个", "乱说", "预女猎", "改规则", "不要警长", "警长两票", "乱说",
                           "屠城", "好了", "换板子", "更多", "经典", "大声点"])
    assert any("九人可以玩" in to_hans(t) for t in said) and len(said) > 15
    for line in [*lobby.take_lines(), *lobby_lines(lobby)]:
        assert set(line.pieces) <= built, (line.key, set(line.pieces) - built)


def lobby_lines(lobby: Lobby) -> list:
    """Every line the lobby can say at each of its questions and choices (its read-backs and refusals)."""
    from narrator.serve.lobby import Step, _refuse

    out = []
    for players in w.counts():
        lobby.step = Step("board", players=players)
        out += lobby.question()
        for board in w.boards_for(players):
            lobby.step = Step("ready", players=players, board=board)
            out += lobby.question()
        out.append(lobby.refusal_line(None, _refuse("no_board", n=players, boards=lobby._page_names())))
    for kind in ("recover", "idle", "players", "rules", "after"):
        lobby.step = Step(kind)
        lobby._recover_where = "第一夜"
        if kind != "recover":
            out += lobby.question()
            out.append(lobby.refusal_line(None, _refuse("say", words=tuple(lobby._said_commands()))))
    for phrase in w.rule_phrases().values():
        out.append(lobby.line("rule.said", rule=lobby._rule_text(phrase.key)))
    out.append(lobby.refusal_line(None, _refuse("no_count", low=8, high=18)))
    for key in ("ready", "abandoned", "ended", "silence", "shutdown", "setting.louder", "setting.softer",
                "setting.slower", "setting.faster"):
        out.append(lobby.line(key))
    return out


def test_words_that_are_no_count_at_how_many_players_get_the_counts() -> None:
    """Not "现在可以说：。" (the players question has no command words to list): the counts it can take."""
    from narrator.serve.lobby import Step

    lobby = Lobby()
    lobby.go(Step("players"))
    said, _ = talk(lobby, ["乱说", "九个"])
    refused = said[1]
    assert "请说几个人" in refused and "八" in refused and "十八" in refused, said
    assert lobby.step.kind == "board" and lobby.step.players == 9


def test_every_choice_is_read_back_as_what_was_understood() -> None:
    """With every answer read back (`--read-back always`), each says what the lobby understood — never an empty
    "，对吗？" (the read-back a host cannot check, answered 不对 for ever)."""
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["开始新游戏", "确认", "十二个", "确认", "更多", "确认", "白狼王守卫", "确认", "改规则",
                           "确认", "不要警长", "确认", "好了", "确认", "大声点", "确认"], read_back="always")
    asked = [s for s in said if s.endswith("对吗？")]
    assert asked == ["开始新游戏，对吗？", "十二个人，对吗？", "更多，对吗？", "白狼王守卫，对吗？", "改规则，对吗？",
                     "没有警长，对吗？", "好了，对吗？", "大声点，对吗？"]
    assert lobby.take_action() == "louder"


def test_a_spoken_count_is_read_back_and_corrected_by_saying_the_right_one() -> None:
    """A count heard through the recogniser is read back whatever its scores (the stand-in reads 十八个 as 八个
    with confidence, as it does seats: docs/benchmarks.md); the right count said at the read-back is read back
    in its turn, and 对 takes it. A typed or keyed count is taken at once; an unsure spoken 开始新游戏 (two
    readings meaning different things, close) is read back too: the lobby doubts as a game does."""
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, [voice(("开始新游戏", 50.0), ("关机", 49.0)), voice(("确认", 60.0)),
                           voice(("十一个", 50.0)), voice(("十二个", 50.0)), voice(("确认", 60.0)), "预女猎白"])
    asked = [s for s in said if s.endswith("对吗？")]
    assert asked == ["开始新游戏，对吗？", "十一个人，对吗？", "十二个人，对吗？"], said
    assert "好的，十二人。" in said and lobby.step.kind == "ready" and lobby.step.players == 12
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, [voice(("开始新游戏", 50.0)), "十二个", "预女猎白"])
    assert not [s for s in said if s.endswith("对吗？")], said  # sure, or typed: taken at once
    assert lobby.step.kind == "ready" and lobby.step.players == 12


@pytest.mark.parametrize(("words", "action"), [("不", "abandon"), ("不对", "abandon"), ("不要", "abandon"),
                                               ("继续", "resume"), ("对", "resume"), ("确认", "resume"),
                                               ("好的", "resume")])
def test_the_recovery_question_takes_yes_and_no(words: str, action: str) -> None:
    """继续吗？ is a yes/no question: 不 / 不对 drop the game and 对 / 确认 continue it — at once, not "nothing
    to confirm"."""
    lobby = Lobby()
    lobby.recover("第一夜")
    said, _ = talk(lobby, [words])
    assert lobby.take_action() == action, said
    assert "现在没有要确认的回答。" not in said


def test_another_deal_after_a_resumed_game_is_the_games_own() -> None:
    """After a game the lobby did not set up (resumed at power-on), 再来一局 deals that game's board and rule
    changes; a game of no board of the lobby's asks for the board."""
    from narrator.judge.presets import make_setup

    lobby = Lobby()
    lobby.recover("第一夜")
    lobby.take_lines()
    lobby.after_game([], "9人预女猎", make_setup(preset="9人预女猎", rules={"sheriff": False}))
    talk(lobby, ["再来一局", "开始"])
    planned = lobby.planned
    assert lobby.take_action() == "play" and planned is not None and planned.preset == "9人预女猎"
    assert [r.key for r in planned.rules] == ["sheriff.false"] and not planned.setup.rules.sheriff
    lobby.after_game([], "自定义", make_setup(roles={"狼人": 3, "村民": 3, "预言家": 1, "女巫": 1, "猎人": 1}))
    said, _ = talk(lobby, ["好了", "再来一局", "经典", "开始"])
    assert "九人可以玩：预女猎、标准局、经典。" in said
    assert lobby.take_action() == "play" and lobby.planned is not None and lobby.planned.preset.startswith("经典")


def test_rules_are_explained_at_every_lobby_question() -> None:
    """规则 … as in a game, at every question: the board being chosen with the changes said so far (before a
    board: the count's first board, else the usual twelve); 改规则 is still the lobby's command."""
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["规则 警长", "开始新游戏", "规则", "九个", "规则 女巫", "预女猎", "改规则", "不要警长",
                           "规则 警长", "规则 飞机", "好了", "开始"])
    sheriff = [s for s in said if s.startswith("本局规则：") and "警长" in s.split("，")[0]]
    assert sheriff[0].startswith("本局规则：有警长") and sheriff[-1].startswith("本局规则：没有警长"), said
    assert "本局规则：女巫不能自救，女巫一晚只能用一瓶药，女巫有一瓶解药和一瓶毒药。" in said  # the nine's board
    assert any(s.startswith("没听懂要讲哪条规则") for s in said)  # 规则 飞机
    assert lobby.take_action() == "play" and lobby.planned is not None and not lobby.planned.setup.rules.sheriff


def test_repeat_says_the_question_not_the_refusal() -> None:
    """重复 after a refusal at the deal says the cards again — the last thing the lobby said of its own."""
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["开始新游戏", "十二个", "预女猎白", "乱说", "重复", "关机"])
    refused = said.index("现在可以说：开始、改规则、换板子。")
    asked = said[refused - 3:refused]
    assert asked[1].startswith("本局十二人：") and said[refused + 1:refused + 4] == asked, said


def test_a_new_board_may_have_another_count() -> None:
    """换板子, then "九个" (typed or keyed: counts are not offered to the recogniser at the board question, where
    their words soaked up the boards') or 换人数: the boards for nine, not "十二人没有这个板子"."""
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["开始新游戏", "十二个", "预女猎白", "换板子", "九个", "预女猎", "开始"])
    assert "九人可以玩：预女猎、标准局、经典。" in said and "十二人没有这个板子" not in " ".join(said)
    assert lobby.take_action() == "play" and lobby.planned is not None and lobby.planned.preset == "9人预女猎"
    said, _ = talk(lobby, ["换板子", "换人数", "十二个", "狼王守卫", "开始"])
    assert said[:2] == ["九人可以玩：预女猎、标准局、经典。", "几个人玩？"], said
    assert lobby.take_action() == "play" and lobby.planned is not None and lobby.planned.preset == "12人狼王守卫"
    assert "九个" not in lobby.prompt.info["words"] and keys_to_words("6", lobby.prompt) in ("", "换人数")


@pytest.mark.parametrize(("words", "action"), [("声音大一点", "louder"), ("大一点", "louder"), ("听不清", "louder"),
                                               ("小一点", "softer"), ("声音小一点", "softer"), ("慢点", "slower"),
                                               ("说慢一点", "slower"), ("太慢了", "faster"), ("快一些", "faster")])
def test_louder_and_slower_in_the_words_people_use(words: str, action: str) -> None:
    lobby = Lobby()
    lobby.ready()
    talk(lobby, ["开始新游戏", words])
    assert lobby.take_action() == action


def test_what_can_be_said_where_it_stands_and_the_last_recap() -> None:
    """你能做什么 names what this question takes and what is heard anywhere; 现在在干什么 says what the table
    chose (no card: nothing is dealt yet); 上一局复盘 says the last recap (or that there is none)."""
    lobby = Lobby()
    lobby.ready()
    said, _ = talk(lobby, ["你能做什么", "上一局复盘", "开始新游戏", "你能做什么", "十二个", "你能做什么",
                           "预女猎白", "改规则", "不要警长", "现在在干什么"])
    assert "现在可以说：开始新游戏。" in said and "还没有玩完过一局，没有复盘。" in said
    assert any(s.startswith("随时都可以说：重复") for s in said)
    assert "现在请说几个人玩，八到十八人都可以，比如：十二个。" in said
    assert "现在请说板子的名字：预女猎白、预女猎守、白狼王守卫、狼王守卫、更多。要换人数请说“换人数”。" in said
    at = said.index("准备开始：十二人，预女猎白。")
    assert said[at + 1] == "改过的规则：没有警长。" and said[at + 2].startswith("请说要改的规则")
    lobby.recap = [lobby.line("ended")]
    said, _ = talk(lobby, ["上一局复盘"])
    assert said[0] == "好的，这次就到这里。"


def test_where_an_unfinished_game_stopped_is_the_hosts_alone() -> None:
    """现在在干什么 at the recovery question: the table hears that a game is unfinished, never where it stopped
    (which step a game stopped at can be a secret)."""
    lobby = Lobby()
    lobby.recover("第三天白天，正在猎人开枪")
    said, _ = talk(lobby, ["现在在干什么", "不"])
    public = [x for x in said if "猎人" in x]
    assert public and all(x.startswith("上一局停在") for x in public)
    assert all(line.to == "host" for line in [lobby.line("recover.where", where="x")])


def test_the_kept_state_comes_back_and_a_damaged_one_is_nothing_to_take_up() -> None:
    """lobby.json after a power cut: the lobby's own state (as JSON gives it back) is taken up at its question;
    anything else — not an object, a key missing, a value of the wrong type — is nothing to take up (the
    ready line instead), never a traceback."""
    import json

    lobby = Lobby()
    state = {"kind": "board", "players": 12, "board": None, "page": 0, "rules": []}
    assert lobby.restore(json.loads(json.dumps(state)))
    assert lobby.state() == state
    assert lobby.take_lines()[0].text == "法官回来了，接着刚才的。"
    for damaged in (None, [], "board", {**state, "players": "12"}, {**state, "page": None}, {**state, "kind": 5},
                    {**state, "rules": [3]}, {k: v for k, v in state.items() if k != "rules"}):
        assert not Lobby().restore(damaged), damaged
