"""`make run`: migrate, then run the API and three workers side by side until Ctrl-C: one for
both lanes (WORKER_CONCURRENCY processes, one per core by default), one kept for cheap work (see
store.publish) and one that delivers callbacks and solves nothing (CALLBACK_QUEUE).

With no DATABASE_URL / REDIS_URL it is self-contained: a SQLite file and Celery's
filesystem broker under var/. With them set, the same command uses those servers.
The first worker also runs the beat schedule (-B) so the reaper runs; a deployment with
several workers runs one `celery -A worker.app beat` instead.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from sqlalchemy import Engine, select

from client.api import DEFAULT_URL
from store.bookkeeping import WorkerBeat
from store.broker import CALLBACK_WORKER, WORKER_FLAGS
from store.db import make_engine, migrate
from store.models import aware, now
from store.settings import ROOT, VAR, Settings
from worker import warmstatus, warmup


def client_line(port: int, host: str) -> str:
    """The command that sends the example Sudokus here: with ``--url`` unless this is the address
    the client goes to by default (a wildcard host is reached on the loopback address)."""
    near = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    url = f"http://[{near}]:{port}" if ":" in near else f"http://{near}:{port}"
    where = "" if url == DEFAULT_URL else f" --url {url}"
    return f".venv/bin/puzzle-queue{where} submit --kind sudoku --wait examples/sudoku.txt"


def banner(port: int, host: str, tokens: bool = False) -> str:
    """What the service prints at its start: where it is and how to reach it; with ``tokens``
    (API_TOKENS set) every command carries a client's token from $PUZZLE_QUEUE_TOKEN."""
    url = f"http://{host}:{port}"
    sample = ('{"puzzles": [{"kind": "sudoku", "puzzle": '
              '"53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"}]}')
    auth = ' -H "Authorization: Bearer $PUZZLE_QUEUE_TOKEN"' if tokens else ""
    token_line = ("  tokens:    API_TOKENS is set: export PUZZLE_QUEUE_TOKEN=<a client's token> for the\n"
                  "             commands below (the web page asks for one)\n") if tokens else ""
    return (f"\npuzzle-queue is running at {url}  (Ctrl-C stops it)\n"
            f"  web page:  {url}/\n"
            f"{token_line}"
            f"  client:    {client_line(port, host)}\n"
            f"  API docs:  {url}/api/v1/docs/swagger/\n"
            f"  submit:    curl -s -X POST {url}/api/v1/jobs -H 'Content-Type: application/json'{auth} \\\n"
            f"               -d '{sample}'\n"
            f"  results:   curl -s{auth} {url}/api/v1/jobs/<id>/puzzles\n"
            f"  workers:   take work within seconds; a first start on this machine also compiles the\n"
            f"             solvers' kernels (about a minute), the kinds a first job needs first: its\n"
            f"             puzzles of a kind not ready yet wait for that kind. Lines say what is still\n"
            f"             being prepared, and when every kind is.\n")


def instance_dir(settings: Settings) -> Path:
    """This instance's var/: the folder holding its broker's folder (var/ itself unless BROKER_DIR
    moves it, as the tests do). Its beat schedule, control socket and pid files go there, never
    under the home folder, so that two instances on one host never share one."""
    return Path(settings.connections.broker_dir).parent


def beating_since(engine: Engine, since: datetime) -> int:
    """Worker processes whose heartbeat row (worker.heartbeat) was made at or after ``since``: a
    pool process makes it once its worker has forked it, ready to take work."""
    with engine.connect() as conn:
        started = conn.scalars(select(WorkerBeat.started_at)).all()
    return sum(1 for t in started if aware(t) >= since)


def announce_ready(engine: Engine, since: datetime, processes: int) -> bool:
    """Print, once all ``processes`` beat, that the workers are ready; whether they are."""
    try:
        beating = beating_since(engine, since)
    except Exception:  # SQLite busy, or the like: the next look tries again
        return False
    if beating < processes:
        return False
    print(f"\nworkers ready: {beating} processes, {(now() - since).total_seconds():.0f} s after the start\n",
          flush=True)
    return True


def announce_prepared(since: datetime) -> bool:
    """Print, once every kind's kernels are in numba's cache (worker.warmup), that they are; whether
    they are."""
    if warmup.unprepared():
        return False
    seconds = (now() - since).total_seconds()
    print(f"workers: every kind prepared, {seconds:.0f} s after the start", flush=True)
    return True


def worker_concurrency(env: dict[str, str]) -> int:
    """The processes of the worker of both lanes: WORKER_CONCURRENCY, else one per core this process
    may use, so that a split puzzle's parts run on every core. The cheap worker keeps a process of its
    own besides, and the dear work runs at a lower CPU priority (DEAR_NICE), so cheap jobs still get
    the cores first."""
    given = env.get("WORKER_CONCURRENCY", "")
    return int(given) if given.isdigit() and int(given) > 0 else len(os.sched_getaffinity(0))


def announce_preparing(shown: list[str]) -> list[str]:
    """Print the kinds the warm-up has still to prepare when they changed since ``shown``; them."""
    left = warmstatus.preparing()
    if left and left != shown:
        print(f"workers: preparing {', '.join(left)}", flush=True)
    return left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", default="service:create_app()", help="gunicorn app spec")
    parser.add_argument("--celery", default="worker.app", help="celery -A module")
    parser.add_argument("--api-workers", type=int, default=2)
    args = parser.parse_args(argv)

    settings = Settings.from_env()
    database_url, lanes = settings.connections.database_url, settings.lanes
    port, host = int(os.environ.get("PORT", "8000")), os.environ.get("HOST", "127.0.0.1")
    VAR.mkdir(exist_ok=True)
    migrate(database_url)
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    bin_dir = Path(sys.executable).parent
    var = instance_dir(settings)
    run = var / "run"
    run.mkdir(parents=True, exist_ok=True)
    # Threads: a client waiting on GET /jobs/{id}?wait= or downloading an export holds one.
    # gunicorn's control socket defaults to one per user (~/.gunicorn/gunicorn.ctl): one per instance here.
    api = subprocess.Popen([str(bin_dir / "gunicorn"), "--bind", f"{host}:{port}", "--workers",
                            str(args.api_workers), "--threads", "8", "--control-socket",
                            str(run / "gunicorn.ctl"), "--pid", str(run / "gunicorn.pid"), args.api],
                           cwd=ROOT, env=env)
    base = [sys.executable, "-m", "celery", "-A", args.celery, "worker", *WORKER_FLAGS, "--loglevel", "INFO"]
    celery = [*base, "--pool", "prefork"]
    # Node names by port: several embedded services on one host (the tests run some) keep apart.

    concurrency = worker_concurrency(dict(os.environ))
    launched = now()
    worker = subprocess.Popen([*celery, "-B", "--schedule", str(var / "celerybeat-schedule"),
                               "-Q", ",".join(lanes.queues), "-n", f"worker-{port}@%h",
                               "--pidfile", str(run / "worker.pid"), "--concurrency", str(concurrency)],
                              cwd=ROOT, env=env)
    # Capacity kept for cheap work: a small job is answered while the worker above runs a big one.
    cheap = subprocess.Popen([*celery, "--concurrency", "1", "-Q", lanes.task_queue,
                              "-n", f"cheap-{port}@%h", "--pidfile", str(run / "cheap.pid")],
                             cwd=ROOT, env=env)
    # Callbacks: a slow receiver holds one of its threads, never a solving slot.
    callbacks = subprocess.Popen([*base, *CALLBACK_WORKER, "-Q", lanes.callback_queue,
                                  "-n", f"callbacks-{port}@%h", "--pidfile", str(run / "callbacks.pid")],
                                 cwd=ROOT, env=env)
    children = [api, worker, cheap, callbacks]
    print(banner(port, host, tokens=bool(settings.access.api_tokens)), flush=True)

    stopping = False

    def stop(signum, _frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    engine = make_engine(database_url)
    # Every pool process of the first worker, the cheap worker's one and the callbacks worker.
    processes = concurrency + 2
    ready, prepared, looked = False, False, 0.0
    left: list[str] = []
    while not stopping and all(c.poll() is None for c in children):
        if not prepared and time.monotonic() - looked >= 1.0:
            left = announce_preparing(left)
            ready = ready or announce_ready(engine, launched, processes)
            prepared, looked = ready and announce_prepared(launched), time.monotonic()
        time.sleep(0.2)
    engine.dispose()
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in children:
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    failed = [c for c in children if c.returncode not in (0, -signal.SIGTERM)]
    return 1 if failed and not stopping else 0


if __name__ == "__main__":
    sys.exit(main())
