"""Predicted costs as the API shows them: a puzzle's prediction when accepted, a job's sums (its
weighted progress), and the eta of a running job from the rate its work is observed to go at.

Every puzzle keeps its ``Kind.predict`` estimate (seconds, factor, basis); a job keeps the sum of
its puzzles' seconds, of their high ends, and of its finished puzzles' seconds (``done_seconds``,
moved with ``pending`` by the statements that finish puzzles: store.statements, store.jobs'
cancel, store.retry), so a read takes three numbers from the job's row instead of every puzzle.
A running puzzle counts the share of its seconds done: a split one's finished parts, a whole one
the share of its search its solver reports (``puzzles.progress``, solvers/progress.py).

The eta: the job's predicted seconds done per wall second since it started is its observed rate;
the predicted seconds left at that rate is the eta. Its band is the remaining work's predicted
range at that rate, narrowed as work is done (the observed rate already absorbs how far the
predictions of the finished work were off): ``eta / f .. eta * f`` with ``f = F ** left``, ``F``
the job's factor (the sum of high ends over the sum of seconds) and ``left`` the share of its
predicted seconds not yet done. ``left`` moves with every report of a running search's share, so
the band narrows by small steps, not at each finished puzzle alone.

The rate cannot see a queue: a job whose last puzzle waits in the dear lane behind other jobs' work
would show the seconds of that puzzle alone. So the eta is at least the wait of the job's dear work
(store.ahead: the dear work ahead of it and its own, over the lane's workers), and so is each end
of the band (from the predictions' ranges of that work).

Before any of its work is done there is no rate: the eta is then predicted, the wait of its dear
work or its other work over the processes that may share it, whichever is longer (predicted_eta).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, literal_column, select
from sqlalchemy.orm import Session

from store.ahead import Ahead, Span
from store.models import UNFINISHED, Job, Puzzle, aware

# SQL: a job's predicted seconds not yet done, what it holds of its client's budget and of the work
# ahead of its client's dear tasks (store.publish); none for a job stored without predictions.
SECONDS_LEFT = func.coalesce(Job.estimated_seconds, 0.0) - Job.done_seconds

# SQL: the CPU seconds measured of an unfinished puzzle (``puzzles.cpu_seconds``: its solves so far,
# every attempt and part) past its prediction, which its client is charged beside the prediction:
# an unfinished puzzle counts the larger of the two.
_PREDICTED = func.coalesce(Puzzle.estimated_seconds, 0.0)
PAST_PREDICTION = case((Puzzle.cpu_seconds > _PREDICTED, Puzzle.cpu_seconds - _PREDICTED), else_=0.0)
# Spelled as the partial index's predicate (literal values, store.models.MEASURED), so that any plan
# can use it: the unfinished rows measured, few whatever the history.
MEASURED = and_(Puzzle.cpu_seconds.is_not(None),
                Puzzle.status.in_([literal_column(f"'{status}'") for status in UNFINISHED]))


def overrun(owner: Any) -> ColumnElement[Any]:
    """SQL: the CPU seconds measured past their predictions of the unfinished puzzles of ``owner``'s
    unfinished jobs (``owner``: a column or a parameter), which its work left adds (``work_left``)."""
    return (select(func.coalesce(func.sum(PAST_PREDICTION), 0.0))
            .select_from(Puzzle).join(Job, Job.id == Puzzle.job_id)
            .where(MEASURED, Job.owner == owner, Job.status.in_(UNFINISHED)).scalar_subquery())


def work_left(s: Session, owners: Collection[str]) -> dict[str, float]:
    """What each owner is charged of its unfinished work (0 for an owner with none): its unfinished
    jobs' predicted seconds not yet done, and the CPU seconds measured of their unfinished puzzles
    past their predictions. It holds the client's budget and places its dear tasks (store.publish)."""
    left = dict(s.execute(select(Job.owner, func.sum(SECONDS_LEFT))
                          .where(Job.owner.in_(list(owners)), Job.status.in_(UNFINISHED))
                          .group_by(Job.owner)).all())
    measured = (select(Job.owner, func.sum(PAST_PREDICTION)).select_from(Puzzle)
                .join(Job, Job.id == Puzzle.job_id)
                .where(MEASURED, Job.owner.in_(list(owners)), Job.status.in_(UNFINISHED)).group_by(Job.owner))
    past: dict[str, float] = dict(s.execute(measured).all())
    return {owner: float(left.get(owner) or 0.0) + float(past.get(owner) or 0.0) for owner in owners}


@dataclass(frozen=True)
class Cost:
    """A job's predicted CPU seconds: in all, their high ends in all, and done."""

    seconds: float
    high: float
    done: float

    @property
    def factor(self) -> float:
        return max(self.high / self.seconds, 1.0) if self.seconds > 0 else 1.0


def of_job(seconds: float | None, high: float | None, done: float) -> Cost | None:
    """A job's cost from its row; None for a job stored without predictions."""
    if seconds is None or high is None:
        return None
    return Cost(seconds, high, max(min(done, seconds), 0.0))


def running_share(done: Any, total: Any, progress: Any) -> ColumnElement[Any]:
    """SQL: the share of a running puzzle done: a split puzzle's finished parts out of all, a whole
    one's share of its search as its solver last reported it (``puzzles.progress``), else 0."""
    return case((total > 0, done * 1.0 / total), else_=func.coalesce(progress, 0.0))


def running_done_seconds(seconds: Any, done: Any, total: Any, progress: Any) -> ColumnElement[Any]:
    """SQL: the predicted seconds a running puzzle's ``running_share`` stands for."""
    return func.coalesce(seconds, 0.0) * running_share(done, total, progress)


def summary(cost: Cost | None, status: str, started_at: datetime | None, at: datetime,
            ahead: Ahead | None = None, workers: int | None = None) -> dict[str, Any]:
    """A job's predicted seconds and eta as GET /api/v1/jobs/{id} shows them (service.schemas.JobOut);
    with ``ahead``, no less than the wait of its dear work behind the dear lane's (store.ahead).
    Before any work is done (no rate), predicted (``predicted_eta``) if ``workers`` (how many
    processes may share its cheap work) was read, else null."""
    if cost is None:
        return {"estimated_seconds_total": None, "estimated_seconds_done": None,
                "eta_seconds": None, "eta_range": None}
    out = {"estimated_seconds_total": _rounded(cost.seconds), "estimated_seconds_done": _rounded(cost.done)}
    if status not in UNFINISHED:
        return out | {"eta_seconds": 0.0, "eta_range": [0.0, 0.0]}
    elapsed = (at - aware(started_at)).total_seconds() if started_at is not None else 0.0
    if cost.done <= 0 or elapsed <= 0:  # no rate observed yet
        if workers is None:
            return out | {"eta_seconds": None, "eta_range": None}
        eta, low, high = predicted_eta(cost, ahead, workers)
        return out | {"eta_seconds": _rounded(eta), "eta_range": [_rounded(low), _rounded(high)]}
    left = max(cost.seconds - cost.done, 0.0)
    eta = left / (cost.done / elapsed)
    band = cost.factor ** (left / cost.seconds)
    low, high = eta / band, eta * band
    if ahead is not None:  # the rate knows nothing of a queue the job's last work waits in
        wait = ahead.wait()
        eta, low, high = max(eta, wait.seconds), max(low, wait.low), max(high, wait.high)
    return out | {"eta_seconds": _rounded(eta), "eta_range": [_rounded(low), _rounded(high)]}


def predicted_eta(cost: Cost, ahead: Ahead | None, workers: int) -> tuple[float, float, float]:
    """The eta and its band before a rate is observed, from the predictions alone: the wait of the
    job's dear work (store.ahead: the dear lane's work ahead of it and its own, over that lane's
    workers), or its other work left (its predicted seconds, less its dear work's) over ``workers``
    processes, whichever is longer; the band from the job's factor F (seconds / F .. seconds x F)
    and the dear work's ranges."""
    own = ahead.own.seconds if ahead is not None else 0.0
    rest = max(cost.seconds - cost.done - own, 0.0) / max(workers, 1)
    f = cost.factor
    wait = ahead.wait() if ahead is not None else Span()
    return max(rest, wait.seconds), max(rest / f, wait.low), max(rest * f, wait.high)


def of_puzzle(seconds: float | None, factor: float | None, basis: str | None) -> dict[str, Any]:
    """A puzzle's prediction as its result shows it (service.schemas.PuzzleOut)."""
    if seconds is None or factor is None:
        return {"estimated_seconds": None, "estimated_range": None, "estimate_basis": None}
    return {"estimated_seconds": _rounded(seconds),
            "estimated_range": [_rounded(seconds / factor), _rounded(seconds * factor)],
            "estimate_basis": basis}


def _rounded(seconds: float) -> float:
    """Seconds to the microsecond: predictions are far coarser, and sums of floats show their noise."""
    return round(seconds, 6)


def readable(seconds: float) -> str:
    """Seconds as a message shows them: three figures below a thousand (``0.0004``, ``12.5``),
    whole seconds with thousands separated above (``1,028,240``), never an exponent."""
    return f"{seconds:.3g}" if abs(seconds) < 1000 else f"{seconds:,.0f}"
