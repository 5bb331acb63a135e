"""The Python API of puzzle-queue: HTTP calls to the service, nothing else.

    from client import Client
    c = Client("http://127.0.0.1:8000", token=None)
    job = c.submit([{"kind": "nqueens", "puzzle": {"n": 8}}], label="try")
    job = c.wait(job, on_progress=print)
    for row in c.results(job):          # every result in batch order, streamed
        print(row["index"], row["status"], row["result"])
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Self, TypeVar
from urllib.parse import quote

import httpx

from client.errors import ApiError, TooLarge, error_for

DEFAULT_URL = "http://127.0.0.1:8000"
FINAL_JOB = ("completed", "cancelled")
Job = dict[str, Any]
JobRef = Job | str
T = TypeVar("T")


def job_id(job: JobRef) -> str:
    return job if isinstance(job, str) else str(job["id"])


def valid_signature(secret: str, body: bytes, header: str | None) -> bool:
    """Whether a callback's ``X-Signature`` header is the service's signature of ``body`` (the
    exact bytes received) under this client's secret (:meth:`Client.webhook_secret`)."""
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return header is not None and hmac.compare_digest(expected, header)


REPLAY_WINDOW = 300.0  # seconds a callback's timestamp may be away from the receiver's clock


def valid_timestamped_signature(secret: str, body: bytes, headers: Mapping[str, str],
                                window: float = REPLAY_WINDOW, at: float | None = None) -> bool:
    """Whether a callback's ``X-Puzzle-Queue-Signature`` signs its ``X-Puzzle-Queue-Timestamp``,
    ``X-Puzzle-Queue-Delivery`` and ``body`` (the exact bytes received) under this client's secret,
    with the timestamp within ``window`` seconds of ``at`` (now): an old request replayed fails.
    ``headers``: the request's, looked up case-insensitively. Keep the delivery ids seen within
    the window to refuse a replay inside it too."""
    found = {name.lower(): value for name, value in headers.items()}
    stamp = found.get("x-puzzle-queue-timestamp")
    delivery = found.get("x-puzzle-queue-delivery")
    header = found.get("x-puzzle-queue-signature")
    if stamp is None or delivery is None or header is None or not stamp.isdigit():
        return False
    if abs((time.time() if at is None else at) - int(stamp)) > window:
        return False
    signed = f"{stamp}.{delivery}.".encode() + body
    expected = "v1=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


class PatientTransport(httpx.BaseTransport):
    """Waits out the service's short rate-limit pauses: a 429 whose ``Retry-After`` is at most
    ``MAX_PAUSE`` seconds is sent again after that pause, ``RETRIES`` times at most. A longer
    pause (a per-minute limit, too many unfinished puzzles) is the caller's: it raises Busy."""

    MAX_PAUSE = 5
    RETRIES = 5

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        for _ in range(self.RETRIES):
            resp = self.inner.handle_request(request)
            pause = resp.headers.get("Retry-After", "")
            if resp.status_code != 429 or not pause.isdigit() or int(pause) > self.MAX_PAUSE:
                return resp
            resp.close()
            time.sleep(int(pause))
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


class Client:
    """One service, one token. Errors raise :class:`client.errors.ApiError` subclasses."""

    def __init__(self, url: str = DEFAULT_URL, token: str | None = None, *, timeout: float = 30.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.http = httpx.Client(base_url=self.url + "/api/v1", headers=headers, timeout=timeout,
                                 transport=PatientTransport(transport or httpx.HTTPTransport()))

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing

    def _pages(self, path: str, params: dict[str, Any]) -> Iterator[Any]:
        """The items of every page of a paged GET, following ``next_cursor``."""
        while True:
            page = self._call("GET", path, params=params)
            yield from page["items"]
            if not page["next_cursor"]:
                return
            params["cursor"] = page["next_cursor"]

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        resp = self.http.request(method, path, **kw)
        if resp.status_code >= 400:
            raise _error(resp)
        return resp.json()

    # -- jobs

    def submit(self, items: Sequence[dict[str, Any]], label: str | None = None,
               callback_url: str | None = None, accept_cost: bool = False) -> Job:
        """One job of these items ``{"kind", "puzzle", "options"}``; raises InvalidRequest naming
        every bad item (nothing is stored). A fresh Idempotency-Key makes the retry of a request
        whose answer was lost safe: it returns the same job. ``callback_url``: where the service
        POSTs the job, signed, when it ends (see :func:`valid_signature`). ``accept_cost``: puzzles
        predicted above the service's cap (MAX_PUZZLE_CPU_SECONDS) are accepted, not refused."""
        body = _batch(items, accept_cost)
        if label is not None:
            body["label"] = label
        if callback_url is not None:
            body["callback_url"] = callback_url
        key = uuid.uuid4().hex
        attempt = 1
        while True:
            try:
                return dict(self._call("POST", "/jobs", json=body, headers={"Idempotency-Key": key}))
            except httpx.TransportError:
                if attempt == 3:
                    raise
                time.sleep(0.5 * attempt)
                attempt += 1

    def check(self, items: Sequence[dict[str, Any]], accept_cost: bool = False) -> dict[str, Any]:
        """Check a batch as submit would, storing nothing; raises InvalidRequest or TooLarge. Returns
        its predicted cost: ``puzzles``, ``estimated_seconds_total``, ``estimated_range_total`` and
        ``items`` (each one's ``estimated_seconds``, ``estimated_range``, ``estimate_basis``)."""
        return dict(self._call("POST", "/validate", json=_batch(items, accept_cost)))

    def validate(self, items: Sequence[dict[str, Any]], accept_cost: bool = False) -> dict[str, Any]:
        """:meth:`check` for any number of items: past the service's batch limit each part is
        checked, the answers joined as one (the errors' indices count from the first item)."""
        answers = self._in_parts(items, lambda parts: self._check_parts(parts, accept_cost))
        if len(answers) == 1:
            return answers[0]
        return {"puzzles": sum(a["puzzles"] for a in answers),
                "estimated_seconds_total": sum(a["estimated_seconds_total"] for a in answers),
                "estimated_range_total": [sum(a["estimated_range_total"][end] for a in answers)
                                          for end in (0, 1)],
                "items": [item for a in answers for item in a["items"]]}

    def submit_all(self, items: Sequence[dict[str, Any]], label: str | None = None,
                   callback_url: str | None = None,
                   on_job: Callable[[Job], None] | None = None, accept_cost: bool = False) -> list[Job]:
        """All the items, as one job or, past the service's batch limit, as several in order;
        ``on_job`` sees each job as soon as it is stored (so a caller stopped half-way knows them).

        Several jobs are stored only once every part has passed the service's checks, so a
        refused submission stores nothing; the errors' indices count from the first item."""

        def send(parts: list[Sequence[dict[str, Any]]]) -> list[Job]:
            if len(parts) > 1:
                self._check_parts(parts, accept_cost)
            jobs = []
            for part in parts:
                jobs.append(self.submit(part, label, callback_url, accept_cost))
                if on_job is not None:
                    on_job(jobs[-1])
            return jobs

        return self._in_parts(items, send)

    def _in_parts(self, items: Sequence[dict[str, Any]],
                  run: Callable[[list[Sequence[dict[str, Any]]]], T]) -> T:
        """``run`` of the items as one part, or, while the service answers TooLarge, cut into
        parts of its batch limit (or of half the size)."""
        size = len(items)
        while True:
            try:
                return run([items[i:i + size] for i in range(0, len(items), size)])
            except TooLarge as exc:
                limit = exc.problem.get("max_batch")
                size = int(limit) if isinstance(limit, int) and limit < size else size // 2
                if size < 1:
                    raise

    def _check_parts(self, parts: list[Sequence[dict[str, Any]]], accept_cost: bool) -> list[dict[str, Any]]:
        """Every part checked: their answers (predicted costs), or one 422 of every part's errors."""
        if len(parts) == 1:
            return [self.check(parts[0], accept_cost)]
        errors: list[dict[str, Any]] = []
        answers: list[dict[str, Any]] = []
        offset, refused = 0, None
        for part in parts:
            try:
                answers.append(self.check(part, accept_cost))
            except ApiError as exc:
                if exc.status != 422:
                    raise
                refused = exc
                errors += [{**e, "index": None if e.get("index") is None else e["index"] + offset}
                           for e in exc.errors]
            offset += len(part)
        if refused is not None:
            n = len({e["index"] for e in errors})
            raise error_for(422, {**refused.problem, "errors": errors,
                                  "detail": f"{n} invalid item(s); nothing was stored"})
        return answers

    def job(self, job: JobRef, wait: float = 0.0) -> Job:
        """The job's status and counts; with ``wait`` (seconds, at most 60) the service answers as
        soon as the job is final or the wait is over."""
        params = {"wait": wait} if wait else None
        return dict(self._call("GET", f"/jobs/{job_id(job)}", params=params, timeout=self.timeout + wait))

    def wait(self, job: JobRef, on_progress: Callable[[Job], None] | None = None,
             timeout: float | None = None, poll: float = 60.0) -> Job:
        """Until the job is completed or cancelled (or ``timeout`` seconds pass); each answer goes to
        ``on_progress``. The service holds each request until the job is final or ``poll`` seconds
        pass, so this makes one request a minute, or one per ``poll`` seconds for a progress bar."""
        report = None if on_progress is None else (lambda jobs: on_progress(jobs[0]))
        return self.wait_all([job], report, timeout, poll)[0]

    def wait_all(self, jobs: Sequence[JobRef], on_progress: Callable[[list[Job]], None] | None = None,
                 timeout: float | None = None, poll: float = 60.0) -> list[Job]:
        """:meth:`wait` for several jobs (a file sent in parts): the first unfinished one is waited
        on, the others looked at each round, and ``on_progress`` sees them all."""
        deadline = None if timeout is None else time.monotonic() + timeout
        current = [self.job(j) for j in jobs]
        while True:
            if on_progress is not None:
                on_progress(current)
            waiting = [i for i, j in enumerate(current) if j["status"] not in FINAL_JOB]
            left = poll if deadline is None else min(poll, deadline - time.monotonic())
            if not waiting or left <= 0:
                return current
            current[waiting[0]] = self.job(current[waiting[0]], wait=min(left, 60.0))
            for i in waiting[1:]:
                current[i] = self.job(current[i])

    def deliveries(self, job: JobRef) -> list[dict[str, Any]]:
        """The deliveries of the job's callback, one per time it ended, each with its attempts."""
        return list(self._call("GET", f"/jobs/{job_id(job)}/deliveries")["items"])

    def webhook_secret(self) -> str:
        """The key this client's callbacks are signed with (raises NotFound when callbacks are off)."""
        return str(self._call("GET", "/webhook-secret")["secret"])

    def test_webhook(self, callback_url: str) -> dict[str, Any]:
        """Send a sample callback to ``callback_url`` once, signed with this client's secret and
        checked against the service's allow-list as a job's delivery is: ``delivered`` (a 2xx came
        back), ``status``, ``error``, ``ms`` and the exact ``body`` sent (``delivery_id`` 0).
        :class:`InvalidRequest` naming ``callback_url`` for a URL a job could not name."""
        return dict(self._call("POST", "/webhooks/test", json={"callback_url": callback_url}))

    def cancel(self, job: JobRef) -> Job:
        return dict(self._call("POST", f"/jobs/{job_id(job)}/cancel"))

    def retry(self, job: JobRef, indexes: Sequence[int] | None = None,
              options: dict[str, Any] | None = None, accept_cost: bool = False) -> Job:
        """Put the job's failed and cancelled puzzles (or those at ``indexes``) back in the queue,
        their options merged with ``options`` key by key at every depth (``{"generate": {"seed": 2}}``
        changes only the seed; None puts an option back to its default); returns the job, running
        again. Raises Conflict for an index whose puzzle is not failed or cancelled, InvalidRequest
        for an unknown index, bad options or, without ``accept_cost``, a puzzle predicted above the
        service's cap (MAX_PUZZLE_CPU_SECONDS) (nothing changes then)."""
        body: dict[str, Any] = {}
        if indexes is not None:
            body["indexes"] = list(indexes)
        if options:
            body["options"] = dict(options)
        if accept_cost:
            body["accept_cost"] = True
        return dict(self._call("POST", f"/jobs/{job_id(job)}/retry", json=body))

    def delete_job(self, job: JobRef, cancel: bool = False) -> None:
        """Delete a finished job with its results; with ``cancel``, an unfinished one is cancelled
        first (otherwise it raises Conflict). Raises NotFound for an unknown job."""
        if cancel:
            self.cancel(job)
        resp = self.http.delete(f"/jobs/{job_id(job)}")
        if resp.status_code >= 400:
            raise _error(resp)

    def bulk(self, action: str, status: str | None = None, label: str | None = None,
             limit: int = 100) -> dict[str, Any]:
        """``action`` (cancel, retry or delete) on the client's jobs in ``status`` whose label holds
        ``label``, at most ``limit``, oldest first: ``{"done": [ids], "skipped": [{"id", "reason"}],
        "more": bool}``."""
        body = {"action": action, "limit": limit, **({"status": status} if status else {}),
                **({"label": label} if label else {})}
        return dict(self._call("POST", "/bulk", json=body))

    def jobs(self, status: str | None = None, limit: int = 100, label: str | None = None) -> Iterator[Job]:
        """The client's jobs, newest first, every page; with ``label``, those whose label holds it."""
        params: dict[str, Any] = {"limit": limit, **({"status": status} if status else {}),
                                  **({"label": label} if label else {})}
        yield from self._pages("/jobs", params)

    def puzzles(self, job: JobRef, limit: int = 100,
                status: str | Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
        """Every puzzle of the job with its input, status, result and stats, a page at a time;
        with ``status`` (one or several), only the puzzles in those statuses."""
        params: dict[str, Any] = {"limit": limit, **_statuses(status)}
        yield from self._pages(f"/jobs/{job_id(job)}/puzzles", params)

    # -- hints

    def hint(self, kind: str, puzzle: Any, placed: Any = None,
             candidates: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
        """The next easiest step from a position part-way through (``POST /api/v1/hint``): the
        givens ``puzzle`` and the values ``placed`` so far (the same wire form), with the
        candidates kept in each cell when given. The answer's ``status`` is ``step`` (``step``,
        ``band``), ``wrong`` (``wrong``: the placed values and candidates against the solution)
        or ``solved``; raises InvalidRequest naming the bad field. Nothing is stored."""
        body: dict[str, Any] = {"kind": kind, "puzzle": puzzle}
        if placed is not None:
            body["placed"] = placed
        if candidates is not None:
            body["candidates"] = [list(c) for c in candidates]
        return dict(self._call("POST", "/hint", json=body))

    # -- a job's history

    def events(self, job: JobRef, index: int | None = None, limit: int = 1000) -> Iterator[dict[str, Any]]:
        """The job's history, oldest first, a page at a time: submitted, claimed (by which worker),
        handed on, moved, split, left, retried, finished (with what), ended; with ``index``, the
        events of that puzzle and of the job (docs/API.md, "Events")."""
        params: dict[str, Any] = {"limit": limit, **({} if index is None else {"index": index})}
        yield from self._pages(f"/jobs/{job_id(job)}/events", params)

    def kinds(self) -> list[dict[str, Any]]:
        return list(self._call("GET", "/kinds")["items"])

    # -- the fleet, for operators (a token of ADMIN_TOKENS when the service sets tokens)

    def workers(self) -> dict[str, Any]:
        """Every worker process: lane, heartbeat age, what it holds, puzzles done in the last minute."""
        return dict(self._call("GET", "/workers"))

    def queues(self) -> dict[str, Any]:
        """Each lane's queue (depth, oldest message's age, live workers), and puzzles in and out."""
        return dict(self._call("GET", "/queues"))

    def drain(self, worker: str) -> dict[str, Any]:
        """Drain the `celery worker` of ``worker`` (a process's name or its Celery node name, as
        :meth:`workers` lists them): it finishes what it holds and takes nothing new. Answers
        ``{"name", "draining", "workers"}``; :class:`NotFound` for a name no worker has."""
        return dict(self._call("POST", f"/workers/{quote(worker, safe='@:')}/drain"))

    def undrain(self, worker: str) -> dict[str, Any]:
        """Let a drained worker take work again (as :meth:`drain`)."""
        return dict(self._call("POST", f"/workers/{quote(worker, safe='@:')}/undrain"))

    def failures(self, minutes: float = 60, kind: str | None = None, error: str | None = None,
                 limit: int = 100) -> list[dict[str, Any]]:
        """Failed puzzles of every job within the last ``minutes``, newest first; only of ``kind``,
        only those whose error holds ``error`` (any case), when given."""
        params = {"minutes": minutes, "limit": limit, **({"kind": kind} if kind else {}),
                  **({"error": error} if error else {})}
        return list(self._call("GET", "/failures", params=params)["items"])

    # -- results

    def export(self, job: JobRef, format: str = "jsonl",
               status: str | Sequence[str] | None = None) -> Iterator[str]:
        """The job's results as the service streams them, line by line with their line ends
        (CSV: the header first); with ``status``, only the puzzles in those statuses."""
        params = {"format": format, **_statuses(status)}
        with self.http.stream("GET", f"/jobs/{job_id(job)}/results", params=params) as resp:
            if resp.status_code >= 400:
                resp.read()
                raise _error(resp)
            rest = ""
            for chunk in resp.iter_text():
                lines = (rest + chunk).split("\n")
                rest = lines.pop()
                yield from (line + "\n" for line in lines)
            if rest:
                yield rest

    def results(self, job: JobRef, status: str | Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
        """Every result of the job in batch order: ``index``, ``kind``, ``status``, ``result``,
        ``stats``, ``error``; streamed, so a large job never sits in memory whole. With
        ``status`` (``"failed"``, or several), only the puzzles in those statuses."""
        for line in self.export(job, "jsonl", status):
            if line.strip():
                yield json.loads(line)


def _batch(items: Sequence[dict[str, Any]], accept_cost: bool) -> dict[str, Any]:
    """The body of a batch, ``accept_cost`` only when set."""
    return {"puzzles": list(items), **({"accept_cost": True} if accept_cost else {})}


def _statuses(status: str | Sequence[str] | None) -> dict[str, list[str]]:
    """The ``status`` query parameter, repeated once per status."""
    if not status:
        return {}
    return {"status": [status] if isinstance(status, str) else list(status)}


def _error(resp: httpx.Response) -> ApiError:
    try:
        problem = resp.json()
    except ValueError:
        problem = {"title": resp.reason_phrase, "status": resp.status_code, "detail": resp.text[:500]}
    if not isinstance(problem, dict):
        problem = {"title": resp.reason_phrase, "status": resp.status_code, "detail": str(problem)}
    retry = resp.headers.get("Retry-After")
    return error_for(resp.status_code, problem, float(retry) if retry and retry.isdigit() else None)
