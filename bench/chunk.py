"""One chunk task in process on PostgreSQL, against the batch and raw solvers on the same puzzles.

    python bench/chunk.py [--chunk 1000] [--repeats 9]

Needs the real PostgreSQL (TEST_DATABASE_URL, as the integration tests). On a fresh database, each
repeat posts ``--chunk`` 17-clue Sudokus through the app (Flask's test client, no broker), which
stores them as one chunk (store.chunks), then times worker.stored.run_stored on it, a first delivery
as a worker gets it (claim, solve, write, commit), against the same puzzles through
``prepare_batch`` + ``solve_batch`` in this process (the batch rate of bench/service.py, the fastest
path the kind offers) and one by one (prepare + solve + verify, the raw rate). Medians over
``--repeats``, each repeat on fresh puzzles. The chunk's time is split into its SQL (the statements'
times as the client waits on them, summed; each statement's median is listed too), the batch call's
(the anchor's time) and the rest: the Python around them (the inputs decoded, each puzzle's plan,
the answers and their texts, the tallies) and the commits. The chunk's CPU time in this process
(``time.process_time``: PostgreSQL's share left out) is listed beside its wall time: on a shared
machine it moves far less with the load. Commits are asynchronous and the garbage collector set, as
on the workers (store.db.relax_commits, worker.runtime). Pin it (``taskset -c 1``) to keep the bench
on a core and PostgreSQL on the other, the shape of bench/service.py ``--pin``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import select

import solvers
from bench._services import statement_times
from bench.service import load_puzzles
from service import create_app
from store.db import migrate
from store.models import Chunk
from store.settings import Settings
from tests.support.devstack import fresh_postgres
from worker import stored
from worker.runtime import Runtime, collect_for_chunks


def raw_seconds(puzzles: list[str]) -> float:
    kind = solvers.get("sudoku")
    start = time.perf_counter()
    for text in puzzles:
        puzzle, options = kind.prepare(text)
        kind.verify(puzzle, options, kind.solve(puzzle, options))
    return time.perf_counter() - start


def batch_seconds(puzzles: list[str]) -> float:
    kind = solvers.get("sudoku")
    options = kind.read_options({})
    start = time.perf_counter()
    kind.solve_batch(kind.prepare_batch(puzzles, options), options)
    return time.perf_counter() - start


class Unpublished(list[list[int]]):
    """Stands in for the broker: a chunk of these puzzles publishes nothing (none is split)."""

    def publish(self, chunks: list[list[int]], dear: bool = False, rank: int = 0) -> None:
        self.extend(chunks)

    def publish_parts(self, groups: list[list[int]], ranks: list[int] | None = None) -> None:
        self.extend(groups)

    def publish_chunks(self, chunk_ids: list[int], rank: int = 0) -> None:
        self.append(list(chunk_ids))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunk", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    n = args.chunk
    if n < 2:
        ap.error("--chunk must be at least 2: a job of one puzzle is stored as a puzzle row, not a chunk")
    puzzles = load_puzzles(n * args.repeats)
    solvers.warm_up()
    collect_for_chunks()  # as the worker does after its warm-up
    with fresh_postgres() as url:
        migrate(url)
        settings = Settings.from_env(DATABASE_URL=url, REDIS_URL=None, RATE_LIMIT="")
        app = create_app(settings)
        # The worker's own engine (its commits asynchronous), with no broker behind its publisher.
        runtime = replace(Runtime.connect(settings, None), publisher=Unpublished())
        sessions, client = runtime.sessions, app.test_client()
        times = statement_times(runtime.engine)
        raw, fast, work, cpu, sql = [], [], [], [], defaultdict(list)
        in_sql: list[float] = []
        for i in range(args.repeats):
            batch = puzzles[i * n:(i + 1) * n]
            raw.append(raw_seconds(batch))
            fast.append(batch_seconds(batch))
            items = [{"kind": "sudoku", "puzzle": p} for p in batch]
            reply = client.post("/api/v1/jobs", json={"puzzles": items})
            with sessions() as s:
                job_id = (reply.json or {})["id"]
                (chunk_id,) = s.scalars(select(Chunk.id).where(Chunk.job_id == job_id))
            times.clear()
            start, start_cpu = time.perf_counter(), time.process_time()
            report = stored.run_stored(runtime, chunk_id, "bench")
            work.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            if report.written != n or runtime.publisher:
                raise RuntimeError(f"chunk wrote {report.written} of {n}, published {runtime.publisher}")
            for statement, ms in times.items():
                sql[statement].append(ms)
            in_sql.append(sum(times.values()) / 1000)
    r, w, c = statistics.median(raw), statistics.median(work), statistics.median(cpu)
    b, q = statistics.median(fast), statistics.median(in_sql)
    print(f"{n}-puzzle chunks of 17-clue Sudokus, medians of {args.repeats}\n")
    print("| measure | ms per chunk | puzzles/s |")
    print("|---|---:|---:|")
    print(f"| batch: prepare_batch + solve_batch | {b * 1000:.1f} | {n / b:,.0f} |")
    print(f"| raw: prepare + solve + verify one by one | {r * 1000:.1f} | {n / r:,.0f} |")
    print(f"| run_stored: claim, solve, write, commit | {w * 1000:.1f} | {n / w:,.0f} |")
    print(f"| run_stored, CPU of this process | {c * 1000:.1f} | {n / c:,.0f} |")
    print(f"| run_stored's SQL statements, summed | {q * 1000:.1f} | |")
    print(f"| the rest: Python around statements and batch call, commits | {(w - q - b) * 1000:.1f} | |")
    print(f"| share of batch / of raw | {b / w:.0%} / {r / w:.0%} | |")
    print("\n| SQL statement in the chunk | ms per chunk |")
    print("|---|---:|")
    for statement, each in sql.items():  # a statement some chunks did not run counts 0 in those
        print(f"| `{statement}` | {statistics.median(each + [0.0] * (args.repeats - len(each))):.1f} |")


if __name__ == "__main__":
    main()
