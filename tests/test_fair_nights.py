"""Fair play, checked from outside: rendered games that differ only in night choices or in who is alive
sound the same at the table during every night (天黑请闭眼 … 天亮了), read off the WebVTT subtitles.

The scenario pairs are in tests/fair_nights/; each is rendered with the offline voice by `narrator render`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.audio.subtitles import read_cues
from narrator.cli.main import app

pytestmark = pytest.mark.slow

PAIRS = Path(__file__).parent / "fair_nights"
NIGHT, DAWN = "天黑请闭眼", "天亮了"
CASES = [
    ("reference", "witch_saves"),
    ("reference", "witch_dead"),
    ("reference", "seer_dead"),
    ("reference", "no_kill"),
    ("reference", "witch_poisons"),
    ("classic_thief_plays", "classic_thief_buried"),
]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("fair")
    out: dict[str, Path] = {}
    for name in sorted({n for pair in CASES for n in pair}):
        wav = tmp / f"{name}.wav"
        result = CliRunner().invoke(app, ["render", str(PAIRS / f"{name}.yaml"), "-o", str(wav),
                                          "--backend", "espeak", "--cache-dir", str(tmp / "cache")])
        assert result.exit_code == 0, result.output
        out[name] = wav
    return out


def nights(vtt: Path) -> list[list[tuple[float, str]]]:
    """Each night's table cues, from 天黑请闭眼 to 天亮了: (start relative to 天黑请闭眼, text)."""
    found: list[list[tuple[float, str]]] = []
    current: list[tuple[float, str]] | None = None
    start = 0.0
    for cue_start, _, text in read_cues(vtt):
        if text.startswith(NIGHT):
            current, start = [], cue_start
        if current is not None:
            current.append((cue_start - start, text))
            if text.startswith(DAWN):
                found.append(current)
                current = None
    return found


@pytest.mark.parametrize(("a", "b"), CASES, ids=[f"{a}-vs-{b}" for a, b in CASES])
def test_every_night_lasts_the_same_on_the_table(rendered: dict[str, Path], a: str, b: str) -> None:
    na, nb = nights(rendered[a].with_suffix(".vtt")), nights(rendered[b].with_suffix(".vtt"))
    assert len(na) == len(nb) == 2, "both games go through two nights"
    for n, (x, y) in enumerate(zip(na, nb, strict=True), start=1):
        assert [t for _, t in x] == [t for _, t in y], f"night {n}: the table hears other words"
        assert x[-1][0] == pytest.approx(y[-1][0], abs=0.3), f"night {n} lasts {x[-1][0]:.2f} s vs {y[-1][0]:.2f} s"
        for (tx, text), (ty, _) in zip(x, y, strict=True):
            assert tx == pytest.approx(ty, abs=0.3), f"night {n}: {text} at {tx:.2f} s vs {ty:.2f} s"


def test_the_host_hears_different_things(rendered: dict[str, Path]) -> None:
    # The pairs do differ: the host channel tells them apart (or the test above would prove nothing).
    host = {name: [t for _, _, t in read_cues(p.with_suffix(".host.vtt"))] for name, p in rendered.items()}
    assert all(host[a] != host[b] for a, b in CASES)
