"""How honest a job's progress and ETA are over its life, on the real stack.

    python bench/eta.py [--workers 2] [--poll 0.25]

Needs the real PostgreSQL and Redis (TEST_DATABASE_URL / TEST_REDIS_URL, as the integration
tests). Mixed jobs run one after another on gunicorn and real celery workers; the bench reads
each job (``GET /api/v1/jobs/{id}``) every ``--poll`` seconds and, at the first reading where
``progress`` (predicted work done / predicted work) reaches 10%, 50% and 90%, compares the job's
``eta_seconds`` with the time it actually took from there to its end: the ratio ETA / actual, and
whether the actual time fell within ``eta_range``. A ratio of 1 is an exact ETA; progress counted
in puzzles would show 99.9% for most of the life of the first job.

The last jobs run on a second stack that solves n-Queens counts whole (SPLIT_QUEENS_N=99), so a
long count's progress comes from the share of its search its solver reports. The same readings
also give the ETA without those shares: the job's done seconds less each running puzzle's
``progress`` x ``estimated_seconds`` (``GET .../puzzles?status=running``), at the same rate rule.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench._services import stack

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
MARKS = (0.10, 0.50, 0.90)


def _lines(path: Path, count: int) -> list[str]:
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line.split()[0])
        if len(out) == count:
            break
    return out


def sudokus(name: str, count: int, **options: Any) -> list[dict[str, Any]]:
    return [{"kind": "sudoku", "puzzle": p, "options": options}
            for p in _lines(DATA / "sudoku" / name, count)]


def count_queens(n: int) -> dict[str, Any]:
    return {"kind": "nqueens", "puzzle": {"n": n}, "options": {"mode": "count"}}


def split_jobs() -> dict[str, list[dict[str, Any]]]:
    """Three mixes: many instant puzzles beside one count that holds nearly all the work; counts
    of several sizes; hard Sudokus proved unique beside counts."""
    easy, hard = "tdoku_puzzles2_17_clue_first10000.txt", "tdoku_puzzles3_magictour_top1465.txt"
    return {
        "999 Sudokus + n = 17 count": [*sudokus(easy, 999), count_queens(17)],
        "counts n = 14, 15, 16 + 200 Sudokus": [count_queens(14), count_queens(15), count_queens(16),
                                               *sudokus(easy, 200)],
        "300 hard Sudokus unique + n = 15, 16": [*sudokus(hard, 300, max_solutions=2),
                                                 count_queens(15), count_queens(16)],
    }


def whole_jobs() -> dict[str, list[dict[str, Any]]]:
    """One long count solved whole, alone and beside quick puzzles."""
    easy = "tdoku_puzzles2_17_clue_first10000.txt"
    return {"n = 17 count, whole": [count_queens(17)],
            "n = 17 count, whole + 200 Sudokus": [count_queens(17), *sudokus(easy, 200)]}


def _call(base: str, method: str, path: str, body: Any = None) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        return json.loads(r.read())


def follow(base: str, items: list[dict[str, Any]], poll: float) -> tuple[float, list[tuple[float, dict]]]:
    """Post the job and read it until it ends: its life in seconds and each reading's time, the
    reading with ``unrefined_eta``: its eta without the running puzzles' reported shares."""
    job = _call(base, "POST", "/api/v1/jobs", {"puzzles": items, "label": "eta bench"})
    start = time.monotonic()
    readings = []
    while True:
        now = _call(base, "GET", f"/api/v1/jobs/{job['id']}")
        running = _call(base, "GET", f"/api/v1/jobs/{job['id']}/puzzles?status=running&limit=1000")
        unrefined = _unrefined_eta(now, running["items"])
        readings.append((time.monotonic() - start, now | {"unrefined_eta": unrefined}))
        if now["status"] in ("completed", "cancelled"):
            return readings[-1][0], readings
        time.sleep(poll)


def _unrefined_eta(job: dict[str, Any], running: list[dict[str, Any]]) -> float | None:
    """store.costs' eta from the done seconds less the shares whole running puzzles reported, over
    the same wall seconds since the job started (eta = left / (done / elapsed) gives them back)."""
    total, done = job.get("estimated_seconds_total"), job.get("estimated_seconds_done")
    eta = job.get("eta_seconds")
    if total is None or done is None or eta is None or done >= total:
        return None
    elapsed = eta * done / (total - done)
    done -= sum((p.get("progress") or 0.0) * (p.get("estimated_seconds") or 0.0) for p in running)
    # The API rounds seconds to the microsecond: less is nothing done.
    return (total - done) / (done / elapsed) if done >= 1e-6 and elapsed > 0 else None


def at_marks(life: float, readings: list[tuple[float, dict]]) -> list[str]:
    """Per mark: ``ETA / actual`` and ``in`` when the actual time left was within the range; then
    per mark the ETA without the running puzzles' shares over the actual (``-``: none yet)."""
    cells, unrefined = [], []
    for mark in MARKS:
        seen = next(((t, r) for t, r in readings if r["progress"] >= mark and r.get("eta_seconds") is not None
                     and r["status"] != "completed"), None)
        if seen is None or life - seen[0] <= 0:
            cells.append("-")
            unrefined.append("-")
            continue
        t, r = seen
        actual = life - t
        low, high = r.get("eta_range") or (None, None)
        inside = low is not None and high is not None and low <= actual <= high
        cells.append(f"{r['eta_seconds'] / actual:.2f}{' in' if inside else ''}")
        unrefined.append("-" if r["unrefined_eta"] is None else f"{r['unrefined_eta'] / actual:.2f}")
    return cells + unrefined


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--poll", type=float, default=0.25)
    args = ap.parse_args()
    print("| job | predicted CPU s | life s | ETA / actual at 10% | at 50% | at 90% "
          "| without the shares reported: at 10% | at 50% | at 90% | puzzles done at 10% of the work |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    # Counts split from n = 14 on (the default), then never.
    for split_from, mixes in (("14", split_jobs()), ("99", whole_jobs())):
        with stack(args.workers, SPLIT_QUEENS_N=split_from) as running:
            for name, items in mixes.items():
                life, readings = follow(running.base, items, args.poll)
                print(_row(name, items, life, readings), flush=True)


def _row(name: str, items: list[dict[str, Any]], life: float, readings: list[tuple[float, dict]]) -> str:
    predicted = readings[-1][1].get("estimated_seconds_total")
    first = next((r for _, r in readings if r["progress"] >= MARKS[0]), readings[-1][1])
    share = sum((first.get("counts") or {}).get(s, 0) for s in ("solved", "no_solution", "failed"))
    row = [name, f"{predicted:.1f}", f"{life:.1f}", *at_marks(life, readings), f"{share} of {len(items)}"]
    return "| " + " | ".join(row) + " |"


if __name__ == "__main__":
    main()
