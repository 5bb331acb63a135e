"""The dear lane's work ahead of a job (store.ahead), on SQLite and PostgreSQL: what runs there and
what is queued before the job's first queued dear row, at a lower level or at its level earlier;
not what waits behind it nor the job's own; over the lane's living worker processes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from store import ahead, reaping, rows, workers
from store.ahead import DearLane, Span
from store.bookkeeping import WorkerBeat
from store.models import Puzzle, Subtask, now
from store.publish import place_in_dear_lane
from tests.service.conftest import settings_of
from tests.services import database_url, postgres_url  # noqa: F401  both databases

FACTOR = 10.0  # the toy kind's predictions' (solvers.base.Estimate's default)


def submit(client, *seconds):
    """A job of toy puzzles predicted at these seconds (their sleep); its id and puzzle ids."""
    body = {"puzzles": [{"kind": "toy", "puzzle": "1", "options": {"sleep": sec}} for sec in seconds]}
    r = client.post("/api/v1/jobs", json=body)
    assert r.status_code == 202, r.json
    return r.json["id"]


def puzzle_ids(app, job_id):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id).order_by(Puzzle.index)))


def place(app, level, *ids, model=Puzzle):
    place_in_dear_lane(app.extensions["sessions"], model, [[i] for i in ids], [level] * len(ids))


def read(app, *job_ids):
    lane = DearLane.of(settings_of(app))
    with app.extensions["sessions"]() as s:
        return ahead.of_jobs(s, job_ids, lane, now())


def spans(seconds):
    return Span(seconds, seconds / FACTOR, seconds * FACTOR)


def close(span, seconds):
    want = spans(seconds)
    return (span.seconds, span.low, span.high) == pytest.approx((want.seconds, want.low, want.high), rel=1e-4)


def test_the_work_ahead_runs_or_is_queued_before_at_a_lower_level_or_earlier_at_the_same(app, client, toy):
    other = submit(client, 2, 3, 5, 7, 11)
    first, later_same, behind, running, lower_later = puzzle_ids(app, other)
    mine = submit(client, 2, 13)
    queued, own_running = puzzle_ids(app, mine)
    place(app, 1, first)
    place(app, 1, queued, own_running)
    place(app, 1, later_same)
    place(app, 3, behind, running)
    place(app, 0, lower_later)  # published after mine, but the broker serves level 0 first
    with app.extensions["sessions"]() as s, s.begin():
        held = rows.claim(s, [running, own_running], "w", now() + timedelta(minutes=5))
        rows.record_progress(s, held[0], 0.5)
    found = read(app, mine)[mine]
    # 2 (first) + 11 (lower level) + 7 * 0.5 (running, half done); not 3 (after mine) nor 5 (behind).
    assert close(found.ahead, 2 + 11 + 3.5)
    assert close(found.own, 2 + 13) and found.capacity == 0
    assert close(found.wait(), 2 + 11 + 3.5 + 15)  # no worker seen: one assumed


def test_the_workers_of_the_dear_lane_share_the_wait(app, client, toy):
    other = submit(client, 30)
    mine = submit(client, 10)
    place(app, 0, *puzzle_ids(app, other))
    place(app, 0, *puzzle_ids(app, mine))
    dear = settings_of(app).lanes.dear_queue
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "h:1:a", queues=["puzzles", dear])
        workers.beat(s, "h:2:a", queues=[dear])
        workers.beat(s, "h:3:b", queues=["puzzles"])  # the cheap lane's alone
        workers.beat(s, "h:4:c", queues=[dear])
        s.execute(update(WorkerBeat).where(WorkerBeat.name == "h:4:c")
                  .values(beat_at=now() - timedelta(hours=1)))  # silent
    found = read(app, mine)[mine]
    assert found.capacity == 2 and close(found.wait(), (30 + 10) / 2)


def test_parts_count_their_share_and_a_job_without_dear_work_waits_on_nothing(app, client, toy):
    split = submit(client, 8)
    (whole,) = puzzle_ids(app, split)
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.id == whole).values(status="running", parts_total=4))
        s.add_all([Subtask(puzzle_id=whole, index=i, payload={}) for i in range(4)])
    with app.extensions["sessions"]() as s:
        parts = list(s.scalars(select(Subtask.id).order_by(Subtask.id)))
    place(app, 0, whole)  # the split puzzle itself: its parts stand for it
    place(app, 0, *parts, model=Subtask)
    mine = submit(client, 4)
    cheap = submit(client, 0.01)  # in the cheap lane: no place in the dear one
    place(app, 0, *puzzle_ids(app, mine))
    found = read(app, mine, cheap, split)
    assert cheap not in found and close(found[mine].ahead, 8)
    assert close(found[split].own, 8) and close(found[split].ahead, 0)


def test_a_puzzle_given_back_loses_its_place_one_handed_on_keeps_it_until_published(app, client, toy):
    # A puzzle given back goes out by its prediction, which places it anew if that is the dear lane;
    # one the reaper hands on stays dear work where it was until its publish renews its place (a
    # moved puzzle goes back at its level, worker.reaper).
    given, handed = puzzle_ids(app, submit(client, 2, 2))
    place(app, 0, given, handed)
    with app.extensions["sessions"]() as s:
        kept = s.execute(select(Puzzle.dear_level, Puzzle.dear_at).where(Puzzle.id == handed)).one()
    with app.extensions["sessions"]() as s, s.begin():
        rows.release(s, rows.claim(s, [given], "w", now() + timedelta(minutes=5)))
        reaping.hand_on(s, [handed], [], now() + timedelta(minutes=5))
    with app.extensions["sessions"]() as s:
        places = s.execute(select(Puzzle.dear_level, Puzzle.dear_at).where(Puzzle.id.in_([given, handed]))
                           .order_by(Puzzle.id))
        assert [tuple(p) for p in places] == [(None, None), tuple(kept)]
