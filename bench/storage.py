"""How big `make run`'s var/ grows per 100,000 puzzles, and what its housekeeping gives back.

    python -m bench.storage [--puzzles 100000] [--batch 1000]

`make run`'s embedded stack (deploy/run_local.py: a SQLite file and the filesystem broker) in a
temporary folder, with its default settings: one client posts ``--puzzles`` 17-clue Sudokus in
jobs of ``--batch`` and waits for them all; the sizes of the database file, its write-ahead log
and the broker's folder while it runs, then once it is stopped. Started again in the same folder
with a retention so short (JOB_RETENTION_DAYS=0.0001, 8.6 s; PURGE_INTERVAL=5) that every job is
past it: the sizes once the purge has deleted them all and the log is checkpointed; then the same
puzzles posted and purged once more (the file reuses the pages the purge freed). Last, stopped,
SQLite's VACUUM gives the free pages back. The numba cache and the pattern database (var/
numba-cache, var/cache) are the clone's, the same whatever was solved, and not counted here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import tempfile
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path

from bench.endtoend import one_run
from bench.service import call, load_puzzles
from tests.support.devstack import Local, run_local

SHORT_RETENTION = {"JOB_RETENTION_DAYS": "0.0001", "PURGE_INTERVAL": "5"}


@contextlib.contextmanager
def embedded(folder: Path, **settings: str) -> Iterator[Local]:
    """`make run`'s embedded stack with its var/ in ``folder``, ready."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "API_TOKENS")}
    env.update({"RATE_LIMIT": "", "READ_RATE_LIMIT": "", "DATABASE_URL": f"sqlite:///{folder}/db.sqlite",
                "BROKER_DIR": f"{folder}/broker", **settings})
    with run_local(folder, env) as running:
        yield running


def megabytes(path: Path) -> float:
    """A file's size, or a folder's files' together, in MB (0 for none)."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6
    return path.stat().st_size / 1e6 if path.exists() else 0.0


def row(step: str, folder: Path) -> str:
    """A table row: the database, its log, the broker's folder, everything in the folder."""
    parts = [folder / "db.sqlite", folder / "db.sqlite-wal", folder / "broker", folder]
    return f"| {step} | " + " | ".join(f"{megabytes(p):.1f}" for p in parts) + " |"


def purged(base: str, job: str) -> bool:
    """Whether the job is gone (404)."""
    try:
        call("GET", f"{base}/api/v1/jobs/{job}")
    except urllib.error.HTTPError as err:
        return err.code == 404
    return False


def post_all(base: str, puzzles: list[str], batch: int) -> str:
    """Post the puzzles in jobs of ``batch`` and wait for them; the last job's id."""
    one_run(base, puzzles, len(puzzles) // batch, batch)
    jobs = call("GET", f"{base}/api/v1/jobs?limit=1")
    return str(jobs["items"][0]["id"])


def wait_purged(base: str, job: str, folder: Path, timeout: float = 600) -> None:
    """Until ``job`` (the newest) is purged and the log checkpointed after it."""
    deadline = time.monotonic() + timeout
    while not (purged(base, job) and megabytes(folder / "db.sqlite-wal") == 0):
        if time.monotonic() > deadline:
            raise RuntimeError("the jobs were not purged in time")
        time.sleep(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--puzzles", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=1000)
    args = ap.parse_args()
    puzzles = load_puzzles(args.puzzles)
    print(f"{args.puzzles:,} 17-clue Sudokus in jobs of {args.batch:,}, sizes in MB\n")
    print("| step | database | log | broker | folder |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        with embedded(folder) as service:
            post_all(service.url, puzzles, args.batch)
            print(row("posted and solved, running", folder), flush=True)
        print(row("stopped", folder), flush=True)
        with embedded(folder, **SHORT_RETENTION) as service:
            last = str(call("GET", f"{service.url}/api/v1/jobs?limit=1")["items"][0]["id"])
            wait_purged(service.url, last, folder)
            print(row("all purged, log checkpointed", folder), flush=True)
            last = post_all(service.url, puzzles, args.batch)
            print(row("posted and solved again", folder), flush=True)
            wait_purged(service.url, last, folder)
            print(row("all purged again", folder), flush=True)
        with contextlib.closing(sqlite3.connect(folder / "db.sqlite")) as db:
            db.execute("VACUUM")
        print(row("stopped, VACUUM", folder), flush=True)


if __name__ == "__main__":
    main()
