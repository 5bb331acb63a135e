"""Operations: liveness, readiness, Prometheus metrics.

Metrics are read from SQL at scrape time rather than counted in memory: API and
worker processes come and go, the database is the one place that sees every
puzzle exactly once. They are running totals (store.tallies), a few rows whatever
the number of puzzles.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Literal

from flask import Blueprint, Response, current_app
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from pydantic import BaseModel, Field
from spectree import Response as Documented
from sqlalchemy import func, select, text

from service import auth, ratelimit, settings
from service.api import spec
from service.problems import Problem
from service.schemas import ProblemOut
from store import tallies, workers
from store.bookkeeping import Tally
from store.models import FINAL, UNFINISHED, now

log = logging.getLogger(__name__)

bp = Blueprint("ops", __name__)


class Health(BaseModel):
    status: Literal["ok"]


class Ready(BaseModel):
    status: Literal["ready"]
    checks: dict[str, str]
    preparing: list[str] = Field(default_factory=list, description=(
        "the kinds the workers' warm-up processes have still to prepare (compile their kernels), as "
        "the living workers' heartbeats tell; a job of such a kind is accepted and waits queued"))


@bp.get("/healthz")
@ratelimit.exempt
@spec.validate(resp=Documented(HTTP_200=Health), tags=["operations"])
def healthz():
    """The process is up."""
    return {"status": "ok"}


def _check_database() -> None:
    with current_app.extensions["engine"].connect() as conn:
        conn.execute(text("select 1"))


def _preparing() -> list[str]:
    """The kinds still being prepared (store.workers.preparing); none when they cannot be read: a
    readiness probe never fails for them."""
    silent = timedelta(seconds=settings().recovery.worker_silent_seconds)
    try:
        with current_app.extensions["sessions"]() as s:
            return workers.preparing(s, now() - silent)
    except Exception as exc:
        log.warning("readyz: could not read the kinds still being prepared: %s: %s", type(exc).__name__, exc)
        return []


def _check_broker() -> None:
    connections = settings().connections
    if not connections.redis_url:
        folder = Path(connections.broker_dir) / "out"
        if not folder.is_dir():
            raise OSError(f"broker folder {folder} is missing")
        return
    with current_app.extensions["celery"].connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=2)


@bp.get("/readyz")
@ratelimit.exempt
@spec.validate(resp=Documented(HTTP_200=Ready, HTTP_503=ProblemOut), tags=["operations"])
def readyz():
    """The database and the broker are reachable (503 otherwise); the kinds still being prepared."""
    failures: dict[str, str] = {}
    for name, check in (("database", _check_database), ("broker", _check_broker)):
        try:
            check()
        except Exception as exc:  # whatever the driver raises, the answer is "not ready"
            # The driver's message names hosts and ports: logged for the operator, not answered.
            log.warning("readyz: the %s is not reachable: %s: %s", name, type(exc).__name__, exc)
            failures[name] = "not reachable"
    if failures:
        raise Problem(503, "Service Unavailable", "; ".join(f"{k}: {v}" for k, v in failures.items()),
                      headers={"Retry-After": "5"}, checks=failures)
    return {"status": "ready", "checks": {"database": "ok", "broker": "ok"}, "preparing": _preparing()}


class SqlCollector:
    def __init__(self, sessions):
        self.sessions = sessions

    def collect(self) -> Iterator:
        with self.sessions() as s:
            rows = s.execute(select(Tally.kind, Tally.name, func.sum(Tally.value))
                             .group_by(Tally.kind, Tally.name)).all()
        got = {(kind, name): value for kind, name, value in rows}
        kinds = sorted({kind for kind, _name in got if kind})

        submitted = CounterMetricFamily("puzzle_queue_jobs_submitted", "Jobs accepted by the API")
        submitted.add_metric([], got.get(("", tallies.JOBS), 0))
        yield submitted

        final = CounterMetricFamily("puzzle_queue_puzzles_finished",
                                    "Puzzles that reached a final status", labels=["kind", "status"])
        depth = GaugeMetricFamily("puzzle_queue_queue_depth", "Puzzles not yet finished",
                                  labels=["kind", "status"])
        for kind in kinds:
            for status in FINAL:
                if (kind, status) in got:
                    final.add_metric([kind, status], got[kind, status])
            for status in UNFINISHED:
                if (kind, status) in got:
                    depth.add_metric([kind, status], got[kind, status])
        yield final
        yield depth

        hist = HistogramMetricFamily("puzzle_queue_solve_seconds", "Solver wall time per puzzle",
                                     labels=["kind"])
        for kind in kinds:
            counts = [got.get((kind, tallies.bucket(b)), 0) for b in tallies.SOLVE_BUCKETS]
            count = sum(counts) + got.get((kind, tallies.bucket(math.inf)), 0)
            if count:
                cumulative = list(itertools.accumulate(counts))
                buckets = [(str(b), c) for b, c in zip(tallies.SOLVE_BUCKETS, cumulative, strict=True)]
                hist.add_metric([kind], [*buckets, ("+Inf", count)], got.get((kind, tallies.SECONDS), 0.0))
        yield hist


@bp.get("/metrics")
def metrics():
    auth.require_metrics_token()
    registry = current_app.extensions.get("metrics_registry")
    if registry is None:
        registry = CollectorRegistry()
        registry.register(SqlCollector(current_app.extensions["sessions"]))
        current_app.extensions["metrics_registry"] = registry
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)
