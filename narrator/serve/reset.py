"""A factory reset (`narrator reset`): the device back to how it was installed.

What goes: the config (the devices `setup` chose, the voice, the volume and pace the lobby changed, the judge's
name, what a calibration left out, where the recap pages are served — every setting back to its default),
where the lobby stood (its state kept across a power cut) and the ear's last measurement; with `games`, every
saved game and its recap pages too. What stays: the speech model (a download the device may not be able to
make again) and the voice cache (every line rendered once: slow to make, and nothing personal) — both are
the same for every owner.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from narrator.common.paths import config_path, data_dir, games_dir

LOBBY_FILE = "lobby.json"
"""Where the lobby stood (narrator/serve/device.py keeps it beside the games folder)."""


@dataclass(frozen=True)
class Removed:
    what: str
    path: Path


def what_goes(*, games: bool) -> list[Removed]:
    """Everything a reset removes that exists now (the games only with `games`)."""
    from narrator.listen.measure import LAST_FILE

    found = [Removed("the config: every setting back to its default", config_path()),
             Removed("where the lobby stood", data_dir() / LOBBY_FILE),
             Removed("the ear's last measurement", data_dir() / LAST_FILE)]
    if games:
        found.append(Removed("every saved game and its recap pages", games_dir()))
    return [r for r in found if r.path.exists()]


def factory_reset(*, games: bool) -> list[Removed]:
    """Remove what `what_goes` names; what was removed. OSError: a file that cannot be removed (the rest
    stays as it was removed so far; running it again finishes)."""
    gone = what_goes(games=games)
    for item in gone:
        if item.path.is_dir():
            shutil.rmtree(item.path)
        else:
            item.path.unlink()
    return gone
