"""worker.warmstatus: the kinds the warm-up processes of a host have still to prepare, read from
their status files by each worker process's heartbeat and written to its row, which /readyz and the
fleet view read (store.workers.preparing)."""

from __future__ import annotations

from datetime import timedelta

import solvers
from store import workers
from store.bookkeeping import WorkerBeat
from store.models import now
from tests.service.conftest import settings_of
from worker import heartbeat, warmstatus


def test_each_beat_writes_the_kinds_still_being_prepared_on_its_host(make_app, tmp_path, monkeypatch):
    app = make_app()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    hb = heartbeat.Heartbeat(app.extensions["sessions"], settings_of(app).recovery, lambda _steady: None)
    units = {u.name: u for u in solvers.warm_up_units()}
    with warmstatus.status_file(tmp_path) as say:  # a warm-up process with two kinds left
        say([units["spokes"], units["sliding"]])
        hb.tick()
        with app.extensions["sessions"]() as s:
            assert s.get(WorkerBeat, heartbeat.worker_name()).preparing == "sliding,spokes"
            assert workers.preparing(s, now() - timedelta(seconds=15)) == ["sliding", "spokes"]
    hb.tick()  # the warm-up ended: nothing left
    with app.extensions["sessions"]() as s:
        assert s.get(WorkerBeat, heartbeat.worker_name()).preparing is None
