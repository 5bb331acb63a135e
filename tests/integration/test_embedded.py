"""`make run`'s embedded mode: SQLite + the filesystem broker + a real worker, over real HTTP."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.embedded import embedded_service
from tests.support.devstack import Local

pytestmark = pytest.mark.integration


def call(url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


KORF_1 = {"kind": "sliding", "puzzle": "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3",  # 57 moves at the fewest
          "options": {"goal": " ".join(map(str, range(16)))}}


def test_run_local_solves_a_batch_with_no_servers(tmp_path):
    cache = tmp_path / "cache"  # a machine without the 15-puzzle's pattern database
    with embedded_service(tmp_path, PUZZLE_CACHE_DIR=str(cache)) as service:
        base, log = service.url, service.log
        assert f"running at {base}" in log.read_text()
        status, job = call(f"{base}/api/v1/jobs", {"puzzles": [{"kind": "toy", "puzzle": str(i)}
                                                                for i in range(1, 31)]})
        assert status == 202
        deadline = time.monotonic() + 120
        while job["status"] != "completed":
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
            job = call(f"{base}/api/v1/jobs/{job['id']}")[1]
        items = call(f"{base}/api/v1/jobs/{job['id']}/puzzles")[1]["items"]
        assert [p["result"]["sum"] for p in items] == [sum(map(int, str(i))) for i in range(1, 31)]
        # The banner says when the workers take work; a line follows once all their processes beat.
        assert "take work within seconds" in log.read_text()
        # A process per core for both lanes, the cheap worker's and the callbacks worker's.
        while f"workers ready: {len(os.sched_getaffinity(0)) + 2} processes" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
        # The workers' first start builds the database in the background; then auto is optimal.
        while not (cache / "sliding_pdb_663.npz").exists():
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.5)
        status, job = call(f"{base}/api/v1/jobs", {"puzzles": [KORF_1]})
        assert status == 202
        while job["status"] != "completed":
            assert time.monotonic() < deadline + 60, log.read_text()[-3000:]
            time.sleep(0.2)
            job = call(f"{base}/api/v1/jobs/{job['id']}")[1]
        [korf] = call(f"{base}/api/v1/jobs/{job['id']}/puzzles")[1]["items"]
        assert korf["result"]["length"] == 57 and korf["result"]["optimal"], korf
        assert korf["stats"]["heuristic"] == "pdb", korf
    # Stopped with SIGINT, what Ctrl-C does: every child stops, and it exits cleanly.
    assert service.proc.returncode == 0, log.read_text()[-3000:]


def solved_sum(base: str, puzzle: str) -> int:
    """Post one toy puzzle, wait for its job (the long poll) and return its answer."""
    status, job = call(f"{base}/api/v1/jobs", {"puzzles": [{"kind": "toy", "puzzle": puzzle}]})
    assert status == 202, job
    status, job = call(f"{base}/api/v1/jobs/{job['id']}?wait=30")
    assert job["status"] == "completed", job
    return call(f"{base}/api/v1/jobs/{job['id']}/puzzles")[1]["items"][0]["result"]["sum"]


def run_files(var: Path, expected: set[str], patience: float = 180.0) -> set[str]:
    """The names in ``var``/run once ``expected`` are all there (or ``patience`` ran out). A
    worker writes its pid file once it has started, which on a loaded machine may come after both
    instances answered."""
    deadline = time.monotonic() + patience
    while not expected <= (names := {path.name for path in (var / "run").iterdir()}):
        if time.monotonic() > deadline:
            break
        time.sleep(0.5)
    return names


def test_two_instances_of_one_user_run_and_stop_apart(tmp_path):
    """Two `make run`s by one user (one home, one runtime folder) on two ports: each keeps its
    control socket and pid files under its own var/, and stopping one leaves the other answering."""
    home = tmp_path / "home"
    (home / "runtime").mkdir(parents=True)
    user = {"HOME": str(home), "XDG_RUNTIME_DIR": str(home / "runtime")}
    first_var, second_var = tmp_path / "first", tmp_path / "second"
    first_var.mkdir()
    second_var.mkdir()
    files = {"gunicorn.ctl", "gunicorn.pid", "worker.pid", "cheap.pid", "callbacks.pid"}
    with embedded_service(second_var, **user) as second:
        with embedded_service(first_var, **user) as first:
            assert first.url != second.url
            assert solved_sum(first.url, "12") == 3 and solved_sum(second.url, "45") == 9
            for var in (first_var, second_var):
                assert run_files(var, files) == files, var
            assert not [path for path in home.rglob("*") if path.name.startswith("gunicorn")]
        assert first.proc.returncode == 0, first.log.read_text()[-3000:]
        assert not (first_var / "run" / "gunicorn.ctl").exists()
        assert (second_var / "run" / "gunicorn.ctl").is_socket()
        assert solved_sum(second.url, "678") == 21


@pytest.fixture(scope="module")
def defaults(tmp_path_factory) -> Iterator[tuple[Local, Path]]:
    """One embedded service at its defaults (a process per core for both lanes, the default rate
    limits) for the tests below, which neither change it nor read each other's jobs; its database."""
    folder = tmp_path_factory.mktemp("embedded")
    with embedded_service(folder, WORKER_CONCURRENCY="") as service:
        yield service, folder / "db.sqlite"


def test_a_split_puzzles_parts_run_in_every_process_of_both_lanes(defaults):
    """By default the worker of both lanes runs a process per core: the parts of a split puzzle are
    solved side by side, by more than one process, while the cheap worker keeps its own."""
    service, database = defaults
    status, job = call(f"{service.url}/api/v1/jobs", {"puzzles": [
        {"kind": "toy", "puzzle": "12345678", "options": {"split": 8, "sleep": 0.5}}]})
    assert status == 202
    deadline = time.monotonic() + 120
    while job["status"] != "completed":
        assert time.monotonic() < deadline, service.log.read_text()[-3000:]
        time.sleep(0.2)
        job = call(f"{service.url}/api/v1/jobs/{job['id']}")[1]
    [puzzle] = call(f"{service.url}/api/v1/jobs/{job['id']}/puzzles")[1]["items"]
    assert puzzle["status"] == "solved" and puzzle["result"]["sum"] == 36, puzzle
    with sqlite3.connect(database) as db:
        workers = {name for (name,) in db.execute(
            "SELECT subtasks.worker FROM subtasks JOIN puzzles ON puzzles.id = subtasks.puzzle_id "
            "WHERE puzzles.job_id = ?", (job["id"],))}
    assert len(workers) == min(len(os.sched_getaffinity(0)), 8), workers


def test_a_loop_that_posts_each_job_and_waits_for_it_never_sees_a_429(defaults):
    """The README's loop at the default limits: a job, its long poll, a read of its results, 250
    times over (750 requests in well under a minute)."""
    service, _database = defaults
    codes = []
    for i in range(1, 251):
        status, job = call(f"{service.url}/api/v1/jobs", {"puzzles": [{"kind": "toy", "puzzle": str(i)}]})
        codes.append(status)
        status, job = call(f"{service.url}/api/v1/jobs/{job['id']}?wait=30")
        codes.append(status)
        assert job["status"] == "completed", job
        status, page = call(f"{service.url}/api/v1/jobs/{job['id']}/puzzles")
        codes.append(status)
        assert page["items"][0]["result"]["sum"] == sum(map(int, str(i)))
    assert codes.count(429) == 0 and set(codes) == {200, 202}, sorted(set(codes))
