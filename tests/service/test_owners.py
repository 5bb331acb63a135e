"""Owners without tokens, and the rank of a job's tasks (store.publish.job_rank): with API_TOKENS
empty every job may still be read by anyone, but each address is its own client for quotas and
fair share, and an owner's small job is not ranked behind that owner's big ones."""

from __future__ import annotations

from sqlalchemy import select

from store.models import Job


def at(address: str) -> dict:
    return {"environ_base": {"REMOTE_ADDR": address}}


def post(client, items, address="10.0.0.1", expect=202):
    r = client.post("/api/v1/jobs", json={"puzzles": items}, **at(address))
    assert r.status_code == expect, r.json
    return r.json


def big():  # estimated a second: more than one small task
    return [{"kind": "toy", "puzzle": "5", "options": {"sleep": 1.0}}]


def small():
    return [{"kind": "toy", "puzzle": "7"}]


def test_without_tokens_each_address_has_its_own_quota_and_every_job_stays_readable(make_app, toy):
    app = make_app(MAX_PENDING_PUZZLES=2)
    client = app.test_client()
    first = post(client, small() * 2, "10.0.0.1")
    refused = post(client, small(), "10.0.0.1", expect=429)
    assert refused["detail"] == "2 of your puzzles are still unfinished; the limit is 2"
    other = post(client, small(), "10.0.0.2")  # its own quota: another address is another client
    with app.extensions["sessions"]() as s:
        assert sorted(s.scalars(select(Job.owner))) == ["anonymous:10.0.0.1", "anonymous:10.0.0.2"]
    # The service stays open: any address reads, lists and cancels any job by its id.
    assert client.get(f"/api/v1/jobs/{first['id']}", **at("10.0.0.2")).status_code == 200
    listed = client.get("/api/v1/jobs", **at("10.0.0.3")).json["items"]
    assert {j["id"] for j in listed} == {first["id"], other["id"]}
    assert client.post(f"/api/v1/jobs/{other['id']}/cancel", **at("10.0.0.1")).status_code == 202


def test_an_idempotency_key_replays_for_its_own_address(make_app, toy):
    client = make_app().test_client()
    key = {"Idempotency-Key": "k1"}
    r1 = client.post("/api/v1/jobs", json={"puzzles": small()}, headers=key, **at("10.0.0.1"))
    again = client.post("/api/v1/jobs", json={"puzzles": small()}, headers=key, **at("10.0.0.1"))
    elsewhere = client.post("/api/v1/jobs", json={"puzzles": small()}, headers=key, **at("10.0.0.2"))
    assert (r1.status_code, again.status_code, elsewhere.status_code) == (202, 200, 202)
    assert again.json["id"] == r1.json["id"] != elsewhere.json["id"]


def test_without_tokens_fair_share_ranks_each_address_apart(make_app, toy):
    app = make_app()
    client = app.test_client()
    post(client, big(), "10.0.0.1")
    post(client, big(), "10.0.0.1")
    post(client, big(), "10.0.0.2")
    # Before: the third job ranked 2, behind both jobs of the other address.
    assert app.extensions["publisher"].ranks == [0, 1, 0]


def test_a_small_job_ranks_ahead_of_its_owners_older_big_jobs(make_app, toy):
    app = make_app()
    client = app.test_client()
    for _ in range(10):
        post(client, big())
    post(client, small())
    post(client, big())
    # Before: the small job ranked 10 (the broker's last level, behind all ten big jobs' tasks).
    assert app.extensions["publisher"].ranks == [*range(10), 1, 11]
