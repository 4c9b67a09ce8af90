"""The message audit: every line the product can say or print, by audience (docs/architecture.md
"Languages"), and the table of them all in docs/messages.md (`python tests/test_messages.py --write`
rewrites it; a test fails when it is out of date).

* **table** — the judge's script lines said to everyone; **host** — said to the host alone (earpiece or
  console); **host/table** — the refusals and the dialogue's own lines, routed as they are said (to the host
  at night or when secret, to the table by day when the table heard the answer); the console's own words.
  All in the game's script: zh-Hans or zh-Hant, each line wholly in its script.
* **operator** — `--help` of every command and every message the code prints or raises in English: English,
  the game's words only as names or quoted.

Checked: the right language and script; no internal id (a prompt kind, a switch name, a Python repr) in a
game line; the same messages with the same placeholders in both scripts; no placeholder left unfilled and
no number a person would not say in the lines of real games (`line_faults`: tests/test_scenarios.py plays
every scenario file through it in both scripts) and in the
house rules read at both ends of every number rule's range; no table line naming a role except where the
rules make it public (PUBLIC_ROLES below, each with its reason).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import typer
import yaml

from narrator.cli.main import app
from narrator.common.zh import to_script
from narrator.engine.roles import Role
from narrator.engine.rules import NUMBER_RANGES, Rules
from narrator.judge.lines import Line
from narrator.judge.presets import make_setup, preset_names
from narrator.judge.rules_talk import phrase
from narrator.judge.script import LANGS, Script
from narrator.play.console import console_words

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "messages.md"
SCRIPTS = {lang: ROOT / "narrator" / "data" / f"script.{lang}.yaml" for lang in LANGS}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
CHINESE_MARKS = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff01-\uff5e]")
MARKUP = re.compile(r"\[/?[a-z ]*\]")
"""rich's console markup ([dim], [bold magenta], [/]): not words."""



QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|'[^'\n]*'|“[^”\n]*”|「[^」\n]*」")
GAME_NAMES = sorted({*(n for lang in LANGS for n in (*map(lambda p: to_script(p, lang), preset_names()),
                                                      *(to_script(r.zh, lang) for r in Role))), "简体", "繁體"},
                    key=len, reverse=True)


def chinese_outside_names_and_quotes(text: str) -> list[str]:
    """The runs of Chinese in an English `text` that are neither a game name (preset, card, script) nor
    quoted — the rule of tests/play/test_one_language.py, for every message rather than some commands'."""
    text = QUOTED.sub(" ", text)
    for name in GAME_NAMES:
        text = text.replace(name, " ")
    return re.findall(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff01-\uff5e]+", text)

# Routed as they are said: to the host at night or at a secret prompt, to the table by day (Session.refusal_line,
# the dialogue's own lines).
ROUTED = ("refusals", "listening")
# Said to the table (the rules read at the start and on request, the New Moon's cards, a board's warnings).
SPOKEN_SECTIONS = ("house_rules", "rules_topics", "new_moon_cards", "warnings")
# Word lists the host says (start words), not messages.
NOT_MESSAGES = {"play.start_words"}
# Latin words a game line may hold: PK (said so at Chinese tables), the command the lobby tells the host to
# run, the web address it names.
LATIN_OK = {"PK", "narrator", "setup"}

PUBLIC_ROLES: dict[str, str] = {
    "events.game_started": "the game's name, 狼人之夜",
    "events.player_died.role": "house rule reveal_on_death: role makes the dead's card public",
    "events.idiot_revealed": "the idiot turns his card over in front of everyone",
    "events.scapegoat_chose_voters": "the scapegoat took the tie's place in public",
    "prompts.scapegoat.voters": "the scapegoat took the tie's place in public",
    "events.knight_dueled": "the knight turns his card over to duel",
    "events.knight_dueled.good": "the knight turns his card over to duel",
    "events.self_exploded.blood_moon": "the 血月使徒 shows his card as he explodes",
    "events.game_ended.role": "the game is over: every card is shown",
    "events.game_ended.allies": "the game is over: every card is shown",
    "terminations.": "why the game ended: the camps, once it is over",
    "warnings.": "about the board, whose cards are public",
    "new_moon_cards.": "the New Moon's event cards are read to everyone",
    "house_rules.": "the house rules are read to everyone",
    "rules_topics.": "the rules of every role are public",
    "lobby.rules": "an example of the house rules the lobby takes",
}
"""The table lines that may name a role (or say {role}), keyed by message key or a prefix ending in "."."""


@dataclass(frozen=True)
class Message:
    key: str
    audience: str
    text: dict[str, str]
    """Language → text (the game's lines in both scripts; an operator's message under "en")."""


def _leaves(node: object, path: tuple[str, ...]) -> Iterator[tuple[str, dict[str, object]]]:
    if isinstance(node, str):
        yield ".".join(path), {"text": node}
    elif isinstance(node, dict) and isinstance(node.get("text"), str):
        yield ".".join(path), node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, str(key)))


def script_messages() -> list[Message]:
    """Every line of the judge's script (the `names` section holds fragments: cards, camps, answer kinds)."""
    data = {lang: yaml.safe_load(path.read_text(encoding="utf-8")) for lang, path in SCRIPTS.items()}
    hans = dict(_leaves({k: v for k, v in data["zh-Hans"].items() if k != "names"}, ()))
    hant = dict(_leaves({k: v for k, v in data["zh-Hant"].items() if k != "names"}, ()))
    out = []
    for key, entry in hans.items():
        if key in NOT_MESSAGES:
            continue
        section = key.split(".")[0]
        if section in ROUTED:
            audience = "host/table"
        elif section in SPOKEN_SECTIONS:
            audience = "table"
        else:
            audience = "host" if entry.get("to") == "host" else "table"
        other = hant.get(key, {})
        out.append(Message(key, audience, {"zh-Hans": str(entry["text"]), "zh-Hant": str(other.get("text", ""))}))
    return out


def console_messages() -> list[Message]:
    words = {lang: console_words(lang) for lang in LANGS}
    return [Message(f"console.{key}", "host", {lang: words[lang][key] for lang in LANGS}) for key in words["zh-Hans"]]


def help_messages() -> list[Message]:
    """Every command's help and its options' helps (what `--help` prints), in English."""
    out: list[Message] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        name = " ".join(("narrator", *path))
        out.append(Message(name, "operator", {"en": " ".join(str(getattr(command, "help", "") or "").split())}))
        for param in getattr(command, "params", []):
            text = " ".join(str(getattr(param, "help", "") or "").split())
            if text:
                out.append(Message(f"{name} {'/'.join(param.opts)}", "operator", {"en": text}))
        for sub_name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, (*path, sub_name))

    walk(typer.main.get_command(app), ())
    return out


PRINTERS = {"fail", "echo", "_fail", "print", "alert", "warn", "note", "say"}
"""Calls whose first argument is a message printed to someone."""


def _said(node: ast.expr) -> str | None:
    """A string constant or f-string as its message reads, values as {…}; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _said(node.left), _said(node.right)
        return None if left is None or right is None else left + right
    return None


def _with_owner(tree: ast.Module) -> list[tuple[ast.AST, str]]:
    """Every node of `tree` with the qualified name of the class/function it is written in ("" at module
    level): a message is found by where it is written, not by a line number every edit above it would move
    (which made docs/messages.md stale on every change to a file with a message in it)."""
    out: list[tuple[ast.AST, str]] = []

    def walk(node: ast.AST, owner: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = owner
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{owner}.{child.name}" if owner else child.name
            out.append((child, owner))
            walk(child, name)

    walk(tree, "")
    return out


def code_messages() -> list[Message]:
    """What the code prints or raises in its own words (not the script's): every string passed to a printer
    (fail, typer.echo, print, a console's print) or to an exception raised, with its file and the function
    it is in. Chinese ones are the host's (the game's saved games, resume's notes, set-up errors of the rule
    book), the others the operator's."""
    out: list[Message] = []
    for path in sorted((ROOT / "narrator").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, owner in _with_owner(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in PRINTERS and not re.search(r"(Error|Problem|NotFound|CannotResume|Locked|Exit)$", name):
                continue
            text = _said(node.args[0])
            if text is None or not text.strip() or not re.search(r"[A-Za-z\u3400-\u9fff]", text):
                continue
            where = f"{path.relative_to(ROOT)}:{owner}" if owner else str(path.relative_to(ROOT))
            if CHINESE_MARKS.search(chinese_free(MARKUP.sub("", text))):
                out.append(Message(where, "host", {"zh-Hans": text}))
            else:
                out.append(Message(where, "operator", {"en": text}))
    return out


def chinese_free(text: str) -> str:
    """`text` less its game names and quotes: what must be English in an operator's message."""
    return " ".join(chinese_outside_names_and_quotes(text))


def all_messages() -> list[Message]:
    return [*script_messages(), *console_messages(), *code_messages(), *help_messages()]


# ---- the game's lines --------------------------------------------------------------------------------------


def test_both_scripts_hold_the_same_messages_with_the_same_placeholders() -> None:
    data = {lang: dict(_leaves(yaml.safe_load(path.read_text(encoding="utf-8")), ())) for lang, path in SCRIPTS.items()}
    assert set(data["zh-Hans"]) == set(data["zh-Hant"])
    for key, entry in data["zh-Hans"].items():
        hans, hant = str(entry["text"]), str(data["zh-Hant"][key]["text"])
        assert sorted(PLACEHOLDER.findall(hans)) == sorted(PLACEHOLDER.findall(hant)), key
        assert entry.get("to", "all") == data["zh-Hant"][key].get("to", "all"), key


def other_script(text: str, lang: str) -> list[str]:
    """The characters of `text` a reader of `lang` would not write: in 简体 a traditional form whose simplified
    form differs (號), in 繁體 a simplified one (号) — not a variant both write (癡 and 痴)."""
    other = "zh-Hans" if lang == "zh-Hant" else "zh-Hant"
    own = to_script(text, lang)  # whole: OpenCC reads words (什么 stays, 活着 becomes 活著)
    changed = [ch for ch, to in zip(text, own, strict=False) if ch != to] if len(own) == len(text) else list(text)
    return sorted({ch for ch in changed if CJK.match(ch) and to_script(ch, other) == ch and ch not in MISREAD})


MISREAD = {"只"}
"""Characters OpenCC converts where a reader would not: 最多只能 is 最多隻能 to it (a measure word)."""


def test_every_game_line_is_wholly_in_its_script() -> None:
    wrong = [(m.key, lang, text) for m in [*script_messages(), *console_messages()]
             for lang, text in m.text.items() if other_script(text, lang)]
    assert wrong == []


INTERNAL = re.compile(r"\b[a-z]+(?:[._][a-z]+)+\b|\b(?:None|True|False)\b|[<>]|\[\s*['\"]|\(\s*['\"]|\\[nx]")
"""A prompt kind or switch (vote.exile, speech_seconds), a Python value or repr."""


def latin_words(text: str) -> list[str]:
    text = PLACEHOLDER.sub("", text)
    return [w for w in re.findall(r"[A-Za-z_][A-Za-z_.]*", text) if w not in LATIN_OK]


def test_no_game_line_holds_an_internal_id_a_repr_or_a_foreign_word() -> None:
    bad = [(m.key, text) for m in [*script_messages(), *console_messages()] for text in m.text.values()
           if INTERNAL.search(PLACEHOLDER.sub("", text)) or latin_words(text)]
    assert bad == []


ROLE_NAMES = {lang: sorted({*Script(lang).data["names"]["roles"].values(), "狼王"}, key=len, reverse=True)
              for lang in LANGS}


def names_a_role(text: str, lang: str) -> bool:
    return "{role}" in text or any(role in text for role in ROLE_NAMES[lang])


def public(key: str) -> bool:
    return key in PUBLIC_ROLES or any(key.startswith(p) for p in PUBLIC_ROLES if p.endswith("."))


def test_no_table_line_names_a_role_unless_the_rules_make_it_public() -> None:
    """A night step calls its role whoever holds the card (steps.*); any other line the table hears that names a
    card tells who holds it, unless the rules show that card (PUBLIC_ROLES, each with its reason). The routed
    lines (refusals) are checked where they are routed (tests/listen/test_fair_refusals.py)."""
    naming = [m.key for m in script_messages() if m.audience == "table" and not m.key.startswith("steps.")
              and not m.key.startswith("play.doing.")  # where a game stands: the host's (`narrator games`)
              and any(names_a_role(text, lang) for lang, text in m.text.items())]
    assert [key for key in naming if not public(key)] == []
    assert [key for key in PUBLIC_ROLES if not key.endswith(".") and key not in naming] == [], "stale reasons"


def test_number_rules_are_said_in_words_at_both_ends_of_their_range() -> None:
    """Every number a house rule can hold is one a person says: read aloud in words, never in digits."""
    for lang in LANGS:
        script = Script(lang)
        for name, (low, high, _) in NUMBER_RANGES.items():
            for value in (low, high, (low + high) // 2):
                said = str(phrase(script, Rules().with_overrides({name: value}), name))
                assert not re.search(r"\d", said) and not PLACEHOLDER.search(said), (name, value, said)


def line_faults(lines: list[Line], lang: str) -> list[str]:
    """What is wrong with lines a real game said (tests/test_scenarios.py plays every scenario file in both
    scripts through this): a placeholder left unfilled, an internal id, a digit the table would hear, a
    character of the other script."""
    bad: list[str] = []
    for line in lines:
        text = line.text
        if "{" in text or "}" in text or INTERNAL.search(text) or latin_words(text):
            bad.append(f"unfilled or internal: {text}")
        elif line.to == "all" and re.search(r"\d", text):
            bad.append(f"digits at the table: {text}")
        elif other_script(text, lang):
            bad.append(f"not in the game's script: {text}")
    return bad


def test_the_check_of_a_games_lines_finds_what_a_person_would_not_hear() -> None:
    said = [Line("请{seat}发言。", "all"), Line("请7号发言。", "all"), Line("vote.exile", "host"),
            Line("請七号發言。", "all"), Line("本局十二名玩家。", "all"), Line("7号出局。", "host")]
    assert line_faults(said, "zh-Hant") == ["unfilled or internal: 请{seat}发言。", "digits at the table: 请7号发言。",
                                           "unfilled or internal: vote.exile", "not in the game's script: 請七号發言。",
                                           "not in the game's script: 7号出局。"]
    assert line_faults(said[4:], "zh-Hans") == []


def test_a_game_of_every_size_deals_its_cards_in_words() -> None:
    from narrator.play.lines import deal_line

    for lang in LANGS:
        for players in range(8, 19):
            line = deal_line(Script(lang), make_setup(preset=f"{players}人标准局"))
            assert not re.search(r"\d", line.text), line.text


# ---- the operator's messages -----------------------------------------------------------------------------


def test_the_operators_messages_and_helps_are_english() -> None:
    """--help of every command and option, and every message the code prints in English: the game's words
    only as names or quoted (`…`, "…")."""
    bad = [(m.key, m.text["en"]) for m in [*help_messages(), *code_messages()]
           if "en" in m.text and chinese_outside_names_and_quotes(m.text["en"])]
    assert bad == []


TYPED = {"narrator", "key", "value", "true", "false", "preset", "roles", "SIGTERM", "SIGHUP"}
"""What a host types in a scenario file, an option or a command (a switch's name counts too, require_seer)."""


def test_the_host_messages_in_code_are_chinese_throughout() -> None:
    """A message in the code's own Chinese words (saved games, resume's notes, the rule book's set-up errors)
    holds English only as what he types: a command, an option, a switch, a scenario file's key."""
    bad = []
    for m in code_messages():
        if m.audience != "host":
            continue
        text = re.sub(r"`[^`]*`|\{[^}]*\}|--[\w-]+(?:\s\S+)?|[\w.-]+\.(?:yaml|json|html|md)|\b[a-z]+(?:_[a-z]+)+\b",
                      " ", MARKUP.sub("", m.text["zh-Hans"]))
        words = [w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in TYPED]
        if words:
            bad.append((m.key, m.text["zh-Hans"], words))
    assert bad == []


# ---- the table of every message ----------------------------------------------------------------------------


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or "—"


def render() -> str:
    out = ["# Every message, by audience", "",
           "Generated by `python tests/test_messages.py --write` from the judge's script",
           "(narrator/data/script.zh-Hans.yaml, script.zh-Hant.yaml), the host's console",
           "(narrator/play/console.py), the messages the code prints or raises, and every `--help`;",
           "tests/test_messages.py checks it is up to date and audits every line (docs/architecture.md",
           '"Languages"). Audiences: **table** (said to everyone), **host** (the host alone: earpiece or',
           "console), **host/table** (routed as said: the host's at night or when secret, the table's by day",
           "when the table heard the answer), **operator** (set-up and maintenance, English).", ""]
    game = [*script_messages(), *console_messages()]
    out += ["## The game's lines (the judge's script and the host's console)", "",
            "| key | audience | 简体 | 繁體 |", "|---|---|---|---|"]
    out += [f"| `{m.key}` | {m.audience} | {cell(m.text['zh-Hans'])} | {cell(m.text['zh-Hant'])} |" for m in game]
    code = code_messages()
    out += ["", "## The code's own messages", "",
            "The host's are shown in the game's script (each converted when it is printed where it is not already).",
            "", "| where | audience | message |", "|---|---|---|"]
    out += [f"| {m.key} | {m.audience} | {cell(next(iter(m.text.values())))} |" for m in code]
    out += ["", "## Help texts (operator)", "", "| command or option | help |", "|---|---|"]
    out += [f"| `{m.key}` | {cell(m.text['en'])} |" for m in help_messages()]
    return "\n".join(out) + "\n"


def test_the_table_of_every_message_in_docs_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), "run: .venv/bin/python tests/test_messages.py --write"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_messages.py --write   (rewrites docs/messages.md)")
    DOC.write_text(render(), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}: {len(all_messages())} messages")
