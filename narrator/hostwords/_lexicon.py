"""The words each answer type knows, in simplified script, mapped to what they mean to its reader.

One lexicon per answer type rather than one shared list, because the same word means different things to
different prompts: 不用 is "nobody" to a seat prompt and "no" to a yes/no prompt; 好了 ends a speech but 好
alone is "yes". `phrases()` builds the recogniser's word list from these same tables, so what Vosk is
allowed to hear and what the parser understands cannot drift apart.

Tags: "filler" words carry no meaning and are never offered to the recogniser; any other tag is a word the
host may really say and is offered.
"""

from __future__ import annotations

from narrator.engine.roles import ALIASES, Role

from ._text import to_simplified

Lexicon = dict[str, str]


def _lex(*groups: tuple[str, str]) -> Lexicon:
    out: Lexicon = {}
    for tag, words in groups:
        for word in words.split():
            out[word] = tag
    return out


# Interjections and particles the host sprinkles anywhere, and words that only join a list.
_FILLER = (
    "filler",
    "的 了 吧 啊 呀 呢 啦 嘛 嗯 呃 哦 额 就 请 那个 然后 和 跟 与 及 以及 还有 或 或者 号 位 第 玩家",
)

SEATS = _lex(
    (
        "nobody",
        "空刀 空守 空枪 空验 不用 没有 没有人 没人 无人 谁都不 都不"
        " 不开枪 不开 放弃 不守 不刀 不杀 不验 不查 不毒 不带 不带人 不选 不连"
        " 撕警徽 撕掉警徽 撕掉 撕 不给 不传"
        # --- modern roles: 魔术师 不换, 梦魇 不恐惧, 猎魔人 不猎, 机械狼 不学, 警长 不放逐 ---
        " 不换 不交换 不恐惧 不吓 不猎 不狩猎 不猎杀 不学 不学习 不放逐 不发动 不发动技能"
        # --- 过 skips a step (the guard's 过: 空守); 不退水 at the sheriff's withdrawals ---
        " 过 过了 跳过 不退水 不退 都不退",
    ),
    ("verb", "刀 杀 验 查 查验 守 守护 毒 带走 开枪 开枪带走 选 选择 连 是 给 传给 交给 移交 移交给 警徽"
             " 换 交换 恐惧 吓 梦 摄梦 入梦 猎 狩猎 猎杀 学 学习 复制 放逐 决定 发动技能"),
    # said after the seats ("十号退水"); every other verb comes before them ("刀七号")
    ("verb_after", "退水 退选 退出竞选"),
    _FILLER,
)

YESNO = _lex(
    (
        "yes",
        "救 救人 要救 用 用药 用解药 使用 翻牌 翻 要 是 是的 好 好的 可以 对 对的 行 确认 确定 同意 发动 发动技能",
    ),
    (
        "no",
        "不救 不救了 不救人 不要救 不用救 不用 不用了 不用药 不用解药 不使用 不翻 不翻牌 不要翻"
        " 不要 不是 否 不 不行 不可以 不对 不同意 不发动 不需要 取消 算了 没有 不发动技能",
    ),
    _FILLER,
)

PASS = _lex(
    (
        "pass",
        "过 过了 我过 好了 结束 结束了 说完了 说完 我说完了 讲完了 完了 完毕"
        " 发言结束 发言完毕 发言完了 下一位 下一个 没了",
    ),
    _FILLER,
)

# --- modern roles: the knight's duel, "五号决斗三号" (his seat first) ---
DUEL = _lex(
    ("duel", "决斗 决斗了 发起决斗 对决 要决斗 翻牌决斗 发动技能决斗"),
    ("filler", "骑士 翻牌 发动技能 和"),
    _FILLER,
)

SELF_EXPLODE = _lex(("explode", "自爆 自爆了 自曝 爆了"), ("filler", "狼人 狼 选择"), _FILLER)

BALLOTS = _lex(
    ("vote", "投 投给 投票给 投了 投的 投票 票给 票"),
    ("abstain", "弃票 弃权 弃 不投 不投票 没投"),
    ("none", "全部弃票 都弃票 全员弃票 全弃票 都弃权 全部弃权 没有人投票 没人投票"),
    _FILLER,
)

VOTE_RESULT = _lex(
    (
        "out",
        "出局 出局了 当选 当选了 当选警长 拿到警徽 放逐 被放逐 放逐了"
        " 被投出局 投出局 票出 被票出 淘汰 被淘汰 出去",
    ),
    ("tie", "平票 平票了 打平 同票 平 pk"),
    (
        "none",
        "没有人出局 没人出局 无人出局 没有出局 平安日 流局 没有人当选 没人当选 无人当选"
        " 警徽流失 没有 没有人 没人 无人",
    ),
    ("filler", "被"),
    _FILLER,
)

# Every card name a host may say, in the script the readers see; ALIASES holds both scripts, which fold here.
# 丘位元 is Taiwan's name for Cupid; it belongs in ALIASES, which this module may not change.
ROLE_WORDS: dict[str, Role] = {to_simplified(name): role for name, role in ALIASES.items()}
ROLE_WORDS["丘位元"] = Role.CUPID
_ROLE_TAGS = {word: "role:" + role.value for word, role in ROLE_WORDS.items()}

CARDS = _ROLE_TAGS | _lex(
    ("count:1", "一张 一个"),
    ("count:2", "两张 二张 两个"),
    ("filler", "是 都 都是 分别是 牌 底牌 身份 张"),
    _FILLER,
)

TAKE_CARD = _ROLE_TAGS | _lex(
    ("keep", "不换 不换了 不用换 不拿 不要 都不要 不选 保留 保持 留着 保留原来的 要自己的 原来的"),
    ("take", "拿 要 选 换 换成 拿走 选择 换牌"),
    ("filler", "那张 这张 张 牌 身份"),
    _FILLER,
)

DIRECTION = _lex(
    ("left", "警左 左 左边 左手 左手边 向左 往左 从左 从左边 警长左手边 死左 死者左边"),
    ("right", "警右 右 右边 右手 右手边 向右 往右 从右 从右边 警长右手边 死右 死者右边"),
    ("filler", "警长 从 开始 发言 先 边 手"),
    _FILLER,
)

WITHDRAW = ("退水", "退选", "退出竞选")
EXPLODE = ("自爆", "自曝")  # a self-explosion said where none is taken: refused with its own reason
"""A candidate's withdrawal: said where the judge does not ask for it (during the speeches), it gets the hint
that withdrawals come after the speeches."""
