"""The streaming export (GET /jobs/{id}/results) and the long poll (GET /jobs/{id}?wait=), in process."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest
from sqlalchemy import update

from service import export
from store.models import FAILED, SOLVED, Job, Puzzle
from tests.service.conftest import run_published


def submit(client, puzzles, **kw):
    r = client.post("/api/v1/jobs", json={"puzzles": puzzles}, **kw)
    assert r.status_code == 202, r.json
    return r.json["id"]


def finish(app, index, status=SOLVED, result=None, stats=None, error=None, cpu_seconds=None):
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.index == index)
                  .values(status=status, result=result, stats=stats, error=error, cpu_seconds=cpu_seconds))
        s.execute(update(Job).values(pending=Job.pending - 1))


def test_jsonl_has_every_puzzle_in_batch_order_across_pages(client, app, monkeypatch):
    monkeypatch.setattr(export, "PAGE", 3)  # several pages of rows for ten puzzles
    # predicted dear: a row each, which ``finish`` writes as a worker would
    job = submit(client, [{"kind": "toy", "puzzle": str(i + 1), "options": {"sleep": 2.0}}
                          for i in range(10)])
    finish(app, 4, result={"sum": 5}, stats={"elapsed_ms": 0.5}, cpu_seconds=0.25)
    finish(app, 7, FAILED, error="toy solver crashed on purpose")
    r = client.get(f"/api/v1/jobs/{job}/results")
    assert r.status_code == 200 and r.mimetype == "application/jsonl"
    assert f'filename="{job}.jsonl"' in r.headers["Content-Disposition"]
    rows = [json.loads(line) for line in r.data.decode().splitlines()]
    assert [row["index"] for row in rows] == list(range(10))
    assert rows[4] == {"index": 4, "kind": "toy", "status": "solved", "result": {"sum": 5},
                       "stats": {"elapsed_ms": 0.5}, "error": None, "cpu_seconds": 0.25}
    assert rows[7]["status"] == "failed" and rows[7]["error"] == "toy solver crashed on purpose"
    assert rows[0] == {"index": 0, "kind": "toy", "status": "queued", "result": None, "stats": None,
                       "error": None, "cpu_seconds": None}


def test_the_entries_of_chunks_export_with_rows_in_batch_order_across_pages(client, app, monkeypatch):
    monkeypatch.setattr(export, "PAGE", 3)
    items = [{"kind": "toy", "puzzle": str(i + 1)} for i in range(4)]
    items += [{"kind": "toy", "puzzle": "5", "options": {"sleep": 2.0}}]  # a row between chunks
    items += [{"kind": "toy", "puzzle": str(i + 1)} for i in range(5, 9)]
    job = submit(client, items)
    assert len(app.extensions["publisher"].stored) == 2  # a chunk on either side of the row
    run_published(app)
    finish(app, 4, result={"sum": 5}, stats={"elapsed_ms": 0.5})
    lines = client.get(f"/api/v1/jobs/{job}/results").data.decode().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["index"] for r in records] == list(range(9))
    assert [r["status"] for r in records] == ["solved"] * 9
    assert [r["result"] for r in records] == [{"sum": i + 1} for i in range(9)]


def test_csv_has_the_answer_and_the_kinds_stats_columns(client, app):
    job = submit(client, [{"kind": "toy", "puzzle": "12"}, {"kind": "nqueens", "puzzle": {"n": 4}},
                          {"kind": "nqueens", "puzzle": {"n": 6}, "options": {"mode": "count"}}])
    finish(app, 0, result={"sum": 3}, stats={"elapsed_ms": 0.25})
    finish(app, 1, result={"queens": [1, 3, 0, 2]}, stats={"nodes": 0, "elapsed_ms": 1.5})
    finish(app, 2, result={"solutions": 4, "fundamental": 1}, stats={"nodes": 153, "elapsed_ms": 2})
    r = client.get(f"/api/v1/jobs/{job}/results?format=csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.data.decode())))
    header = r.data.decode().splitlines()[0].split(",")
    assert header[:5] == ["index", "kind", "status", "answer", "error"] and header[-1] == "cpu_seconds"
    assert {"elapsed_ms", "nodes", "checked_nodes", "seed"} <= set(header)
    assert "guesses" not in header  # only the stats of the kinds in the job
    assert [(r["index"], r["answer"], r["elapsed_ms"]) for r in rows] == [
        ("0", "3", "0.25"), ("1", "1 3 0 2", "1.5"), ("2", "4", "2")]
    assert rows[2]["nodes"] == "153" and rows[0]["nodes"] == ""


def test_export_follows_the_job_rules(make_app, toy):
    client = make_app(API_TOKENS="alice:secret-a,bob:secret-b").test_client()
    alice, bob = {"Authorization": "Bearer secret-a"}, {"Authorization": "Bearer secret-b"}
    job = submit(client, [{"kind": "toy", "puzzle": "1"}], headers=alice)
    assert client.get(f"/api/v1/jobs/{job}/results", headers=alice).status_code == 200
    assert client.get(f"/api/v1/jobs/{job}/results").status_code == 401
    missing = client.get(f"/api/v1/jobs/{job}/results?format=csv", headers=bob)
    assert missing.status_code == 404 and missing.mimetype == "application/problem+json"
    bad = client.get(f"/api/v1/jobs/{job}/results?format=xml", headers=alice)
    assert bad.status_code == 422 and bad.json["errors"][0]["field"] == "format"
    assert "stored" not in bad.json["detail"]  # a GET stores nothing anyway


def test_wait_returns_at_once_for_a_final_job(client):
    job = submit(client, [{"kind": "toy", "puzzle": "1"}])
    client.post(f"/api/v1/jobs/{job}/cancel")
    start = time.monotonic()
    r = client.get(f"/api/v1/jobs/{job}?wait=30")
    assert r.status_code == 200 and r.json["status"] == "cancelled"
    assert time.monotonic() - start < 5


def test_wait_ends_after_the_wait_for_an_unfinished_job(client):
    job = submit(client, [{"kind": "toy", "puzzle": "1"}])
    start = time.monotonic()
    r = client.get(f"/api/v1/jobs/{job}?wait=0.6")
    assert r.status_code == 200 and r.json["status"] == "queued"
    assert time.monotonic() - start >= 0.6


def test_wait_is_capped_and_checked(client):
    job = submit(client, [{"kind": "toy", "puzzle": "1"}])
    for bad in ("61", "-1", "soon"):
        r = client.get(f"/api/v1/jobs/{job}?wait={bad}")
        assert r.status_code == 422 and r.json["errors"][0]["field"] == "wait", bad
    assert client.get("/api/v1/jobs/nope?wait=5").status_code == 404


def test_wait_sees_the_job_finish_meanwhile(app):
    from service.schemas import Counts, JobOut
    from service.waiting import wait_for_job
    seen = []

    def describe() -> JobOut:
        seen.append(1)
        status = "completed" if len(seen) == 3 else "running"
        return JobOut(id="j", status=status, label=None, created_at="t", started_at=None, finished_at=None,
                      total=1, counts=Counts(), progress=0.0)

    naps: list[float] = []
    assert wait_for_job(describe, 60, sleep=naps.append).status == "completed"
    assert len(seen) == 3 and len(naps) == 2 and sum(naps) < 1


def test_wait_looks_at_the_status_alone_and_describes_the_job_once_final(app):
    from service.schemas import Counts, JobOut
    from service.waiting import wait_for_job
    described, looked = [], []

    def describe() -> JobOut:
        described.append(1)
        status = "completed" if len(looked) >= 5 else "running"
        return JobOut(id="j", status=status, label=None, created_at="t", started_at=None, finished_at=None,
                      total=1, counts=Counts(), progress=0.0)

    def status() -> str:
        looked.append(1)
        return "completed" if len(looked) >= 5 else "running"

    naps: list[float] = []
    assert wait_for_job(describe, 60, sleep=naps.append, status=status).status == "completed"
    assert len(described) == 2 and len(looked) == 5 and len(naps) == 5
    assert naps[0] <= 0.01 and sum(naps) < 0.05  # the first looks come within milliseconds


def test_a_notice_describes_the_job_at_once_and_the_looks_follow_the_schedule_given(app):
    from service.schemas import Counts, JobOut
    from service.waiting import NOTIFIED_SECONDS, wait_for_job
    described, looked, naps = [], [], []

    def describe() -> JobOut:
        described.append(1)
        status = "completed" if len(naps) >= 3 else "running"
        return JobOut(id="j", status=status, label=None, created_at="t", started_at=None, finished_at=None,
                      total=1, counts=Counts(), progress=0.0)

    def wake(seconds: float) -> bool:  # the third nap ends with the job's notice
        naps.append(seconds)
        return len(naps) == 3

    def status() -> str:
        looked.append(1)
        return "running"

    job = wait_for_job(describe, 60, sleep=wake, status=status, schedule=NOTIFIED_SECONDS)
    assert job.status == "completed"
    assert naps == list(NOTIFIED_SECONDS[:3])
    assert len(looked) == 2 and len(described) == 2  # no look after the notice: described at once


def test_wait_for_a_job_deleted_meanwhile_describes_it(app):
    from service.schemas import Counts, JobOut
    from service.waiting import wait_for_job
    calls = []

    def describe() -> JobOut:
        calls.append(1)
        if len(calls) > 1:
            raise LookupError("gone")  # the view's 404
        return JobOut(id="j", status="queued", label=None, created_at="t", started_at=None, finished_at=None,
                      total=1, counts=Counts(), progress=0.0)

    with pytest.raises(LookupError):
        wait_for_job(describe, 60, sleep=lambda _: None, status=lambda: None)
