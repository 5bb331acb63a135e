"""Redis crashes mid-job and comes back empty (no persistence): every queued message is lost,
yet the job completes with the right answers, through the workers' reconnection and the
reaper run by `celery beat`.

The test runs its own `redis-server` on a free port, since it has to stop and restart it;
the shared Redis is never touched.
"""

from __future__ import annotations

import contextlib
import csv
import ctypes
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from sqlalchemy import func, select

from store.models import FINAL, QUEUED, Puzzle, Subtask
from tests.services import ROOT, Stack, Workers, app_for, free_port, fresh_postgres, migrate, service_env

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SPLIT_N = 16  # 64 short parts: the job is still running when Redis goes


def _die_with_parent() -> None:
    # Should pytest itself be killed, the kernel ends the server too (PR_SET_PDEATHSIG = 1).
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


class PrivateRedis:
    """A `redis-server` without persistence that can crash and start again on the same port."""

    def __init__(self, folder: Path):
        self.folder, self.port, self.proc = folder, free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--dir", str(self.folder)]
        with open(self.folder / "redis.log", "a") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                         preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(redis.ConnectionError):
                if client.ping():
                    client.close()
                    return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"redis-server did not start:\n{(self.folder / 'redis.log').read_text()[-2000:]}")
            time.sleep(0.05)

    def crash(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


@contextlib.contextmanager
def private_redis(folder: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(folder)
    server.start()
    try:
        yield server
    finally:
        server.crash()


@contextlib.contextmanager
def beat(env: dict[str, str], folder: Path) -> Iterator[subprocess.Popen]:
    """`celery beat`, as the compose file's scheduler runs it: it sends the reaper task."""
    cmd = [sys.executable, "-m", "celery", "-A", "tests.integration.toyworker", "beat",
           "--schedule", str(folder / "beat-schedule"), "--loglevel", "INFO"]
    log = folder / "beat.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while "Sending due task" not in log.read_text():  # connected, and the reaper is on
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"celery beat did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def known_counts(data_dir: Path) -> dict[int, int]:
    return {int(r["n"]): int(r["total"]) for r in csv.DictReader(open(data_dir / "nqueens" / "counts.csv"))}


def counts(sizes) -> list[dict]:
    """Counts by the prefix tree, whose parts at SPLIT_N run long enough to crash Redis under them."""
    return [{"kind": "nqueens", "puzzle": n, "options": {"mode": "count", "strategy": "tree"}} for n in sizes]


def split_parts(stack: Stack, job_id: str) -> tuple[int, int, int]:
    """(parts, parts finished, parts queued) of the job's split puzzle (index 0)."""
    with stack.app.extensions["sessions"]() as s:
        pid = s.scalar(select(Puzzle.id).where(Puzzle.job_id == job_id, Puzzle.index == 0))
        by_status = dict(s.execute(select(Subtask.status, func.count()).where(Subtask.puzzle_id == pid)
                                   .group_by(Subtask.status)).all())
    done = sum(n for status, n in by_status.items() if status in FINAL)
    return sum(by_status.values()), done, by_status.get(QUEUED, 0)


def test_a_redis_crash_mid_job_loses_the_queue_and_the_job_still_completes(tmp_path, data_dir):
    known = known_counts(data_dir)
    with fresh_postgres() as db_url, private_redis(tmp_path) as server:
        migrate(db_url)
        env = service_env(db_url, server.url, f"puzzles-{uuid.uuid4().hex[:8]}",
                          SPLIT_QUEENS_N=str(SPLIT_N), SPLIT_PARTS="64", MAX_ATTEMPTS="3",
                          # A lost message is noticed after QUEUED_STALE_SECONDS, checked every second:
                          # long enough that parts merely waiting in the queue are not published twice.
                          REAP_INTERVAL="1", QUEUED_STALE_SECONDS="15", PUZZLE_TIME_LIMIT="60")
        workers = Workers(env, tmp_path)
        try:
            workers.start(wait=False)
            workers.start(wait=False)
            workers.ready()
            stack = Stack(app_for(env), workers)
            with beat(env, tmp_path):
                first_sizes = [SPLIT_N, 8, 9, 10, 11]
                first = stack.submit(counts(first_sizes))

                def some_parts_done(job):
                    total, done, _ = split_parts(stack, first)
                    assert job["status"] != "completed", "the job ended before Redis could be crashed"
                    return total and done >= 4

                stack.wait(first, until=some_parts_done, timeout=300)
                server.crash()
                total, _, queued = split_parts(stack, first)
                assert total == 64 and queued > 0, "parts were waiting in the queue when Redis went"

                # Accepted while the broker is down: its puzzles reach Redis only through the reaper.
                second_sizes = [12, 13, 7]
                second = stack.submit(counts(second_sizes))
                time.sleep(3)
                server.start()

                for job_id, sizes in ((first, first_sizes), (second, second_sizes)):
                    job = stack.wait(job_id, timeout=300)
                    assert job["status"] == "completed" and job["counts"]["solved"] == len(sizes), job
                    solutions = [r["result"]["solutions"] for r in stack.puzzles(job_id)]
                    assert solutions == [known[n] for n in sizes]
                assert split_parts(stack, first)[1] == 64
                (whole,) = [r for r in stack.puzzles(first) if r["index"] == 0]
                assert whole["stats"]["subtasks"] == 64
                with stack.app.extensions["sessions"]() as s:
                    assert s.scalar(select(func.count()).select_from(Puzzle)
                                    .where(Puzzle.status.not_in(FINAL))) == 0, "no puzzle is stuck"
        finally:
            workers.stop()
