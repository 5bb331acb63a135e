"""`puzzle-queue workers`, `queues` and `failures`: readable tables and --json, against the
embedded service's own workers, and against a service with tokens (an operator's token opens the
fleet view, a client's is refused and said so)."""

from __future__ import annotations

import json

import pytest

from client import Client, Forbidden, NotFound
from client.fleet import failures_table, queues_table, workers_table
from service import create_app
from store import workers
from store.models import Base
from store.settings import Settings
from tests.client.test_cli import cli
from tests.liveserver import serving


@pytest.mark.integration
def test_workers_and_queues_of_a_running_service(service_url):
    shown = cli(service_url, "workers", "--json")
    assert shown.returncode == 0, shown.stderr
    living = [w for w in json.loads(shown.stdout)["items"] if w["alive"]]
    # `make run`'s two workers: one takes both lanes, one only the cheap one.
    assert {"both", "cheap"} <= {w["lane"] for w in living}
    assert all(w["heartbeat_age_seconds"] < 15 and w["pid"] for w in living)

    table = cli(service_url, "workers")
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["WORKER", "LANE", "HEARTBEAT", "DONE/MIN", "HOLDS"]
    assert any(living[0]["name"] in row for row in rows)

    queues = cli(service_url, "queues", "--json")
    assert queues.returncode == 0, queues.stderr
    body = json.loads(queues.stdout)
    assert [(q["name"], q["lane"]) for q in body["items"]] == [("puzzles", "cheap"), ("puzzles.dear", "dear")]
    assert all(q["workers"] >= 1 for q in body["items"])
    table = cli(service_url, "queues").stdout.splitlines()
    assert table[0].split() == ["QUEUE", "LANE", "WAITING", "OLDEST", "WORKERS"]
    assert table[1].split()[:2] == ["puzzles", "cheap"] and table[2].split()[:2] == ["puzzles.dear", "dear"]
    assert table[-1].startswith("puzzles in the last 60s: ")


def operator_app(tmp_path):
    """An API on SQLite with a client's token (alice) and an operator's, its tables made."""
    app = create_app(Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'ops.db'}", REDIS_URL=None,
                                       BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="",
                                       API_TOKENS="alice:al1ce-token", ADMIN_TOKENS="0perator-token"))
    Base.metadata.create_all(app.extensions["engine"])
    return app


def test_an_operators_token_opens_the_fleet_view_and_a_clients_does_not(tmp_path):
    app = operator_app(tmp_path)
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "host-a:42:cafe", None, ["puzzles", "puzzles.dear"])
    with serving(app) as url:
        refused = cli(url, "--token", "al1ce-token", "workers")
        assert refused.returncode == 2
        assert "403 Forbidden" in refused.stderr and "operator token" in refused.stderr
        assert "al1ce-token" not in refused.stderr
        shown = cli(url, "--token", "0perator-token", "workers")
        assert shown.returncode == 0, shown.stderr
        row = shown.stdout.splitlines()[1].split()
        assert row[:2] == ["host-a:42:cafe", "both"] and row[-1] == "-"
        with Client(url, token="al1ce-token") as c, pytest.raises(Forbidden):
            c.queues()
    app.extensions["engine"].dispose()


def test_the_tables_say_what_each_worker_holds_and_when_it_went_silent():
    body = {"items": [
        {"name": "h:1:a", "lane": "cheap", "heartbeat_age_seconds": 0.42, "alive": True,
         "done_last_minute": 1200,
         "holding": [{"job_id": "j1", "puzzles": 3, "parts": 0}, {"job_id": "j2", "puzzles": 0, "parts": 1}]},
        {"name": "h:2:b", "lane": None, "heartbeat_age_seconds": 31.0, "alive": False, "done_last_minute": 0,
         "holding": []}]}
    lines = workers_table(body).splitlines()
    assert lines[1].split() == ["h:1:a", "cheap", "0.4s", "ago", "1,200",
                                "j1", "3", "puzzles;", "j2", "1", "part"]
    assert lines[2].split() == ["h:2:b", "?", "31.0s", "ago", "SILENT", "0", "-"]
    assert workers_table({"items": []}) == "no workers (no heartbeat rows)"
    queues = {"items": [{"name": "q", "lane": "cheap", "depth": 0, "oldest_age_seconds": None, "workers": 0}],
              "window_seconds": 60.0, "puzzles_in": 5, "puzzles_out": 1234}
    assert queues_table(queues).splitlines()[1:] == ["q      cheap  0        -       0",
                                                     "puzzles in the last 60s: 5 in, 1,234 out"]


@pytest.mark.integration
def test_failures_of_a_running_service_as_a_table_and_as_json(service_url):
    with Client(service_url) as c:
        job = c.wait(c.submit([{"kind": "toy", "puzzle": "8", "options": {"crash": True}}]), poll=0.5)
        assert c.failures(kind="toy", error="crashed")[0]["job_id"] == job["id"]
    shown = cli(service_url, "failures", "--json", "--kind", "toy")
    assert shown.returncode == 0, shown.stderr
    mine = [f for f in json.loads(shown.stdout) if f["job_id"] == job["id"]]
    assert [(f["index"], f["kind"]) for f in mine] == [(0, "toy")]
    table = cli(service_url, "failures", "--error", "toy solver crashed").stdout.splitlines()
    assert table[0].split() == ["FINISHED", "JOB", "INDEX", "KIND", "CLIENT", "ERROR"]
    assert any(job["id"] in line and "toy solver crashed on purpose" in line for line in table[1:])
    assert cli(service_url, "failures", "--minutes", "0").returncode == 2  # refused before any request


def test_the_failures_table_names_each_failure_and_says_when_there_is_none():
    items = [{"finished_at": "2026-01-01T10:00:00Z", "job_id": "j1", "index": 3, "kind": "toy", "owner": "",
              "error": "solver error: boom"}]
    lines = failures_table(items).splitlines()
    assert lines[1].split() == ["2026-01-01T10:00:00Z", "j1", "3", "toy", "-", "solver", "error:", "boom"]
    assert failures_table([]) == "no failed puzzles in that window"


def test_an_operator_drains_a_worker_by_its_node_name_and_undoes_it(tmp_path):
    app = operator_app(tmp_path)
    with app.extensions["sessions"]() as s, s.begin():
        for name in ("w-1@host-a:42:cafe", "w-1@host-a:43:cafe", "w-2@host-b:7:beef"):
            workers.beat(s, name, None, ["puzzles"])
    with serving(app) as url:
        shown = cli(url, "--token", "0perator-token", "drain", "w-1@host-a")
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.splitlines() == [
            "w-1@host-a: 2 processes finish what they hold and take nothing new",
            "  w-1@host-a:42:cafe", "  w-1@host-a:43:cafe"]
        table = cli(url, "--token", "0perator-token", "workers").stdout.splitlines()
        assert table[1].split()[:3] == ["w-1@host-a:42:cafe", "cheap", "DRAINING"]
        assert "DRAINING" not in table[3]
        missing = cli(url, "--token", "0perator-token", "drain", "w-9@nowhere")
        assert missing.returncode == 2 and "no worker is named 'w-9@nowhere'" in missing.stderr
        assert cli(url, "--token", "al1ce-token", "drain", "w-1@host-a").returncode == 2
        with Client(url, token="0perator-token") as c:
            both = ["w-1@host-a:42:cafe", "w-1@host-a:43:cafe"]
            assert c.undrain(both[1]) == {"name": both[1], "draining": False, "workers": both}
            assert not any(w["draining"] for w in c.workers()["items"])
            assert c.drain("w-2@host-b:7:beef")["workers"] == ["w-2@host-b:7:beef"]
            with pytest.raises(NotFound):
                c.drain("w-2@host-b:7")
        undone = cli(url, "--token", "0perator-token", "drain", "--undo", "--json", "w-2@host-b")
        assert json.loads(undone.stdout)["draining"] is False
    app.extensions["engine"].dispose()
