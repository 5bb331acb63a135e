"""Result blocks: where a finished puzzle's result and stats are stored, and how they are read back.

The workers write the results of a job's puzzles finished together (store.results.write) as one
``result_blocks`` row: every puzzle's ``result`` and ``stats`` in one JSON text, keyed by puzzle
id. Each puzzle row then changes only small columns (status, times, its ``block_id``), so its size
stays the same and PostgreSQL updates it in place, where writing each row's JSON result would cost
more than solving a 9x9 Sudoku. Status, error, attempts and times stay on the puzzle row, where
claims, cancels, counts and the reaper read them.

A row without a block holds its own result and stats in its columns: a puzzle finished before the
blocks existed (revision 0005), or one with nothing to store (failed, cancelled, unfinished).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import fastjson
from store.models import ResultBlock

Answer = tuple[dict[str, Any] | None, dict[str, Any] | None]  # (result, stats)


class Stored(Protocol):
    """What a reader needs of a puzzle row (a ``Puzzle`` or a selected ``Row``)."""

    @property
    def id(self) -> int: ...
    @property
    def block_id(self) -> int | None: ...
    @property
    def result(self) -> dict[str, Any] | None: ...
    @property
    def stats(self) -> dict[str, Any] | None: ...


def answer(result: dict[str, Any] | None, stats: dict[str, Any] | None) -> str:
    """One puzzle's entry of a block: ``[result, stats]`` as JSON text."""
    return fastjson.dumps([result, stats])


def encode(answers: Mapping[int, str]) -> str:
    """A block's text: the answers of its puzzles (each ``answer``'s text), by puzzle id; joined as
    text, since a batch's answers come encoded already (``solvers.base.Outcomes.encoded``)."""
    return "{" + ",".join([f'"{puzzle_id}":{text}' for puzzle_id, text in answers.items()]) + "}"


def answers(s: Session, rows: Iterable[Stored], cache: dict[int, dict[str, Any]] | None = None,
            ) -> dict[int, Answer]:
    """(result, stats) of each row by puzzle id, from its block or its own columns; each block
    named is read and decoded once (``cache``: blocks decoded already, kept across calls)."""
    rows = list(rows)
    decoded = {} if cache is None else cache
    wanted = {r.block_id for r in rows if r.block_id is not None} - set(decoded)
    if wanted:
        for block_id, text in s.execute(select(ResultBlock.id, ResultBlock.outcomes)
                                        .where(ResultBlock.id.in_(wanted))):
            decoded[block_id] = fastjson.loads(text)
    out: dict[int, Answer] = {}
    for r in rows:
        if r.block_id is None:
            out[r.id] = (r.result, r.stats)
        else:
            block = decoded[r.block_id]
            # A chunk's block lists its entries' answers in order (store.chunks).
            result, stats = block[r.offset] if isinstance(block, list) else block[str(r.id)]
            out[r.id] = (result, stats)
    return out
