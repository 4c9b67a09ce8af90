"""Saved games: one folder per game in the platform's data folder (`narrator.play.paths.games_dir`):

    games/20261201-203015/
        journal.jsonl     the Session's journal: set-up, seed, language, every accepted answer (fsynced)
        meta.json         the preset's name and when the game started (written once, atomically)
        game.recap.html   after the game: the recap page (self-contained) …
        game.recap.md     … and the same as Markdown

A game is named by its folder (`narrator resume 20261201-203015`, a unique prefix, or a path)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from narrator.engine.rules import Setup
from narrator.journal import FileStore, JournalError, fsync_dir
from narrator.play.paths import games_dir
from narrator.session import Session

META_FORMAT = 1


class GameNotFound(LookupError):
    pass


@dataclass
class SavedGame:
    folder: Path

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def journal(self) -> Path:
        return self.folder / "journal.jsonl"

    @property
    def meta_path(self) -> Path:
        return self.folder / "meta.json"

    @property
    def recap_stem(self) -> Path:
        return self.folder / "game"

    def meta(self) -> dict[str, Any]:
        try:
            data = json.loads(self.meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def abandoned(self) -> bool:
        """Given up at `narrator serve`'s recovery question ("继续吗？" — "不"): kept, never resumed by default."""
        return bool(self.meta().get("abandoned"))

    def abandon(self) -> None:
        """Mark the game abandoned (meta.json rewritten atomically; the journal is kept as it is)."""
        _write_meta(self, {**self.meta(), "abandoned": datetime.now().isoformat(timespec="seconds")})

    def store(self) -> FileStore:
        return FileStore(self.journal)

    def load(self) -> Session:
        """The game as it stands (checked replay of its journal); JournalError says why it cannot be."""
        if not self.journal.exists():
            raise JournalError(str(self.journal), 0, "no journal")
        return Session.resume(self.store())

    def start(self, setup: Setup, seed: int, lang: str) -> Session:
        """A new Session journaled here. The journal appears whole or not at all: the header is written and
        fsynced under a temporary name, then renamed into place (the store keeps appending to that file)."""
        fresh = self.journal.with_name(self.journal.name + ".new")
        store = FileStore(fresh)
        session = Session(setup, seed, lang=lang, store=store)
        os.replace(fresh, self.journal)
        store.path, store.name = self.journal, str(self.journal)
        fsync_dir(self.folder)
        return session

    @property
    def resume_command(self) -> str:
        return f"narrator resume {self.id}"


def new_game(preset: str, lang: str, root: Path | None = None) -> SavedGame:
    root = root or games_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder, n = root / stamp, 1
    while folder.exists():
        n += 1
        folder = root / f"{stamp}-{n}"
    folder.mkdir(parents=True)
    game = SavedGame(folder)
    started = datetime.now().isoformat(timespec="seconds")
    _write_meta(game, {"format": META_FORMAT, "preset": preset, "lang": lang, "started": started})
    return game


def _write_meta(game: SavedGame, meta: dict[str, Any]) -> None:
    tmp = game.meta_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    tmp.replace(game.meta_path)


def all_games(root: Path | None = None) -> list[SavedGame]:
    root = root or games_dir()
    if not root.is_dir():
        return []
    return sorted((SavedGame(p) for p in root.iterdir() if (p / "journal.jsonl").exists()), key=lambda g: g.id)


def find_game(spec: str | None, root: Path | None = None, *, unfinished: bool = False) -> SavedGame:
    """A game by id, unique id prefix or path; None: the latest (unfinished, when asked) game."""
    games = all_games(root)
    if spec is None:
        for game in reversed(games):
            if not unfinished:
                return game
            if game.abandoned:
                continue
            try:
                if not game.load().over:
                    return game
            except JournalError:
                continue
        raise GameNotFound("没有可以继续的游戏；用 `narrator play` 开始一局" if unfinished else
                           "还没有保存的游戏；用 `narrator play` 开始一局")
    path = Path(spec)
    if path.is_dir() and (path / "journal.jsonl").exists():
        return SavedGame(path)
    if path.is_file() and path.name == "journal.jsonl":
        return SavedGame(path.parent)
    matches = [g for g in games if g.id.startswith(spec)]
    if len(matches) == 1 or (matches and matches[0].id == spec):
        return matches[0]
    if not matches:
        raise GameNotFound(f"没有叫 {spec} 的游戏；`narrator games` 列出所有保存的游戏")
    raise GameNotFound(f"{spec} 对应多局游戏（{', '.join(g.id for g in matches)}）；请写完整")


def recoverable(root: Path | None = None, *, within_s: float = 86400.0) -> tuple[SavedGame, Session] | None:
    """The latest unfinished game played in the last `within_s` seconds and not abandoned (what `serve`
    offers to continue at power-on), with its Session; None when there is none."""
    now = time.time()
    for game in reversed(all_games(root)):
        if game.abandoned or now - game.journal.stat().st_mtime > within_s:
            continue
        try:
            session = game.load()
        except JournalError:
            continue
        if not session.over:
            return game, session
    return None


def played(root: Path | None = None) -> dict[str, int]:
    """Games per preset on this device (the lobby names the most played boards first)."""
    out: dict[str, int] = {}
    for game in all_games(root):
        preset = str(game.meta().get("preset", ""))
        out[preset] = out.get(preset, 0) + 1
    return out
