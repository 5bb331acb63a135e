"""Solving one puzzle through the registry (or a run of cheap ones through the kind's ``solve_batch``,
for a task of puzzle rows and a stored chunk alike),
and every reason a puzzle or a part fails, worded once."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded

import solvers
from solvers.base import Budgeted, Outcome, Parts, Settings, Split, StopFlag, Whole
from store import blocks, fastjson
from store.models import FAILED
from store.rows import Assigned, Result, SplitPuzzle
from worker.limits import PuzzleTimeout, Watch, time_limit

log = logging.getLogger(__name__)

CANCELLED_WHILE_RUNNING = "stopped: the puzzle was cancelled while it ran"


def too_long(seconds: float, per: str) -> str:
    return f"exceeded the time limit of {seconds:g} s per {per}"


def past_prediction(seconds: float, predicted: float) -> str:
    """A puzzle stopped at the time limit its prediction gave it (store.cost_settings)."""
    past = f"{seconds / predicted:.3g} x its predicted {predicted:g} s" if predicted > 0 else "its prediction"
    return f"exceeded its time limit of {seconds:g} CPU s: it ran past {past} (PREDICTION_TIME_FACTOR)"


def gave_up(tries: int, seconds: float, per: str) -> str:
    """A puzzle or part whose every claim lost its worker."""
    return (f"gave up after {tries} attempts: the worker was lost each time (it crashed or ran past the "
            f"hard time limit; the limit per {per} is {seconds:g} s)")


def failure_reason(exc: Exception, where: str, seconds: float | None = None, per: str = "puzzle", *,
                   expired: bool = False, predicted: float | None = None,
                   answer: str = "the solver's answer", error: str = "solver error",
                   hint: str | None = None) -> str:
    """What the user reads when solving a puzzle or a part (``per``) under a limit of ``seconds``,
    or merging parts, raised ``exc``. ``expired``: the watcher raised the stop flag at the time
    limit; ``predicted``: the seconds predicted of the solve, when its prediction set ``seconds``;
    ``answer`` names what was verified; ``error`` heads a crash, which is also logged with
    ``where`` it happened, and which alone names the exception's class (for the operator);
    ``hint``: what to change for a cheaper answer, said after a time limit (``limit_hint``)."""
    if seconds is not None and isinstance(exc, (PuzzleTimeout, SoftTimeLimitExceeded, solvers.Stopped)):
        if isinstance(exc, solvers.Stopped) and not expired:
            return CANCELLED_WHILE_RUNNING
        text = too_long(seconds, per) if predicted is None else past_prediction(seconds, predicted)
        return text if hint is None else f"{text}; {hint}"
    if isinstance(exc, solvers.WrongAnswer):
        return f"internal error: {answer} failed verification ({exc})"
    if isinstance(exc, solvers.NotMade):
        return str(exc)
    if isinstance(exc, solvers.PuzzleError):
        return f"invalid puzzle: {exc}"
    log.error("%s on %s", error, where, exc_info=exc)
    return f"{error}: {type(exc).__name__}: {exc}"


@dataclass(slots=True)
class Prepared:
    """A puzzle's kind, and its wire input and options checked and converted by the kind."""

    kind: solvers.Kind
    puzzle: Any
    options: dict[str, Any]

    def cost(self) -> float:
        """Predicted seconds of one core (``Kind.predict``)."""
        return self.estimate().seconds

    def estimate(self) -> solvers.Estimate:
        return self.kind.predict(self.puzzle, self.options)


def prepare(a: Assigned) -> Prepared:
    kind = solvers.kind_for(a.kind, a.options)
    return Prepared(kind, *kind.prepare(a.input, a.options))


def prepared_or_none(a: Assigned) -> Prepared | None:
    """The prepared puzzle, or None when preparing fails (solve_one then says why)."""
    try:
        return prepare(a)
    except Exception:
        return None


def prepared_alike(alike: Sequence[Assigned]) -> list[Prepared | None]:
    """Puzzles of one kind and wire options, prepared by one call of the kind's ``prepare_batch``
    (their options read once); None for each one that fails, for all of them when their options
    or the call fail (solve_one then says why, one by one)."""
    try:
        kind = solvers.kind_for(alike[0].kind, alike[0].options)
        options = kind.read_options(alike[0].options)
        puzzles = kind.prepare_batch([a.input for a in alike], options)
    except Exception:
        return [None] * len(alike)
    return [None if isinstance(p, solvers.PuzzleError) else Prepared(kind, p, options) for p in puzzles]


def limit_hint(p: Prepared | None) -> str | None:
    """What the puzzle's kind says to change in its options for a cheaper answer
    (``Kind.time_limit_hint``); None where it says nothing."""
    hint = None if p is None else p.kind.time_limit_hint
    return None if p is None or hint is None else hint(p.options)


def estimated_cost(a: Assigned) -> float:
    """The predicted seconds of a stored puzzle, which decides its lane (store.publish) when it is published
    again; 0 for one that no longer prepares, since it fails at once."""
    ready = prepared_or_none(a)
    return 0.0 if ready is None else ready.cost()


def solve_or_split(p: Prepared, settings: Settings, stop: StopFlag | None = None) -> Outcome | Split:
    """The whole outcome, or a Split with parts to fan out, as the kind plans it.
    The nodes of an abandoned budgeted try are not in the split's stats: they were thrown away."""
    kind, puzzle, options = p.kind, p.puzzle, p.options
    plan = kind.plan(puzzle, options, settings)
    if isinstance(plan, Budgeted):
        try:
            return kind.solve(puzzle, options, node_limit=plan.nodes, stop=stop)
        except solvers.BudgetExceeded:
            plan = Parts(plan.parts)
    if isinstance(plan, Whole):
        return kind.solve(puzzle, options, stop=stop)
    split = kind.splitting().split(puzzle, options, plan.count)
    return split if split.parts else split.head


def solve_one(a: Assigned, seconds: float, settings: Settings, ready: Prepared | None = None,
              watch: Watch | None = None, predicted: float | None = None) -> Result | SplitPuzzle:
    """Solve and verify one puzzle (or cut it into parts, see solve_or_split); every failure
    becomes a ``failed`` result with its reason. ``ready``: the puzzle already prepared;
    ``watch``: a stop flag raised at the time limit or when the puzzle is cancelled;
    ``predicted``: the seconds predicted of it when its prediction set ``seconds`` (CPU seconds
    then, worker.limits)."""
    out = Result(a.id, a.job_id, a.attempts, FAILED)
    start, cpu = time.perf_counter(), time.process_time()
    p = ready
    try:
        p = p or prepare(a)
        with time_limit(seconds, cpu=predicted is not None):
            outcome = solve_or_split(p, settings, watch.flag if watch else None)
        if isinstance(outcome, Split):
            return SplitPuzzle(a, outcome)
        p.kind.verify(p.puzzle, p.options, outcome)
    except Exception as exc:  # a solver bug must end this puzzle, not the whole chunk
        expired = watch is not None and watch.expired
        out.error = failure_reason(exc, f"puzzle {a.id}", seconds, "puzzle", expired=expired,
                                   predicted=predicted, hint=limit_hint(p))
    else:
        out.status, out.answer = outcome.status, blocks.answer(outcome.result, outcome.stats)
    out.solve_ms = round((time.perf_counter() - start) * 1000.0, 3)
    out.cpu_seconds = measured(cpu)
    return out


def measured(since: float, n: int = 1) -> float:
    """The CPU seconds of this process since ``since`` (``time.process_time``), shared over ``n``
    puzzles: what a solve is charged (store.costs), as the predicted limit counts it (worker.limits)."""
    return round(max(time.process_time() - since, 0.0) / n, 6)


@dataclass(slots=True)
class Cheap:
    """A puzzle that may go through its kind's ``solve_batch`` (``batchable``), and its plan."""

    assigned: Assigned
    ready: Prepared
    plan: Whole | Budgeted
    cost: float  # its estimated seconds (``Prepared.cost``)


def batchable(a: Assigned, ready: Prepared, settings: Settings, most: float) -> Cheap | None:
    """The puzzle as a ``Cheap`` one when it is estimated at most ``most`` seconds (it needs no
    watcher) and its kind plans to solve it whole, or whole within a node budget.
    The estimate is the one stored with it, made again only for a row stored without one."""
    cost = ready.cost() if a.estimated is None else a.estimated
    if cost > most:
        return None
    plan = ready.kind.plan(ready.puzzle, ready.options, settings)
    return Cheap(a, ready, plan, cost) if isinstance(plan, (Whole, Budgeted)) else None


def within_plan(plan: Whole | Budgeted, nodes: int | None) -> bool:
    """A batch outcome stands for the plan: always for a whole solve; for a budgeted one only
    within the budget, counted in the ``nodes`` the kind reports (past it the puzzle is split)."""
    if isinstance(plan, Whole):
        return True
    return nodes is not None and nodes <= plan.nodes


class BatchFailed(Exception):
    """A ``solve_batch`` call failed as a whole: ``cause`` is what it raised (the time limit's
    ``PuzzleTimeout``, a solver's error or wrong answer, Celery's soft limit)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(cause)
        self.cause = cause


@dataclass(slots=True)
class Solved:
    """A ``solve_batch`` call's outcomes, one a puzzle: its status and answer text, or None where
    the outcome ran past its plan's node budget; and the call's times shared equally."""

    outcomes: list[tuple[str, str] | None]
    solve_ms: float
    cpu_seconds: float


def solve_batch(kind: solvers.Kind, puzzles: Sequence[Any], options: dict[str, Any],
                plans: Sequence[Whole | Budgeted], seconds: float, cpu: bool) -> Solved:
    """Solve prepared puzzles of one kind and one set of options in one call of the kind's
    ``solve_batch`` (its outcomes come verified), under a time limit of ``seconds`` (``cpu``: of the
    process's CPU time, a limit a prediction set, worker.limits). Raises ``BatchFailed`` when the
    call fails; what reading its outcomes raises is not caught. The outcomes are read by column
    (``Outcomes``), their answers encoded by the kind where it can. The one batch solve of both
    a task of puzzle rows (``solve_run``) and a stored chunk (worker.stored)."""
    start, used = time.perf_counter(), time.process_time()
    try:
        with time_limit(seconds, cpu=cpu):
            outcomes = kind.solve_batch(puzzles, options)
    except Exception as exc:
        raise BatchFailed(exc) from exc
    share = round((time.perf_counter() - start) * 1000.0 / len(plans), 3)
    cpu_share = measured(used, len(plans))
    return Solved([(status, answer) if within_plan(plan, nodes) else None
                   for plan, status, nodes, answer in zip(plans, outcomes.statuses(), outcomes.nodes(),
                                                          outcomes.encoded(fastjson.dumps), strict=True)],
                  share, cpu_share)


def solve_run(run: Sequence[Cheap], seconds: float, settings: Settings,
              cpu: bool = False) -> list[Result | SplitPuzzle] | None:
    """Solve cheap puzzles of one kind and one set of options, prepared already, by ``solve_batch``.
    None when the call fails as a whole (a solver error, a wrong answer, the time limit over the
    whole run): solved one by one instead, each failure falls on its own puzzle. An outcome past
    its plan's node budget is solved again alone (``solve_one``, which splits it). ``solve_ms`` and
    ``cpu_seconds`` are the run's times shared equally. ``cpu``: ``seconds`` count the process's
    CPU time (a limit the run's prediction set, worker.limits)."""
    kind, options = run[0].ready.kind, run[0].ready.options
    try:
        batch = solve_batch(kind, [c.ready.puzzle for c in run], options, [c.plan for c in run], seconds, cpu)
    except BatchFailed as failed:
        if isinstance(failed.cause, SoftTimeLimitExceeded):
            raise failed.cause from None
        log.warning("solve_batch of %d %s puzzles failed (%s: %s); solving them one by one",
                    len(run), kind.name, type(failed.cause).__name__, failed.cause)
        return None
    out: list[Result | SplitPuzzle] = []
    for c, outcome in zip(run, batch.outcomes, strict=True):
        a = c.assigned
        if outcome is None:
            out.append(solve_one(a, seconds, settings, c.ready))
            continue
        out.append(Result(a.id, a.job_id, a.attempts, outcome[0], answer=outcome[1], solve_ms=batch.solve_ms,
                          cpu_seconds=batch.cpu_seconds))
    return out
