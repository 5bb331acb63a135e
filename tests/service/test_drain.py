"""Draining a worker through the API (service.fleet): POST /api/v1/workers/{name}/drain and
/undrain mark its `celery worker`, GET /api/v1/workers shows it draining, /queues stops counting
it; operators only; an unknown or impossible name is a 404 that says so, never a 5xx."""

from __future__ import annotations

import pytest

from tests.service.test_fleet import ALICE, OPERATOR, bearer, beat, by_name
from tests.services import database_url, postgres_url  # noqa: F401  both databases

A1, A2, B = "worker-1@h1:11:aaaa", "worker-1@h1:12:aaaa", "worker-2@h2:21:bbbb"


def test_a_drained_worker_is_listed_draining_with_every_process_of_it(app):
    for name in (A1, A2, B):
        beat(app, name, ["puzzles"])
    client = app.test_client()
    r = client.post(f"/api/v1/workers/{A1}/drain")
    assert r.status_code == 200, r.json
    assert r.json == {"name": A1, "draining": True, "workers": [A1, A2]}
    listed = by_name(app)
    assert listed[A1]["draining"] and listed[A2]["draining"] and listed[A1]["draining_since"]
    assert not listed[B]["draining"] and listed[B]["draining_since"] is None
    queues = {q["name"]: q["workers"] for q in client.get("/api/v1/queues").json["items"]}
    assert queues["puzzles"] == 1, "a draining worker takes nothing from its queues"
    r = client.post("/api/v1/workers/worker-1@h1/undrain")
    assert r.status_code == 200 and r.json["workers"] == [A1, A2] and r.json["draining"] is False
    assert not any(w["draining"] for w in by_name(app).values())


@pytest.mark.parametrize("name", ["worker-9@h9", "worker-1@h1:11", "%", "x" * 300, "bad\x01name"])
def test_an_unknown_worker_is_a_404_naming_it(app, name):
    beat(app, A1, ["puzzles"])
    for action in ("drain", "undrain"):
        r = app.test_client().post(f"/api/v1/workers/{name}/{action}")
        assert r.status_code == 404 and r.mimetype == "application/problem+json", (name, r.json)
        assert "no worker is named" in r.json["detail"]
    assert not by_name(app)[A1]["draining"]


def test_only_an_operator_may_drain(make_app, toy):
    app = make_app(API_TOKENS=f"alice:{ALICE}", ADMIN_TOKENS=OPERATOR)
    beat(app, A1, ["puzzles"])
    client = app.test_client()
    assert client.post(f"/api/v1/workers/{A1}/drain").status_code == 401
    assert client.post(f"/api/v1/workers/{A1}/drain", headers=bearer(ALICE)).status_code == 403
    assert client.post(f"/api/v1/workers/{A1}/drain", headers=bearer(OPERATOR)).status_code == 200
    paths = client.get("/api/v1/openapi.json").json["paths"]
    assert {"200", "401", "403", "404"} <= set(paths["/api/v1/workers/{name}/drain"]["post"]["responses"])
