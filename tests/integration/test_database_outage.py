"""A database outage with a broker restart in it costs seconds, not a lease (PUZZLE_TIME_LIMIT +
2 x HARD_TIME_GRACE): the parts that finish while PostgreSQL refuses connections cannot record
their results, and the broker that would carry a retry restarts empty at the same moment. Their
rows stay claimed by workers that live on, so neither the silent-worker sweep nor the empty-broker
sweep takes them; the workers' heartbeats say which claims their tasks still hold, and the reaper
publishes the others again (worker.reaper, "orphaned")."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url

from store.models import Subtask
from tests.integration.test_broker_outage import done_after, split_toy, two_workers

pytestmark = [pytest.mark.integration, pytest.mark.slow]

OUTAGE = 4.0
BUDGET = 30.0


@contextlib.contextmanager
def refused(db_url: str) -> Iterator[None]:
    """The database refuses new connections and its open ones are cut, as in a restart, until the
    block ends; other databases on the server are not touched."""
    url = make_url(db_url)
    name = url.database
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE datname = :name AND pid <> pg_backend_pid()"), {"name": name})
        yield
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        admin.dispose()


@pytest.mark.parametrize("db_wait", ["30", "0"], ids=["waited-out-in-the-task", "left-to-the-reaper"])
def test_parts_cut_off_by_a_database_outage_and_a_broker_restart_cost_seconds(tmp_path, toy_kind, db_wait):
    """DB_WAIT_SECONDS = 30: the parts wait for the database in their own process; 0: they fail at
    once, their retries are lost with the broker, and the reaper finds their claims orphaned."""
    with two_workers(tmp_path, DB_WAIT_SECONDS=db_wait) as (stack, server, db_url):
        items = split_toy("123456789", 2.0)  # 9 parts of 2 s: 10 s on two workers
        job = stack.submit(items)
        stack.wait(job, timeout=60, until=lambda j: j["status"] == "running")
        time.sleep(1.0)  # both workers are in the middle of a part
        with stack.app.extensions["sessions"]() as s:
            running = s.scalar(select(func.count()).select_from(Subtask)
                               .where(Subtask.status == "running"))
        assert running == 2, f"{running} parts running when the outage starts"
        with refused(db_url):
            server.crash()  # the retries and the queue go with it
            time.sleep(OUTAGE)
            server.start()
        after = done_after(stack, job, items, timeout=10.0 + BUDGET + 120)
        print(f"\njob done {after:.1f} s after a {OUTAGE:.0f} s database outage with a broker restart")
        assert after <= 10.0 + BUDGET, f"{after:.1f} s after the outage (a lease is 90 s)"
