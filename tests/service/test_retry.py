"""Failed puzzles found by status (GET .../puzzles?status=, .../results?status=) and put back in the
queue (POST .../retry), on SQLite and on PostgreSQL, with the in-process worker writing results."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

import solvers
from solvers.factory import read_request
from store import rows as puzzle_rows
from store.models import Job, Puzzle, Subtask, now
from store.results import write
from store.rows import Result
from tests.service.conftest import run_published, runtime_of, settings_of, stored_tallies
from tests.services import database_url, postgres_url  # noqa: F401  both databases
from worker.chunk import run_chunk


@pytest.fixture
def app(make_app, toy):
    app = make_app()
    yield app
    app.extensions["engine"].dispose()  # the next test's drop_all must not wait for these


def published(app) -> list[int]:
    return [i for chunk in app.extensions["publisher"].chunks for i in chunk]


def solved_with_failures(app, client, crash=(1, 3, 4), n=6) -> dict:
    """A job of ``n`` toy puzzles, those at ``crash`` failing, run to the end by a worker."""
    items = [{"kind": "toy", "puzzle": str(i + 1), "options": {"crash": i in crash}} for i in range(n)]
    job = client.post("/api/v1/jobs", json={"puzzles": items}).json
    run_published(app)
    got = client.get(f"/api/v1/jobs/{job['id']}").json
    assert got["status"] == "completed" and got["counts"]["failed"] == len(crash)
    return got


def statuses(client, url) -> list[tuple[int, str]]:
    r = client.get(url)
    assert r.status_code == 200, r.json
    return [(p["index"], p["status"]) for p in r.json["items"]]


def test_puzzles_filtered_by_status_page_by_page(client, app):
    job = solved_with_failures(app, client)
    base = f"/api/v1/jobs/{job['id']}/puzzles"
    assert statuses(client, f"{base}?status=failed") == [(1, "failed"), (3, "failed"), (4, "failed")]
    assert [i for i, _ in statuses(client, f"{base}?status=solved")] == [0, 2, 5]
    both = [(i, "failed" if i in (1, 3, 4) else "solved") for i in range(6)]
    assert statuses(client, f"{base}?status=failed,solved") == both
    assert statuses(client, f"{base}?status=failed&status=solved") == both
    assert statuses(client, f"{base}?status=queued") == []
    seen, cursor = [], None  # the cursor of a filtered page leads to the next match
    while True:
        page = {"status": "failed", "limit": 1, **({"cursor": cursor} if cursor else {})}
        r = client.get(base, query_string=page)
        seen += [p["index"] for p in r.json["items"]]
        cursor = r.json["next_cursor"]
        if cursor is None:
            break
    assert seen == [1, 3, 4]


@pytest.mark.parametrize("query", ["status=done", "status=failed,nope", "status=failed&status=x"])
def test_an_unknown_status_is_422_naming_it(client, app, query):
    job = solved_with_failures(app, client)
    r = client.get(f"/api/v1/jobs/{job['id']}/puzzles?{query}")
    assert r.status_code == 422
    [err] = r.json["errors"]
    assert err["field"] == "status" and "unknown puzzle status" in err["message"]
    bad = query.rsplit("=", 1)[1].split(",")[-1]
    assert repr(bad) in err["message"]


def test_results_filtered_by_status(client, app):
    job = solved_with_failures(app, client)
    r = client.get(f"/api/v1/jobs/{job['id']}/results?status=failed&format=csv")
    assert r.status_code == 200
    lines = r.get_data(as_text=True).splitlines()
    assert [line.split(",")[:3] for line in lines[1:]] == [["1", "toy", "failed"], ["3", "toy", "failed"],
                                                           ["4", "toy", "failed"]]


def test_retry_puts_failed_puzzles_back_with_new_options_and_a_new_budget(client, app):
    job = solved_with_failures(app, client)
    sessions = app.extensions["sessions"]
    with sessions() as s:
        before = {p.index: p.attempts for p in s.scalars(select(Puzzle))}
    failed_before = stored_tallies(sessions)["toy", "failed"]
    r = client.post(f"/api/v1/jobs/{job['id']}/retry", json={"options": {"crash": False}})
    assert r.status_code == 202, r.json
    assert r.headers["Location"] == f"/api/v1/jobs/{job['id']}"
    assert r.json["status"] == "running" and r.json["finished_at"] is None
    assert r.json["counts"]["queued"] == 3 and r.json["counts"]["failed"] == 0 and r.json["progress"] == 0.5
    with sessions() as s:
        rows = {p.index: p for p in s.scalars(select(Puzzle))}
        assert s.get(Job, job["id"]).pending == 3
    for i in (1, 3, 4):
        p = rows[i]
        assert (p.status, p.error, p.block_id, p.finished_at) == ("queued", None, None, None)
        assert p.options["crash"] is False and p.attempts == p.attempts_base == before[i] + 1
    assert sorted(published(app)) == sorted(rows[i].id for i in (1, 3, 4))
    tallies = stored_tallies(sessions)
    assert tallies["toy", "queued"] == 3 and tallies["toy", "failed"] == failed_before  # a counter
    run_chunk(runtime_of(app), published(app), "w")
    done = client.get(f"/api/v1/jobs/{job['id']}").json
    assert done["status"] == "completed" and done["counts"]["solved"] == 6
    one = client.get(f"/api/v1/jobs/{job['id']}/puzzles/3").json
    assert one["result"] == {"sum": 4} and one["error"] is None
    tallies = stored_tallies(sessions)
    assert ("toy", "queued") not in tallies and ("toy", "running") not in tallies


def test_retry_of_chosen_indexes_and_what_is_refused(client, app):
    job = solved_with_failures(app, client)
    url = f"/api/v1/jobs/{job['id']}/retry"
    r = client.post(url, json={"indexes": [0, 1]})
    assert r.status_code == 409 and r.json["index"] == 0 and r.json["puzzle_status"] == "solved"
    r = client.post(url, json={"indexes": [1, 99]})
    assert r.status_code == 422 and r.json["errors"][0]["index"] == 99
    r = client.post(url, json={"indexes": [1], "options": {"sleep": "long"}})
    assert r.status_code == 422 and r.json["errors"][0]["index"] == 1
    r = client.post(url, json={"indexes": [1], "options": {"nope": 1}})
    assert r.status_code == 422 and r.json["errors"][0]["index"] == 1
    r = client.post(url, json={"indexes": "all"})
    assert r.status_code == 422
    assert client.get(f"/api/v1/jobs/{job['id']}").json == job  # nothing changed
    assert published(app) == []
    r = client.post(url, json={"indexes": [3], "options": {"crash": False}})
    assert r.status_code == 202 and r.json["counts"]["queued"] == 1 and r.json["counts"]["failed"] == 2
    assert client.post("/api/v1/jobs/nope/retry").status_code == 404


def test_retry_with_nothing_to_retry_changes_nothing(client, app):
    job = solved_with_failures(app, client, crash=())
    r = client.post(f"/api/v1/jobs/{job['id']}/retry")
    assert r.status_code == 202 and r.json == job and published(app) == []


def test_a_cancelled_job_runs_again_and_its_split_parts_are_gone(client, app):
    items = [{"kind": "toy", "puzzle": "12345678", "options": {"split": 4}}, {"kind": "toy", "puzzle": "1"}]
    job = client.post("/api/v1/jobs", json={"puzzles": items}).json
    ids = published(app)
    with app.extensions["sessions"]() as s, s.begin():  # the first puzzle fanned out, then cancelled
        claimed = puzzle_rows.claim(s, ids[:1], "w", now())
        s.execute(update(Puzzle).where(Puzzle.id == ids[0]).values(parts_total=4, split_head={"x": 1}))
        s.add_all([Subtask(puzzle_id=ids[0], index=i, payload={}, status="queued") for i in range(4)])
    assert client.post(f"/api/v1/jobs/{job['id']}/cancel").json["status"] == "cancelled"
    app.extensions["publisher"].chunks.clear()
    r = client.post(f"/api/v1/jobs/{job['id']}/retry")
    assert r.status_code == 202 and r.json["status"] == "running" and r.json["counts"]["queued"] == 2
    with app.extensions["sessions"]() as s:
        assert s.scalars(select(Subtask)).all() == []
        p = s.get(Puzzle, ids[0])
        assert (p.parts_total, p.split_head, p.stop_requested) == (0, None, False)
    # The earlier claim's late result finds the row changed: it writes nothing.
    with app.extensions["sessions"]() as s, s.begin():
        late = Result(ids[0], job["id"], claimed[0].attempts, "solved", answer='[{"sum":1},{}]')
        assert write(s, [late]) == 0
    assert client.get(f"/api/v1/jobs/{job['id']}/puzzles/0").json["status"] == "queued"


def test_a_stale_claim_cannot_write_to_a_retried_puzzle_claimed_again(client, app):
    job = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}]}).json
    ids = published(app)
    sessions = app.extensions["sessions"]
    with sessions() as s, s.begin():
        [held] = puzzle_rows.claim(s, ids, "w", now())
    client.post(f"/api/v1/jobs/{job['id']}/cancel")
    assert client.post(f"/api/v1/jobs/{job['id']}/retry").status_code == 202
    with sessions() as s, s.begin():
        [again] = puzzle_rows.claim(s, ids, "w2", now())  # running again: only the attempt number differs
    assert again.attempts > held.attempts
    with sessions() as s, s.begin():
        late = Result(held.id, held.job_id, held.attempts, "solved", answer='[{"sum":1},{}]')
        assert write(s, [late]) == 0
    assert client.get(f"/api/v1/jobs/{job['id']}").json["counts"]["running"] == 1


def test_a_retried_puzzle_gets_its_whole_attempt_budget_again(client, app):
    cap = settings_of(app).recovery.max_attempts
    job = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}]}).json
    ids = published(app)
    sessions = app.extensions["sessions"]
    for _ in range(cap + 1):  # every claim's worker "dies": the last claim fails it
        with sessions() as s, s.begin():
            puzzle_rows.claim(s, ids, "w", now())
    run_chunk(runtime_of(app), ids, "w")
    assert client.get(f"/api/v1/jobs/{job['id']}/puzzles/0").json["status"] == "failed"
    app.extensions["publisher"].chunks.clear()
    assert client.post(f"/api/v1/jobs/{job['id']}/retry").status_code == 202
    run_chunk(runtime_of(app), published(app), "w")
    one = client.get(f"/api/v1/jobs/{job['id']}/puzzles/0").json
    assert one["status"] == "solved" and one["result"] == {"sum": 1}


def test_retry_is_for_the_owner_only(make_app, toy):
    app = make_app(API_TOKENS="alice:secret-a,bob:secret-b")
    client = app.test_client()
    alice = {"Authorization": "Bearer secret-a"}
    bob = {"Authorization": "Bearer secret-b"}
    job = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}]}, headers=alice).json
    client.post(f"/api/v1/jobs/{job['id']}/cancel", headers=alice)
    assert client.post(f"/api/v1/jobs/{job['id']}/retry").status_code == 401
    assert client.post(f"/api/v1/jobs/{job['id']}/retry", headers=bob).status_code == 404
    assert client.post(f"/api/v1/jobs/{job['id']}/retry", headers=alice).status_code == 202
    app.extensions["engine"].dispose()


def cancelled_generate_job(client, kind: str, request: dict) -> str:
    """A generate job of ``request`` cancelled before anything ran: every puzzle retryable."""
    job = client.post("/api/v1/jobs", json={"puzzles": [{"kind": kind, "generate": request}]})
    assert job.status_code == 202, job.json
    assert client.post(f"/api/v1/jobs/{job.json['id']}/cancel").json["status"] == "cancelled"
    return job.json["id"]


def stored_requests(app) -> list[dict]:
    with app.extensions["sessions"]() as s:
        return [p.options["generate"] for p in s.scalars(select(Puzzle).order_by(Puzzle.index))]


@pytest.mark.parametrize(("kind", "request_", "change"), [
    ("spokes", {"count": 2, "width": 4, "height": 4, "level": "hard", "seed": 1}, {"max_attempts": 150}),
    ("sudoku", {"count": 2, "difficulty": "master", "symmetry": "rotational", "seed": 77},
     {"minimal": False}),
])
def test_a_retry_naming_one_generate_option_keeps_the_others(client, app, kind, request_, change):
    job_id = cancelled_generate_job(client, kind, request_)
    r = client.post(f"/api/v1/jobs/{job_id}/retry", json={"options": {"generate": change}})
    assert r.status_code == 202, r.json
    _count, filled = read_request(solvers.get(kind), request_, 10)  # every default in
    assert stored_requests(app) == [{**filled["generate"], **change}] * 2
    assert all(filled["generate"][k] == v for k, v in request_.items() if k != "count")


def test_a_null_retry_option_puts_back_its_default(client, app):
    job_id = cancelled_generate_job(client, "sudoku", {"count": 1, "symmetry": "rotational", "seed": 5})
    r = client.post(f"/api/v1/jobs/{job_id}/retry", json={"options": {"generate": {"symmetry": None}}})
    assert r.status_code == 202, r.json
    [request] = stored_requests(app)
    assert request["symmetry"] == "none" and request["seed"] == 5


def test_a_retry_making_a_generate_request_too_long_for_the_time_limit_is_422(make_app):
    app = make_app(PUZZLE_TIME_LIMIT=30.0)
    client = app.test_client()
    fits = {"count": 2, "width": 15, "height": 15, "level": "hard"}
    job_id = cancelled_generate_job(client, "spokes", fits)
    r = client.post(f"/api/v1/jobs/{job_id}/retry",
                    json={"options": {"generate": {"width": 30, "height": 30}}, "accept_cost": True})
    assert r.status_code == 422, r.json
    [error] = r.json["errors"]
    assert error["field"] == "options.generate" and error["estimated_seconds"] > 30
    assert "PUZZLE_TIME_LIMIT" in error["message"] and r.json["puzzle_time_limit"] == 30.0
    assert client.get(f"/api/v1/jobs/{job_id}").json["status"] == "cancelled"  # nothing changed
    app.extensions["engine"].dispose()
