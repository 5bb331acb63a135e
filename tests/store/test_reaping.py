"""The reaper's turn and its handing on (store.reaping), on SQLite and PostgreSQL; what it finds lost
is told through whole runs in tests/worker/test_heartbeat.py and test_reaper_sweep.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from store import reaping
from store import rows as puzzle_rows
from store.bookkeeping import ReaperRun
from store.models import Puzzle, aware, now
from tests.services import database_url, postgres_url  # noqa: F401  both databases


@pytest.fixture
def app(make_app, toy):
    return make_app(CHUNK_MAX=1)  # one puzzle a task: rows


def take_turn(app, t, every=None):
    with app.extensions["sessions"]() as s, s.begin():
        return reaping.take_turn(s, t, every)


def test_the_first_turn_makes_the_row_and_a_turn_with_every_waits_that_long(app):
    t = now()
    every = timedelta(seconds=30)
    assert take_turn(app, t, every), "no run yet: this one is due"
    with app.extensions["sessions"]() as s:
        assert aware(s.get(ReaperRun, 1).ran_at) == t
    assert not take_turn(app, t + timedelta(seconds=29), every)
    assert take_turn(app, t + timedelta(seconds=31), every)
    assert take_turn(app, t + timedelta(seconds=32)), "without every: always (the reaper's own run)"
    with app.extensions["sessions"]() as s:
        assert aware(s.get(ReaperRun, 1).ran_at) == t + timedelta(seconds=32)


def test_handing_on_frees_unfinished_rows_with_a_new_deadline_and_leaves_final_ones(app):
    items = [{"kind": "toy", "puzzle": str(i)} for i in (1, 2, 3)]
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202
    sessions = app.extensions["sessions"]
    with sessions() as s, s.begin():
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]).order_by(Puzzle.index)))
        puzzle_rows.claim(s, ids, "dead", now() + timedelta(minutes=5))
        s.get(Puzzle, ids[2]).status = "solved"
    deadline = now() + timedelta(minutes=10)
    with sessions() as s, s.begin():
        reaping.hand_on(s, ids, [], deadline)
    with sessions() as s:
        found = [s.get(Puzzle, i) for i in ids]
        assert [(p.status, p.worker) for p in found] == [("running", None), ("running", None),
                                                         ("solved", "dead")]
        assert [aware(p.deadline) == deadline for p in found] == [True, True, False]
