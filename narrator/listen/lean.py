"""A speech model without what the ear never uses, to keep memory down.

A small Vosk model (lookahead layout: graph/HCLr.fst + graph/Gr.fst) decodes either with its own language
model Gr.fst or with a grammar given per recogniser. The ear always gives a grammar (the prompt's legal
words), yet vosk.Model reads Gr.fst into memory all the same — for the Korean stand-in 47 MB on disk and
about 100 MB resident; its word list is the only part the ear needs. `grammar_only(folder, cache)` makes,
once, a folder of links to the model's files without Gr.fst, plus graph/words.txt written from Gr.fst's
own word table (the file vosk reads the words from when there is no Gr.fst). Decoding is unchanged: the
same acoustic model, HCLr.fst and grammar. A model of another layout (HCLG.fst, or words.txt already
beside Gr.fst) is used as it is.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import struct
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

_FST_MAGIC = 2125659606
_SYMBOLS_MAGIC = 2125658996
_HAS_OSYMBOLS = 2


class NotLookahead(ValueError):
    """The FST has no word table to take (not the file this module expects)."""


def _string(f: BinaryIO) -> str:
    (n,) = struct.unpack("<i", f.read(4))
    return f.read(n).decode("utf-8")


def output_words(fst: Path) -> list[tuple[str, int]]:
    """The output symbol table (word, id) stored in an OpenFst binary file's header."""
    with fst.open("rb") as f:
        (magic,) = struct.unpack("<i", f.read(4))
        if magic != _FST_MAGIC:
            raise NotLookahead(f"{fst} is not an OpenFst file")
        _string(f), _string(f)  # FST type, arc type
        _version, flags = struct.unpack("<ii", f.read(8))
        f.read(32)  # properties, start state, number of states and arcs
        if not flags & _HAS_OSYMBOLS:
            raise NotLookahead(f"{fst} carries no word table")
        tables = []
        for _ in range(2 if flags & 1 else 1):  # the input table comes first when there is one
            (table_magic,) = struct.unpack("<i", f.read(4))
            if table_magic != _SYMBOLS_MAGIC:
                raise NotLookahead(f"{fst}: unreadable symbol table")
            _string(f)
            _available, size = struct.unpack("<qq", f.read(16))
            tables.append([(_string(f), struct.unpack("<q", f.read(8))[0]) for _ in range(size)])
        return tables[-1]


def grammar_only(folder: Path, cache: Path) -> Path:
    """`folder`'s model as the ear loads it: a lean copy made of links under `cache` (made once, kept while
    the model's files are unchanged), or `folder` itself when there is nothing to leave out or the copy
    cannot be made."""
    graph = folder / "graph"
    g_fst = graph / "Gr.fst"
    if not (graph / "HCLr.fst").is_file() or not g_fst.is_file() or (graph / "words.txt").exists():
        return folder
    st = g_fst.stat()
    key = hashlib.sha256(f"{folder.resolve()}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:12]
    lean = cache / f"{folder.name}-grammar-only-{key}"
    if (lean / "graph" / "words.txt").is_file():
        return lean
    tmp = cache / f".{lean.name}.{os.getpid()}"
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "graph").mkdir(parents=True)
        for item in folder.iterdir():
            if item.name != "graph":
                (tmp / item.name).symlink_to(item.resolve())
        for item in graph.iterdir():
            if item.name != "Gr.fst":
                (tmp / "graph" / item.name).symlink_to(item.resolve())
        words = output_words(g_fst)
        with (tmp / "graph" / "words.txt").open("w", encoding="utf-8") as out:
            out.writelines(f"{word} {i}\n" for word, i in words)
        tmp.replace(lean)
    except (OSError, NotLookahead, struct.error, UnicodeDecodeError) as exc:
        log.warning("using the whole model %s (cannot leave out its Gr.fst: %s)", folder, exc)
        shutil.rmtree(tmp, ignore_errors=True)
        return lean if (lean / "graph" / "words.txt").is_file() else folder
    return lean
