"""Chunks: runs of a job's cheap puzzles stored, claimed and written as one row each (models.Chunk);
this module holds what every chunk module shares: which runs of a batch become chunks, and an entry's
status read from its chunk's letters.

Terms (chunk, entry, letter, leaves): docs/glossary.md. An entry's result and stats are element
``offset`` of its chunk's block; an entry that leaves gets a puzzle row with its index.

A store of 1,000 puzzles as one row instead of 1,000 rows is what makes a cheap chunk cheap: one
row inserted at submit, one claimed and one written by the worker (docs/architecture.md). The
chunk's task claims and writes it in store.chunk_task (statements: store.chunk_statements); readers
see its entries through store.chunk_entries; cancel, retry and the reaper change it through
store.chunk_control.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from store.fastjson import canonical
from store.models import CANCELLED, FAILED, NO_SOLUTION, SOLVED

WRITTEN = "written"  # a chunk's status once its task wrote it: each entry's is its letter
LEFT = "l"
LETTERS = {SOLVED: "s", NO_SOLUTION: "n", FAILED: "f", CANCELLED: "c"}
STATUS_OF = {letter: status for status, letter in LETTERS.items()}


@dataclass(frozen=True)
class Run:
    """Consecutive puzzles of a batch stored as one chunk: its first index and size."""

    first: int
    size: int


def runs_of(tasks: Sequence[tuple[int, int, bool]], kinds: Sequence[str],
            options: Sequence[Any]) -> list[Run]:
    """The chunks a batch's tasks make: each task of the cheap lane (``(first, size, dear)``)
    cut where the kind or the options change; a run of one stays a puzzle row."""
    runs: list[Run] = []
    for first, size, dear in tasks:
        if dear:
            continue
        start = first
        for i in range(first + 1, first + size + 1):
            if i == first + size or kinds[i] != kinds[start] or not _same(options[i], options[start]):
                if i - start > 1:
                    runs.append(Run(start, i - start))
                start = i
    return runs


def _same(a: Any, b: Any) -> bool:
    """Options equal as JSON text (so 2 and 2.0 stay apart); a bulk-checked batch shares one object."""
    return a is b or canonical(a) == canonical(b)




def outcome_text(statuses: Sequence[str | None]) -> str:
    """The letters of a written chunk's entries (None: it left)."""
    return "".join(LEFT if status is None else LETTERS[status] for status in statuses)


def entry_status(chunk_status: str, outcome: str | None, offset: int) -> str | None:
    """An entry's status (None: it left, its puzzle row stands for it)."""
    if outcome is None:
        return chunk_status
    letter = outcome[offset]
    return None if letter == LEFT else STATUS_OF[letter]

