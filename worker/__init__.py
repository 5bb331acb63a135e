"""The Celery app of the service: ``celery -A worker worker`` starts a worker.

Configuration is the service's (environment variables, see service/config.py).
Each worker process warms up the solvers once, so compiled kernels are loaded
before the first real task.
"""

from __future__ import annotations

import time

from celery.signals import worker_init, worker_process_init
from celery.utils.log import get_logger

import solvers
from service import create_app
from service.db import relax_commits

log = get_logger(__name__)

flask_app = create_app()
celery_app = flask_app.extensions["celery"]
relax_commits(flask_app.extensions["engine"])

from worker import tasks  # noqa: E402  registers the tasks on celery_app

__all__ = ["celery_app", "flask_app", "tasks"]


@worker_process_init.connect
def _warm_up(**_kwargs) -> None:
    # A forked child must not share the parent's database connections.
    flask_app.extensions["engine"].dispose(close=False)
    _timed_warm_up()


@worker_init.connect
def _warm_up_in_process_pools(sender=None, **_kwargs) -> None:
    # The solo and thread pools run tasks in this process, which gets no worker_process_init.
    if "prefork" not in str(getattr(sender, "pool_cls", "prefork")).lower():
        _timed_warm_up()


def _timed_warm_up() -> None:
    start = time.perf_counter()
    solvers.warm_up()
    log.info("solvers warmed up in %.1f s", time.perf_counter() - start)
