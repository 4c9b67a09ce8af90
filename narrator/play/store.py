"""Saved games: one folder per game in the platform's data folder (`narrator.common.paths.games_dir`):

    games/20261201-203015/
        journal.jsonl     the Session's journal: set-up, seed, language, every accepted answer, how far the
                          table has heard (fsynced, checksummed line by line)
        meta.json         the preset's name, when the game started and the options it was started with
                          (written once, atomically)
        lock              the writer's lock (an OS file lock) and its process id
        game.recap.html   after the game: the recap page (self-contained) …
        game.recap.md     … and the same as Markdown

A game is saved only once it has started (开始 heard). One process writes a game (`play`, `resume`,
`serve`): it holds an exclusive OS lock on the folder's `lock` file for the life of the game, and a second
writer is refused naming the holder's process id; the lock dies with its process, so a crashed game's lock
is simply taken over. Readers (`games`, `recap`, `doctor`, choosing a game to resume) open journals
read-only and never take the lock. A game is named by its folder (`narrator resume 20261201-203015`, a unique
prefix, or a path)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypedDict

from narrator.common.paths import games_dir
from narrator.common.zh import to_script
from narrator.session.journal import FileStore, JournalError, JournalWriteError, fsync_dir, write_atomically
from narrator.session.session import Session

META_FORMAT = 1


class Meta(TypedDict, total=False):
    """A game folder's meta.json: what the game was started with; `abandoned` when given up at serve's
    recovery question."""

    format: int
    preset: str
    lang: str
    started: str
    """When 开始 was heard (ISO 8601, seconds)."""
    options: dict[str, object]
    """The live options (`LiveOptions.saved`, narrator/cli/play_cmds.py) as plain values."""
    abandoned: str


class GameLocked(RuntimeError):
    """Another process is writing this game."""

    def __init__(self, game: str, pid: str) -> None:
        self.game, self.pid = game, pid
        super().__init__(f"游戏 {game} 正由另一个 narrator 进程（pid {pid or '?'}）在写；"
                         "先结束那边的游戏（Ctrl-C 两次），再继续这局")


class GameLock:
    """An exclusive flock on `folder/lock`, with the holder's pid written in it. Released when closed or
    when the process dies (a stale lock file is taken over: only a live holder's flock refuses)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "lock"
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise JournalWriteError(str(self.path), exc) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            raise GameLocked(folder.name, holder) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as exc:
            os.close(fd)
            raise JournalWriteError(str(self.path), exc) from exc
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file drops the flock
            self._fd = None


class GameStore(FileStore):
    """The journal of a saved game, written under the game's lock (released on close)."""

    def __init__(self, path: Path, lock: GameLock) -> None:
        super().__init__(path)
        self.lock = lock

    def close(self) -> None:
        super().close()
        self.lock.release()


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

    def meta(self) -> Meta:
        """meta.json as far as it is readable: each known key whose value has its type ({} for none)."""
        raw = self._raw_meta()
        meta = Meta()
        if isinstance(fmt := raw.get("format"), int):
            meta["format"] = fmt
        if isinstance(preset := raw.get("preset"), str):
            meta["preset"] = preset
        if isinstance(lang := raw.get("lang"), str):
            meta["lang"] = lang
        if isinstance(started := raw.get("started"), str):
            meta["started"] = started
        if isinstance(options := raw.get("options"), dict):
            meta["options"] = {str(k): v for k, v in options.items()}
        if isinstance(abandoned := raw.get("abandoned"), str):
            meta["abandoned"] = abandoned
        return meta

    def _raw_meta(self) -> dict[str, object]:
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
        meta = {**self._raw_meta(), "abandoned": datetime.now().isoformat(timespec="seconds")}
        write_atomically(self.meta_path, json.dumps(meta, ensure_ascii=False).encode("utf-8"))

    def load(self) -> Session:
        """The game as it stands, read-only (checked replay of its journal; nothing is written, no lock is
        taken); JournalError says why it cannot be."""
        if not self.journal.exists():
            raise JournalError(str(self.journal), 0, "no journal")
        return Session.resume(FileStore(self.journal, writable=False))

    def open(self) -> Session:
        """The game as it stands, to be played on: under the game's lock (GameLocked if another process
        holds it), a torn last line cut off. Close the Session to release the lock."""
        if not self.journal.exists():
            raise JournalError(str(self.journal), 0, "no journal")
        lock = GameLock(self.folder)
        try:
            return Session.resume(GameStore(self.journal, lock))
        except BaseException:
            lock.release()
            raise

    def options(self) -> dict[str, object]:
        """The live options the game was started with (meta.json), {} for an older game."""
        return self.meta().get("options", {})

    @property
    def resume_command(self) -> str:
        return f"narrator resume {self.id}"


def save_game(session: Session, preset: str, options: Mapping[str, object] | None = None,
              root: Path | None = None) -> SavedGame:
    """Start saving `session` (no answer given yet): a new folder with meta.json and the journal, under
    the game's lock. Everything appears whole or not at all: meta and the journal's header are written
    and fsynced under temporary names, then renamed into place; on a write error (JournalWriteError)
    nothing is left behind."""
    root = root or games_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        root.mkdir(parents=True, exist_ok=True)
        folder, n = root / stamp, 1
        while True:
            try:
                folder.mkdir()
                break
            except FileExistsError:
                n += 1
                folder = root / f"{stamp}-{n}"
    except OSError as exc:
        raise JournalWriteError(str(root), exc) from exc
    game = SavedGame(folder)
    lock: GameLock | None = None
    try:
        lock = GameLock(folder)
        started = datetime.now().isoformat(timespec="seconds")
        meta = Meta(format=META_FORMAT, preset=preset, lang=session.lang, started=started,
                    options=dict(options or {}))
        write_atomically(game.meta_path, json.dumps(meta, ensure_ascii=False).encode("utf-8"))
        fresh = game.journal.with_name(game.journal.name + ".new")
        store = GameStore(fresh, lock)
        try:
            session.attach(store)
            os.replace(fresh, game.journal)
        except BaseException:
            store.close()
            with contextlib.suppress(OSError):
                fresh.unlink()
            session.store = None
            raise
        store.path, store.name = game.journal, str(game.journal)
        fsync_dir(folder)
    except BaseException as exc:
        if lock is not None:
            lock.release()
        for leftover in folder.iterdir() if folder.exists() else ():
            with contextlib.suppress(OSError):
                leftover.unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()
        if isinstance(exc, OSError) and not isinstance(exc, JournalWriteError):
            raise JournalWriteError(str(folder), exc) from exc
        raise
    return game


def writable_problem(folder: Path) -> OSError | None:
    """Why nothing can be written in `folder` now (read-only, forbidden, full), or None: a small file is
    written, fsynced and removed (creating the folder first when it is missing)."""
    probe = folder / f".probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(probe, "wb") as f:
            f.write(b"\0" * 4096)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        return exc
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return None


def all_games(root: Path | None = None) -> list[SavedGame]:
    root = root or games_dir()
    if not root.is_dir():
        return []
    return sorted((SavedGame(p) for p in root.iterdir() if (p / "journal.jsonl").exists()), key=lambda g: g.id)


def find_game(spec: str | None, root: Path | None = None) -> SavedGame:
    """A game by id, unique id prefix or path; None: the latest game."""
    games = all_games(root)
    if spec is None:
        if games:
            return games[-1]
        raise GameNotFound("还没有保存的游戏；用 `narrator play` 开始一局")
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


def _unfinished(root: Path | None, since: float | None = None) -> Iterator[tuple[SavedGame, Session | None, str]]:
    """Every saved game, newest first, read-only: (game, its Session, "") for one that can be played on, or
    (game, None, why not) — abandoned, damaged and why, over. `since` (time.time()): games whose journal was
    last written before it are passed over unread."""
    for game in reversed(all_games(root)):
        try:
            if since is not None and game.journal.stat().st_mtime < since:
                continue
            if game.abandoned:
                yield game, None, f"{game.id}：已放弃（`narrator resume {game.id}` 仍可继续）"
                continue
            session = game.load()
        except (OSError, JournalError) as exc:
            yield game, None, f"{game.id}：无法读取（{exc}）"
            continue
        yield (game, None, f"{game.id}：已经结束") if session.over else (game, session, "")


def latest_to_resume(root: Path | None = None) -> tuple[SavedGame, list[str]]:
    """The newest game that is unfinished, has answers and was not abandoned, and why each newer game was
    skipped (one sentence each: abandoned, over, no answer yet, damaged and why). Read-only."""
    skipped: list[str] = []
    for game, session, why in _unfinished(root):
        if session is None:
            skipped.append(why)
        elif not session.answers:
            skipped.append(f"{game.id}：还没有回答")
        else:
            return game, skipped
    raise GameNotFound("没有可以继续的游戏；用 `narrator play` 开始一局" +
                       ("".join(f"\n  跳过 {why}" for why in skipped)))


class CannotResume(ValueError):
    """The game cannot be resumed: one sentence saying why (not found, over, damaged, locked, not writable)."""


@dataclass
class Resumed:
    saved: SavedGame
    session: Session
    """Holds the game's lock until closed."""
    notes: list[str]
    """For the host: which game was taken and every newer one skipped and why, what loading noted."""


def resume_game(spec: str | None, root: Path | None = None) -> Resumed:
    """The one way to take up a saved game for playing on (`narrator resume`, `narrator serve`): by id,
    prefix or folder, or (None) the newest unfinished game with answers; opened under its lock.
    CannotResume says why not in one sentence."""
    notes: list[str] = []
    try:
        if spec is None:
            saved, skipped = latest_to_resume(root)
            notes += [f"跳过 {why}" for why in skipped]
            notes.append(f"继续最近的一局：{saved.id}")
        else:
            saved = find_game(spec, root)
        session = saved.open()
    except (GameNotFound, GameLocked, JournalError) as exc:
        raise CannotResume(str(exc)) from exc
    except JournalWriteError as exc:
        raise CannotResume(f"{exc}；这局游戏需要能写它的文件夹 {saved.folder}") from exc
    notes += [f"注意：{note}" for note in session.warnings]
    notes = [to_script(note, session.lang) for note in notes]  # the host reads them in the game's script
    if session.over:
        session.close()
        raise CannotResume(f"{saved.id} 已经结束了；`narrator recap {saved.id}` 看复盘")
    return Resumed(saved, session, notes)
def recoverable(root: Path | None = None, *, within_s: float = 86400.0) -> tuple[SavedGame, Session] | None:
    """The latest unfinished game played in the last `within_s` seconds and not abandoned (what `serve`
    offers to continue at power-on), with its Session; None when there is none."""
    for game, session, _ in _unfinished(root, since=time.time() - within_s):
        if session is not None:
            return game, session
    return None


def played(root: Path | None = None) -> dict[str, int]:
    """Games per preset on this device (the lobby names the most played boards first)."""
    out: dict[str, int] = {}
    for game in all_games(root):
        preset = str(game.meta().get("preset", ""))
        out[preset] = out.get(preset, 0) + 1
    return out
