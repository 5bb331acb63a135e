"""A job's history (store.events) on SQLite (and PostgreSQL with -m integration): the events the rows
date (submit, claims, ends) and those recorded in ``job_events`` (handed on, moved, split, left,
retried), merged oldest first and paged."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select, text, update

from store import chunk_task, events, tallies
from store.models import Job, JobEvent, Puzzle, now
from tests.service.conftest import RecordingPublisher, runtime_of
from tests.services import database_url, postgres_url  # noqa: F401  both databases
from tests.worker.conftest import EagerPublisher
from worker import chunk, reaper, stored


def toys(*puzzles, **options):
    return [{"kind": "toy", "puzzle": p, "options": options} for p in puzzles]


def post(app, items):
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202, r.json
    return r.json["id"]


def history(app, job_id, index=None, limit=10_000):
    """Every event of the job (of the puzzle at ``index`` and the job, if given)."""
    with app.extensions["sessions"]() as s:
        found, nxt = events.of_job(s, s.get(Job, job_id), limit, index=index)
        assert nxt is None
        return found


def paged(app, job_id, limit):
    """Every event of the job read a page of ``limit`` at a time, each page after the last."""
    found, after = [], None
    with app.extensions["sessions"]() as s:
        job = s.get(Job, job_id)
        while True:
            page, after = events.of_job(s, job, limit, after)
            found += page
            if after is None:
                return found


def kinds(found):
    return [(e.type, e.first, e.last) for e in found]


def row_ids(app, job_id):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id).order_by(Puzzle.index)))


@pytest.fixture
def rows_app(make_app, toy):
    """Every puzzle a row (CHUNK_MAX=1), as tests/worker/test_chunk.py."""
    return make_app(PUZZLE_TIME_LIMIT=5.0, CHUNK_MAX=1)


@pytest.fixture
def chunk_app(make_app, toy):
    return make_app(PUZZLE_TIME_LIMIT=5.0)


def test_a_submitted_job_has_one_event_and_its_solved_rows_a_claim_and_an_end_each(rows_app):
    job_id = post(rows_app, toys("1", "23"))
    assert kinds(history(rows_app, job_id)) == [("submitted", None, None)]
    assert history(rows_app, job_id)[0].detail == {"total": 2}
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w1")
    found = history(rows_app, job_id)
    assert sorted(kinds(found)) == sorted([("submitted", None, None), ("started", None, None),
                                           ("claimed", 0, 0), ("claimed", 1, 1), ("finished", 0, 0),
                                           ("finished", 1, 1), ("ended", None, None)])
    assert [e.type for e in found][:2] == ["submitted", "started"] and found[-1].type == "ended"
    claims = [e for e in found if e.type == "claimed"]
    assert {(e.worker, e.attempt) for e in claims} == {("w1", 1)}
    end = next(e for e in found if e.type == "finished" and e.first == 1)
    assert end.detail["status"] == "solved" and end.detail["estimated_seconds"] > 0
    assert end.detail["seconds"] >= 0
    assert found[-1].detail == {"status": "completed"}
    assert [e.key() for e in found] == sorted(e.key() for e in found)
    # one puzzle's: its own and the job's
    assert {e.first for e in history(rows_app, job_id, index=1)} == {None, 1}


def test_a_failure_says_with_what(rows_app):
    job_id = post(rows_app, toys("1", crash=True))
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w1")
    (end,) = [e for e in history(rows_app, job_id) if e.type == "finished"]
    assert end.detail["status"] == "failed" and "toy solver crashed" in end.detail["error"]


def test_a_chunk_is_one_claim_and_one_end_for_its_run_and_its_entries_each_their_own(chunk_app):
    job_id = post(chunk_app, toys("1", "2", "0", crash=False))
    (chunk_id,) = chunk_app.extensions["publisher"].stored
    stored.run_stored(runtime_of(chunk_app, RecordingPublisher()), chunk_id, "w1")
    found = history(chunk_app, job_id)
    assert [(t, a, b) for t, a, b in kinds(found) if a is not None] == [("claimed", 0, 2), ("finished", 0, 2)]
    end = found[-2]
    assert end.detail["statuses"] == {"solved": 2, "no_solution": 1} and end.worker == "w1"
    one = [e for e in history(chunk_app, job_id, index=2) if e.first is not None]
    assert kinds(one) == [("claimed", 2, 2), ("finished", 2, 2)]
    assert one[1].detail["status"] == "no_solution" and one[1].detail["estimated_seconds"] > 0
    with chunk_app.extensions["sessions"]() as s:
        assert s.scalar(select(func.count()).select_from(JobEvent)) == 0, "the cheap path records nothing"


def test_a_lost_chunk_is_handed_on_naming_its_worker_and_its_entries_leave(chunk_app):
    job_id = post(chunk_app, toys("1", "2", "3"))
    (chunk_id,) = chunk_app.extensions["publisher"].stored
    with chunk_app.extensions["sessions"]() as s, s.begin():
        chunk_task.claim(s, chunk_id, "dead", now() - timedelta(seconds=1))
    assert reaper.reap(runtime_of(chunk_app, RecordingPublisher())).chunks == [chunk_id]
    (handed,) = [e for e in history(chunk_app, job_id) if e.type == "handed_on"]
    assert (handed.first, handed.last, handed.worker, handed.attempt) == (0, 2, "dead", 1)
    report = stored.run_stored(runtime_of(chunk_app, RecordingPublisher()), chunk_id, "w2")
    (left,) = [e for e in history(chunk_app, job_id) if e.type == "left"]
    assert (left.first, left.last, left.detail) == (0, 2, {"reason": "lost"})
    chunk.run_chunk(runtime_of(chunk_app, RecordingPublisher()), report.left[1:2], "w3")
    one = kinds(history(chunk_app, job_id, index=1))
    # the dead worker's claim, handed on; w2's, which dissolved the chunk; the row's, by w3
    assert one == [("submitted", None, None), ("started", None, None), ("handed_on", 0, 2), ("claimed", 1, 1),
                   ("left", 0, 2), ("claimed", 1, 1), ("finished", 1, 1)]


def test_a_lost_puzzle_row_is_handed_on(rows_app):
    job_id = post(rows_app, toys("1"))
    (pid,) = row_ids(rows_app, job_id)
    with rows_app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).values(status="running", worker="dead", attempts=1, started_at=now(),
                                        deadline=now() - timedelta(seconds=1)))
        tallies.moved(s, "toy", "queued", "running")
    assert reaper.reap(runtime_of(rows_app, RecordingPublisher())).puzzles == [pid]
    (handed,) = [e for e in history(rows_app, job_id) if e.type == "handed_on"]
    assert (handed.first, handed.worker, handed.attempt) == (0, "dead", 1)


def test_a_puzzle_past_the_cheap_lanes_cap_is_moved_to_the_dear_lane(make_app, toy):
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.03, CHUNK_MAX=1)
    job_id = post(app, toys("12", sleep=0.08))
    (pid,) = row_ids(app, job_id)
    chunk.run_chunk(runtime_of(app, RecordingPublisher()), [pid], "w1", cheap_lane=True)
    chunk.run_chunk(runtime_of(app, RecordingPublisher()), [pid], "w2")
    found = [e for e in history(app, job_id) if e.first is not None]
    assert [e.type for e in found] == ["moved", "claimed", "finished"]
    assert (found[0].worker, found[0].attempt) == ("w1", 1)
    assert found[0].detail == {"lane": "dear", "cap_seconds": pytest.approx(0.03)}
    assert found[1].worker == "w2" and found[2].detail["status"] == "solved"


def test_entries_to_be_split_leave_and_their_rows_split_into_parts(chunk_app):
    chunk_app.extensions["publisher"] = EagerPublisher(chunk_app)
    job_id = post(chunk_app, toys("12", "345", split=2))
    one = history(chunk_app, job_id, index=1)
    types = [e.type for e in one if e.first is not None]
    assert types.index("left") < types.index("split") and types.count("split") == 1
    (left,) = [e for e in one if e.type == "left"]
    assert left.detail == {"reason": "solved_alone"}
    (split,) = [e for e in one if e.type == "split"]
    assert split.detail == {"parts": 2} and split.worker == "eager"
    parts = [(e.type, e.part) for e in one if e.part is not None]
    assert sorted(parts) == [("claimed", 0), ("claimed", 1), ("finished", 0), ("finished", 1)]
    assert one[-1].type == "ended"


def test_a_retry_keeps_what_the_puzzle_was_and_says_with_which_options(rows_app):
    job_id = post(rows_app, toys("1", crash=True))
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w1")
    r = rows_app.test_client().post(f"/api/v1/jobs/{job_id}/retry", json={"options": {"crash": False}})
    assert r.status_code == 202, r.json
    found = history(rows_app, job_id)
    (again,) = [e for e in found if e.type == "retried"]
    assert (again.first, again.worker, again.attempt) == (0, "w1", 1)
    assert again.detail["was"] == "failed" and "crashed" in again.detail["error"]
    assert again.detail["options"]["crash"] is False and again.detail["finished_at"]
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w2")
    after = [e for e in history(rows_app, job_id) if e.first is not None]
    assert [e.type for e in after] == ["retried", "claimed", "finished"]
    assert after[1].attempt == 3 and after[2].detail["status"] == "solved"  # a retry moves the number on


def test_a_retried_chunk_entry_leaves_with_its_failure(chunk_app):
    job_id = post(chunk_app, toys("1", "2", crash=True))
    (chunk_id,) = chunk_app.extensions["publisher"].stored
    stored.run_stored(runtime_of(chunk_app, RecordingPublisher()), chunk_id, "w1")
    left = [e for e in history(chunk_app, job_id) if e.type == "left"]
    assert kinds(left) == [("left", 0, 1)]  # the call failed as a whole: both left, to fail alone
    chunk.run_chunk(runtime_of(chunk_app, RecordingPublisher()), row_ids(chunk_app, job_id), "w2")
    r = chunk_app.test_client().post(f"/api/v1/jobs/{job_id}/retry", json={"indexes": [1]})
    assert r.status_code == 202, r.json
    (again,) = [e for e in history(chunk_app, job_id) if e.type == "retried"]
    assert (again.first, again.detail["was"]) == (1, "failed")


def test_a_cancel_ends_the_job_and_its_puzzles_cancelled(rows_app):
    job_id = post(rows_app, toys("1", "2"))
    assert rows_app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
    found = history(rows_app, job_id)
    assert [e.detail.get("status") for e in found if e.type == "finished"] == ["cancelled", "cancelled"]
    assert found[-1].type == "ended" and found[-1].detail == {"status": "cancelled"}


def test_pages_follow_each_other_without_gap_or_repeat(chunk_app, rows_app):
    job_id = post(rows_app, toys(*"123456"))
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w1")
    whole = history(rows_app, job_id)
    assert paged(rows_app, job_id, 4) == whole and len(whole) == 15


def test_the_jobs_end_comes_after_a_puzzles_end_stamped_later(rows_app):
    """A write stamps its time before it waits for the job's lock, so the write that ended the job
    can carry a time before another puzzle's end: the end is still listed last, at the latest time,
    and pages keep it so."""
    job_id = post(rows_app, toys(*"1234"))
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w1")
    second = row_ids(rows_app, job_id)[1]
    with rows_app.extensions["sessions"]() as s, s.begin():
        later = s.get(Job, job_id).finished_at + timedelta(milliseconds=5)
        s.execute(update(Puzzle).where(Puzzle.id == second).values(finished_at=later))
    found = history(rows_app, job_id)
    assert found[-1].type == "ended" and found[-2].type == "finished" and found[-2].first == 1
    assert found[-1].at == found[-2].at and [e.key() for e in found] == sorted(e.key() for e in found)
    assert paged(rows_app, job_id, 3) == found


def test_pages_through_events_of_one_instant_written_without_a_fraction_of_a_second(rows_app):
    """Times written by plain SQL ("08:00:00", which SQLite compares as text with the cursor's
    "08:00:00.000000") still page without a gap."""
    job_id = post(rows_app, toys(*"12345"))
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w1")
    with rows_app.extensions["sessions"]() as s, s.begin():
        s.execute(text("UPDATE puzzles SET started_at = '2026-12-07 08:00:00', "
                       "finished_at = '2026-12-07 08:00:00'"))
    whole = history(rows_app, job_id)
    assert paged(rows_app, job_id, 3) == whole and len(whole) == 13


def test_the_events_go_with_their_job(rows_app):
    job_id = post(rows_app, toys("1", crash=True))
    chunk.run_chunk(runtime_of(rows_app, RecordingPublisher()), row_ids(rows_app, job_id), "w1")
    assert rows_app.test_client().post(f"/api/v1/jobs/{job_id}/retry").status_code == 202
    assert rows_app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
    assert rows_app.test_client().delete(f"/api/v1/jobs/{job_id}").status_code == 204
    with rows_app.extensions["sessions"]() as s:
        assert s.scalar(select(func.count()).select_from(JobEvent)) == 0
