"""The HTTP service: a Flask app that stores batches in SQL and hands them to Celery workers."""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery, Task
from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from kombu.entity import Exchange, Queue
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

from service import auth, logs, ratelimit
from service import config as settings
from service.db import make_engine, make_sessionmaker
from service.problems import Problem, from_http_exception
from service.publish import REAP, CeleryPublisher

log = logging.getLogger(__name__)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(settings.from_env())
    if test_config:
        app.config.from_mapping(test_config)
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False

    logs.init_app(app)  # first: its request id is on the lines that the other hooks log
    auth.init_app(app)
    ratelimit.init_app(app)
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["engine"] = engine
    app.extensions["sessions"] = make_sessionmaker(engine)
    celery_init_app(app)
    app.extensions.setdefault("publisher", CeleryPublisher(app.extensions["celery"], app.config))

    # blueprints import the app's helpers above; checking and export add routes to the api blueprint
    from service import api, checking, export, ops, web  # noqa: F401

    app.register_blueprint(ops.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(web.bp)
    api.spec.register(app)
    _error_handlers(app)
    return app


def _error_handlers(app: Flask) -> None:
    @app.errorhandler(Problem)
    def _problem(exc: Problem):
        return exc.response()

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        if exc.code == 413:
            limit = app.config["MAX_BODY_BYTES"]
            return Problem(413, "Content Too Large", f"the body is larger than {limit} bytes").response()
        return from_http_exception(exc).response()

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        if isinstance(exc, OperationalError):
            log.warning("database unavailable during %s %s: %s", request.method, request.path, exc)
            return Problem(503, "Service Unavailable", "the database is not reachable; try again",
                           headers={"Retry-After": str(app.config["RETRY_AFTER_SECONDS"] * 5)}).response()
        log.exception("unhandled error in %s %s", request.method, request.path)
        return Problem(500, "Internal Server Error", "an unexpected error; it has been logged").response()


def celery_init_app(app: Flask) -> Celery:
    """Flask's pattern: one Celery app per Flask app, tasks run inside the app context."""

    class FlaskTask(Task):
        def __call__(self, *args: object, **kwargs: object) -> object:
            with app.app_context():
                return self.run(*args, **kwargs)

    cfg = app.config
    celery_app = Celery(app.name, task_cls=FlaskTask)
    celery_app.conf.update(
        **settings.broker_settings(cfg),
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # A pool process warms up the compiled solvers before it reports up; on a busy machine
        # that takes longer than celery's 4 s default, which then kills and restarts it in a loop.
        worker_proc_alive_timeout=60,
        task_default_queue=cfg["TASK_QUEUE"],
        # Both lanes (service.publish), as `-Q` would make them: a worker started without `-Q` takes
        # both; `-Q <TASK_QUEUE>` keeps a worker for cheap work.
        task_queues=[Queue(name, Exchange(name), name) for name in (cfg["TASK_QUEUE"], cfg["DEAR_QUEUE"])],
        broker_connection_retry_on_startup=True,
        # The API answers quickly when the broker is down; the reaper publishes later.
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2},
        broker_connection_timeout=2,
        worker_hijack_root_logger=False,
        # The workers' heartbeat threads take turns at the reaper every REAP_INTERVAL; beat (the
        # compose file's scheduler, `make run`'s -B) is only a backstop, and rarely, so that its
        # messages neither pile up behind work nor hide an empty queue from the reaper.
        beat_schedule={"reap": {"task": REAP, "schedule": max(60.0, cfg["REAP_INTERVAL"]),
                                "options": {"queue": cfg["TASK_QUEUE"]}}},
    )
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    return celery_app
