"""Results of one or more jobs (a file sent in parts) written as one file in input order.

``text`` (for generate jobs) is the made puzzles one per line in their kind's text form (a string
as it is, anything else as JSON), ready to be submitted again. JSON Lines are the service's
export. The CSV table is made here from those records, so it
carries every field the results hold: ``index``, ``kind``, ``status``, ``answer`` (the first
field the kind declares for its result that the result holds, as the service's CSV has it), the
result's other fields, ``error``, the stats fields, then ``cpu_seconds`` (the CPU seconds measured
of the puzzle, empty where none was). Columns come from the results
themselves, in the order the kinds declare their fields; lists and objects in a cell are JSON.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from client.api import Client, Job

LEADING = ("index", "kind", "status", "answer")
TRAILING = "cpu_seconds"


def records(client: Client, jobs: Sequence[Job],
            status: Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
    """Every result of the jobs in order; ``index`` counts from the first puzzle of the first job."""
    offset = 0
    for job in jobs:
        for row in client.results(job, status):
            yield {**row, "index": row["index"] + offset}
        offset += job["total"]


def write_results(client: Client, jobs: Sequence[Job], fmt: str, out: TextIO,
                  status: Sequence[str] | None = None) -> None:
    """JSON Lines, CSV or text of the jobs' results (only the puzzles in ``status`` if given)."""
    if fmt == "text":
        write_puzzles(client, jobs, out, status)
    elif fmt == "csv":
        write_csv(client, jobs, out, status)
    elif len(jobs) == 1:
        out.writelines(client.export(jobs[0], fmt, status))
    else:
        out.writelines(json.dumps(row, separators=(",", ":")) + "\n" for row in records(client, jobs, status))


def write_puzzles(client: Client, jobs: Sequence[Job], out: TextIO,
                  status: Sequence[str] | None = None) -> None:
    """The made puzzles (``result.puzzle``) one per line; a row without one (failed) writes nothing."""
    for row in records(client, jobs, status):
        made = (row.get("result") or {}).get("puzzle")
        if made is not None:
            out.write((made if isinstance(made, str) else json.dumps(made, separators=(",", ":"))) + "\n")


class Columns:
    """The table's columns as the results show them: each kind's answer field, then the other
    result fields and the stats fields met, ordered as the kinds met declare them (``GET /kinds``)."""

    def __init__(self, kinds: list[dict[str, Any]]) -> None:
        self.declared = {k["kind"]: (list(k.get("result") or {}), list(k.get("stats") or {})) for k in kinds}
        self.kinds: dict[str, None] = {}
        self.result: dict[str, None] = {}
        self.stats: dict[str, None] = {}

    def answer_field(self, kind: str, result: dict[str, Any]) -> str:
        fields = self.declared.get(kind, ([], []))[0]
        return next((f for f in fields if f in result), next(iter(result)))

    def see(self, row: dict[str, Any]) -> None:
        self.kinds[row["kind"]] = None
        result = row.get("result") or {}
        if result:
            main = self.answer_field(row["kind"], result)
            self.result.update(dict.fromkeys(f for f in result if f != main))
        self.stats.update(dict.fromkeys(row.get("stats") or {}))

    def _ordered(self, met: dict[str, None], which: int) -> list[str]:
        """The fields met in the order the kinds met declare them; fields none declares last."""
        declared = [f for kind in self.kinds for f in self.declared.get(kind, ([], []))[which]]
        rank = {f: i for i, f in enumerate(dict.fromkeys(declared))}
        return sorted(met, key=lambda f: rank.get(f, len(rank)))

    def names(self) -> tuple[list[str], list[str]]:
        """The result and the stats columns."""
        return self._ordered(self.result, 0), self._ordered(self.stats, 1)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _answer(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        return " ".join(map(str, value))  # a queen placement reads 1 3 0 2
    return _cell(value)


def _header(result: list[str], stats: list[str]) -> list[str]:
    """The column names; a field named like an earlier column is told apart by a prefix."""
    taken = set(LEADING) | {"error", TRAILING}
    named = [f"result.{f}" if f in taken else f for f in result]
    taken |= set(named)
    return [*LEADING, *named, "error", *(f"stats.{f}" if f in taken else f for f in stats), TRAILING]


def write_csv(client: Client, jobs: Sequence[Job], out: TextIO, status: Sequence[str] | None = None) -> None:
    """The table of the jobs' results. The records are spooled to a temporary file while the
    columns are gathered, so a large job is read from the service once and never held in memory."""
    columns = Columns(client.kinds())
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        for row in records(client, jobs, status):
            columns.see(row)
            spool.write(json.dumps(row, separators=(",", ":")) + "\n")
        result, stats = columns.names()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(_header(result, stats))
        spool.seek(0)
        for line in spool:
            row = json.loads(line)
            found, measured = row.get("result") or {}, row.get("stats") or {}
            main = columns.answer_field(row["kind"], found) if found else ""
            writer.writerow([row["index"], row["kind"], row["status"], _answer(found.get(main)),
                             *(_cell(None if f == main else found.get(f)) for f in result),
                             _cell(row.get("error")), *(_cell(measured.get(f)) for f in stats),
                             _cell(row.get(TRAILING))])


def exit_status(jobs: Sequence[Job]) -> int:
    """0 when every puzzle is solved or proved to have no solution, 1 otherwise."""
    return 0 if all(j["counts"]["solved"] + j["counts"]["no_solution"] == j["total"] for j in jobs) else 1
