"""The recap page in a real headless Chromium (Debian package `chromium`): it loads without console
errors, the vote pictures are really drawn (pixels of the arrows' colour in a screenshot), and its font
stack draws Chinese characters rather than boxes (needs a CJK font package: fonts-wqy-zenhei or
fonts-noto-cjk, which ./dev installs)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from play_testkit import demo_scenario

from narrator.engine.game import Game
from narrator.play.recap import build_recap
from narrator.play.recap_page import ARROW, FONTS, write_pages
from narrator.play.scripted import host_script

pytestmark = pytest.mark.slow
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")


def chromium(page: Path, shot: Path, profile: Path) -> str:
    """Load `page`, write a screenshot, return Chromium's log (console messages are logged as CONSOLE)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("chromium not found: install the Debian package chromium (./dev does)")
    res = subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--log-level=0",
                          "--window-size=1200,2400", f"--screenshot={shot}", page.as_uri()],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    assert shot.exists(), res.stderr[-2000:]
    return res.stderr


def console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if ":CONSOLE" in line]


def arrow_pixels(shot: Path) -> int:
    r0, g0, b0 = (int(ARROW[i:i + 2], 16) for i in (1, 3, 5))
    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=np.int32)
    distance = np.abs(pixels - np.array([r0, g0, b0], dtype=np.int32)).sum(axis=2)
    return int((distance < 40).sum())


def shot_of(text: str, font: str, folder: Path, name: str) -> np.ndarray:
    """`text` drawn big in `font` (a CSS font-family list) by Chromium, as grey levels."""
    page = folder / f"{name}.html"
    page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0;'
                    f"background:#fff\"><span style=\"font-size:120px;font-family:{font.replace(chr(34), chr(39))};"
                    f'color:#000">{text}</span></body></html>', encoding="utf-8")
    chromium(page, folder / f"{name}.png", folder / f"profile-{name}")
    return np.asarray(Image.open(folder / f"{name}.png").convert("L"), dtype=np.int32)


def drawn_differently(a: np.ndarray, b: np.ndarray) -> int:
    return int((np.abs(a - b) > 64).sum())


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_the_pages_fonts_draw_chinese_not_boxes(tmp_path: Path, lang: str) -> None:
    """A character no font has (U+10FFFD) is drawn as the box (.notdef); 狼, 號 and 复 in the page's font stack
    must look different from it — and from each other, which a box never does."""
    box = shot_of("\U0010FFFD", FONTS[lang], tmp_path, "box")
    assert (box < 128).sum() > 0, "the box itself was not drawn"
    seen = [shot_of(ch, FONTS[lang], tmp_path, f"c{i}") for i, ch in enumerate("狼號复")]
    for ch, img in zip("狼號复", seen, strict=True):
        assert drawn_differently(img, box) > 500, f"{ch} is drawn as a box: install fonts-wqy-zenhei"
    assert drawn_differently(seen[0], seen[1]) > 500


def test_console_errors_are_caught(tmp_path: Path) -> None:
    """The check itself can fail: a page with a script error is reported."""
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>console.error('boom'); missing();</script></body></html>")
    log = chromium(bad, tmp_path / "bad.png", tmp_path / "profile")
    assert any("boom" in line for line in console_errors(log))


def test_recap_opens_cleanly_and_draws_the_votes(tmp_path: Path) -> None:
    scripted = host_script(demo_scenario())
    page, _ = write_pages(build_recap(scripted.game.journal), tmp_path / "demo")
    text = page.read_text(encoding="utf-8")
    # Self-contained: nothing is loaded from anywhere else.
    assert not re.search(r"""(src|href)\s*=|@import|url\((?!#)""", text)
    log = chromium(page, tmp_path / "demo.png", tmp_path / "profile")
    assert console_errors(log) == []
    drawn = arrow_pixels(tmp_path / "demo.png")

    # The same page for a game stopped before any vote: no arrows at all.
    early = Game(scripted.game.setup, scripted.game.seed)
    blank, _ = write_pages(build_recap(early.journal), tmp_path / "early")
    assert console_errors(chromium(blank, tmp_path / "early.png", tmp_path / "profile2")) == []
    assert arrow_pixels(tmp_path / "early.png") == 0
    # Four votes of 9-11 arrows each: thousands of arrow-coloured pixels.
    assert drawn > 2000, drawn
