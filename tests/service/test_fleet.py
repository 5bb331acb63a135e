"""The fleet view's API (service.fleet, store.fleet, store.depth): only operators may look (401
without a valid token, 403 with a client's), workers as their heartbeat rows show them with what
they hold and what they finished, and each lane's queue as the filesystem broker holds it; on
SQLite and on PostgreSQL (-m integration)."""

from __future__ import annotations

import hashlib
import os
import time
from datetime import timedelta

import pytest
from celery import Celery
from sqlalchemy import update

from service import auth
from store import broker, chunk_task, depth, workers
from store import rows as puzzle_rows
from store.bookkeeping import WorkerBeat
from store.models import FAILED, NO_SOLUTION, SOLVED, now
from store.publish import CeleryPublisher
from tests.service.conftest import claim_part, settings_of
from tests.services import database_url, postgres_url  # noqa: F401  the statements run on both databases
from tests.worker.test_chunk import ids_of, post, toys
from tests.worker.test_chunk import run as run_chunk_of
from tests.worker.test_parts import fan_out, toy_item
from worker import stored
from worker.runtime import Runtime

OPERATOR = "op-Zq3-secret"
ALICE = "alice-Zq3-secret"
ENDPOINTS = ("/api/v1/workers", "/api/v1/queues")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def guarded(make_app, toy):
    return make_app(API_TOKENS=f"alice:{ALICE}", ADMIN_TOKENS=f"other-op,{OPERATOR}")


@pytest.mark.parametrize("path", ENDPOINTS)
def test_only_an_operator_token_opens_the_fleet_view(guarded, path):
    client = guarded.test_client()
    for headers in ({}, bearer("not-a-token")):
        r = client.get(path, headers=headers)
        assert r.status_code == 401 and r.mimetype == "application/problem+json", headers
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
    r = client.get(path, headers=bearer(ALICE))
    assert r.status_code == 403 and r.mimetype == "application/problem+json"
    assert "ADMIN_TOKENS" in r.json["detail"] and ALICE not in r.get_data(as_text=True)
    assert client.get(path, headers=bearer(OPERATOR)).status_code == 200
    # An operator is not a client: the jobs stay closed to its token.
    assert client.get("/api/v1/jobs", headers=bearer(OPERATOR)).status_code == 401


def test_an_open_service_shows_the_fleet_to_anyone(app):
    client = app.test_client()
    for path in ENDPOINTS:
        assert client.get(path).status_code == 200, path


def test_client_tokens_without_admin_tokens_close_the_fleet_view(make_app):
    client = make_app(API_TOKENS=f"alice:{ALICE}").test_client()
    assert client.get("/api/v1/workers").status_code == 401
    r = client.get("/api/v1/workers", headers=bearer(ALICE))
    assert r.status_code == 403 and "sets no ADMIN_TOKENS" in r.json["detail"]


def test_admin_tokens_alone_guard_the_fleet_view_and_leave_the_jobs_open(make_app):
    digest = hashlib.sha256(OPERATOR.encode()).hexdigest()
    client = make_app(ADMIN_TOKENS=f"sha256:{digest}").test_client()
    assert client.get("/api/v1/jobs").status_code == 200
    assert client.get("/api/v1/workers").status_code == 401
    assert client.get("/api/v1/workers", headers=bearer("wrong")).status_code == 401
    assert client.get("/api/v1/workers", headers=bearer(OPERATOR)).status_code == 200


def test_a_bad_admin_token_entry_stops_the_start_without_quoting_it(make_app):
    with pytest.raises(auth.TokenSettingError, match="ADMIN_TOKENS entry 2") as err:
        make_app(ADMIN_TOKENS="fine,sha256:Sekr1t")
    assert "Sekr1t" not in str(err.value)


def test_the_document_guards_the_fleet_endpoints_exactly_when_tokens_are_set(make_app, guarded):
    closed = guarded.test_client().get("/api/v1/openapi.json").json["paths"]
    open_ = make_app().test_client().get("/api/v1/openapi.json").json["paths"]
    for path in ENDPOINTS:
        assert closed[path]["get"]["security"] == [{"bearer": []}]
        assert {"200", "401", "403"} <= set(closed[path]["get"]["responses"])
        assert "security" not in open_[path]["get"] and "401" not in open_[path]["get"]["responses"]
    assert "WorkerOut" in " ".join(guarded.test_client().get("/api/v1/openapi.json").json["components"]
                                   ["schemas"])


def beat(app, name, queues, seconds_ago=0.0):
    """A heartbeat row as a worker process writes it, ``seconds_ago``, its tasks started an hour ago."""
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, name, now() - timedelta(seconds=3600), queues)
        if seconds_ago:
            s.execute(update(WorkerBeat).where(WorkerBeat.name == name)
                      .values(beat_at=now() - timedelta(seconds=seconds_ago)))


def runtime(app) -> Runtime:
    return Runtime(settings_of(app), app.extensions["engine"], app.extensions["sessions"],
                   app.extensions["publisher"])


def by_name(app):
    r = app.test_client().get("/api/v1/workers")
    assert r.status_code == 200, r.json
    return {w["name"]: w for w in r.json["items"]}


def test_workers_show_their_lane_heartbeat_holdings_and_recent_work(app):
    cheap, both, dead = "h1:101:aaaa", "h2:202:bbbb", "h3:303:cccc"
    beat(app, cheap, ["puzzles"])
    beat(app, both, ["puzzles", "puzzles.dear"])
    beat(app, dead, ["puzzles.dear"], seconds_ago=settings_of(app).recovery.worker_silent_seconds + 5)
    sent = app.extensions["publisher"]
    post(app, toys("1", "2", "3"))  # a chunk (store.chunks), solved by the cheap worker
    assert stored.run_stored(runtime(app), sent.stored.pop(), cheap).written == 3
    held_job = post(app, toys("4", "5", sleep=2.0))  # predicted dear: a row each
    chunk_job = post(app, toys("6", "7"))
    a, b = ids_of(app, held_job)
    with app.extensions["sessions"]() as s, s.begin():
        puzzle_rows.claim(s, [a, b], both, now() + timedelta(minutes=5))
        assert chunk_task.claim(s, sent.stored.pop(), cheap, now() + timedelta(minutes=5)) is not None
    split_job, _p, parts = fan_out(app, toy_item("1234567", split=4))
    beat(app, "coordinator", ["puzzles.dear"])
    with app.extensions["sessions"]() as s, s.begin():
        assert claim_part(s, app, parts[0], dead) is not None

    seen = by_name(app)
    assert set(seen) >= {cheap, both, dead}
    w = seen[cheap]
    assert (w["host"], w["pid"], w["node"], w["celery_node"]) == ("h1", 101, "aaaa", None)
    assert (w["queues"], w["lane"]) == (["puzzles"], "cheap")
    assert w["alive"] and 0 <= w["heartbeat_age_seconds"] < 5
    assert w["done_last_minute"] == 3
    assert w["holding"] == [{"job_id": chunk_job, "puzzles": 2, "parts": 0}]
    assert seen[both]["lane"] == "both" and seen[both]["done_last_minute"] == 0
    assert seen[both]["holding"] == [{"job_id": held_job, "puzzles": 2, "parts": 0}]
    assert seen[dead]["lane"] == "dear" and not seen[dead]["alive"]
    assert seen[dead]["heartbeat_age_seconds"] > settings_of(app).recovery.worker_silent_seconds
    assert seen[dead]["holding"] == [{"job_id": split_job, "puzzles": 0, "parts": 1}]
    # The split puzzle itself is held by its parts, not by the worker that cut it up.
    assert seen["coordinator"]["holding"] == [] and seen["coordinator"]["pid"] is None

    # A cancelled job's parts are held by nobody at once, though the part's row stays running until
    # its worker, stopped by the flag, returns.
    assert app.test_client().post(f"/api/v1/jobs/{split_job}/cancel").status_code == 202
    assert by_name(app)[dead]["holding"] == []

    # Once the chunk's task has ended (``since`` past its claim), the chunk is nobody's.
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(WorkerBeat).where(WorkerBeat.name == cheap).values(since=now()))
    assert by_name(app)[cheap]["holding"] == []


def test_a_worker_named_by_its_celery_node_shows_that_name_and_its_host(app):
    beat(app, "worker-8000@h5.example:55:eeee", ["puzzles"])
    w = by_name(app)["worker-8000@h5.example:55:eeee"]
    assert (w["celery_node"], w["host"], w["pid"], w["node"]) == ("worker-8000@h5.example", "h5.example", 55,
                                                                  "eeee")


def test_a_worker_row_without_queues_yet_has_no_lane(app):
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "h9:9:dddd")  # a beat before the `celery worker` is set up (worker.app)
    w = by_name(app)["h9:9:dddd"]
    assert w["queues"] == [] and w["lane"] is None


def filesystem_publisher(app) -> CeleryPublisher:
    """A publisher to the app's own filesystem broker (the tests' apps record instead)."""
    config = settings_of(app)
    celery = Celery("fleet-test", set_as_current=False)
    celery.conf.update(broker.celery_config(config))
    return CeleryPublisher(celery, config.lanes, config.time)


def test_queues_count_the_filesystem_brokers_messages_per_lane(app):
    publisher = filesystem_publisher(app)
    publisher.publish([[1], [2], [3]])
    publisher.publish([[4]], dear=True)
    out = settings_of(app).connections.broker_dir + "/out"
    oldest = next(name for name in os.listdir(out) if name.endswith(".puzzles.msg"))
    past = time.time() - 30
    os.utime(os.path.join(out, oldest), (past, past))
    beat(app, "h1:1:eeee", ["puzzles"])
    beat(app, "h2:2:ffff", ["puzzles", "puzzles.dear"])
    beat(app, "h3:3:gggg", ["puzzles.dear"], seconds_ago=settings_of(app).recovery.worker_silent_seconds + 5)
    post(app, toys("1", "2"))

    r = app.test_client().get("/api/v1/queues")
    assert r.status_code == 200, r.json
    queues = {q["name"]: q for q in r.json["items"]}
    assert queues["puzzles"]["lane"] == "cheap" and queues["puzzles.dear"]["lane"] == "dear"
    assert queues["puzzles"]["depth"] == 3 and queues["puzzles.dear"]["depth"] == 1
    assert 29 <= queues["puzzles"]["oldest_age_seconds"] < 60
    assert queues["puzzles.dear"]["oldest_age_seconds"] < 29
    assert queues["puzzles"]["workers"] == 2 and queues["puzzles.dear"]["workers"] == 1  # the silent one not
    assert r.json["window_seconds"] == 60
    assert r.json["puzzles_in"] == 2 and r.json["puzzles_out"] == 0


def test_an_empty_queue_has_no_oldest_message(app):
    queues = app.test_client().get("/api/v1/queues").json["items"]
    assert [(q["depth"], q["oldest_age_seconds"]) for q in queues] == [(0, None), (0, None)]


def test_puzzles_out_counts_every_final_status_within_the_minute(app):
    beat(app, "h1:1:aaaa", ["puzzles"])
    job = post(app, toys("1", "2") + toys("3", sleep=2.0))  # a chunk of two and a row
    sent = app.extensions["publisher"]
    assert stored.run_stored(runtime(app), sent.stored.pop(), "h1:1:aaaa").written == 2
    assert app.test_client().post(f"/api/v1/jobs/{job}/cancel").status_code == 202
    body = app.test_client().get("/api/v1/queues").json
    assert (body["puzzles_in"], body["puzzles_out"]) == (3, 3)
    assert by_name(app)["h1:1:aaaa"]["done_last_minute"] == 2  # the cancelled one is not its


def test_an_unreachable_broker_is_a_503(make_app, toy, tmp_path):
    app = make_app(BROKER_DIR=str(tmp_path / "gone"))
    (tmp_path / "gone" / "out").rmdir()
    r = app.test_client().get("/api/v1/queues")
    assert r.status_code == 503 and r.mimetype == "application/problem+json"
    assert r.headers["Retry-After"] == "5"


def test_redis_lists_name_every_priority_level():
    assert depth.redis_lists("q", "|") == ["q", *(f"q|{n}" for n in range(1, 10))]


def test_failures_across_jobs_newest_first_by_kind_and_error_text(app):
    crashed = post(app, toys("3", crash=True))  # a job of one: a puzzle row, failed by its worker
    report = run_chunk_of(app, ids_of(app, crashed))
    assert report.written == 1
    in_chunk = post(app, toys("1", "2", "4"))  # a stored chunk, two of its entries failed
    with app.extensions["sessions"]() as s, s.begin():
        chunk_id = app.extensions["publisher"].stored.pop()
        held = chunk_task.claim(s, chunk_id, "w9", now() + timedelta(minutes=5))
        assert held is not None
        done = chunk_task.Written([FAILED, SOLVED, FAILED], [None, None, None],
                              {0: "made up: the first", 2: "made up: the third"}, 1.0)
        assert chunk_task.write(s, held, done)[0] == 3

    client = app.test_client()
    r = client.get("/api/v1/failures")
    assert r.status_code == 200, r.json
    got = [(f["job_id"], f["index"], f["kind"], f["error"]) for f in r.json["items"]]
    crash = "solver error: RuntimeError: toy solver crashed on purpose"
    assert sorted(got) == sorted([(crashed, 0, "toy", crash), (in_chunk, 0, "toy", "made up: the first"),
                                  (in_chunk, 2, "toy", "made up: the third")])
    assert got[0][0] == in_chunk  # written after the row: newer
    assert r.json["minutes"] == 60
    assert [f["index"] for f in client.get("/api/v1/failures?error=CRASHED").json["items"]] == [0]
    assert client.get("/api/v1/failures?kind=sudoku").json["items"] == []
    assert len(client.get("/api/v1/failures?limit=1").json["items"]) == 1
    for bad in ("minutes=0", "limit=0", "kind=", "colour=red"):
        refused = client.get(f"/api/v1/failures?{bad}")
        assert refused.status_code == 422 and refused.mimetype == "application/problem+json", bad


def test_failures_need_an_operator_token(guarded):
    client = guarded.test_client()
    assert client.get("/api/v1/failures").status_code == 401
    assert client.get("/api/v1/failures", headers=bearer(ALICE)).status_code == 403
    assert client.get("/api/v1/failures", headers=bearer(OPERATOR)).status_code == 200


def test_activity_counts_each_minutes_finished_and_failed_puzzles_and_their_latency(app):
    crashed = post(app, toys("3", crash=True))
    assert run_chunk_of(app, ids_of(app, crashed)).written == 1
    post(app, toys("1", "2", "4"))
    with app.extensions["sessions"]() as s, s.begin():
        chunk_id = app.extensions["publisher"].stored.pop()
        held = chunk_task.claim(s, chunk_id, "w9", now() + timedelta(minutes=5))
        assert held is not None
        done = chunk_task.Written([FAILED, SOLVED, NO_SOLUTION], [None, None, None], {0: "made up"}, 1.0)
        assert chunk_task.write(s, held, done)[0] == 3
    r = app.test_client().get("/api/v1/activity?minutes=5")
    assert r.status_code == 200, r.json
    minutes = r.json["items"]
    assert len(minutes) == 5
    starts = [m["start"] for m in minutes]
    assert starts == sorted(starts) and len(set(starts)) == 5
    assert sum(m["finished"] for m in minutes) == 4 and sum(m["failed"] for m in minutes) == 2
    for m in minutes:
        assert (m["latency_p50"] is None) == (m["finished"] == 0), m
        if m["finished"]:
            assert 0 <= m["latency_p50"] <= m["latency_p95"] < 60, m
    assert len(app.test_client().get("/api/v1/activity").json["items"]) == 60
    for bad in ("minutes=0", "minutes=many", "minutes=1441", "window=5"):
        refused = app.test_client().get(f"/api/v1/activity?{bad}")
        assert refused.status_code == 422 and refused.mimetype == "application/problem+json", bad
