"""What pricing adds to a POST (service.prices, store.pricing): a batch's signatures and prices, and
the read of what a signature's measured puzzles cost.

    python bench/pricing.py [--items 10000] [--repeats 15]

Three batches of ``--items`` checked as POST /jobs checks them (service.batches): 9x9 Sudokus with
default options (modelled: no signature, no read), the same with ``strategy: backtrack`` and a
generate item of ``rating_min: 11.5`` (signed and priced); per batch the median wall time of the
check and of the signatures and prices (with the read) over ``--repeats``. Then the read alone of a
signature of ``--items`` x 2 stored rows, all queued but the oldest 200, solved and measured: the
rows a read must not walk through. On a fresh SQLite file and, with TEST_DATABASE_URL set (as the
integration tests), a fresh PostgreSQL database.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text

from service import batches, prices
from service.schemas import Limits
from store import pricing
from store.db import make_engine, make_sessionmaker
from store.models import Base
from store.settings import Settings
from tests.support.devstack import fresh_postgres

SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
MEASURED = 200


def median_ms(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


@contextlib.contextmanager
def databases(tmp: str) -> Iterator[list[str]]:
    """SQLite, and PostgreSQL if TEST_DATABASE_URL is set."""
    urls = [f"sqlite:///{tmp}/pricing.db"]
    if not os.environ.get("TEST_DATABASE_URL"):
        yield urls
        return
    with fresh_postgres() as pg:
        yield [*urls, pg]


def bench(url: str, items: int, repeats: int) -> None:
    engine = make_engine(url)
    database = url.split(":")[0].split("+")[0]
    Base.metadata.create_all(engine)
    sessions = make_sessionmaker(engine)
    limits = Limits.of(Settings.from_env().limits)
    sudoku = {"kind": "sudoku", "puzzle": SUDOKU}
    bodies = {"sudoku, modelled": {"puzzles": [sudoku] * items},
              "sudoku, backtrack": {"puzzles": [{**sudoku, "options": {"strategy": "backtrack"}}] * items},
              "generate, rating_min 11.5": {"puzzles": [{"kind": "sudoku",
                                                         "generate": {"count": items, "rating_min": 11.5}}]}}
    for name, body in bodies.items():
        checked = batches.check(body, limits)

        def priced() -> None:
            signed = prices.signatures(checked.items)  # noqa: B023  called in this iteration only
            if any(sig is not None for sig in signed):
                with sessions() as s:
                    pricing.priced(s, checked.items, signed, 120.0)  # noqa: B023

        check = median_ms(lambda: batches.check(body, limits), 3)  # noqa: B023
        print(f"{database:10} {name:26} check {check:7.1f} ms  signatures and prices "
              f"{median_ms(priced, repeats):6.2f} ms")
    sig = prices.signatures(batches.check(bodies["sudoku, backtrack"], limits).items)[0]
    assert sig is not None
    with sessions() as s, s.begin():
        s.execute(text("INSERT INTO jobs (id, owner, status, total, pending, created_at, done_seconds) "
                       "VALUES ('j', 'o', 'running', :n, :n, '2026-01-01', 0)"), {"n": 2 * items})
        s.execute(text("INSERT INTO puzzles (job_id, \"index\", kind, input, options, status, attempts, "
                       "created_at, parts_total, parts_done, stop_requested, signature, cpu_seconds) "
                       "VALUES ('j', :i, 'sudoku', '\"x\"', '{}', :status, 0, '2026-01-01', 0, 0, false, "
                       ":sig, :cpu)"),
                  [{"i": i, "status": "solved" if i < MEASURED else "queued", "sig": sig,
                    "cpu": 1.0 if i < MEASURED else None} for i in range(2 * items)])

    def read() -> object:
        with sessions() as s:
            return pricing.learned(s, [sig])

    print(f"{database:10} the read of {2 * items:,} rows of a signature, {MEASURED} measured: "
          f"{median_ms(read, repeats):.2f} ms, {read()[sig]}")
    engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, databases(tmp) as urls:
        for url in urls:
            bench(url, args.items, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
