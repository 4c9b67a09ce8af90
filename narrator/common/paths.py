"""Where narrator keeps a user's games and config: the platform's data and config folders (platformdirs),
overridable with $NARRATOR_DATA_DIR and $NARRATOR_CONFIG_DIR (tests, portable installs)."""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "NARRATOR_DATA_DIR"
CONFIG_ENV = "NARRATOR_CONFIG_DIR"
APP = "narrator"


def data_dir() -> Path:
    """The user data folder (games/, models/ live under it)."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP, appauthor=False))


def games_dir() -> Path:
    """Where each game's journal, meta and recap pages are written."""
    return data_dir() / "games"


def config_path() -> Path:
    """The TOML config file `narrator setup` writes and every command reads."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env) / "config.toml"
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP, appauthor=False)) / "config.toml"
