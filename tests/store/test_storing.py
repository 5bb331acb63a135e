"""A batch is stored with its puzzle ids in batch order and its inputs and options as checked,
whatever its size (store.submit: one statement on PostgreSQL, the rows as one JSON text), on SQLite
and on PostgreSQL, and so are the tallies and the refusals."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from store import jobs
from store.models import Chunk, Puzzle
from tests.service.conftest import assert_tallies_match_rows, every_puzzle, row_counts
from tests.services import database_url, postgres_url  # noqa: F401  both databases


@pytest.fixture
def app(make_app, toy):
    app = make_app()
    yield app
    app.extensions["engine"].dispose()  # the next test's drop_all must not wait for these


@pytest.mark.parametrize("n", [1, 9, 1000])
def test_the_published_ids_are_the_puzzles_in_batch_order(client, app, n):
    items = [{"kind": "toy", "puzzle": str(n - i)} for i in range(n)]
    r = client.post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202 and r.json["counts"]["queued"] == n
    # cheap puzzles: a task of more than one is stored as a chunk (store.chunks), one alone as a row
    publisher = app.extensions["publisher"]
    with app.extensions["sessions"]() as s:
        stored = list(s.scalars(select(Chunk.id).where(Chunk.job_id == r.json["id"]).order_by(Chunk.first)))
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]).order_by(Puzzle.index)))
        rows, _next = jobs.list_puzzles(s, r.json["id"], n)
    assert publisher.stored == stored and [i for task in publisher.chunks for i in task] == ids
    assert (len(stored), len(ids)) == ((0, 1) if n == 1 else ((n + 999) // 1000, 0))
    assert [(row.index, row.input) for row in rows] == [(i, item["puzzle"]) for i, item in enumerate(items)]


def test_inputs_and_options_are_stored_as_checked(client, app):
    # Strings, objects, options with nested values and text beyond ASCII, in one batch.
    items = [{"kind": "nqueens", "puzzle": {"n": 8}, "options": {"mode": "count"}},
             {"kind": "sudoku", "puzzle": "1" + "." * 80, "options": {"max_solutions": 2}},
             {"kind": "toy", "puzzle": "7"},
             {"kind": "nqueens", "puzzle": {"n": 6}}]
    r = client.post("/api/v1/jobs", json={"puzzles": items, "label": "ré \"quoted\""})
    assert r.status_code == 202
    with app.extensions["sessions"]() as s:
        rows = s.execute(select(Puzzle.kind, Puzzle.input, Puzzle.options)
                         .where(Puzzle.job_id == r.json["id"]).order_by(Puzzle.index)).all()
    assert [(row.kind, row.input) for row in rows] == [(item["kind"], item["puzzle"]) for item in items]
    assert rows[0].options["mode"] == "count" and rows[1].options["max_solutions"] == 2
    assert rows[3].options["mode"] != "count" and set(rows[3].options) == set(rows[0].options)


def test_the_backlog_comes_with_the_jobs_row_and_a_refused_job_leaves_nothing(make_app, toy):
    # store.submit_statements._insert_job: the owner's other unfinished jobs, whichever database's WITH sees
    # the new row, give the 429 and the rank of the next job's tasks.
    app = make_app(MAX_PENDING_PUZZLES=5)
    client = app.test_client()
    three = [{"kind": "toy", "puzzle": str(i)} for i in range(1, 4)]
    first = client.post("/api/v1/jobs", json={"puzzles": three})
    assert first.status_code == 202
    refused = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}] * 3})
    assert refused.status_code == 429 and refused.json["detail"].startswith("3 of your puzzles")
    with app.extensions["sessions"]() as s:
        assert {p.job_id for p in every_puzzle(s)} == {first.json["id"]}
    second = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}] * 2})
    assert second.status_code == 202
    assert app.extensions["publisher"].ranks == [0, 1]  # behind the first job's tasks
    app.extensions["engine"].dispose()


def test_the_tallies_count_what_was_stored_and_nothing_of_a_refused_job(make_app, toy):
    app = make_app(MAX_PENDING_PUZZLES=12)
    client = app.test_client()
    answers = [client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}] * n}).status_code
               for n in (1, 9, 3)]
    assert answers == [202, 202, 429]  # the last: 10 are unfinished already
    assert row_counts(app) == (2, 10, 0)
    assert_tallies_match_rows(app.extensions["sessions"])
    app.extensions["engine"].dispose()


def test_two_requests_with_one_key_store_one_job(app, client, monkeypatch):
    """Both pass the lookup; the unique index lets one store its job, the other answers with it."""
    real, calls = jobs.find_by_key, []

    def missed_once(s, owner, key):
        calls.append(key)
        return None if len(calls) <= 2 else real(s, owner, key)

    monkeypatch.setattr(jobs, "find_by_key", missed_once)
    body = {"puzzles": [{"kind": "toy", "puzzle": "1"}]}
    first = client.post("/api/v1/jobs", json=body, headers={"Idempotency-Key": "k"})
    again = client.post("/api/v1/jobs", json=body, headers={"Idempotency-Key": "k"})
    assert (first.status_code, again.status_code) == (202, 200) and again.json["id"] == first.json["id"]
    assert row_counts(app) == (1, 1, 0)
    assert_tallies_match_rows(app.extensions["sessions"])
