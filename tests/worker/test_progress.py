"""A long search's share done goes to its puzzle's row while it runs (worker.limits' watcher), and
from there into the job's progress and eta."""

from __future__ import annotations

import threading
import time

from sqlalchemy import select

from store.models import Puzzle
from tests.service.conftest import RecordingPublisher, runtime_of
from worker import chunk


def test_a_running_count_records_the_share_of_its_search_done(make_app):
    # An n=16 tree count takes seconds: estimated dear, so claimed and watched.
    app = make_app(SPLIT_QUEENS_N=99, STOP_POLL_SECONDS=0.05, PUZZLE_TIME_LIMIT=300.0)
    client = app.test_client()
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "nqueens", "puzzle": 16,
                                                        "options": {"mode": "count", "strategy": "tree"}}]})
    assert r.status_code == 202, r.json
    job_id = r.json["id"]
    with app.extensions["sessions"]() as s:
        (puzzle_id,) = s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id))
    seen, shown, running = [], [], threading.Event()

    def watch_the_row():
        while not running.is_set():
            with app.extensions["sessions"]() as s:
                row = s.execute(select(Puzzle.status, Puzzle.progress).where(Puzzle.id == puzzle_id)).one()
            if row.status == "running" and row.progress is not None:
                seen.append(row.progress)
                shown.append(client.get(f"/api/v1/jobs/{job_id}").json)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch_the_row)
    watcher.start()
    try:
        assert chunk.run_chunk(runtime_of(app, RecordingPublisher()), [puzzle_id], "w1").written == 1
    finally:
        running.set()
        watcher.join()
    assert seen and all(0.0 < share < 1.0 for share in seen)
    assert seen == sorted(seen)
    during = [job for job in shown if job["status"] == "running"]  # not read after the end
    assert during and all(0.0 < job["progress"] < 1.0 and job["estimated_seconds_done"] > 0 for job in during)
    page = client.get(f"/api/v1/jobs/{job_id}/puzzles").json["items"]
    assert page[0]["status"] == "solved" and page[0]["result"]["solutions"] == 14_772_512
    assert page[0]["progress"] is None  # shown only while it runs
