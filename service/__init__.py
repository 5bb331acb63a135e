"""The HTTP surface: a Flask app that checks batches, stores them (store) and publishes their tasks."""

from __future__ import annotations

import logging

from celery import Celery
from flask import Flask, current_app, request
from flask.json.provider import DefaultJSONProvider
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

import solvers
from service import access_log, auth, headers, ratelimit
from service.problems import Problem, from_http_exception
from store import broker
from store.db import make_engine, make_sessionmaker
from store.publish import CeleryPublisher
from store.settings import Settings

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> Flask:
    """The API, with ``settings`` (default: read from the environment)."""
    settings = Settings.from_env() if settings is None else settings
    app = Flask(__name__)
    app.extensions["settings"] = settings
    app.config["MAX_CONTENT_LENGTH"] = settings.limits.max_body_bytes
    hops = settings.http.trusted_proxies
    if hops:
        # Only as many hops as are really there: a client could otherwise name any address, and
        # the rate limit counts per address.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False

    access_log.init_app(app, settings.logging)  # first: its request id is on the lines the other hooks log
    auth.init_app(app, settings.access)
    ratelimit.init_app(app, settings)
    headers.init_app(app)
    connections = settings.connections
    engine = make_engine(connections.database_url, connections.transaction_pooled)
    app.extensions["engine"] = engine
    # The job notices' LISTEN holds a session of its own: never through a transaction pooler.
    app.extensions["direct_engine"] = (engine if connections.direct_url == connections.database_url
                                       else make_engine(connections.direct_url))
    app.extensions["sessions"] = make_sessionmaker(engine)
    broker.make_folders(settings)
    publishing = Celery("puzzle-queue", set_as_current=False)
    publishing.conf.update(broker.celery_config(settings))
    app.extensions["celery"] = publishing
    app.extensions["publisher"] = CeleryPublisher(publishing, settings.lanes, settings.time)
    # A request's checks never wait for a compile: their kernels warm in a thread meanwhile.
    solvers.answer_without_compiling()

    # blueprints import the app's helpers above; bulk, callbacks, checking, export, hints and history
    # add routes to the api blueprint
    from service import api, bulk, callbacks, checking, export, fleet, hints, history, ops, web  # noqa: F401

    app.register_blueprint(ops.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(fleet.bp)
    app.register_blueprint(web.bp)
    api.spec.register(app)
    _error_handlers(app, settings)
    return app


def settings() -> Settings:
    """The settings of the app serving the current request."""
    found: Settings = current_app.extensions["settings"]
    return found


def _error_handlers(app: Flask, settings: Settings) -> None:
    @app.errorhandler(Problem)
    def _problem(exc: Problem):
        return exc.response()

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        if exc.code == 413:
            limit = settings.limits.max_body_bytes
            return Problem(413, "Content Too Large", f"the body is larger than {limit} bytes").response()
        return from_http_exception(exc).response()

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        if isinstance(exc, OperationalError):
            log.warning("database unavailable during %s %s: %s", request.method, request.path, exc)
            return Problem(503, "Service Unavailable", "the database is not reachable; try again",
                           headers={"Retry-After": str(settings.http.retry_after_seconds * 5)}).response()
        log.exception("unhandled error in %s %s", request.method, request.path)
        return Problem(500, "Internal Server Error", "an unexpected error; it has been logged").response()
