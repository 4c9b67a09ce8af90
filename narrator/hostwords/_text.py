"""Clean-up and tokenising shared by every reader.

Text arrives from two very different sources: Vosk (simplified script, every word separated by a space,
"十 二 号") and a host typing (any script, full-width digits, Chinese punctuation, no spaces). Both are
folded into one form first, so each reader only ever sees simplified characters, each remembering what
separated it from the previous one. Spaces are kept apart from punctuation because they mean different
things: Vosk splits words with spaces, so a keyword may span one ("空 刀") while a comma always ends a
word; and spaces decide how numerals group (see `_number_at`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from narrator.common.zh import to_hans

Gap = Literal["", " ", ","]
"""What stood before a character: nothing, whitespace, or punctuation (or the start of the text)."""


@dataclass(frozen=True, slots=True)
class Char:
    ch: str
    gap: Gap


# Traditional -> simplified, only for characters that occur in the words the readers know. A full converter
# (OpenCC) would be a heavy dependency for ~80 characters; tests check every word list is covered.
_T2S_PAIRS = (
    "號号 過过 說说 發发 結结 開开 槍枪 沒没 無无 棄弃 給给 當当 選选 讓让 邊边 從从 換换 張张 兩两 個个 "
    "對对 確确 認认 護护 衛卫 殺杀 驗验 帶带 擇择 連连 與与 還还 這这 請请 嗎吗 麼么 預预 獵猎 癡痴 盜盗 "
    "賊贼 長长 樂乐 烏乌 鴉鸦 師师 們们 後后 輪轮 講讲 畢毕 聽听 員员 數数 權权 別别 誰谁 藥药 將将 "
    "齊齐 體体 準准 須须 錯错 種种 氣气 話话 動动 來来 額额 會会 幫帮 場场 頭头 隻只 麥麦 "
    "變变 撿捡 歸归 為为 爲为 裏里 裡里 衞卫 説说 著着 "
    # --- modern roles (card names and the knight's duel) ---
    "騎骑 靈灵 惡恶 攝摄 夢梦 魘魇 兒儿 術术 機机 鏡镜 決决 鬥斗 懼惧 學学 習习"
)
_T2S = str.maketrans({pair[0]: pair[1] for pair in _T2S_PAIRS.split()})

DIGITS: dict[str, int] = {
    "零": 0, "〇": 0, "一": 1, "幺": 1, "二": 2, "两": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip


def to_simplified(text: str) -> str:
    """Full-width to ASCII, lower case, traditional to simplified (OpenCC): the script every word list is
    kept in."""
    return to_hans(unicodedata.normalize("NFKC", text).lower())


def clean(text: str) -> tuple[Char, ...]:
    """The text's meaningful characters, each with the gap before it."""
    out: list[Char] = []
    gap: Gap = ","
    for ch in to_simplified(text):
        if ch.isspace():
            if gap == "":
                gap = " "
        elif unicodedata.category(ch)[0] in "PSC" and ch != "_":
            gap = ","
        else:
            out.append(Char(ch, gap))
            gap = ""
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Tok:
    """A word: `kind` "word" (tag from the reader's lexicon), "num" (a numeral) or "unk" (unrecognised)."""

    kind: Literal["word", "num", "unk"]
    tag: str
    text: str
    num: int = 0


def _number_at(chars: Sequence[Char], i: int) -> tuple[int, int] | None:
    """The numeral starting at i as (value, next index), or None.

    Arabic digits group only when written together ("12" is twelve, "1 2" is one and two). Chinese digits
    never group on their own: nobody says 二五 for twenty-five, so "三五七号" is three seats. A digit followed
    by 十 with nothing between is a multiple of ten ("二十"), but with a space it is not ("五 十" is five and
    ten, since Vosk separates words that way and a seat over 18 is never meant). 十 followed by a digit joins
    even across a space, because Vosk writes twelve as "十 二".
    """
    ch = chars[i].ch
    if ch.isascii() and ch.isdigit():
        j = i + 1
        while j < len(chars) and chars[j].gap == "" and chars[j].ch.isascii() and chars[j].ch.isdigit():
            j += 1
        digits = "".join(c.ch for c in chars[i:j])
        return (int(digits) if len(digits) <= 9 else 10**9), j  # any value over 99 is refused alike
    if ch != "十" and ch not in DIGITS:
        return None
    value, j = (10, i + 1) if ch == "十" else (DIGITS[ch], i + 1)
    if ch != "十" and value and j < len(chars) and chars[j].ch == "十" and chars[j].gap == "":
        value, j = value * 10, j + 1
        ch = "十"
    if ch == "十" and j < len(chars) and chars[j].gap != "," and DIGITS.get(chars[j].ch, 0):
        value, j = value + DIGITS[chars[j].ch], j + 1
    return value, j


def tokens(chars: Sequence[Char], lexicon: Mapping[str, str]) -> list[Tok]:
    """Split into the longest lexicon words, numerals, and runs of unrecognised characters.

    Lexicon words are tried before numerals so that words holding a digit ("两张") stay words. A word may span
    the spaces Vosk puts inside it but never punctuation.
    """
    longest = max(map(len, lexicon), default=0)
    out: list[Tok] = []
    i = 0
    while i < len(chars):
        found, text = 0, ""
        for j in range(i, min(len(chars), i + longest)):
            if j > i and chars[j].gap == ",":
                break
            text += chars[j].ch
            if text in lexicon:
                found = j + 1
        if found:
            word = "".join(c.ch for c in chars[i:found])
            out.append(Tok("word", lexicon[word], word))
            i = found
            continue
        number = _number_at(chars, i)
        if number is not None:
            value, j = number
            out.append(Tok("num", "", "".join(c.ch for c in chars[i:j]), value))
            i = j
            continue
        j = i + 1  # a run of characters no lexicon word or numeral starts: one "unk" token, found in one pass
        while j < len(chars) and chars[j].gap == "" and not _starts_word_or_number(chars, j, lexicon, longest):
            j += 1
        text = "".join(c.ch for c in chars[i:j])
        if out and out[-1].kind == "unk" and chars[i].gap == "":
            out[-1] = Tok("unk", "", out[-1].text + text)
        else:
            out.append(Tok("unk", "", text))
        i = j
    return out


def _starts_word_or_number(chars: Sequence[Char], i: int, lexicon: Mapping[str, str], longest: int) -> bool:
    """Whether a lexicon word or a numeral starts at i (what `tokens` tries before an unknown character)."""
    ch = chars[i].ch
    if ch in DIGITS or ch == "十" or (ch.isascii() and ch.isdigit()):
        return True
    text = ""
    for j in range(i, min(len(chars), i + longest)):
        if j > i and chars[j].gap == ",":
            break
        text += chars[j].ch
        if text in lexicon:
            return True
    return False
