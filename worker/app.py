"""The Celery app of the workers: ``celery -A worker.app worker`` starts a worker.

Settings come from the environment (store.settings). The `celery worker` main process starts,
before its pool forks, a warm-up process that compiles the solvers' kernels into numba's cache
(sharing the work with the processes warming up beside it, worker.warmup) and the build of what the
kinds read and this machine lacks (``python -m solvers provision``); its pool processes take work
at once, each preparing a kind's kernels before its first puzzle of that kind; and
each process that runs tasks starts its heartbeat (worker.heartbeat), whose thread also takes its
turn at the reaper. A worker that takes dear work runs at a lower CPU priority.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import Any

from celery import Celery
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
from store import broker, logs
from store.settings import Settings
from worker import draining, heartbeat, limits, reaper, warmup
from worker.heartbeat import Heartbeat, stop_here
from worker.runtime import Runtime, collect_for_chunks

log = get_logger(__name__)

settings = Settings.from_env()
app = Celery("puzzle-queue", include=["worker.tasks"])
app.conf.update(broker.celery_config(settings))
runtime = Runtime.connect(settings, app)


@celeryd_after_setup.connect
def _yield_to_cheap_work(instance: Any, **_kwargs: object) -> None:
    """A worker that takes dear work runs at nice DEAR_NICE from before its pool forks: cheap work
    beside it (a worker of the cheap lane, the API, the database on the same host) gets the cores
    first, where it would otherwise share them with hour-long solves."""
    consuming = instance.app.amqp.queues.consume_from
    lanes = settings.lanes
    if lanes.dear_queue in consuming and lanes.dear_nice > 0:
        os.nice(lanes.dear_nice)
        log.info("takes dear work: runs at nice %d", os.getpriority(os.PRIO_PROCESS, 0))


@celeryd_after_setup.connect
def _record_queues(instance: Any, **_kwargs: object) -> None:
    """The queues this worker takes tasks from, which its heartbeat rows show (the fleet view): set
    before the pool forks, so that its processes have them too."""
    heartbeat.consuming[:] = sorted(instance.app.amqp.queues.consume_from)


@celeryd_after_setup.connect
def _record_node_name(sender: str | None = None, instance: Any = None, **_kwargs: object) -> None:
    """This worker's Celery node name (``-n``, e.g. worker-8000@host), which heads its processes'
    names (worker.heartbeat), so the fleet view names them as Celery does; set before the pool forks.
    A worker whose pool runs tasks in this process (threads, solo) starts its heartbeat here, under
    that name: a row written earlier would keep the bare host name beside the named one."""
    if sender:
        heartbeat.celery_node = str(sender)
    if "prefork" not in str(getattr(instance, "pool_cls", "prefork")).lower():
        _start_heartbeat()


@setup_logging.connect
def _logging(loglevel: int | None = None, **_kwargs: object) -> None:
    # Connected, so celery leaves logging to store.logs: LOG_FORMAT holds for workers too.
    logs.configure(settings.logging.log_level or loglevel or "INFO", settings.logging.log_format)


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
    runtime.engine.dispose(close=False)
    # A soft time limit that raised inside numba's compiler would leave numba broken in this process.
    limits.soft_limit_outside_compiler()
    # A pool process replacing a killed one vouches for its worker at once, so the reaper
    # leaves the dead one's task to Celery's redelivery instead of handing it on too. The solo
    # pool sends this signal before the node name is known; its heartbeat starts with the name.
    if heartbeat.celery_node:
        _start_heartbeat()


@worker_init.connect
def _warm_up_before_forking(sender=None, **_kwargs) -> None:
    # Before the consumer starts: messages wait in the broker meanwhile, where the reaper sees them.
    # Celery sets up logging only after this signal: the warm-up's lines need it now.
    _logging(getattr(sender, "loglevel", None))
    broker.make_folders(settings)
    if sender is not None and not settings.lanes.solves(sender.app.amqp.queues.consume_from):
        # Callbacks only (CALLBACK_QUEUE): no solver runs here, so none is loaded or built.
        log.info("takes no solving lane: the solvers are not loaded")
        return
    if solvers.provision_missing():
        _provision_in_background()
    _timed_warm_up()
    collect_for_chunks()


@worker_process_shutdown.connect
@worker_shutdown.connect
def _leave(**_kwargs: object) -> None:
    stop_here()


@worker_shutdown.connect
def _stop_warming_up(**_kwargs: object) -> None:
    for process in _warming:
        if process.poll() is None:
            process.terminate()
            process.wait(10)


def _provision_in_background() -> None:
    # A process of its own: a thread here would still be building when the pool forks, and a fork
    # taken while it holds numba's compiler lock would leave the children with that lock held.
    build = subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "solvers", "provision"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
    threading.Thread(target=build.wait, name="provision", daemon=True).start()  # reaps it when done


_warming: list[subprocess.Popen[bytes]] = []  # this worker's warm-up process


def _timed_warm_up() -> None:
    # A process of its own, for the reason above; it logs its time here ("solvers warmed up in") and
    # ends with this one. Its output is this worker's. None when every kind is in the cache already.
    if not warmup.unprepared():
        log.info("solvers warmed up in 0.0 s, 0.0 CPU s (every kind's kernels are in the cache)")
        return
    process = subprocess.Popen([sys.executable, "-m", "worker.warmup"], stdin=subprocess.DEVNULL)
    _warming.append(process)
    threading.Thread(target=process.wait, name="warm-up", daemon=True).start()  # reaps it when done


_beating_in: set[int] = set()  # the pids whose heartbeat has started (solo sends both signals)


def _start_heartbeat() -> None:
    if os.getpid() in _beating_in:
        return
    _beating_in.add(os.getpid())

    def reap(steady: bool) -> None:
        reaper.reap_if_due(runtime, trust_silence=steady)

    consume = draining.consumer_control(app.control, lambda: heartbeat.celery_node,
                                        lambda: heartbeat.consuming)
    Heartbeat(runtime.sessions, settings.recovery, reap, consume=consume).start()
