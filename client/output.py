"""Results of one or more jobs (a file sent in parts) written as one file in input order."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import TextIO

from client.api import Client, Job


def write_results(client: Client, jobs: Sequence[Job], fmt: str, out: TextIO,
                  status: Sequence[str] | None = None) -> None:
    """JSON Lines or CSV as the service exports them (only the puzzles in ``status`` if given);
    with several jobs, ``index`` counts from the first puzzle of the first job, and the CSV
    columns are those of every job together."""
    if len(jobs) == 1:
        out.writelines(client.export(jobs[0], fmt, status))
        return
    offsets = [sum(j["total"] for j in jobs[:i]) for i in range(len(jobs))]
    if fmt == "jsonl":
        for job, offset in zip(jobs, offsets, strict=True):
            out.writelines(json.dumps({**row, "index": row["index"] + offset}, separators=(",", ":")) + "\n"
                           for row in client.results(job, status))
        return
    columns: dict[str, None] = {}
    for job in jobs:
        columns.update(dict.fromkeys(next(csv.reader(client.export(job, "csv")))))
    writer = csv.DictWriter(out, list(columns), restval="", lineterminator="\n")
    writer.writeheader()
    for job, offset in zip(jobs, offsets, strict=True):
        for row in csv.DictReader(client.export(job, "csv", status)):
            writer.writerow({**row, "index": int(row["index"]) + offset})


def exit_status(jobs: Sequence[Job]) -> int:
    """0 when every puzzle is solved or proved to have no solution, 1 otherwise."""
    return 0 if all(j["counts"]["solved"] + j["counts"]["no_solution"] == j["total"] for j in jobs) else 1
