"""The Celery app of the service: ``celery -A worker worker`` starts a worker.

Configuration is the service's (environment variables, see service/config.py).
The `celery worker` main process warms up the solvers once, before its pool forks, so
compiled kernels are loaded in every pool process from its first moment (a pool process that
replaces a killed one is ready in milliseconds, not after seconds of loading kernels with a
task already waiting for it), and each process that runs tasks starts its heartbeat
(worker.heartbeat), whose thread also takes its turn at running the reaper. A worker that
takes dear work runs at a lower CPU priority (service.publish: lanes).
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

from celery.signals import (
    celeryd_after_setup,
    setup_logging,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_shutdown,
)
from celery.utils.log import get_logger

import solvers
from service import create_app, logs
from service.db import relax_commits

log = get_logger(__name__)

flask_app = create_app()
celery_app = flask_app.extensions["celery"]
relax_commits(flask_app.extensions["engine"])

# Allocations between two collections of the youngest generation (Python's default: 700). A chunk
# keeps its puzzles' objects alive until its write (rows read, answers, their stats): at 700 a
# 1,000-puzzle chunk set off 8-13 young collections and about one of the middle generation, each
# walking the chunk's live objects and moving them on; at this many, none (counted with
# gc.callbacks; 0.6-1.2 ms less CPU of its 15, in process).
YOUNG_COLLECTION_AFTER = 50_000

from worker import heartbeat, reaper, tasks  # noqa: E402  registers the tasks on celery_app
from worker.heartbeat import Heartbeat, stop_here  # noqa: E402

__all__ = ["celery_app", "flask_app", "tasks"]


@celeryd_after_setup.connect
def _yield_to_cheap_work(instance: Any, **_kwargs: object) -> None:
    """A worker that takes dear work (its `-Q`, or the app's queues without one) runs at a lower CPU
    priority, ``DEAR_NICE``, from before its pool processes fork: cheap work beside it (a worker
    of the cheap lane, the API, the database on the same host) then runs at full speed at once,
    where it would otherwise share the cores with hour-long solves."""
    consuming = instance.app.amqp.queues.consume_from
    if flask_app.config["DEAR_QUEUE"] in consuming and flask_app.config["DEAR_NICE"] > 0:
        os.nice(flask_app.config["DEAR_NICE"])
        log.info("takes dear work: runs at nice %d", os.getpriority(os.PRIO_PROCESS, 0))


@setup_logging.connect
def _logging(loglevel: int | None = None, **_kwargs: object) -> None:
    # Connected, so celery leaves logging to service.logs: LOG_FORMAT holds for workers too.
    logs.configure(flask_app.config["LOG_LEVEL"] or loglevel or "INFO", flask_app.config["LOG_FORMAT"])


@task_prerun.connect
def _task_ids(task_id: str | None = None, task=None, **_kwargs: object) -> None:
    logs.bind(task=getattr(task, "name", "?"), task_id=task_id)
    heartbeat.tasks.started(task_id or "?")


@task_postrun.connect
def _task_done(task_id: str | None = None, **_kwargs: object) -> None:
    logs.bind()
    heartbeat.tasks.ended(task_id or "?")


@worker_process_init.connect
def _pool_process_start(**_kwargs) -> None:
    # A forked child must not share the parent's database connections.
    flask_app.extensions["engine"].dispose(close=False)
    # A pool process replacing a killed one vouches for its worker at once, so the reaper
    # leaves the dead one's task to Celery's redelivery instead of handing it on too.
    _start_heartbeat()


def collect_for_chunks() -> None:
    """Set this process's garbage collector for chunk work, once what it runs with is loaded: here
    and in every pool process forked from here (bench/chunk.py does the same). What start-up and
    warm-up loaded (modules, compiled kernels: millions of objects) leaves the collector's sight,
    which a full collection otherwise walks (a chunk of 1,000 puzzles set one off: 0.3-0.5 s,
    measured), and young collections wait for YOUNG_COLLECTION_AFTER allocations."""
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_AFTER, *gc.get_threshold()[1:])


@worker_init.connect
def _warm_up_before_forking(sender=None, **_kwargs) -> None:
    # Before the consumer starts: messages wait in the broker meanwhile, where the reaper sees them.
    _timed_warm_up()
    collect_for_chunks()
    # The thread pool runs tasks in this process, which gets no worker_process_init (solo does).
    if "prefork" not in str(getattr(sender, "pool_cls", "prefork")).lower():
        _start_heartbeat()


@worker_process_shutdown.connect
@worker_shutdown.connect
def _leave(**_kwargs: object) -> None:
    stop_here()


_beating_in: set[int] = set()  # the pids whose heartbeat has started (solo sends both signals)


def _start_heartbeat() -> None:
    if os.getpid() in _beating_in:
        return
    _beating_in.add(os.getpid())
    sessions, config = flask_app.extensions["sessions"], flask_app.config
    publisher = flask_app.extensions["publisher"]

    def reap(steady: bool) -> None:
        reaper.reap_if_due(sessions, config, publisher, trust_silence=steady)

    Heartbeat(sessions, config, reap).start()


def _timed_warm_up() -> None:
    start = time.perf_counter()
    solvers.warm_up()
    log.info("solvers warmed up in %.1f s", time.perf_counter() - start)
