"""The two scripts of Chinese: 简体 (zh-Hans) and 繁體 (zh-Hant), and conversion between them (OpenCC).

A game is played in one script (its `lang`): the judge speaks it, and what a file or a host writes may be
in either. Words are read in simplified form (`to_hans`: preset names, card names, the host's words), and
texts written in one script are compared with lines said in the other through `readings`.
"""

from __future__ import annotations

from functools import cache

import opencc

LANGS = ("zh-Hans", "zh-Hant")
ALIASES = {
    "zh-hans": "zh-Hans", "zh-cn": "zh-Hans", "zh-sg": "zh-Hans", "zh-my": "zh-Hans", "hans": "zh-Hans",
    "简体": "zh-Hans",
    "zh-hant": "zh-Hant", "zh-tw": "zh-Hant", "zh-hk": "zh-Hant", "zh-mo": "zh-Hant", "hant": "zh-Hant",
    "繁體": "zh-Hant", "繁体": "zh-Hant",
}  # fmt: skip
"""Every spelling of a script (lower case; "_" counts as "-"): the region tags name the script they use."""


def lang_named(name: str) -> str | None:
    """The script a name stands for ("zh-Hant", "zh-TW", "繁體" → "zh-Hant"), or None."""
    return ALIASES.get(name.strip().replace("_", "-").lower())


@cache
def _converter(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


def to_hans(text: str) -> str:
    """Traditional characters to simplified ones, Taiwan and Hong Kong forms too (著 → 着, 衞 → 卫);
    simplified text is left as it is."""
    return str(_converter("hk2s").convert(_converter("tw2s").convert(text)))


def to_hant(text: str) -> str:
    """Simplified characters to traditional ones, with Taiwan's character forms (這裡, 裡面)."""
    return str(_converter("s2tw").convert(to_hans(text)))


def to_script(text: str, lang: str) -> str:
    return to_hant(text) if lang == "zh-Hant" else to_hans(text)


def readings(text: str, lang: str) -> tuple[str, ...]:
    """How `text` (written in either script) may be written in `lang`: itself, and its conversions. The
    converters differ on a few characters (白痴/白癡, 只/隻), so a traditional reading is given for both
    OpenCC's standard forms and Taiwan's; a match with any of them is a match."""
    out = [text]
    hans = to_hans(text)
    if lang == "zh-Hant":
        out += [str(_converter("s2t").convert(hans)), str(_converter("s2tw").convert(hans))]
    else:
        out.append(hans)
    return tuple(dict.fromkeys(out))


def holds(line: str, text: str, lang: str) -> bool:
    """Whether `line`, said in a `lang` game, holds `text` (written in either script)."""
    return any(option in line for option in readings(text, lang))
