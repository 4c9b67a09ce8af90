"""The music beds and cues, kept decoded on disk between games: synthesising the built-in beds takes
seconds, and the judge's first line should not wait for them. The cache key covers everything the sounds
are made from (the code that synthesises them, the sample rate, every user sound file's path, size and
time), so a change anywhere makes them again."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.audio.beds import SOUND_NAMES, SoundBank, load_sounds, sound_dirs, user_sound_files

log = logging.getLogger(__name__)


def _key() -> str:
    import narrator.audio.beds as beds

    h = hashlib.sha256(Path(beds.__file__).read_bytes())
    h.update(str(SAMPLE_RATE).encode())
    for name in SOUND_NAMES:
        for path in user_sound_files(name, sound_dirs()):
            st = path.stat()
            h.update(f"{name}\0{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def cached_sounds(cache_root: Path) -> SoundBank:
    """load_sounds(), from `cache_root`/sounds when it was made before (a broken cache is made again)."""
    folder = cache_root / "sounds"
    key = _key()
    data, meta = folder / f"{key}.npz", folder / f"{key}.json"
    if data.exists() and meta.exists():
        try:
            with np.load(data) as stored:
                sounds = {name: stored[name].astype(np.float32) for name in SOUND_NAMES}
            return SoundBank(sounds, json.loads(meta.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError) as exc:
            log.warning("sound cache %s unreadable (%s): making the sounds again", data, exc)
    bank = load_sounds()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{key}.tmp.npz"
        np.savez(tmp, **{name: np.asarray(bank[name]) for name in SOUND_NAMES})  # type: ignore[arg-type]
        meta.write_text(json.dumps(dict(bank.origins)), encoding="utf-8")
        tmp.replace(data)
    except OSError as exc:  # a cache that cannot be written never stops a game
        log.warning("cannot write the sound cache in %s: %s", folder, exc)
    return bank
