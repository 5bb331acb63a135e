"""Reads never queue behind a writer on SQLite (make run's database): a worker thread can hold the
write lock for seconds while a compiled solver keeps the GIL, and a status read must still answer."""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import select, text

from store.db import read_only
from store.models import Job

HELD = 5.0  # how long a read may take before it counts as queued behind the writer


def finishes_while_locked(app, read: Callable[[], object]) -> bool:
    """Run ``read`` in a thread while another connection holds SQLite's write lock."""
    done = threading.Event()

    def run() -> None:
        read()
        done.set()

    with app.extensions["engine"].connect() as writer:
        writer.execute(text("UPDATE jobs SET status = status"))  # BEGIN IMMEDIATE: the write lock
        reader = threading.Thread(target=run, daemon=True)
        reader.start()
        finished = done.wait(HELD)
        writer.rollback()
    reader.join()
    return finished


def test_a_read_only_session_does_not_wait_for_the_write_lock(make_app):
    app = make_app()
    sessions = app.extensions["sessions"]

    def read_marked() -> None:
        with sessions() as s:
            read_only(s).execute(select(Job.id)).all()

    def read_unmarked() -> None:
        with sessions() as s:
            s.execute(select(Job.id)).all()

    assert finishes_while_locked(app, read_marked)
    assert not finishes_while_locked(app, read_unmarked), "the writer really held the lock"


def test_a_status_read_answers_while_a_worker_holds_the_write_lock(make_app, toy):
    app = make_app()
    client = app.test_client()
    posted = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "7"}]})
    assert posted.status_code == 202
    url = f"/api/v1/jobs/{posted.get_json()['id']}"
    answers: list[int] = []

    assert finishes_while_locked(app, lambda: answers.append(client.get(url).status_code))
    assert finishes_while_locked(app, lambda: answers.append(client.get(url + "/puzzles").status_code))
    assert answers == [200, 200]
