"""How long the workers take to drain the broker's messages of a cancelled job.

    python -m bench.cancel_drain [--dear 5000] [--cheap 5000] [--concurrency 2] [--untagged]

Needs the real PostgreSQL and Redis (TEST_DATABASE_URL / TEST_REDIS_URL, as the integration
tests). On fresh databases one worker of both lanes starts (``--concurrency`` pool processes)
and stops consuming; a job of ``--dear`` n = 17 counts (a task each, in the dear lane) and
``--cheap`` 8-queens (stored chunks, in the cheap lane) is posted, all its tasks published
within the POST, and cancelled; then the worker consumes again, and the seconds until no message
of the job is left in the broker (waiting or taken) are printed. ``--untagged``: the tasks are
published without naming their job, so each is claimed (and finds its puzzles cancelled) as a
task of the reaper's would be.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis
from sqlalchemy import func, select

from store.db import make_engine, migrate
from store.models import Puzzle
from store.publish import Publisher
from store.settings import Settings
from tests.support.devstack import (
    Stack,
    Workers,
    app_for,
    fresh_postgres,
    fresh_redis,
    process_tree,
    service_env,
)

SEP = b"\x06\x16"


class Untagged:
    """A publisher whose tasks name no job (it has no ``for_job``)."""

    def __init__(self, inner: Publisher):
        self.inner = inner

    def publish(self, chunks: Sequence[Sequence[int]], dear: bool = False, rank: int = 0) -> None:
        self.inner.publish(chunks, dear=dear, rank=rank)

    def publish_chunks(self, chunk_ids: Sequence[int], rank: int = 0) -> None:
        self.inner.publish_chunks(chunk_ids, rank=rank)

    def publish_parts(self, groups: Sequence[Sequence[int]], ranks: Sequence[int] | None = None) -> None:
        self.inner.publish_parts(groups, ranks)

    def publish_deliveries(self, due: Sequence[tuple[int, int]]) -> None:
        self.inner.publish_deliveries(due)


def in_broker(client: redis.Redis, queues: Sequence[str]) -> int:
    """Messages waiting in the lanes (every priority's list) or taken and not yet acknowledged."""
    # kombu's list of a priority level: the queue's name, then SEP and the level
    lists = [key for queue in queues for key in client.keys(f"{queue}*")
             if key == queue.encode() or key.startswith(queue.encode() + SEP)]
    waiting = sum(int(client.llen(key)) for key in lists)
    return waiting + int(client.hlen("unacked"))


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) the process and its descendants have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in process_tree(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dear", type=int, default=5000)
    parser.add_argument("--cheap", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--untagged", action="store_true")
    args = parser.parse_args()
    dear: dict[str, Any] = {"kind": "nqueens", "puzzle": 17, "options": {"mode": "count"}}
    items = [dear] * args.dear
    items += [{"kind": "nqueens", "puzzle": 8}] * args.cheap
    with fresh_postgres() as db_url, fresh_redis() as redis_url, tempfile.TemporaryDirectory() as logs:
        migrate(db_url)
        env = service_env(db_url, redis_url, f"bench-{uuid.uuid4().hex[:8]}", SUBMIT_PUBLISH_SECONDS="0",
                          CLIENT_CPU_BUDGET="0", MAX_PUZZLE_CPU_SECONDS="0")
        lanes = Settings.from_env(env).lanes
        workers = Workers(env, Path(logs))
        broker = redis.Redis.from_url(redis_url)
        try:
            workers_started = [workers.start(concurrency=args.concurrency)]
            stack = Stack(app_for(env), workers)
            logging.getLogger("service.access").setLevel(logging.WARNING)
            celery = stack.app.extensions["celery"]
            for queue in lanes.queues:
                celery.control.cancel_consumer(queue, reply=True)
            if args.untagged:
                stack.app.extensions["publisher"] = Untagged(stack.app.extensions["publisher"])
            t = time.perf_counter()
            job = stack.submit(items)
            posted = time.perf_counter() - t
            assert stack.client.post(f"/api/v1/jobs/{job}/cancel").status_code == 202
            messages = in_broker(broker, lanes.queues)
            for queue in lanes.queues:
                celery.control.add_consumer(queue, reply=True)
            t, cpu = time.perf_counter(), cpu_seconds(workers_started[0].pid)
            while (left := in_broker(broker, lanes.queues)) > 0:
                if time.perf_counter() - t > 3600:
                    raise RuntimeError(f"{left} messages left after an hour")
                time.sleep(0.05)
            drained = time.perf_counter() - t
            cpu = cpu_seconds(workers_started[0].pid) - cpu
        finally:
            workers.stop()
        logged = "".join(proc.log.read_text() for proc in workers_started)  # type: ignore[attr-defined]
        engine = make_engine(db_url)
        with engine.connect() as c:
            statuses = dict(c.execute(select(Puzzle.status, func.count()).group_by(Puzzle.status)).all())
        engine.dispose()
    # what each task that reached a pool process returned, as the worker logged it; the rest the
    # main process dropped (worker.tasks.DropsCancelled), logging nothing
    dropped, claimed = logged.count("{'dropped': "), logged.count("{'written': ")
    unseen = messages - dropped - claimed
    tagged = "untagged (claimed)" if args.untagged else "naming their job (dropped)"
    print("| tasks | puzzles (dear + cheap) | messages | POST, s | drained in, s | worker CPU s | "
          "CPU ms per message | "
          "dropped in the main process / in the pool / claimed | puzzles after |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    print(f"| {tagged} | {args.dear:,} + {args.cheap:,} | {messages:,} | {posted:.1f} | {drained:.1f} | "
          f"{cpu:.1f} | {1000 * cpu / max(messages, 1):.2f} | {unseen:,} / {dropped:,} / {claimed:,} | "
          f"{statuses} |")


if __name__ == "__main__":
    main()
