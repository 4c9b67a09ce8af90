"""One prompt, one question: the table hears a step's next question only after the host answered the one
before it, and hears it every night, whatever is left and whoever is alive (issue 6, item 6)."""

from __future__ import annotations

from pathlib import Path

from narrator.judge.lines import Line
from narrator.sim.scenario import Run, Scenario

SCENARIO = Path(__file__).parent / "scenarios" / "099_seer_and_witch_one_question_at_a_time.yaml"


def nights(lines: list[Line]) -> list[list[tuple[str, str]]]:
    """(to, key of a public line or text of a host line) of every line from 天黑 to 天亮, night by night."""
    out: list[list[tuple[str, str]]] = []
    inside = False
    for line in lines:
        if line.key.startswith("events.night_fell"):
            out.append([])
            inside = True
        if inside:
            out[-1].append((line.to, line.key if line.to == "all" else line.text))
        if line.key == "events.day_broke":
            inside = False
    return out


def position(night: list[tuple[str, str]], wanted: str) -> int:
    return next(i for i, (_, said) in enumerate(night) if said == wanted or wanted in said)


def test_each_question_waits_for_the_answer_before_it() -> None:
    out = Run(Scenario.load(SCENARIO)).execute()
    assert out.code == 0, out.message
    first, second, third = nights(out.lines)
    # Night 1: the antidote question, the host's answer, then the poison question; the seer points first.
    order = ["steps.witch.ask_first", "女巫救不救", "steps.witch.poison", "steps.witch.close",
             "steps.seer.ask_first", "预言家查验了谁", "请向预言家示意：一号是狼人", "steps.seer.result"]
    assert [position(first, x) for x in order] == sorted(position(first, x) for x in order)
    # Night 2: no antidote left, so nothing is asked between the two questions, but both are said.
    order = ["steps.witch.ask", "steps.witch.poison", "女巫毒谁", "steps.seer.ask", "预言家查验了谁",
             "steps.seer.result"]
    assert [position(second, x) for x in order] == sorted(position(second, x) for x in order)
    assert not any("女巫救不救" in said for _, said in second)
    # Night 3: the seer is dead; his question and his gesture are still said, one after the other.
    public = [said for to, said in third if to == "all"]
    assert public[public.index("steps.seer.ask") + 1] == "steps.seer.result"
    assert not any("预言家查验了谁" in said for _, said in third)


def test_public_night_lines_are_the_same_every_later_night() -> None:
    out = Run(Scenario.load(SCENARIO)).execute()
    _, second, third = nights(out.lines)
    assert [s for to, s in second if to == "all"] == [s for to, s in third if to == "all"]


def test_a_wolf_the_host_must_tell_apart_shows_himself_at_the_tables_cue() -> None:
    """Every board with a wolf card the host must tell apart from the plain wolves (白狼王, 狼美人, 狼王, 血月使徒,
    恶灵骑士; issue 29, item 5): on night 1, after "狼人请睁眼。", the table hears "<card>请示意身份。" — before
    the host is asked for any wolf's seat, so he can see who holds it — in every game of the board alike, on
    night 1 only. Played by random hosts, two deals each."""
    import random

    from narrator.engine.roles import told_apart
    from narrator.judge.presets import make_setup, preset_names
    from narrator.session.session import Session
    from narrator.sim.autohost import AutoHost, Deal

    boards = [name for name in preset_names() if told_apart(make_setup(name).deck, make_setup(name).rules.demon)]
    assert {"12人白狼王守卫", "12人白狼王骑士", "12人狼美骑士", "12人狼王守卫"} <= set(boards)
    for name in boards:
        setup = make_setup(name)
        cues = [f"{role.zh}请示意身份。" for role in told_apart(setup.deck, setup.rules.demon)]
        firsts: list[list[str]] = []
        for seed in (1, 2):
            rng = random.Random(seed)
            host, session = AutoHost(Deal.shuffle(setup, rng), rng), Session(setup, seed)
            said: list[Line] = []
            while session.prompt is not None and session.game.state.day < 1:
                said += session.take_lines()
                session.submit(host.answer(session.game, session.prompt))
            table = [line.text for line in said if line.to == "all"]
            opened = table.index("狼人请睁眼。")
            assert table[opened + 1: opened + 1 + len(cues)] == cues, (name, table[opened: opened + 4])
            asked = next(i for i, line in enumerate(said) if line.to == "host" and "座位号" in line.text
                         and said.index(next(x for x in said if x.text == "狼人请睁眼。")) < i)
            assert said.index(next(x for x in said if x.text == cues[-1])) < asked
            firsts.append(table)
        assert firsts[0] == firsts[1], f"{name}: night 1's table words depend on the deal"


def test_a_pack_card_is_shown_and_identified_once_on_night_1() -> None:
    """The 狼美人 is shown at the wolves' cue ("狼美人请示意身份。") and identified with the wolves; her own step
    on night 1 then asks only for her charm ("你今晚要魅惑谁？"), not for her sign a second time, and counts no
    identification word (no 过 asked for one that never comes). A night order that calls her before the wolves
    shows and identifies her in her own step, and the wolves' step does not show her again."""
    import random

    from narrator.engine.rules import MODERN_NIGHT_ORDER
    from narrator.judge.host_words import ACK
    from narrator.judge.presets import make_setup
    from narrator.session.session import Session
    from narrator.sim.autohost import AutoHost, Deal

    early = [s for s in MODERN_NIGHT_ORDER if s != "wolf_beauty"]
    early.insert(early.index("wolves"), "wolf_beauty")
    for rules in ({}, {"night_order": ",".join(early)}):
        setup = make_setup("12人狼美骑士", rules=rules)
        rng = random.Random(3)
        host, session = AutoHost(Deal.shuffle(setup, rng), rng), Session(setup, 3)
        session.game.acks = True  # the host says 过 where a step's words were not all asked, as in play
        said: list[Line] = []
        acks_in_her_step = 0
        while session.prompt is not None and session.game.state.day < 1:
            said += session.take_lines()
            table = [line.key for line in said if line.to == "all"]
            inside = "steps.wolf_beauty.open" in table and "steps.wolf_beauty.close" not in table
            acks_in_her_step += inside and session.prompt.kind == ACK
            session.submit(host.answer(session.game, session.prompt))
        texts = [line.text for line in said if line.to == "all"]
        assert sum("狼美人请示意身份" in text for text in texts) == 1, (rules, texts)
        assert acks_in_her_step == 0, rules
        shown_by_wolves = "狼美人请示意身份。" in texts
        assert shown_by_wolves == (rules == {}), texts
