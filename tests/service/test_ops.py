"""service.ops: /readyz names the kinds the living workers' hosts are still preparing, beside its
checks; the fleet view (service.fleet) names them per worker and over the living ones."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from store import workers
from store.bookkeeping import WorkerBeat
from store.models import now


def test_readyz_and_the_fleet_view_name_the_kinds_still_being_prepared(make_app, toy):
    app = make_app()
    client = app.test_client()
    assert client.get("/readyz").json == {"status": "ready", "checks": {"database": "ok", "broker": "ok"},
                                          "preparing": []}
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "w@a:1:n", None, ["puzzles"], ["spokes", "sliding"])
        workers.beat(s, "w@b:2:n", None, ["puzzles"], ["nqueens"])
        s.execute(update(WorkerBeat).where(WorkerBeat.name == "w@b:2:n")
                  .values(beat_at=now() - timedelta(seconds=600)))  # silent: not heard of
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json["status"] == "ready"
    assert ready.json["preparing"] == ["sliding", "spokes"]
    fleet = client.get("/api/v1/workers").json
    assert fleet["preparing"] == ["sliding", "spokes"]
    assert {w["name"]: w["preparing"] for w in fleet["items"]} == {"w@a:1:n": ["spokes", "sliding"],
                                                                   "w@b:2:n": ["nqueens"]}
    assert fleet["silent_seconds"] == 15.0 and [w["alive"] for w in fleet["items"]] == [True, False]


def test_readyz_stays_ready_when_the_kinds_being_prepared_cannot_be_read(make_app, toy, monkeypatch):
    def unreadable(s, silent_before):
        raise RuntimeError("no such column: workers.preparing")  # a database not migrated yet, say

    monkeypatch.setattr(workers, "preparing", unreadable)
    ready = make_app().test_client().get("/readyz")
    assert ready.status_code == 200 and ready.json["preparing"] == [] and ready.json["status"] == "ready"
