"""The host's words asking the judge to explain a rule: "规则", "规则 女巫", "規則 警長" (docs/seed-coverage.md J1).

Not an answer to the prompt: a front end checks `rules_request` before parsing an answer, at any prompt,
and has the judge say `narrator.judge.rules_talk.rules_lines(setup, topic, lang)`.
"""

from __future__ import annotations

from narrator.engine.refusals import refuse
from narrator.engine.roles import role_named

from ._errors import NotUnderstood

KEYWORDS = ("规则", "規則")
TOPIC_WORDS: dict[str, str] = {
    **dict.fromkeys(("警长", "警長", "竞选", "競選", "上警", "警徽", "村长", "村長"), "sheriff"),
    **dict.fromkeys(("投票", "放逐", "平票", "PK", "pk", "票型"), "vote"),
    **dict.fromkeys(("遗言", "遺言"), "last_words"),
    **dict.fromkeys(("自爆",), "explode"),
    **dict.fromkeys(("发言", "發言", "顺序", "順序", "警左", "警右"), "speaking"),
    **dict.fromkeys(("胜利", "勝利", "获胜", "獲勝", "屠边", "屠邊", "屠城", "输赢", "輸贏"), "win"),
    **dict.fromkeys(("夜晚", "夜里", "夜裡", "天黑", "晚上"), "night"),
    **dict.fromkeys(("配置", "设置", "設置", "板子", "牌"), "setup"),
}
FILLERS = ("请", "請", "讲", "講", "讲一下", "講一下", "说", "說", "一下", "的", "是", "什么", "什麼", "问", "問",
           "法官")


def rules_request(text: str) -> str | None:
    """The topic the host asks about: "" for the whole paragraph, a role slug or a topic of rules_talk;
    None when the words are not a rules request. A request whose topic is not understood raises
    NotUnderstood (`words.rules_topic`)."""
    words = text.strip().replace("，", " ").replace(",", " ").replace("。", " ")
    at = next((words.find(k) for k in KEYWORDS if k in words), -1)
    if at < 0:
        return None
    rest = (words[:at] + " " + words[at + 2:]).split()
    topic = ""
    for word in rest:
        for filler in FILLERS:
            if word not in TOPIC_WORDS and role_named(word) is None:
                word = word.replace(filler, "") if len(word) > len(filler) else word
        if word in FILLERS or not word:
            continue
        found = TOPIC_WORDS.get(word) or (role.value if (role := role_named(word)) is not None else None)
        if found is None or (topic and found != topic):
            raise NotUnderstood(refuse("words.rules_topic"))
        topic = found
    return topic


RULE_SAYINGS: dict[str, str] = {
    "不要警长": "sheriff.false",
    "不竞选警长": "sheriff.false",
    "要警长": "sheriff.true",
    "警长两票": "sheriff_weight.2.0",
    "屠城": "win.city",
    "屠边": "win.side",
    "女巫能自救": "witch_self_save.always",
    "女巫不能自救": "witch_self_save.never",
    "女巫首夜可以自救": "witch_self_save.first_night",
    "不能自爆": "self_explode.false",
    "可以自爆": "self_explode.true",
    "翻牌": "reveal_on_death.role",
    "不翻牌": "reveal_on_death.none",
    "预言家看身份": "seer_sees.role",
    "同守同救不死": "guard_and_save.lives",
}
"""The short ways a host says a house rule (the lobby of `narrator serve`, "改规则"), each naming the line of
`house_rules:` in the judge's script that says it back in full; the lines themselves are understood too."""
