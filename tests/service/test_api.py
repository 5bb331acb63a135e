"""The HTTP contract of API.md, on SQLite with a recording publisher (no broker, no worker)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, update

import solvers
from store.models import SOLVED, Job, Puzzle, Subtask
from store.submit import chunk_sizes
from tests.service.conftest import row_counts, run_chunks, stored_chunks

SUM = {"kind": "toy", "puzzle": "123"}


def mark_solved(app, index):
    """What a worker's write does to the rows (worker tests cover the real thing)."""
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.index == index)
                  .values(status=SOLVED, result={"sum": index + 1}, stats={}))
        s.execute(update(Job).values(pending=Job.pending - 1))


def submit(client, n=3, dear=0, **kw):
    """A job of ``n`` cheap toy puzzles (stored as one chunk, store.chunks) and ``dear`` more, each
    predicted dear (stored as a row and published alone)."""
    items = [{"kind": "toy", "puzzle": str(i + 1)} for i in range(n)]
    items += [{"kind": "toy", "puzzle": str(n + i + 1), "options": {"sleep": 2.0}} for i in range(dear)]
    return client.post("/api/v1/jobs", json={"label": "t", "puzzles": items}, **kw)


def test_submit_stores_publishes_and_answers_202(client, app):
    r = submit(client, 5)
    assert r.status_code == 202
    job = r.json
    assert r.headers["Location"] == f"/api/v1/jobs/{job['id']}"
    assert r.headers["Retry-After"] == "1"
    assert job["status"] == "queued" and job["total"] == 5 and job["label"] == "t"
    assert job["counts"] == {"queued": 5, "running": 0, "solved": 0, "no_solution": 0, "failed": 0,
                             "cancelled": 0}
    assert job["progress"] == 0.0 and job["finished_at"] is None and job["created_at"].endswith("Z")
    # Five cheap puzzles: one stored chunk, published once, and no puzzle row.
    assert len(stored_chunks(app)) == 1 and app.extensions["publisher"].chunks == []
    assert row_counts(app) == (1, 5, 0)
    with app.extensions["sessions"]() as s:
        assert s.scalar(select(func.count()).select_from(Puzzle)) == 0


def test_a_dear_puzzle_is_a_row_published_alone_beside_the_chunk_of_the_cheap_ones(client, app):
    submit(client, 2, dear=1)
    publisher = app.extensions["publisher"]
    assert len(stored_chunks(app)) == 1 and len(publisher.dear) == 1 and len(publisher.dear[0]) == 1
    assert row_counts(app) == (1, 3, 0)


def test_options_are_stored_with_defaults_filled_in(client, app):
    item = {"kind": "toy", "puzzle": "1", "options": {"lie": True}}
    r = client.post("/api/v1/jobs", json={"puzzles": [item]})
    with app.extensions["sessions"]() as s:
        p = s.query(Puzzle).one()
        assert p.options == {"sleep": 0.0, "spin": 0.0, "crash": False, "lie": True, "stubborn": False,
                             "split": 0}
        assert p.input == "1" and p.index == 0 and p.job_id == r.json["id"]


def test_get_job_puzzles_and_one_puzzle(client, app):
    job = submit(client, 4, dear=1).json
    assert client.get(f"/api/v1/jobs/{job['id']}/puzzles/1").json["status"] == "queued"
    assert run_chunks(app) == 4
    mark_solved(app, 4)  # the dear one's row
    assert client.get(f"/api/v1/jobs/{job['id']}").json["counts"]["solved"] == 5
    one = client.get(f"/api/v1/jobs/{job['id']}/puzzles/1")
    assert one.status_code == 200
    assert one.json["status"] == "solved" and one.json["result"] == {"sum": 2} and one.json["kind"] == "toy"
    seen, cursor = [], None
    while True:
        page = client.get(f"/api/v1/jobs/{job['id']}/puzzles", query_string={"limit": 2, **(
            {"cursor": cursor} if cursor else {})}).json
        assert len(page["items"]) <= 2
        seen += [p["index"] for p in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("path", ["/api/v1/jobs/nope", "/api/v1/jobs/nope/puzzles",
                                  "/api/v1/jobs/nope/puzzles/0"])
def test_unknown_job_is_404_problem(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert r.mimetype == "application/problem+json" and r.json["status"] == 404


@pytest.mark.parametrize("index", [3, 99, -1])
def test_unknown_puzzle_index_is_404(client, index):
    job = submit(client, 3).json
    r = client.get(f"/api/v1/jobs/{job['id']}/puzzles/{index}")
    assert r.status_code == 404 and "no puzzle" in r.json["detail"]


def test_bad_cursor_and_limit(client):
    job = submit(client, 2).json
    assert client.get(f"/api/v1/jobs/{job['id']}/puzzles?cursor=garbage").status_code == 400
    r = client.get(f"/api/v1/jobs/{job['id']}/puzzles?limit=0")
    assert r.status_code == 422 and r.json["errors"][0]["field"] == "limit"
    assert client.get("/api/v1/jobs?status=bogus").status_code == 422


def test_cancel_marks_unfinished_puzzles(client, app):
    job = submit(client, 2, dear=1).json
    mark_solved(app, 2)  # the dear one's row; the two cheap ones are still queued in their chunk
    r = client.post(f"/api/v1/jobs/{job['id']}/cancel")
    assert r.status_code == 202
    assert r.json["status"] == "cancelled" and r.json["progress"] == pytest.approx(1 / 3, abs=1e-6)
    assert r.json["counts"]["cancelled"] == 2 and r.json["counts"]["solved"] == 1
    again = client.post(f"/api/v1/jobs/{job['id']}/cancel")
    assert again.status_code == 202 and again.json["counts"] == r.json["counts"]
    assert client.post("/api/v1/jobs/nope/cancel").status_code == 404


def test_a_job_cancelled_before_anything_ran_shows_nothing_done(client):
    job = submit(client, 3).json
    r = client.post(f"/api/v1/jobs/{job['id']}/cancel").json
    assert r["counts"]["cancelled"] == 3 and r["progress"] == 0.0
    assert client.get(f"/api/v1/jobs/{job['id']}").json["progress"] == 0.0
    [listed] = [j for j in client.get("/api/v1/jobs").json["items"] if j["id"] == job["id"]]
    assert listed["progress"] == 0.0


def test_list_jobs_newest_first_with_cursor_and_status(client):
    ids = [submit(client, 1).json["id"] for _ in range(5)]
    client.post(f"/api/v1/jobs/{ids[0]}/cancel")
    seen, cursor = [], None
    while True:
        query = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = client.get("/api/v1/jobs", query_string=query).json
        seen += [j["id"] for j in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]
    cancelled = client.get("/api/v1/jobs?status=cancelled").json["items"]
    assert [j["id"] for j in cancelled] == [ids[0]]


def test_kinds_describes_the_registry_and_the_service_limits(make_app, toy):
    app = make_app(MAX_PUZZLE_BYTES={"default": "300", "toy": "40"}, OPTION_LIMITS={"toy.sleep": "2"})
    items = {k["kind"]: k for k in app.test_client().get("/api/v1/kinds").json["items"]}
    assert set(items) == set(solvers.KINDS)
    limits = {"max_puzzle_bytes": 40, "options": {"sleep": 2.0}}
    assert items["toy"] == {**toy.describe(), "service_limits": limits}


def test_idempotency_key_replays_or_conflicts(client, app):
    first = submit(client, 2, headers={"Idempotency-Key": "k1"})
    again = submit(client, 2, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 202 and again.status_code == 200
    assert again.json["id"] == first.json["id"]
    other = submit(client, 3, headers={"Idempotency-Key": "k1"})
    assert other.status_code == 409 and other.mimetype == "application/problem+json"
    assert row_counts(app) == (1, 2, 0)
    assert len(stored_chunks(app)) == 1  # published once, not on replay


def test_tokens_required_and_jobs_private(make_app, toy):
    app = make_app(API_TOKENS="alice:secret-a,bob:secret-b")
    client = app.test_client()
    assert submit(client).status_code == 401
    assert submit(client, headers={"Authorization": "Bearer wrong"}).status_code == 401
    alice = {"Authorization": "Bearer secret-a"}
    bob = {"Authorization": "Bearer secret-b"}
    job = submit(client, headers=alice).json
    assert client.get(f"/api/v1/jobs/{job['id']}", headers=alice).status_code == 200
    assert client.get(f"/api/v1/jobs/{job['id']}", headers=bob).status_code == 404
    assert client.post(f"/api/v1/jobs/{job['id']}/cancel", headers=bob).status_code == 404
    assert client.get("/api/v1/jobs", headers=bob).json["items"] == []
    assert [j["id"] for j in client.get("/api/v1/jobs", headers=alice).json["items"]] == [job["id"]]
    # The same Idempotency-Key belongs to each client separately.
    assert submit(client, headers={**alice, "Idempotency-Key": "x"}).status_code == 202
    assert submit(client, 5, headers={**bob, "Idempotency-Key": "x"}).status_code == 202


def test_too_many_unfinished_puzzles_is_429(make_app, toy):
    client = make_app(MAX_PENDING_PUZZLES=4).test_client()
    assert submit(client, 3).status_code == 202
    r = submit(client, 2)
    assert r.status_code == 429 and r.headers["Retry-After"] and "unfinished" in r.json["detail"]
    assert r.json["detail"].startswith("3 of your puzzles")  # the others' puzzles, not this batch's
    assert len(client.get("/api/v1/jobs").json["items"]) == 1  # the refused job's row was rolled back
    assert submit(client, 1).status_code == 202  # up to the limit


def test_database_down_is_503_not_a_traceback(make_app, toy):
    app = make_app()
    app.extensions["sessions"].configure(bind=__import__("sqlalchemy").create_engine(
        "postgresql+psycopg://nobody@127.0.0.1:1/none", connect_args={"connect_timeout": 1}))
    app.extensions["engine"] = app.extensions["sessions"].kw["bind"]
    client = app.test_client()
    for r in (submit(client), client.get("/api/v1/jobs/x"), client.get("/readyz")):
        assert r.status_code == 503, r.data
        assert r.mimetype == "application/problem+json" and "Retry-After" in r.headers
        assert "Traceback" not in r.get_data(as_text=True)


def test_broker_down_fails_readyz(make_app, toy):
    app = make_app(REDIS_URL="redis://127.0.0.1:1/0")
    r = app.test_client().get("/readyz")
    assert r.status_code == 503 and r.json["checks"] == {"broker": "not reachable"}
    assert "127.0.0.1" not in r.get_data(as_text=True)  # the driver's message is logged, not answered


def test_health_and_ready(client):
    assert client.get("/healthz").json == {"status": "ok"}
    assert client.get("/readyz").json["status"] == "ready"


def test_openapi_document_and_page(client):
    doc = client.get("/api/v1/openapi.json").json
    assert doc["openapi"].startswith("3.")
    assert {"/api/v1/jobs", "/api/v1/jobs/{job_id}/puzzles", "/api/v1/kinds"} <= set(doc["paths"])
    body = doc["paths"]["/api/v1/jobs"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "JobSubmit" in body["$ref"]
    assert "422" in doc["paths"]["/api/v1/jobs"]["post"]["responses"]
    headers = {p["name"] for p in doc["paths"]["/api/v1/jobs"]["post"]["parameters"] if p["in"] == "header"}
    assert "Idempotency-Key" in headers
    page = client.get("/api/v1/docs/swagger/")
    assert page.status_code == 200 and b"swagger" in page.data.lower()


@pytest.mark.parametrize(("costs", "expected"), [
    ([1e-4], [1]),
    ([1e-4] * 1000, [500, 500]),            # 0.1 s of work: tasks of ~0.05 s
    ([1e-4] * 10_000, [625] * 16),          # 1 s of work over 16 tasks
    ([1e-5] * 3000, [1000] * 3),            # capped at `largest` puzzles
    ([1.0] * 20, [1] * 20),                 # dear puzzles go one by one
    ([0.2] * 160, [10] * 16),               # 32 s of work spread over 16 tasks
    ([1e-4] * 3 + [5.0] + [1e-4] * 3, [3, 1, 3]),  # a dear puzzle alone, cheap ones around it
])
def test_chunk_sizes(costs, expected):
    sizes = chunk_sizes(costs, spread=16, largest=1000, seconds=0.05)
    assert sizes == expected
    assert sum(sizes) == len(costs)


def test_idempotency_key_race_returns_the_winner(client, app, monkeypatch):
    """Two requests with one key pass the lookup together; the unique index lets one insert."""
    from store import jobs

    first = submit(client, 2, headers={"Idempotency-Key": "race"}).json
    real, calls = jobs.find_by_key, []

    def missed_once(s, owner, key):
        calls.append(key)
        return None if len(calls) == 1 else real(s, owner, key)

    monkeypatch.setattr(jobs, "find_by_key", missed_once)
    again = submit(client, 2, headers={"Idempotency-Key": "race"})
    assert again.status_code == 200 and again.json["id"] == first["id"]
    assert row_counts(app) == (1, 2, 0)


def test_delete_a_finished_job_or_409_until_it_is_cancelled(client, app):
    job = submit(client, 3).json
    kept = submit(client, 1).json
    r = client.delete(f"/api/v1/jobs/{job['id']}")
    assert r.status_code == 409 and r.mimetype == "application/problem+json"
    assert "cancel it first" in r.json["detail"] and r.json["job_status"] == "queued"
    assert row_counts(app) == (2, 4, 0)
    client.post(f"/api/v1/jobs/{job['id']}/cancel")
    r = client.delete(f"/api/v1/jobs/{job['id']}")
    assert r.status_code == 204 and r.data == b""
    assert row_counts(app) == (1, 1, 0)
    assert client.get(f"/api/v1/jobs/{job['id']}").status_code == 404
    assert client.delete(f"/api/v1/jobs/{job['id']}").status_code == 404
    assert client.delete("/api/v1/jobs/nope").status_code == 404
    assert client.get(f"/api/v1/jobs/{kept['id']}").status_code == 200


def test_a_completed_job_is_deleted_with_its_subtasks(client, app):
    job = submit(client, 0, dear=2).json
    with app.extensions["sessions"]() as s, s.begin():
        pid = s.scalars(select(Puzzle.id).where(Puzzle.job_id == job["id"])).first()
        s.add(Subtask(puzzle_id=pid, index=0, payload={}, status="solved", attempts=1))
    mark_solved(app, 0)
    mark_solved(app, 1)
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).values(status="completed"))
    assert row_counts(app) == (1, 2, 1)
    assert client.delete(f"/api/v1/jobs/{job['id']}").status_code == 204
    assert row_counts(app) == (0, 0, 0)


def test_another_clients_job_cannot_be_deleted(make_app, toy):
    app = make_app(API_TOKENS="alice:secret-a,bob:secret-b")
    client = app.test_client()
    alice, bob = {"Authorization": "Bearer secret-a"}, {"Authorization": "Bearer secret-b"}
    job = submit(client, headers=alice).json
    client.post(f"/api/v1/jobs/{job['id']}/cancel", headers=alice)
    assert client.delete(f"/api/v1/jobs/{job['id']}", headers=bob).status_code == 404
    assert client.delete(f"/api/v1/jobs/{job['id']}").status_code == 401
    assert row_counts(app) == (1, 3, 0)
    assert client.delete(f"/api/v1/jobs/{job['id']}", headers=alice).status_code == 204
