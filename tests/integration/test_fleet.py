"""The fleet view on the production shape: PostgreSQL, Redis and a real `celery worker` of the
cheap lane. The worker appears with its lane and a fresh heartbeat, holds the job it runs and
counts it once done; a task of the dear lane, which no worker takes, waits in Redis as depth."""

from __future__ import annotations

import time
import uuid

import pytest

from tests.services import Workers, app_for, fresh_postgres, fresh_redis, migrate, service_env

pytestmark = pytest.mark.integration

OPERATOR = {"Authorization": "Bearer 0perator-token"}


def until(ask, ok, timeout=60.0):
    """``ask()`` again until ``ok`` of its answer holds; that answer."""
    deadline = time.monotonic() + timeout
    while True:
        got = ask()
        if ok(got):
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.2)


def test_a_running_worker_and_a_waiting_task_on_redis_and_postgresql(tmp_path, toy_kind):
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        migrate(db_url)
        queue = f"puzzles-{uuid.uuid4().hex[:8]}"
        # Above 5 s estimated, a task goes to the dear lane, which no worker here takes.
        env = service_env(db_url, redis_url, queue, DEAR_SECONDS="5", ADMIN_TOKENS="0perator-token")
        workers = Workers(env, tmp_path)
        try:
            workers.start(cheap_only=True)
            client = app_for(env).test_client()

            def get(path):
                r = client.get(path, headers=OPERATOR)
                assert r.status_code == 200, r.json
                return r.json

            assert client.get("/api/v1/workers").status_code == 401
            listed = until(lambda: get("/api/v1/workers")["items"],
                           lambda items: any(w["alive"] and w["queues"] for w in items))
            (worker,) = listed
            assert (worker["lane"], worker["queues"]) == ("cheap", [queue])
            assert worker["heartbeat_age_seconds"] < 5 and worker["pid"] == int(worker["name"].split(":")[1])

            waiting = client.post("/api/v1/jobs", json={"puzzles": [
                {"kind": "toy", "puzzle": "9", "options": {"sleep": 6}}]}).json["id"]
            running = client.post("/api/v1/jobs", json={"puzzles": [
                {"kind": "toy", "puzzle": "7", "options": {"sleep": 3}}]}).json["id"]
            holder = until(lambda: get("/api/v1/workers")["items"][0], lambda w: w["holding"])
            assert holder["holding"] == [{"job_id": running, "puzzles": 1, "parts": 0}]

            queues = {q["name"]: q for q in get("/api/v1/queues")["items"]}
            dear = queues[f"{queue}.dear"]
            assert (dear["lane"], dear["depth"], dear["workers"]) == ("dear", 1, 0)
            assert dear["oldest_age_seconds"] is not None and 0 <= dear["oldest_age_seconds"] < 30
            assert (queues[queue]["depth"], queues[queue]["workers"]) == (0, 1)
            time.sleep(1.5)
            older = {q["name"]: q for q in get("/api/v1/queues")["items"]}[f"{queue}.dear"]
            assert older["oldest_age_seconds"] >= dear["oldest_age_seconds"] + 1  # the same task, waiting

            done = until(lambda: get("/api/v1/workers")["items"][0], lambda w: not w["holding"], timeout=30)
            assert done["done_last_minute"] == 1
            assert client.get(f"/api/v1/jobs/{running}").json["status"] == "completed"
            assert client.get(f"/api/v1/jobs/{waiting}").json["status"] == "queued"
            flow = get("/api/v1/queues")
            assert (flow["puzzles_in"], flow["puzzles_out"]) == (2, 1)
        finally:
            workers.stop()


def test_a_drained_worker_finishes_what_it_holds_and_takes_nothing_new_until_undrained(tmp_path, toy_kind):
    """A real prefork `celery worker` on Redis and PostgreSQL: drained by its Celery node name while
    a task runs, its pool processes read the mark, its consumer cancels its queue (Celery's control
    API), the running task ends, a job posted after waits in Redis; undrained, it takes that job."""
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        migrate(db_url)
        queue = f"puzzles-{uuid.uuid4().hex[:8]}"
        # DEAR_SECONDS as above: the 3 s task stays in the cheap lane, the one this worker takes.
        env = service_env(db_url, redis_url, queue, DEAR_SECONDS="5", ADMIN_TOKENS="0perator-token",
                          HEARTBEAT_SECONDS="0.5", REAP_INTERVAL="0.5")
        workers = Workers(env, tmp_path)
        try:
            proc = workers.start(cheap_only=True, concurrency=2)
            client = app_for(env).test_client()

            def get(path):
                r = client.get(path, headers=OPERATOR)
                assert r.status_code == 200, r.json
                return r.json

            listed = until(lambda: get("/api/v1/workers")["items"],
                           lambda items: len([w for w in items if w["alive"] and w["queues"]]) == 2)
            node = listed[0]["celery_node"]
            running = client.post("/api/v1/jobs", json={"puzzles": [
                {"kind": "toy", "puzzle": "7", "options": {"sleep": 3}}]}).json["id"]
            until(lambda: get("/api/v1/workers")["items"], lambda items: any(w["holding"] for w in items))

            r = client.post(f"/api/v1/workers/{node}/drain", headers=OPERATOR)
            assert r.status_code == 200, r.json
            assert sorted(r.json["workers"]) == sorted(w["name"] for w in listed)
            until(proc.log.read_text, lambda text: f"Canceling queue {queue}" in text, timeout=30)
            waiting = client.post("/api/v1/jobs",
                                  json={"puzzles": [{"kind": "toy", "puzzle": "5"}]}).json["id"]
            done = until(lambda: client.get(f"/api/v1/jobs/{running}").json,
                         lambda job: job["status"] == "completed", timeout=30)
            assert done["counts"]["solved"] == 1, "what it held runs to its end"
            time.sleep(3)
            assert client.get(f"/api/v1/jobs/{waiting}").json["status"] == "queued"
            queues = {q["name"]: q for q in get("/api/v1/queues")["items"]}
            assert (queues[queue]["depth"], queues[queue]["workers"]) == (1, 0)
            assert all(w["draining"] for w in get("/api/v1/workers")["items"])

            assert client.post(f"/api/v1/workers/{node}/undrain", headers=OPERATOR).status_code == 200
            until(lambda: client.get(f"/api/v1/jobs/{waiting}").json,
                  lambda job: job["status"] == "completed", timeout=30)
        finally:
            workers.stop()
