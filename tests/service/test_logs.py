"""Logging (store.logs): one line per request with its id, ids on every line of a request or a
solve, text or JSON lines (issue 12, failure 16)."""

from __future__ import annotations

import json
import logging
import re

import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from store import jobs, logs
from store.models import Puzzle
from tests.service.conftest import runtime_of
from tests.service.test_api import submit
from worker import chunk
from worker.heartbeat import worker_name

ALICE = {"Authorization": "Bearer secret-a"}


def json_lines(err: str) -> list[dict]:
    return [json.loads(line) for line in err.splitlines()]


def test_text_lines_one_per_request_with_its_id(make_app, toy, capsys):
    client = make_app(API_TOKENS="alice:secret-a", LOG_FORMAT="text").test_client()
    r = submit(client, headers={**ALICE, "X-Request-ID": "req-42.a"})
    assert r.status_code == 202 and r.headers["X-Request-ID"] == "req-42.a"
    lines = [line for line in capsys.readouterr().err.splitlines() if "service.access" in line]
    assert len(lines) == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO service\.access "
                        r"\[request_id=req-42\.a client=alice\]: POST /api/v1/jobs -> 202 in \d+\.\d ms "
                        r"from 127\.0\.0\.1", lines[0]), lines[0]


def test_json_lines_carry_the_request_fields(make_app, toy, capsys):
    client = make_app(API_TOKENS="alice:secret-a", LOG_FORMAT="json").test_client()
    capsys.readouterr()
    assert client.get("/api/v1/jobs/nope", headers=ALICE).status_code == 404
    assert client.get("/api/v1/jobs").status_code == 401
    first, second = json_lines(capsys.readouterr().err)
    assert first["logger"] == "service.access" and first["level"] == "INFO"
    assert (first["method"], first["path"], first["status"], first["client"], first["remote"]) == (
        "GET", "/api/v1/jobs/nope", 404, "alice", "127.0.0.1")
    assert isinstance(first["duration_ms"], float) and first["time"].endswith("Z")
    assert re.fullmatch(r"[0-9a-f]{32}", first["request_id"])
    assert second["status"] == 401 and "client" not in second  # no valid token: no client
    assert second["request_id"] != first["request_id"]


def test_a_path_cannot_forge_a_line(make_app, toy, capsys):
    client = make_app().test_client()
    capsys.readouterr()
    assert client.get("/api/v1/jobs/x%0A2026-01-01 INFO forged").status_code == 404
    (line,) = capsys.readouterr().err.splitlines()
    assert "GET /api/v1/jobs/x%0A2026-01-01%20INFO%20forged -> 404" in line


@pytest.mark.parametrize("given", ["", "a b", "x" * 129, "id\u00e9", "id;rm"])
def test_an_unusable_request_id_is_replaced(make_app, toy, given):
    r = make_app().test_client().get("/api/v1/kinds", headers={"X-Request-ID": given})
    assert re.fullmatch(r"[0-9a-f]{32}", r.headers["X-Request-ID"])


def test_every_line_of_a_request_carries_its_id(make_app, toy, capsys, monkeypatch):
    def down(*_args, **_kwargs):
        raise OperationalError("select", {}, Exception("connection refused"))

    monkeypatch.setattr(jobs, "list_jobs", down)
    client = make_app(LOG_FORMAT="json").test_client()
    capsys.readouterr()
    assert client.get("/api/v1/jobs", headers={"X-Request-ID": "r-503"}).status_code == 503
    warning, access = json_lines(capsys.readouterr().err)
    assert warning["level"] == "WARNING" and "database unavailable" in warning["message"]
    assert warning["request_id"] == access["request_id"] == "r-503" and access["status"] == 503


def test_an_exception_is_one_json_line_with_its_traceback(make_app, capsys):
    make_app(LOG_FORMAT="json")
    capsys.readouterr()
    try:
        raise KeyError("lost")
    except KeyError:
        logging.getLogger("some.module").exception("it broke")
    (line,) = json_lines(capsys.readouterr().err)
    assert line["message"] == "it broke" and "KeyError: 'lost'" in line["exception"]


def test_a_worker_line_names_its_job_and_puzzle(make_app, toy, capsys):
    app = make_app(LOG_FORMAT="json")
    job = submit(app.test_client(), 1).json["id"]
    crash = [{"kind": "toy", "puzzle": "9", "options": {"crash": True}}]
    crashing = app.test_client().post("/api/v1/jobs", json={"puzzles": crash}).json["id"]
    with app.extensions["sessions"]() as s:
        ids = dict(s.execute(select(Puzzle.job_id, Puzzle.id)).all())
    capsys.readouterr()
    with logs.context(task="puzzle_queue.solve_chunk", task_id="t-1"):
        chunk.run_chunk(runtime_of(app), [ids[job], ids[crashing]], worker_name())
    (error,) = [line for line in json_lines(capsys.readouterr().err) if line["level"] == "ERROR"]
    assert "toy solver crashed" in error["exception"]
    assert (error["task_id"], error["job"], error["puzzle"]) == ("t-1", crashing, str(ids[crashing]))


def test_bind_sets_and_clears_a_tasks_ids():
    logs.bind(task="t", task_id="1")
    assert logs.current_ids() == {"task": "t", "task_id": "1"}
    with logs.context(job="j"):
        assert logs.current_ids() == {"task": "t", "task_id": "1", "job": "j"}
    logs.bind()
    assert logs.current_ids() == {}


@pytest.mark.parametrize(("setting", "message"), [
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT"), ({"LOG_LEVEL": "chatty"}, "LOG_LEVEL")])
def test_bad_settings_stop_the_service_at_start(make_app, setting, message):
    with pytest.raises(ValueError, match=message):
        make_app(**setting)
