"""How a number is said in Chinese: one function for the judge's lines and the host's words alike."""

from __future__ import annotations

DIGITS = "零一二三四五六七八九"


def chinese_number(n: int) -> str:
    """0 → 零, 7 → 七, 10 → 十, 12 → 十二, 20 → 二十 (seats, counts and votes stay below 100)."""
    if not 0 <= n < 100:
        raise ValueError(f"only 0–99 are said: {n}")
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else "十" if tens == 1 else DIGITS[tens] + "十"
    return head + (DIGITS[ones] if ones or not head else "")
