"""Wording of the command's messages: counts with their nouns, faults grouped by line, and the
command line that repeats this one (for the hints that say how to go on)."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from client.inputs import Line

SHOWN = 5  # lines named for a fault repeated on many; the rest are counted


def count(n: int, noun: str) -> str:
    """``1 puzzle``, ``2 puzzles``, ``1,000 results``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _places(lines: Sequence[Line]) -> str:
    """``a.txt:2, 3, b.txt:1 and 40 more``: the file named once for its run of lines."""
    parts: list[str] = []
    file = None
    for line in lines[:SHOWN]:
        parts.append(str(line.number) if line.file == file else str(line))
        file = line.file
    more = f" and {len(lines) - SHOWN:,} more" if len(lines) > SHOWN else ""
    return ", ".join(parts) + more


def grouped(faults: Iterable[tuple[Line | None, str]]) -> list[str]:
    """One message per distinct fault, in the order first met: a fault of one line is named by
    that line (``puzzles.txt:3: puzzle: bad symbol 'x'``); one repeated on several lines (an
    option or a kind given for every line) is said once with the count of lines it affects."""
    seen: dict[str, list[Line | None]] = {}
    for where, text in faults:
        seen.setdefault(text, []).append(where)
    out = []
    for text, places in seen.items():
        lines = [p for p in places if p is not None]
        if not lines:
            out.append(text)
        elif len(lines) == 1:
            out.append(f"{lines[0]}: {text}")
        else:
            out.append(f"{len(lines):,} lines ({_places(lines)}): {text}")
    return out


def cpu_seconds(seconds: float) -> str:
    """``0.0004 CPU seconds``, ``12.5 CPU seconds``, ``1,028,240 CPU seconds (11.9 days)``."""
    text = f"{seconds:.3g}" if seconds < 1000 else f"{seconds:,.0f}"
    if seconds >= 86400:
        return f"{text} CPU seconds ({seconds / 86400:,.1f} days)"
    if seconds >= 3600:
        return f"{text} CPU seconds ({seconds / 3600:.1f} hours)"
    return f"{text} CPU seconds"


def by_puzzle(faults: Iterable[tuple[int | None, str]]) -> list[str]:
    """One message per distinct fault of a job's puzzles, with the indexes it was found at:
    ``puzzle 3: options: ...``, ``puzzles 1, 3, 4, 6, 8 and 12 more: options: ...``."""
    seen: dict[str, list[int]] = {}
    for index, text in faults:
        seen.setdefault(text, []).extend([] if index is None else [index])
    out = []
    for text, indexes in seen.items():
        more = f" and {len(indexes) - SHOWN:,} more" if len(indexes) > SHOWN else ""
        named = ", ".join(map(str, indexes[:SHOWN])) + more
        out.append(f"{'puzzle' if len(indexes) == 1 else 'puzzles'} {named}: {text}" if indexes else text)
    return out


def invocation() -> str:
    """How this command was started, to be typed again: ``puzzle-queue`` when that is the one on
    the PATH, else the path it was started by (``.venv/bin/puzzle-queue``), or ``python -m client``."""
    started = sys.argv[0] if sys.argv else ""
    if not started or Path(started).name == "__main__.py":
        python = sys.executable
        name = Path(python).name
        return f"{name if shutil.which(name) == python else shlex.quote(python)} -m client"
    name = Path(started).name
    found = shutil.which(name)
    if found and Path(found).resolve() == Path(started).resolve():
        return name
    return shlex.quote(started)
