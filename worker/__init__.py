"""The Celery app of the service: ``celery -A worker worker`` starts a worker.

Configuration is the service's (environment variables, see service/config.py).
Each worker process warms up the solvers once, so compiled kernels are loaded
before the first real task.
"""

from __future__ import annotations

from celery.signals import worker_init, worker_process_init

import solvers
from service import create_app

flask_app = create_app()
celery_app = flask_app.extensions["celery"]

from worker import tasks  # noqa: E402  registers the tasks on celery_app

__all__ = ["celery_app", "flask_app", "tasks"]


@worker_process_init.connect
def _warm_up(**_kwargs) -> None:
    # A forked child must not share the parent's database connections.
    flask_app.extensions["engine"].dispose(close=False)
    solvers.warm_up()


@worker_init.connect
def _warm_up_in_process_pools(sender=None, **_kwargs) -> None:
    # The solo and thread pools run tasks in this process, which gets no worker_process_init.
    if "prefork" not in str(getattr(sender, "pool_cls", "prefork")).lower():
        solvers.warm_up()
