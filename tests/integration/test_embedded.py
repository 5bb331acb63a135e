"""`make run`'s embedded mode: SQLite + the filesystem broker + a real worker, over real HTTP."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.services import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def call(url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_run_local_solves_a_batch_with_no_servers(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(PORT=str(port), DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite'}",
               BROKER_DIR=str(tmp_path / "broker"), PYTHONPATH=str(ROOT))
    log = tmp_path / "run.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.run_local", "--api-workers", "1",
                                 "--api", "tests.integration.toyworker:flask_app",
                                 "--celery", "tests.integration.toyworker"],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if call(f"{base}/readyz")[0] == 200 and "ready." in log.read_text():
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        assert f"running at http://127.0.0.1:{port}" in log.read_text()
        status, job = call(f"{base}/api/v1/jobs", {"puzzles": [{"kind": "toy", "puzzle": str(i)}
                                                                for i in range(1, 31)]})
        assert status == 202
        while job["status"] != "completed":
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
            job = call(f"{base}/api/v1/jobs/{job['id']}")[1]
        items = call(f"{base}/api/v1/jobs/{job['id']}/puzzles")[1]["items"]
        assert [p["result"]["sum"] for p in items] == [sum(map(int, str(i))) for i in range(1, 31)]
    finally:
        proc.send_signal(signal.SIGINT)  # what Ctrl-C does: both children stop
        assert proc.wait(timeout=60) == 0, log.read_text()[-3000:]
