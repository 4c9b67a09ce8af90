"""The voice cache: decoded audio (float32 .npy) on disk, one file per (voice settings, text).

Layout: <directory>/<voice-hash>/voice.json names the voice settings; <voice-hash>/<piece-hash>.npy holds
one piece. The piece hash covers the whole voice key (backend, voice, rate, pitch, volume) and the text,
so a game only ever loads arrays: it never decodes MP3 and never needs the network for a cached piece.
Writes are atomic (a temporary file renamed into place), so a killed build leaves no half-written piece.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from narrator.voice.base import Audio

CACHE_ENV = "NARRATOR_CACHE_DIR"
"""Environment variable overriding narrator's cache root (voice clips go to its `voice/` folder)."""
CACHE_FORMAT = "2"
"""Part of every hash: bump it when what is stored changes meaning, and old pieces are ignored.
2: pieces are loudness-normalised (voice.loudness: −20 LUFS, peaks ≤ −1 dBFS)."""


def default_cache_dir(root: str | Path | None = None) -> Path:
    """Where voice clips live: <root>/voice, the root being `root`, else $NARRATOR_CACHE_DIR, else the
    platform's user cache directory for narrator (e.g. ~/.cache/narrator on Linux)."""
    if root is None:
        root = os.environ.get(CACHE_ENV) or None
    if root is None:
        from platformdirs import user_cache_dir

        root = user_cache_dir("narrator")
    return Path(root).expanduser() / "voice"


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x00".join((CACHE_FORMAT, *parts)).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CachedVoice:
    """One voice's share of the cache, for `narrator voices list`."""

    key: str
    pieces: int
    size_bytes: int
    """bytes on disk."""


class VoiceCache:
    def __init__(self, directory: str | Path | None = None) -> None:
        """`directory` holds the clips; None means default_cache_dir()."""
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    def __repr__(self) -> str:
        return f"VoiceCache({str(self.directory)!r})"

    def path(self, key: str, text: str) -> Path:
        return self.directory / _hash(key)[:16] / f"{_hash(key, text)}.npy"

    def has(self, key: str, text: str) -> bool:
        return self.path(key, text).is_file()

    def get(self, key: str, text: str) -> Audio | None:
        """The cached audio, or None. A file that cannot be read counts as missing (and is removed)."""
        path = self.path(key, text)
        try:
            audio = np.load(path, allow_pickle=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, ValueError, EOFError):
            _remove(path)
            return None
        if audio.dtype != np.float32 or audio.ndim != 1:
            _remove(path)
            return None
        result: Audio = audio
        return result

    def put(self, key: str, text: str, audio: Audio) -> Path:
        path = self.path(key, text)
        path.parent.mkdir(parents=True, exist_ok=True)
        manifest = path.parent / "voice.json"
        if not manifest.exists():
            _atomic_write(manifest, lambda f: f.write(json.dumps({"key": key}, ensure_ascii=False).encode()))
        _atomic_write(path, lambda f: np.save(f, np.ascontiguousarray(audio, dtype=np.float32), allow_pickle=False))
        return path

    def voices(self) -> list[CachedVoice]:
        """Every voice with pieces in the cache."""
        out = []
        for manifest in sorted(self.directory.glob("*/voice.json")):
            try:
                key = str(json.loads(manifest.read_text(encoding="utf-8"))["key"])
            except (OSError, ValueError, KeyError):
                continue
            files = list(manifest.parent.glob("*.npy"))
            out.append(CachedVoice(key, len(files), sum(f.stat().st_size for f in files)))
        return out


def _atomic_write(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write to a temporary file beside `path`, then rename it into place: readers see all or nothing."""
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", suffix=".tmp", delete=False) as tmp:
        try:
            write(tmp)
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, path)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)
