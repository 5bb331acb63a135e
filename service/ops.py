"""Operations: liveness, readiness, Prometheus metrics.

Metrics are read from SQL at scrape time rather than counted in memory: API and
worker processes come and go, the database is the one place that sees every
puzzle exactly once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from flask import Blueprint, Response, current_app
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from pydantic import BaseModel
from spectree import Response as Documented
from sqlalchemy import case, func, select, text

from service import auth, ratelimit
from service.api import spec
from service.models import FINAL, QUEUED, RUNNING, Job, Puzzle
from service.problems import Problem
from service.schemas import ProblemOut

bp = Blueprint("ops", __name__)

# Seconds; from trivial Sudokus (well under a millisecond) to the time limit.
SOLVE_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0, 120.0, 600.0)


class Health(BaseModel):
    status: Literal["ok"]


class Ready(BaseModel):
    status: Literal["ready"]
    checks: dict[str, str]


@bp.get("/healthz")
@ratelimit.exempt
@spec.validate(resp=Documented(HTTP_200=Health), tags=["operations"])
def healthz():
    """The process is up."""
    return {"status": "ok"}


def _check_database() -> None:
    with current_app.extensions["engine"].connect() as conn:
        conn.execute(text("select 1"))


def _check_broker() -> None:
    if not current_app.config["REDIS_URL"]:
        folder = Path(current_app.config["BROKER_DIR"]) / "out"
        if not folder.is_dir():
            raise OSError(f"broker folder {folder} is missing")
        return
    with current_app.extensions["celery"].connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=2)


@bp.get("/readyz")
@ratelimit.exempt
@spec.validate(resp=Documented(HTTP_200=Ready, HTTP_503=ProblemOut), tags=["operations"])
def readyz():
    """The database and the broker are reachable (503 otherwise)."""
    failures = {}
    for name, check in (("database", _check_database), ("broker", _check_broker)):
        try:
            check()
        except Exception as exc:  # whatever the driver raises, the answer is "not ready"
            failures[name] = f"{type(exc).__name__}: {exc}"
    if failures:
        raise Problem(503, "Service Unavailable", "; ".join(f"{k}: {v}" for k, v in failures.items()),
                      headers={"Retry-After": "5"}, checks=failures)
    return {"status": "ready", "checks": {"database": "ok", "broker": "ok"}}


class SqlCollector:
    def __init__(self, sessions):
        self.sessions = sessions

    def collect(self) -> Iterator:
        with self.sessions() as s:
            submitted = CounterMetricFamily("puzzle_queue_jobs_submitted", "Jobs accepted by the API")
            submitted.add_metric([], s.scalar(select(func.count()).select_from(Job)) or 0)
            yield submitted

            by_status = s.execute(select(Puzzle.kind, Puzzle.status, func.count())
                                  .group_by(Puzzle.kind, Puzzle.status)).all()
            final = CounterMetricFamily("puzzle_queue_puzzles_finished",
                                        "Puzzles that reached a final status", labels=["kind", "status"])
            depth = GaugeMetricFamily("puzzle_queue_queue_depth", "Puzzles not yet finished",
                                      labels=["kind", "status"])
            for kind, status, n in by_status:
                if status in FINAL:
                    final.add_metric([kind, status], n)
                elif status in (QUEUED, RUNNING):
                    depth.add_metric([kind, status], n)
            yield final
            yield depth

            seconds = Puzzle.solve_ms / 1000.0
            columns = [func.sum(case((seconds <= b, 1), else_=0)) for b in SOLVE_BUCKETS]
            total = func.coalesce(func.sum(seconds), 0.0)
            rows = s.execute(select(Puzzle.kind, func.count(), total, *columns)
                             .where(Puzzle.solve_ms.is_not(None)).group_by(Puzzle.kind)).all()
            hist = HistogramMetricFamily("puzzle_queue_solve_seconds", "Solver wall time per puzzle",
                                         labels=["kind"])
            for kind, count, total, *cumulative in rows:
                buckets = [(str(b), int(c or 0)) for b, c in zip(SOLVE_BUCKETS, cumulative, strict=True)]
                hist.add_metric([kind], [*buckets, ("+Inf", count)], float(total))
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
