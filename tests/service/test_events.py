"""GET /api/v1/jobs/{id}/events: a job's history a page at a time, the owner's only, and a cursor
that is not ours refused (store.events has the events themselves, tests/store/test_events.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from service import cursors
from store.models import Puzzle
from tests.service.conftest import RecordingPublisher, runtime_of
from worker import chunk


def solved_job(app, n=5, headers=None):
    """A job of ``n`` toy puzzles, each a row, solved by worker w1."""
    client = app.test_client()
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": str(i)} for i in range(n)]},
                    headers=headers or {})
    assert r.status_code == 202, r.json
    with app.extensions["sessions"]() as s:
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]).order_by(Puzzle.index)))
    chunk.run_chunk(runtime_of(app, RecordingPublisher()), ids, "w1")
    return r.json["id"]


@pytest.fixture
def app(make_app, toy):
    return make_app(CHUNK_MAX=1)


def test_pages_of_events_follow_each_other_oldest_first(app):
    job_id = solved_job(app)
    client = app.test_client()
    whole = client.get(f"/api/v1/jobs/{job_id}/events?limit=1000").json
    assert whole["next_cursor"] is None
    items = whole["items"]
    assert len(items) == 3 + 2 * 5  # submitted, started, ended; a claim and an end per puzzle
    assert (items[0]["type"], items[0]["index"], items[0]["detail"]) == ("submitted", None, {"total": 5})
    assert items[-1]["type"] == "ended" and items[-1]["detail"] == {"status": "completed"}
    assert [e["at"] for e in items] == sorted(e["at"] for e in items)
    claim = next(e for e in items if e["type"] == "claimed")
    assert (claim["worker"], claim["attempt"]) == ("w1", 1)
    assert claim["index"] in range(5) and claim["last_index"] == claim["index"]
    paged, url = [], f"/api/v1/jobs/{job_id}/events?limit=4"
    while url:
        page = client.get(url).json
        assert len(page["items"]) <= 4
        paged += page["items"]
        url = page["next_cursor"] and f"/api/v1/jobs/{job_id}/events?limit=4&cursor={page['next_cursor']}"
    assert paged == items


def test_one_puzzles_events_with_the_jobs(app):
    job_id = solved_job(app)
    items = app.test_client().get(f"/api/v1/jobs/{job_id}/events?index=3").json["items"]
    assert {e["index"] for e in items} == {None, 3}
    finished = [e for e in items if e["type"] == "finished"]
    assert len(finished) == 1 and finished[0]["detail"]["status"] == "solved"
    assert {"estimated_seconds", "seconds"} <= set(finished[0]["detail"])


@pytest.mark.parametrize("query", ["index=-1", "index=x", "limit=0", "limit=1001", "colour=red"])
def test_bad_queries_are_422(app, query):
    job_id = solved_job(app, 1)
    r = app.test_client().get(f"/api/v1/jobs/{job_id}/events?{query}")
    assert r.status_code == 422, r.json


@pytest.mark.parametrize("cursor", [
    "nonsense", cursors.encode(3), cursors.encode("2026-01-01T00:00:00+00:00", 1, 2, 3, 4),
    cursors.encode("not a time", 1, 2, 3, 4, 5), cursors.encode("2026-01-01T00:00:00+00:00", 1, 2, 3, 4, "5"),
    cursors.encode("2026-01-01T00:00:00+00:00", 1, 2, 3, 4, True), cursors.encode([1], 1, 2, 3, 4, 5),
    cursors.encode("0001-01-01T00:00:00+05:00", 1, 2, 3, 4, 5)])
def test_a_cursor_not_ours_is_400(app, cursor):
    job_id = solved_job(app, 1)
    r = app.test_client().get(f"/api/v1/jobs/{job_id}/events?cursor={cursor}")
    assert r.status_code == 400 and r.json["detail"] == cursors.NOT_OURS


@pytest.mark.parametrize("at", ["0001-01-01T00:00:00+00:00", "9999-12-31T23:59:59+00:00"])
def test_a_cursor_at_the_calendars_ends_reads_what_follows_it(app, at):
    job_id = solved_job(app, 1)
    r = app.test_client().get(f"/api/v1/jobs/{job_id}/events?cursor={cursors.encode(at, 0, -1, -1, 0, 0)}")
    assert r.status_code == 200, r.json
    assert len(r.json["items"]) == (5 if at.startswith("0001") else 0)  # all of them, or none


def test_another_owners_job_is_404_and_no_token_401(make_app, toy):
    app = make_app(API_TOKENS="alice:a-secret,bob:b-secret", CHUNK_MAX=1)
    job_id = solved_job(app, 1, headers={"Authorization": "Bearer a-secret"})
    client = app.test_client()
    url = f"/api/v1/jobs/{job_id}/events"
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"Authorization": "Bearer b-secret"}).status_code == 404
    assert client.get(url, headers={"Authorization": "Bearer a-secret"}).status_code == 200
    alice = {"Authorization": "Bearer a-secret"}
    assert client.get("/api/v1/jobs/nope/events", headers=alice).status_code == 404
