"""`GET /api/v1/jobs/{id}/results`: every result of a job in batch order, as JSON Lines or CSV.

Streamed: the rows are read a page at a time along the (job_id, index) index and written
out as they come, so the API process holds one page however large the job is. Each page
is its own short read, so a long download holds no transaction open.

JSON Lines: one object per puzzle, ``index``, ``kind``, ``status``, ``result``, ``stats``,
``error``, ``cpu_seconds``. CSV: ``index``, ``kind``, ``status``, ``answer`` (the first field the
kind declares for its result that the result holds: a Sudoku's solution, a queen placement
or a count, a move string, the spokes), ``error``, then the stats fields of the kinds in
the job, in the order the kinds declare them, then ``cpu_seconds``. Lists and objects in a cell
are JSON.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal, cast

from flask import Response, current_app, request
from pydantic import Field
from spectree import Response as Documented
from sqlalchemy import select
from sqlalchemy.orm import Session

import solvers
from service.api import ERRORS, bp, job_or_404, snapshot, spec
from service.schemas import PuzzleStatusFilter
from store import blocks, jobs
from store.models import FINAL, Puzzle

PAGE = 500
LEADING = ("index", "kind", "status", "answer", "error")
TRAILING = ("cpu_seconds",)  # after the stats, so that the columns before keep their places
MEDIA = {"jsonl": "application/jsonl", "csv": "text/csv"}


class ResultsQuery(PuzzleStatusFilter):
    format: Literal["jsonl", "csv"] = Field("jsonl", description="jsonl: one JSON object per puzzle; "
                                                                 "csv: one row per puzzle")


@bp.get("/jobs/<job_id>/results")
@spec.validate(query=ResultsQuery, resp=Documented(HTTP_200=None, **ERRORS), tags=["jobs"])
def export_results(job_id: str) -> Response:
    """Every result of the job in batch order, streamed: JSON Lines (default) or CSV.

    Unfinished puzzles appear with their status and no result; with `?status=`, only the puzzles
    in the given statuses. Same rules as the other job endpoints: 401 without a valid token when
    tokens are on, 404 for another client's job.
    """
    q = cast(ResultsQuery, request.context.query)  # type: ignore[attr-defined]  # spectree's
    fmt = q.format
    with snapshot() as s:
        job = job_or_404(s, job_id)
        kinds = s.scalars(select(Puzzle.kind).where(Puzzle.job_id == job.id).distinct()).all()
    rows = puzzle_rows(current_app.extensions["sessions"], job.id, q.status)
    body = as_jsonl(rows) if fmt == "jsonl" else as_csv(rows, kinds)
    return Response(body, mimetype=MEDIA[fmt],
                    headers={"Content-Disposition": f'attachment; filename="{job.id}.{fmt}"'})


def puzzle_rows(sessions: Callable[[], Session], job_id: str,
                statuses: Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
    """The job's puzzles in batch order as export records (only those in ``statuses`` if given),
    one page of rows read at a time, each page's results from their blocks (store.blocks)."""
    start: int | None = 0
    decoded: dict[int, Any] = {}  # the blocks of the last page: the next may start in one
    while start is not None:
        with sessions() as s:
            page, start = jobs.list_puzzles(s, job_id, PAGE, start, statuses)
            named = {p.block_id for p in page if p.block_id is not None}
            decoded = {b: decoded[b] for b in named & set(decoded)}
            found = blocks.answers(s, page, decoded)
        for p in page:
            result, stats = found[p.id]
            yield {"index": p.index, "kind": p.kind, "status": p.status, "result": result,
                   "stats": stats if p.status in FINAL else None, "error": p.error,
                   "cpu_seconds": None if p.cpu_seconds is None else round(p.cpu_seconds, 6)}


def as_jsonl(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    lines = []
    for record in records:
        lines.append(json.dumps(record, separators=(",", ":")) + "\n")
        if len(lines) == PAGE:
            yield "".join(lines)
            lines = []
    if lines:
        yield "".join(lines)


def stats_columns(kinds: Iterable[str]) -> list[str]:
    """The stats fields of these kinds, each once, in registry order and each kind's own order."""
    present = set(kinds)
    columns: dict[str, None] = {}
    for kind in solvers.KINDS.values():
        if kind.name in present:
            columns.update(dict.fromkeys(c for c in kind.stats_fields if c not in LEADING + TRAILING))
    return list(columns)


def answer(kind: str, result: dict[str, Any] | None) -> Any:
    """The first field of the kind's declared result fields that this result holds."""
    if not result:
        return None
    declared = solvers.KINDS[kind].result_fields if kind in solvers.KINDS else {}
    name = next((f for f in declared if f in result), next(iter(result)))
    value = result[name]
    if isinstance(value, list) and all(isinstance(v, (int, float)) for v in value):
        return " ".join(map(str, value))  # a queen placement reads 1 3 0 2
    return value


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def as_csv(records: Iterable[dict[str, Any]], kinds: Iterable[str]) -> Iterator[str]:
    stats = stats_columns(kinds)
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow([*LEADING, *stats, *TRAILING])
    for n, r in enumerate(records, 1):
        found = r["stats"] or {}
        out.writerow([cell(v) for v in (r["index"], r["kind"], r["status"], answer(r["kind"], r["result"]),
                                         r["error"], *(found.get(c) for c in stats), r["cpu_seconds"])])
        if n % PAGE == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
