"""Bulk actions (POST /api/v1/bulk) and the label search of the job list, with the in-process
worker writing results: each job acted on as its own endpoint would, the others listed with why."""

from __future__ import annotations

import pytest

from tests.service.conftest import runtime_of
from tests.service.test_retry import published, solved_with_failures
from tests.services import database_url, postgres_url  # noqa: F401  both databases
from worker.chunk import run_chunk

ALICE, BOB = {"Authorization": "Bearer secret-a"}, {"Authorization": "Bearer secret-b"}


@pytest.fixture
def app(make_app, toy):
    app = make_app()
    yield app
    app.extensions["engine"].dispose()


def post(client, label: str, n: int = 2, **kw) -> str:
    body = {"label": label, "puzzles": [{"kind": "toy", "puzzle": str(i + 1)} for i in range(n)]}
    r = client.post("/api/v1/jobs", json=body, **kw)
    assert r.status_code == 202, r.json
    return r.json["id"]


def bulk(client, expect: int = 200, **body):
    r = client.post("/api/v1/bulk", json=body)
    assert r.status_code == expect, r.json
    return r.json


def labels(client, query: str) -> list[str]:
    return [j["label"] for j in client.get(f"/api/v1/jobs?{query}").json["items"]]


def test_the_job_list_searches_labels_in_any_case_and_literally(client, app):
    for label in ("Nightly run 1", "nightly run 2", "weekly", "100%_done", "100 done"):
        post(client, label)
    assert labels(client, "label=NIGHTLY") == ["nightly run 2", "Nightly run 1"]
    assert labels(client, "label=100%25_") == ["100%_done"]  # % and _ are plain characters
    assert labels(client, "label=nothing") == []
    assert labels(client, "label=weekly&status=completed") == []
    assert client.get("/api/v1/jobs?label=").status_code == 422


def test_bulk_cancel_takes_the_unfinished_jobs_that_match(client, app):
    first, second, other = post(client, "batch a"), post(client, "batch b"), post(client, "other")
    out = bulk(client, action="cancel", label="batch")
    assert out == {"action": "cancel", "done": [first, second], "skipped": [], "more": False}
    status = {j["id"]: j["status"] for j in client.get("/api/v1/jobs").json["items"]}
    assert status == {first: "cancelled", second: "cancelled", other: "queued"}
    assert bulk(client, action="cancel", label="batch")["done"] == []  # nothing left to cancel


def test_bulk_delete_takes_finished_jobs_and_a_limit_leaves_more(client, app):
    jobs = [post(client, f"old {i}") for i in range(3)]
    running = post(client, "old but queued")
    bulk(client, action="cancel", label="old ")
    assert client.get(f"/api/v1/jobs/{running}").json["status"] == "cancelled"
    kept = post(client, "old, still queued")
    out = bulk(client, action="delete", label="old", limit=2)
    assert out["done"] == jobs[:2] and out["more"] is True
    out = bulk(client, action="delete", label="old")
    assert out["done"] == [jobs[2], running] and out["more"] is False
    assert [j["id"] for j in client.get("/api/v1/jobs").json["items"]] == [kept]


def test_bulk_retry_puts_failed_puzzles_back_and_lists_jobs_with_none(client, app):
    failing = solved_with_failures(app, client)
    clean = solved_with_failures(app, client, crash=())
    out = bulk(client, action="retry", status="completed")
    assert out["done"] == [failing["id"]]
    assert out["skipped"] == [{"id": clean["id"], "reason": "no failed or cancelled puzzles"}]
    job = client.get(f"/api/v1/jobs/{failing['id']}").json
    assert job["status"] == "running" and job["counts"]["queued"] == 3
    assert len(published(app)) == 3  # each retried puzzle published
    run_chunk(runtime_of(app), published(app), "w")
    assert client.get(f"/api/v1/jobs/{failing['id']}").json["counts"]["failed"] == 3  # crash again


def test_bulk_acts_only_on_the_clients_own_jobs(make_app, toy):
    app = make_app(API_TOKENS="alice:secret-a,bob:secret-b")
    client = app.test_client()
    alices, bobs = post(client, "mine", headers=ALICE), post(client, "mine", headers=BOB)
    r = client.post("/api/v1/bulk", json={"action": "cancel"}, headers=ALICE)
    assert r.status_code == 200 and r.json["done"] == [alices]
    assert client.get(f"/api/v1/jobs/{bobs}", headers=BOB).json["status"] == "queued"
    app.extensions["engine"].dispose()


@pytest.mark.parametrize(("body", "field"), [
    ({"action": "explode"}, "action"), ({}, "action"), ({"action": "cancel", "status": "lost"}, "status"),
    ({"action": "cancel", "limit": 0}, "limit"), ({"action": "cancel", "colour": "red"}, "colour"),
])
def test_a_bad_bulk_request_is_422_naming_the_field_and_changes_nothing(client, app, body, field):
    job = post(client, "untouched")
    r = client.post("/api/v1/bulk", json=body)
    assert r.status_code == 422 and r.mimetype == "application/problem+json", r.json
    assert field in str(r.json["errors"])
    assert client.get(f"/api/v1/jobs/{job}").json["status"] == "queued"
