"""/api/v1: jobs, their puzzles, kinds. Contract: docs/API.md."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, TypeVar, cast

from flask import Blueprint, current_app, g, request
from pydantic import BaseModel, ValidationError
from spectree import Response, SecurityScheme
from spectree.models import SecureType, SecuritySchemeData
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

import solvers
from service import auth, batches, cursors, prices, ratelimit, settings
from service.bodies import read_json
from service.openapi import DocumentedSpecTree
from service.problems import Problem, invalid
from service.schemas import (
    JobList,
    JobListQuery,
    JobOut,
    JobSubmit,
    KindList,
    Limits,
    ProblemOut,
    PuzzleList,
    PuzzleOut,
    PuzzlePageQuery,
    RetryIn,
    SubmitHeaders,
    item_errors,
)
from service.waiting import NOTIFIED_SECONDS, JobQuery, wait_for_job
from solvers import factory
from store import blocks, job_ends, jobs, notices, pricing, retry, submit, webhooks
from store.ahead import DearLane
from store.costs import readable
from store.db import one_statement, read_only
from store.handover import publish_within
from store.models import Puzzle
from store.publish import Publisher, for_job, job_rank, publish_in_lanes
from store.submit import CheckedBatch


def _validation_problem(req: Any, resp: Any, error: Exception | None, instance: Any, adapter: Any) -> None:
    """spectree hook: its request-validation errors (pydantic's) become our 422 problem document."""
    if error is not None:
        raise invalid(item_errors(cast(ValidationError, error).errors()), req.method)


spec = DocumentedSpecTree(
    "flask",
    title="puzzle-queue",
    version="v1",
    # The pages live under /api/v1/docs/ (spectree leaves its own prefix out of the document);
    # /api/v1/openapi.json below serves the same document at the contract's address.
    path="api/v1/docs",
    mode="strict",
    before=_validation_problem,
    validation_error_status=422,
    security_schemes=[SecurityScheme(name="bearer",
                                     data=SecuritySchemeData(type=SecureType.HTTP, scheme="bearer"))],
    # authenticate() below: with tokens on, every endpoint of this blueprint but the @auth.public views;
    # and the fleet view's, for operators, whenever any token is set (service.fleet).
    needs_token=lambda endpoint: ((auth.auth_enabled() and endpoint.startswith("api.")
                                   and not auth.public.marks(current_app.view_functions.get(endpoint)))
                                  or (auth.fleet_guarded() and endpoint.startswith("fleet."))),
)

bp = Blueprint("api", __name__, url_prefix="/api/v1")
Model = TypeVar("Model", bound=BaseModel)
T = TypeVar("T")

ERRORS = {f"HTTP_{code}": ProblemOut for code in (400, 401, 404, 413, 422, 429, 503)}
# The endpoints that read a JSON body (service.bodies) also answer 415.
BODY_ERRORS = {**ERRORS, "HTTP_415": ProblemOut}


def sessions():
    return current_app.extensions["sessions"]()


@contextmanager
def snapshot() -> Iterator[Session]:
    """A read-only session whose queries all see one snapshot (store.db.read_only). It ends with
    COMMIT, not the ROLLBACK of a closed session: psycopg forgets its prepared statements at every
    ROLLBACK (and deallocates them, a round trip), so the reads the API repeats would be parsed and
    planned again after each request."""
    with sessions() as s:
        yield read_only(s)
        s.commit()


@contextmanager
def one_read() -> Iterator[Session]:
    """A session for a read of one statement (store.db.one_statement)."""
    with sessions() as s:
        yield one_statement(s)


@bp.before_request
def authenticate() -> None:
    """With API_TOKENS set, a bearer token is required (except on @public views) and names the
    client, the job owner; without it every job may be read (service.auth)."""
    g.owner = auth.require_client()


def read_cursor(parse: Callable[[str | None], T], cursor: str | None) -> T:
    """A page's cursor read by ``parse``; one this API did not hand out is 400."""
    try:
        return parse(cursor)
    except ValueError as exc:
        raise Problem(400, "Bad Request", str(exc)) from None


def _not_found(job_id: str) -> Problem:
    return Problem(404, "Not Found", f"no job {job_id!r}")


def job_or_404(s, job_id: str):
    job = jobs.get_job(s, g.owner, job_id)
    if job is None:
        raise _not_found(job_id)
    return job


def _describe_or_404(s, job_id: str) -> JobOut:
    state = jobs.describe_job(s, g.owner, job_id, DearLane.of(settings()))
    if state is None:
        raise _not_found(job_id)
    return JobOut.of(state)


def read_batch() -> dict[str, Any]:
    """The request's batch, read and within MAX_BATCH (400, 413, 415 otherwise); unchecked."""
    body = read_json()
    if not isinstance(body, dict):
        raise Problem(400, "Bad Request", f"the body must be a JSON object, not a {type(body).__name__}")
    n = len(body["puzzles"]) if isinstance(body.get("puzzles"), list) else 0
    most = settings().limits.max_batch
    if n > most:
        raise Problem(413, "Content Too Large", f"a batch may hold at most {most} puzzles; this one has {n}",
                      max_batch=most)
    return body


def checked(body: dict[str, Any]) -> CheckedBatch:
    """The batch, every item checked (422 naming every bad item otherwise) and priced (an item of
    options its kind does not model: store.pricing), and within the cap on a puzzle's predicted
    seconds unless the job accepts the cost."""
    config = settings()
    try:
        batch = batches.check(body, Limits.of(config.limits))
    except ValidationError as exc:
        raise invalid(item_errors(exc.errors())) from None
    signed = prices.signatures(batch.items)
    if any(sig is not None for sig in signed):
        dear = pricing.dear_seconds(config.time.puzzle_time_limit, config.costs.max_puzzle_cpu_seconds)
        with snapshot() as s:
            batch = dataclasses.replace(batch, items=pricing.priced(s, batch.items, signed, dear))
    _made_within_time_limit(batch, config.time.puzzle_time_limit)
    cap = config.costs.max_puzzle_cpu_seconds
    if cap > 0 and not batch.accept_cost:
        _within_cap(batch, cap)
    return batch


def _made_within_time_limit(batch: CheckedBatch, limit: float) -> None:
    """422 naming each generate item of the batch whose kind predicts a puzzle of it above ``limit``
    (PUZZLE_TIME_LIMIT): a made puzzle is never split, so it would fail at the limit, after all
    that time, whatever the job accepts. Items priced by what alike ones took (store.pricing) are
    left to that price."""
    over: dict[int, float] = {}
    for item in batch.items:
        if item.signature is None and factory.is_made(item.options) and item.cost > limit:
            over.setdefault(item.item, item.cost)
    if over:
        raise _made_over_time_limit(over, limit, "nothing was stored")


def _made_over_time_limit(over: dict[int, float], limit: float, outcome: str,
                          field: str = factory.GENERATE) -> Problem:
    """The 422 of generate items (index: predicted seconds of a puzzle) above ``limit``
    (PUZZLE_TIME_LIMIT), naming ``field``; ``outcome``: what the refusal left."""
    errors = [{"index": i, "field": field, "estimated_seconds": cost,
               "message": f"a puzzle of this request is predicted at {readable(cost)} CPU seconds, "
                          f"above the {readable(limit)} s one puzzle may run (PUZZLE_TIME_LIMIT), and "
                          f"a made puzzle is never split: ask for a smaller or easier one"}
              for i, cost in over.items()]
    detail = f"{len(over)} generate item(s) predicted above the time limit of {readable(limit)} CPU seconds"
    return Problem(422, "Invalid request", f"{detail}; {outcome}", errors=errors, puzzle_time_limit=limit)


def _within_cap(batch: CheckedBatch, cap: float) -> None:
    """422 naming each item predicted above ``cap`` seconds, with its prediction and the cap."""
    over = [(i, item.cost) for i, item in enumerate(batch.items) if item.cost > cap]
    if over:
        raise _over_cap(over, cap, "a job", "nothing was stored")


def _over_cap(over: list[tuple[int, float]], cap: float, what: str, outcome: str) -> Problem:
    """The 422 of items (index, predicted seconds) above ``cap`` seconds, which ``what`` (a job, a
    retry) with accept_cost would accept; ``outcome``: what the refusal left."""
    errors = [{"index": i, "field": "puzzle", "estimated_seconds": cost,
               "message": f"predicted at {readable(cost)} CPU seconds, above this service's cap of "
                          f"{readable(cap)} (MAX_PUZZLE_CPU_SECONDS); {what} with accept_cost: true "
                          f"accepts it"} for i, cost in over]
    detail = f"{len(over)} item(s) predicted above the cap of {readable(cap)} CPU seconds; {outcome}"
    return Problem(422, "Invalid request", detail, errors=errors, max_puzzle_cpu_seconds=cap)


def over_budget(exc: submit.OverBudget, field: str) -> Problem:
    """429 naming the work refused (a batch, or a retry's puzzles), the client's budget and what is
    left; work predicted above the whole budget can never pass, so it is 422 naming ``field``
    (the batch's ``puzzles``, a retry's ``indexes``), without Retry-After."""
    amounts: dict[str, Any] = {"estimated_seconds": exc.batch, "budget": exc.budget, "budget_left": exc.left}
    if exc.batch > exc.budget:
        priced = "priced at what they already took:" if exc.measured else "predicted at"
        message = (f"{priced} {readable(exc.batch)} CPU seconds, more than your whole budget of "
                   f"{readable(exc.budget)} (CLIENT_CPU_BUDGET): it can never be accepted; send "
                   f"fewer or cheaper puzzles")
        return Problem(422, "Invalid request", f"{field}: {message}; nothing was stored",
                       errors=[{"index": None, "field": field, "message": message}], **amounts)
    return Problem(429, "Too Many Requests", str(exc), headers={"Retry-After": "10"}, **amounts)


def _poll_headers(job_id: str) -> dict[str, str]:
    retry = str(settings().http.retry_after_seconds)
    return {"Location": f"/api/v1/jobs/{job_id}", "Retry-After": retry}


@bp.post("/jobs")
@spec.validate(json=JobSubmit, headers=SubmitHeaders,
               resp=Response(HTTP_202=JobOut, HTTP_200=JobOut, HTTP_409=ProblemOut, **BODY_ERRORS),
               skip_validation=True, tags=["jobs"])
def submit_job():
    """Submit a batch of puzzles.

    The whole batch is checked first; any bad item gives 422 listing every bad item, and
    nothing is stored. `Idempotency-Key` makes retries safe.
    """
    config = settings()
    body = read_batch()
    owner = auth.submitter(g.owner)
    key = request.headers.get("Idempotency-Key")
    if key is not None and not (1 <= len(key) <= 200 and key.isprintable()):
        raise Problem(400, "Bad Request", "an Idempotency-Key has 1 to 200 printable characters")
    digest = None if key is None else submit.request_hash(body)
    if key is not None:
        with snapshot() as s:
            found = jobs.find_by_key(s, owner, key)
            if found is not None:
                return _replay(s, found, digest)
    check_callback(body.get("callback_url"))
    batch = checked(body)
    try:
        with sessions() as s, s.begin():
            job, tasks, rank, queued = submit.create_job(
                s, owner, batch, config.lanes, label=batch.label, key=key, body_hash=digest,
                max_pending=config.limits.max_pending_puzzles, budget=config.costs.budget_of(owner))
    except jobs.Backlogged as exc:  # nothing stored: the transaction rolled back
        raise Problem(429, "Too Many Requests",
                      f"{exc.pending} of your puzzles are still unfinished; the limit is {exc.limit}",
                      headers={"Retry-After": "10"}) from None
    except submit.OverBudget as exc:  # nothing stored, as above
        raise over_budget(exc, "puzzles") from None
    except IntegrityError:
        # A concurrent request with the same Idempotency-Key won the race.
        with snapshot() as s:
            found = jobs.find_by_key(s, owner, key) if key is not None else None
            if found is None:
                raise
            return _replay(s, found, digest)
    work = sum(task.cost for task in tasks)
    rows = [(task.ids, task.cost) for task in tasks if task.chunk is None]
    stored = [task.chunk for task in tasks if task.chunk is not None]
    puzzle_ids = [i for ids, _cost in rows for i in ids]
    _publish(lambda publisher, made: publish_in_lanes(
        publisher, made, config.lanes, rows, job_rank(rank, work, config.lanes), queued=queued,
        quantum=config.costs.dear_share_seconds, stored=stored), job.id, puzzle_ids, stored)
    # The job as stored, with no read after publishing: a read would see at most a worker's first
    # steps, and it costs a round trip while that worker starts on the same cores.
    return JobOut.of(job), 202, _poll_headers(job.id)


def check_callback(url: Any) -> None:
    """422 naming ``callback_url`` unless it is an http(s) URL on an allowed host (store.webhooks);
    a value that is not a string is left to the schema's check."""
    if not isinstance(url, str):
        return
    problem = webhooks.url_problem(url, settings().webhooks.webhook_allowed_hosts)
    if problem is not None:
        raise invalid([{"index": None, "field": "callback_url", "message": problem}])


def _replay(s, job, digest: str | None):
    if job.request_hash != digest:
        raise Problem(409, "Conflict", "this Idempotency-Key was used with a different body")
    return _describe_or_404(s, job.id), 200, _poll_headers(job.id)


@bp.get("/jobs")
@spec.validate(query=JobListQuery, resp=Response(HTTP_200=JobList, **ERRORS), tags=["jobs"])
def list_jobs():
    """The client's jobs, newest first."""
    q: JobListQuery = request.context.query  # type: ignore[attr-defined]  # set by spectree
    with snapshot() as s:
        start = read_cursor(cursors.job_position, q.cursor)
        states, nxt = jobs.list_jobs(s, g.owner, q.status, q.limit, start, q.label, DearLane.of(settings()))
    return JobList(items=[JobOut.of(j) for j in states], next_cursor=cursors.of_job(nxt))


@bp.get("/jobs/<job_id>")
@spec.validate(query=JobQuery, resp=Response(HTTP_200=JobOut, **ERRORS), tags=["jobs"])
def get_job(job_id: str):
    """A job's status, counts by puzzle status and progress.

    With `?wait=SECONDS` (at most 60) the answer comes as soon as the job is completed or
    cancelled, or when the wait ends, whichever is first.
    """
    q: JobQuery = request.context.query  # type: ignore[attr-defined]  # set by spectree

    def describe() -> JobOut:
        with one_read() as s:
            return _describe_or_404(s, job_id)

    def status() -> str | None:
        with one_read() as s:
            return jobs.job_status(s, job_id)

    seconds = min(q.wait, settings().http.wait_cap_seconds)
    listener = job_listener() if seconds > 0 else None
    with listener.watch(job_id) if listener is not None else nullcontext() as wake:
        if wake is None:
            return wait_for_job(describe, seconds, sleep=ratelimit.paced(time.sleep), status=status)
        return wait_for_job(describe, seconds, sleep=ratelimit.paced(wake), status=status,
                            schedule=NOTIFIED_SECONDS)


def job_listener() -> notices.Listener | None:
    """This app's listener (made at the first wait), or None on a database that sends no notices."""
    extensions = current_app.extensions
    if "job_notices" not in extensions:
        extensions.setdefault("job_notices", notices.listener(extensions["direct_engine"]))
    listener: notices.Listener | None = extensions["job_notices"]
    return listener


@bp.get("/jobs/<job_id>/puzzles")
@spec.validate(query=PuzzlePageQuery, resp=Response(HTTP_200=PuzzleList, **ERRORS), tags=["jobs"])
def list_puzzles(job_id: str):
    """A job's puzzles with results, in batch order, a page at a time; with `?status=`, only those
    in the given statuses."""
    q: PuzzlePageQuery = request.context.query  # type: ignore[attr-defined]  # set by spectree
    with snapshot() as s:
        job = job_or_404(s, job_id)
        start = read_cursor(cursors.puzzle_index, q.cursor)
        rows, nxt = jobs.list_puzzles(s, job.id, q.limit, start, q.status)
        return PuzzleList(items=puzzles_out(s, rows), next_cursor=cursors.of_puzzle(nxt))


@bp.get("/jobs/<job_id>/puzzles/<int(signed=True):index>")
@spec.validate(resp=Response(HTTP_200=PuzzleOut, **ERRORS), tags=["jobs"])
def get_puzzle(job_id: str, index: int):
    """One puzzle of a job, by its index in the batch."""
    with snapshot() as s:
        job = job_or_404(s, job_id)
        puzzle = jobs.get_puzzle(s, job.id, index)
        if puzzle is None:
            raise Problem(404, "Not Found", f"job {job_id!r} has no puzzle {index}; it has {job.total}")
        return puzzles_out(s, [puzzle])[0]


def puzzles_out(s: Session, rows: list[Puzzle]) -> list[PuzzleOut]:
    """The puzzles as the API shows them, their results read from their blocks."""
    found = blocks.answers(s, rows)
    return [PuzzleOut.of(p, *found[p.id]) for p in rows]


@bp.post("/jobs/<job_id>/cancel")
@spec.validate(resp=Response(HTTP_202=JobOut, **ERRORS), tags=["jobs"])
def cancel_job(job_id: str):
    """Cancel every unfinished puzzle of the job; running solvers stop at their next check."""
    with sessions() as s, s.begin():
        job = job_or_404(s, job_id)
        job_ends.cancel_job(s, job)
    with one_read() as s:
        return _describe_or_404(s, job.id), 202, _poll_headers(job.id)


@bp.post("/jobs/<job_id>/retry")
@spec.validate(json=RetryIn, resp=Response(HTTP_202=JobOut, HTTP_409=ProblemOut, **BODY_ERRORS),
               skip_validation=True, tags=["jobs"])
def retry_job(job_id: str):
    """Put the job's failed and cancelled puzzles (or those at `indexes`) back in the queue, each
    with its options merged with `options`; the job runs again.

    An index the job does not have, or bad options, is 422; a puzzle at `indexes` that is not
    failed or cancelled is 409; puzzles that would pass the client's cap on unfinished puzzles or
    its budget of predicted CPU seconds are 429. Either way nothing changes.
    """
    body = _retry_body()
    retry_job_puzzles(job_id, body)
    with one_read() as s:
        return _describe_or_404(s, job_id), 202, _poll_headers(job_id)


def retry_job_puzzles(job_id: str, body: RetryIn) -> int:
    """The retry of one job (its puzzles back in the queue, published); how many. Problems as
    ``retry_job`` answers them."""
    config = settings()
    limits = Limits.of(config.limits)
    cap = config.costs.max_puzzle_cpu_seconds
    dear = pricing.dear_seconds(config.time.puzzle_time_limit, cap)

    def rechecking(s: Session) -> retry.Recheck:
        """The recheck of the retry in ``s``: an item of options its kind does not model is signed
        and priced as a POST's is (store.pricing), from what ``s`` reads."""
        learned: dict[str, tuple[int, float, float] | None] = {}

        def recheck(index: int, kind_name: str, wire: Any,
                    options: dict[str, Any]) -> tuple[dict[str, Any], solvers.Estimate, str | None]:
            try:
                item = {"kind": kind_name, "puzzle": wire, "options": options}
                kind, puzzle, checked = solvers.prepare_item(item)
                limits.check(kind.name, wire, checked)
            except solvers.PuzzleError as exc:
                raise invalid([{"index": index, "field": exc.field, "message": str(exc)}]) from None
            estimate, sig = kind.predict(puzzle, checked), prices.signature_of(kind, kind_name, checked)
            if sig is not None:
                if sig not in learned:
                    learned[sig] = pricing.learned(s, [sig]).get(sig)
                estimate = pricing.price(estimate, learned[sig], dear)
            if sig is None and factory.is_made(checked) and estimate.seconds > config.time.puzzle_time_limit:
                raise _made_over_time_limit({index: estimate.seconds}, config.time.puzzle_time_limit,
                                            "nothing changed", f"options.{factory.GENERATE}")
            if cap > 0 and not body.accept_cost and estimate.seconds > cap:
                raise _over_cap([(index, estimate.seconds)], cap, "a retry", "nothing changed")
            return checked, estimate, sig
        return recheck

    try:
        with sessions() as s, s.begin():
            job = job_or_404(s, job_id)
            retried = retry.retry_puzzles(s, job, body.indexes, body.options, rechecking(s),
                                         queued_stale_seconds=config.recovery.queued_stale_seconds,
                                         max_pending=config.limits.max_pending_puzzles,
                                         budget=config.costs.budget_of(job.owner))
    except retry.NoSuchPuzzle as exc:
        raise invalid([{"index": exc.index, "field": "indexes", "message": str(exc)}]) from None
    except retry.NotRetryable as exc:
        raise Problem(409, "Conflict", str(exc), index=exc.index, puzzle_status=exc.status) from None
    except jobs.Backlogged as exc:
        raise Problem(429, "Too Many Requests",
                      f"{exc.pending} of your puzzles are still unfinished; the limit is {exc.limit}",
                      headers={"Retry-After": "10"}) from None
    except submit.OverBudget as exc:  # nothing changed: the transaction rolled back
        raise over_budget(exc, "indexes") from None
    if retried.puzzles:
        ids, costs = [i for i, _ in retried.puzzles], [c for _, c in retried.puzzles]
        _publish(lambda publisher, made: publish_in_lanes(
            publisher, made, config.lanes, submit.chunks_of(ids, costs, config.lanes),
            job_rank(retried.rank, sum(costs), config.lanes), queued=retried.queued,
            quantum=config.costs.dear_share_seconds), job_id, ids, [])
    return len(retried.puzzles)


def _publish(send: Callable[[Publisher, sessionmaker[Session]], None], job_id: str, puzzles: list[int],
             chunks: list[int]) -> None:
    """Publish committed rows of job ``job_id`` (``send``, through the publisher and the
    sessionmaker it is given; each task names the job, so that the workers drop it unclaimed once the
    job is cancelled, store.cancelled) within SUBMIT_PUBLISH_SECONDS; what is left the reaper
    publishes (store.handover). The answer is the same either way: the rows are stored."""
    made = current_app.extensions["sessions"]
    publisher = for_job(current_app.extensions["publisher"], job_id)
    publish_within(settings().http.submit_publish_seconds, publisher, made,
                   lambda publisher: send(publisher, made), puzzles, chunks)


def _retry_body() -> RetryIn:
    """The retry's body: none (or empty) retries every failed and cancelled puzzle as it was."""
    if not request.content_length and "Transfer-Encoding" not in request.headers:
        return RetryIn()
    return json_body(RetryIn)


def json_body(model: type[Model]) -> Model:
    """The request's body as ``model``: 400 unless it is a JSON object, 422 naming each bad field."""
    body = read_json()
    if not isinstance(body, dict):
        raise Problem(400, "Bad Request", f"the body must be a JSON object, not a {type(body).__name__}")
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise invalid(item_errors(exc.errors())) from None


@bp.delete("/jobs/<job_id>")
@spec.validate(resp=Response("HTTP_204", HTTP_409=ProblemOut, **ERRORS), tags=["jobs"])
def delete_job(job_id: str):
    """Delete a finished (completed or cancelled) job with its puzzles and results; an unfinished
    one is 409: cancel it first."""
    with sessions() as s, s.begin():
        job = job_or_404(s, job_id)
        unfinished = job_ends.delete_job(s, job)
        if unfinished is not None:
            raise Problem(409, "Conflict", f"job {job_id!r} is {unfinished}; cancel it first, then delete it",
                          job_status=unfinished)
    return "", 204


@bp.get("/openapi.json")
@auth.public
def openapi():
    """The OpenAPI 3 document (also browsable at /api/v1/docs/swagger/)."""
    return spec.spec


@bp.get("/kinds")
@auth.public
@spec.validate(resp=Response(HTTP_200=KindList, HTTP_429=ProblemOut), tags=["kinds"])
def kinds():
    """Every registered kind: input format, options with defaults and limits, result and stats fields."""
    limits = Limits.of(settings().limits)
    return KindList(items=[{**k.describe(), "service_limits": limits.for_kind(k.name)}
                           for k in solvers.KINDS.values()])
