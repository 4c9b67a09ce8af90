"""Speech models on disk: install (download or a zip the user has), list, remove, and what is wrong.

The Chinese model is vosk-model-small-cn-0.22; its download is checked against the published size and
SHA-256, and reading stops as soon as the server offers or sends more than that size. A zip is unpacked
only when none of its entries could land outside the target folder (absolute paths, `..`, links) and
its entries and unpacked bytes stay within limits (counted while unpacking, not trusted from the zip's
directory), into a temporary folder that is renamed into place at the end: a half-finished install
never counts as installed. A reinstall swaps the new folder in atomically (renameat2 RENAME_EXCHANGE
where the kernel has it) before the old one is deleted. Whatever fails — a bad download, a full disk,
Ctrl-C — leaves the models folder as it was, including folders the install itself created. Models live
in the user data folder (`$NARRATOR_DATA_DIR/models` when that is set), or the repository's models/
folder, or any `--dir`.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import http.client
import os
import shutil
import stat
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MODEL_NAME = "vosk-model-small-cn-0.22"
MODEL_URL = "https://alphacephei.com/vosk/models/vosk-model-small-cn-0.22.zip"
MODEL_SIZE = 43_898_754
MODEL_SHA256 = "3af8b0e7e0f835ae9d414ce5df580237a3cfb08d586c9fbbb0f7ff29ad5b14ba"
REPO_MODELS = Path(__file__).resolve().parents[2] / "models"
CHUNK = 1 << 16
MAX_ENTRIES = 10_000
"""Entries a model zip may hold (the Chinese model has about 20)."""
UNPACK_RATIO = 20
"""A zip may unpack to at most this many times its own size (a speech model packs about 1.3 : 1) …"""
UNPACK_FLOOR = 64 << 20
"""… or this many bytes, whichever is more."""

Progress = Callable[[int, int | None], None]
"""progress(bytes so far, total or None)."""


class InstallError(Exception):
    """The install failed; nothing was installed (one sentence saying why and what to do)."""


@dataclass(frozen=True, slots=True)
class Problem:
    """Something missing or broken, and the exact command that fixes it (for `narrator doctor`)."""

    what: str
    fix: str


def user_models_dir() -> Path:
    """models/ in the user data folder: the one `narrator play` keeps its games in ($NARRATOR_DATA_DIR)."""
    from narrator.common.paths import data_dir

    return data_dir() / "models"


def model_dirs(extra: Iterable[Path] = ()) -> list[Path]:
    """Where models are looked for, in order: --dir folders, the user data folder, the repository's models/."""
    return [*extra, user_models_dir(), REPO_MODELS]


def is_model(path: Path) -> bool:
    return (path / "am" / "final.mdl").is_file() and (path / "conf").is_dir()


def find_model(name: str = MODEL_NAME, dirs: Iterable[Path] | None = None) -> Path | None:
    for d in model_dirs() if dirs is None else dirs:
        if is_model(d / name):
            return d / name
    return None


def installed(dirs: Iterable[Path] | None = None) -> list[tuple[str, Path, int]]:
    """(name, folder, bytes) of every complete model found."""
    out = []
    for d in model_dirs() if dirs is None else dirs:
        if d.is_dir():
            for sub in sorted(d.iterdir()):
                if sub.is_dir() and not sub.name.startswith(".") and is_model(sub):
                    size = sum(f.stat().st_size for f in sub.rglob("*") if f.is_file())
                    out.append((sub.name, sub, size))
    return out


def download(url: str, dest: Path, progress: Progress | None = None, *, size: int = MODEL_SIZE,
             sha256: str = MODEL_SHA256, timeout_s: float = 30.0) -> None:
    """Fetch `url` into `dest`, checking the byte count and the SHA-256; InstallError otherwise.

    Never reads past `size`: a Content-Length that differs is refused before the body is read, and a body
    that goes on past `size` is cut off at the first byte too many."""
    got = 0
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response, dest.open("wb") as out:
            total = response.headers.get("Content-Length")
            if total and total.strip().isdigit() and int(total) != size:
                raise InstallError(f"{url} offers {int(total):,} bytes, not the {size:,} of {MODEL_NAME}.zip: "
                                   "it is another file: nothing was installed")
            while chunk := response.read(min(CHUNK, size + 1 - got)):
                out.write(chunk)
                got += len(chunk)
                if got > size:
                    raise InstallError(f"{url} sent more than the {size:,} bytes of {MODEL_NAME}.zip: it is "
                                       "another file: the download was stopped, nothing was installed")
                if progress:
                    progress(got, size)
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        raise InstallError(f"could not download {url}: {reason}. Check the network, or download the zip "
                           "yourself and run `narrator model install --from-zip FILE`") from None
    check_file(dest, size, sha256, got=got, source=url)


def check_file(path: Path, size: int = MODEL_SIZE, sha256: str = MODEL_SHA256, *, got: int | None = None,
               source: str | None = None) -> None:
    source = source or str(path)
    n = path.stat().st_size if got is None else got
    if n != size:
        raise InstallError(f"{source} is {n:,} bytes, not the {size:,} of {MODEL_NAME}.zip: the download was "
                           "cut short or it is another file; nothing was installed")
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    if h.hexdigest() != sha256:
        raise InstallError(f"{source} does not have the published SHA-256 of {MODEL_NAME}.zip "
                           f"({h.hexdigest()[:16]}… instead of {sha256[:16]}…): nothing was installed")


def unsafe_entry(info: zipfile.ZipInfo) -> str | None:
    """Why this zip entry may not be unpacked (it could land outside the target), or None."""
    name = info.filename
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "is a link"
    if "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "is an absolute path"
    if ".." in PurePosixPath(name).parts:
        return "climbs out with .."
    return None


def unpack_limit(zip_path: Path) -> int:
    """The most bytes `zip_path` may unpack to."""
    return max(UNPACK_FLOOR, UNPACK_RATIO * zip_path.stat().st_size)


def extract(zip_path: Path, target: Path, name: str = MODEL_NAME, *, max_entries: int = MAX_ENTRIES,
            max_bytes: int | None = None) -> Path:
    """Unpack the model in `zip_path` as target/name: checked first, unpacked beside, swapped in last."""
    limit = unpack_limit(zip_path) if max_bytes is None else max_bytes
    try:
        zf = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError) as e:
        raise InstallError(f"{zip_path} is not a readable zip file ({e}): nothing was installed") from None
    with zf:
        entries = zf.infolist()
        if len(entries) > max_entries:
            raise InstallError(f"{zip_path} has {len(entries):,} entries, more than the {max_entries:,} a speech "
                               "model may have: nothing was installed")
        for info in entries:
            why = unsafe_entry(info)
            if why:
                raise InstallError(f"{zip_path}: the entry {info.filename!r} {why}; such a zip is never "
                                   "unpacked, nothing was installed")
        if sum(info.file_size for info in entries) > limit:
            raise InstallError(_too_big(zip_path, limit))
        with _made_dirs(target):
            tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=target))
            try:
                try:
                    _unpack(zf, entries, tmp, limit, zip_path)
                except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:
                    raise InstallError(f"{zip_path} could not be unpacked ({_reason(e)}): nothing was "
                                       "installed") from None
                root = _model_root(tmp)
                if root is None:
                    raise InstallError(f"{zip_path} holds no Vosk model (no am/final.mdl): nothing was installed")
                final = target / name
                swap_in(root, final)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return final


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError) and e.errno == errno.ENOSPC:
        return "the disk is full"
    return str(getattr(e, "strerror", None) or e)


def _too_big(zip_path: Path, limit: int) -> str:
    return (f"{zip_path} unpacks to more than {limit / 1e6:,.0f} MB, far more than a speech model of its "
            "size: nothing was installed")


def _unpack(zf: zipfile.ZipFile, entries: list[zipfile.ZipInfo], into: Path, limit: int, zip_path: Path) -> None:
    """Write every entry under `into`, counting the bytes really written (a zip's directory can lie)."""
    written = 0
    for info in entries:
        dest = into.joinpath(*PurePosixPath(info.filename).parts)
        if info.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as src, dest.open("wb") as out:
            while chunk := src.read(min(CHUNK, limit + 1 - written)):
                written += len(chunk)
                if written > limit:
                    raise InstallError(_too_big(zip_path, limit))
                out.write(chunk)


class _made_dirs:
    """Create `folder` (and missing parents) for the `with` block; remove the ones it created if the block
    fails and they are still empty, so a failed install leaves no trace."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.created: list[Path] = []

    def __enter__(self) -> Path:
        missing = []
        p = self.folder
        while not p.exists() and p != p.parent:
            missing.append(p)
            p = p.parent
        self.folder.mkdir(parents=True, exist_ok=True)
        self.created = missing  # deepest first
        return self.folder

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            return
        for p in self.created:
            try:
                p.rmdir()
            except OSError:
                break


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    rc = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_in(new: Path, final: Path) -> None:
    """Put `new` at `final`. An existing `final` is replaced only once `new` is in place, then deleted:
    at every moment `final` is a whole model (the old one or the new one)."""
    if not final.exists():
        new.rename(final)
        return
    if _exchange(new, final):
        shutil.rmtree(new)  # the old model, now at `new`
        return
    old = final.with_name(f".{final.name}.old.{os.getpid()}")
    final.rename(old)
    try:
        new.rename(final)
    except OSError:
        old.rename(final)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _model_root(tmp: Path) -> Path | None:
    if is_model(tmp):
        return tmp
    subs = [p for p in tmp.iterdir() if p.is_dir()]
    return subs[0] if len(subs) == 1 and is_model(subs[0]) else None


def install(target: Path, *, url: str = MODEL_URL, from_zip: Path | None = None, progress: Progress | None = None,
            name: str = MODEL_NAME, size: int = MODEL_SIZE, sha256: str = MODEL_SHA256) -> Path:
    """Install the model into target/name; returns the folder. InstallError (or KeyboardInterrupt) leaves
    target as it was."""
    if from_zip is not None:
        if not from_zip.is_file():
            raise InstallError(f"{from_zip} does not exist")
        check_file(from_zip, size, sha256)
        return extract(from_zip, target, name)
    with _made_dirs(target), tempfile.TemporaryDirectory(prefix=".download.", dir=target) as tmp:
        zip_path = Path(tmp) / f"{name}.zip"
        download(url, zip_path, progress, size=size, sha256=sha256)
        return extract(zip_path, target, name)


def remove(name: str, dirs: Iterable[Path] | None = None) -> list[Path]:
    """Delete every copy of model `name`, complete or not; the folders removed."""
    gone: list[Path] = []
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        return gone
    for d in model_dirs() if dirs is None else dirs:
        folder = d / name
        if folder.is_dir() and not folder.is_symlink() and folder.resolve().parent == d.resolve():
            shutil.rmtree(folder)
            gone.append(folder)
    return gone


def model_problems(dirs: Iterable[Path] | None = None, *, check_vocabulary: bool = False) -> list[Problem]:
    """What stops the ear from listening in Chinese, each with the command that fixes it."""
    places = list(model_dirs() if dirs is None else dirs)
    folder = find_model(MODEL_NAME, places)
    if folder is None:
        broken = [d / MODEL_NAME for d in places if (d / MODEL_NAME).exists()]
        if broken:
            where = broken[0].parent
            return [Problem(f"the speech model in {broken[0]} is incomplete (no am/final.mdl)",
                            f"narrator model remove --dir {where} && narrator model install --dir {where}")]
        return [Problem(f"the Chinese speech model {MODEL_NAME} is not installed (looked in "
                        f"{', '.join(str(p) for p in places)})", "narrator model install")]
    try:
        import vosk  # noqa: F401
    except ImportError:
        return [Problem("the vosk package is missing", "pip install vosk")]
    if check_vocabulary:
        from narrator.listen.grammar import Grammar, VocabularyError, load_pack
        from narrator.listen.recognizer import ModelError, knows, load_model

        try:
            model = load_model(folder)
            Grammar(load_pack("zh"), lambda w: knows(model, w)).check(18)
        except ModelError as e:
            return [Problem(str(e), "narrator model install")]
        except VocabularyError as e:
            return [Problem(str(e), "edit grammars/zh.yaml or install the model it was written for")]
    return []
