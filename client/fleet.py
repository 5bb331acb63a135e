"""The fleet view as tables for people: `puzzle-queue workers`, `queues` and `failures`, and what
`drain` did."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, the last one left ragged."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in [headers, *rows]]
    return "\n".join(lines)


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}s"


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}" if n else ""


def held(worker: dict[str, Any]) -> str:
    """What a worker holds, by job: ``<job> 3 puzzles; <job> 1 part``."""
    return "; ".join(f"{h['job_id']} " + ", ".join(filter(None, (_count(h["puzzles"], "puzzle"),
                                                                 _count(h["parts"], "part"))))
                     for h in worker["holding"]) or "-"


def workers_table(body: dict[str, Any]) -> str:
    if not body["items"]:
        return "no workers (no heartbeat rows)"
    rows = [[w["name"], (w["lane"] or "?") + (" DRAINING" if w.get("draining") else ""),
             f"{seconds(w['heartbeat_age_seconds'])} ago" + ("" if w["alive"] else " SILENT"),
             f"{w['done_last_minute']:,}", held(w)] for w in body["items"]]
    return table(["WORKER", "LANE", "HEARTBEAT", "DONE/MIN", "HOLDS"], rows)


def queues_table(body: dict[str, Any]) -> str:
    rows = [[q["name"], q["lane"], f"{q['depth']:,}", seconds(q["oldest_age_seconds"]), str(q["workers"])]
            for q in body["items"]]
    window = f"{body['window_seconds']:g}"
    return (table(["QUEUE", "LANE", "WAITING", "OLDEST", "WORKERS"], rows)
            + f"\npuzzles in the last {window}s: {body['puzzles_in']:,} in, {body['puzzles_out']:,} out")


def failures_table(items: list[dict[str, Any]]) -> str:
    if not items:
        return "no failed puzzles in that window"
    rows = [[f["finished_at"], f["job_id"], str(f["index"]), f["kind"], f["owner"] or "-", f["error"]]
            for f in items]
    return table(["FINISHED", "JOB", "INDEX", "KIND", "CLIENT", "ERROR"], rows)


def drained_text(body: dict[str, Any]) -> str:
    """What `puzzle-queue drain` / `undrain` did, process by process."""
    n = len(body["workers"])
    what = ("finish what they hold and take nothing new" if body["draining"]
            else "take work again")
    return "\n".join([f"{body['name']}: {n} process{'' if n == 1 else 'es'} {what}",
                      *(f"  {name}" for name in body["workers"])])
