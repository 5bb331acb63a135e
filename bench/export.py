"""The streaming export of a large job: time, and peak memory of the API process.

    python bench/export.py [--puzzles 20000] [--small 2000]

Needs PostgreSQL and Redis like the integration tests (TEST_DATABASE_URL / TEST_REDIS_URL).
Starts gunicorn (2 sync workers) and one celery worker on a fresh database, submits a job of
17-clue Sudokus with the client, waits until it is completed, then downloads its results:
the export as JSON Lines and as CSV, and, for comparison, the paged JSON API
(GET /puzzles?limit=1000 until the last page). Before each download every gunicorn worker's
peak resident memory (VmHWM) is reset (/proc/PID/clear_refs), so the peak after it is that
download's own; "growth" is that peak above the worker's resident memory before it, for
each of --repeats downloads. A smaller job exported the same way shows whether the peak
depends on the job's size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._services import stack
from client import Client
from tests.support.devstack import process_tree

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "sudoku"
FILES = ("tdoku_puzzles2_17_clue_first10000.txt", "norvig_sudoku10k.txt")


def load_puzzles(count: int) -> list[str]:
    out: list[str] = []
    for name in FILES:
        lines = (DATA / name).read_text().splitlines()
        out += [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    return out[:count]


def memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def measured(workers: list[int], fetch) -> tuple[float, int, int, int]:
    """(seconds, lines or items, peak RSS MiB, growth MiB) of one download."""
    before = {pid: memory_kib(pid, "VmRSS") for pid in workers}
    for pid in workers:
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # reset the peak to the current RSS
    start = time.perf_counter()
    count = fetch()
    seconds = time.perf_counter() - start
    peaks = {pid: memory_kib(pid, "VmHWM") for pid in workers}
    busiest = max(workers, key=lambda pid: peaks[pid] - before[pid])
    return seconds, count, peaks[busiest] // 1024, (peaks[busiest] - before[busiest]) // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puzzles", type=int, default=20_000)
    parser.add_argument("--small", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    puzzles = load_puzzles(args.puzzles)
    rows = []
    with stack(workers=1) as running, Client(running.base, timeout=300) as client:
        gunicorn_workers = process_tree(running.api.pid)[1:]
        for size in (args.small, len(puzzles)):
            items = [{"kind": "sudoku", "puzzle": p} for p in puzzles[:size]]
            job = client.submit(items, label=f"export {size}")
            job = client.wait(job)
            assert job["counts"]["solved"] == size, job

            def lines(fmt: str, job=job) -> int:
                return sum(1 for _ in client.export(job, fmt))

            def pages(job=job) -> int:
                return sum(1 for _ in client.puzzles(job, limit=1000))

            for what, fetch in (("export, JSON Lines", lambda: lines("jsonl")),
                                ("export, CSV", lambda: lines("csv")),
                                ("paged JSON API, limit=1000", pages)):
                runs = [measured(gunicorn_workers, fetch) for _ in range(args.repeats)]
                seconds = statistics.median(r[0] for r in runs)
                rows.append((size, what, runs[0][1], seconds, max(r[2] for r in runs),
                             "/".join(str(r[3]) for r in runs)))
    print("| puzzles | download | lines or items | seconds (median) | puzzles/s | peak RSS of the API worker "
          "(MiB) | growth during each download (MiB) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for size, what, count, seconds, peak, growth in rows:
        rate = size / seconds
        print(f"| {size:,} | {what} | {count:,} | {seconds:.2f} | {rate:,.0f} | {peak} | {growth} |")


if __name__ == "__main__":
    main()
