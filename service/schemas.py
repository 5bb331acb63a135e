"""Request and response models: they validate requests and generate the OpenAPI document.

A batch item is checked by the solver registry inside its model validator, so the
pydantic error list of a batch is the list of every bad item, each with its index.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

import solvers
from service.problems import ERRORS_SHOWN
from store import costs, events
from store.jobs import JobState
from store.models import JOB_STATUSES, PUZZLE_STATUSES, RUNNING, Puzzle, iso_time
from store.settings import Limits as LimitSettings

JobStatus = Literal[JOB_STATUSES]  # type: ignore[valid-type]
PuzzleStatus = Literal[PUZZLE_STATUSES]  # type: ignore[valid-type]


class Limits(BaseModel):
    """The service's caps on a single item (below each kind's own maxima)."""

    max_puzzle_bytes: dict[str, int] = {"default": 20000}
    option_limits: dict[str, float] = {}
    max_generate: int = 10_000

    @classmethod
    def of(cls, limits: LimitSettings) -> Limits:
        return cls(max_puzzle_bytes=dict(limits.max_puzzle_bytes), option_limits=dict(limits.option_limits),
                   max_generate=limits.max_generate)

    def for_kind(self, kind: str) -> dict[str, Any]:
        """What /kinds tells users about this service's caps on the kind."""
        prefix = f"{kind}."
        return {"max_puzzle_bytes": self.max_puzzle_bytes.get(kind, self.max_puzzle_bytes["default"]),
                "options": {k[len(prefix):]: v for k, v in self.option_limits.items()
                            if k.startswith(prefix)}}

    def check(self, kind: str, puzzle: Any, options: dict[str, Any]) -> None:
        self.check_size(kind, puzzle)
        self.check_options(kind, options)

    def check_size(self, kind: str, puzzle: Any) -> None:
        cap = self.max_puzzle_bytes.get(kind, self.max_puzzle_bytes["default"])
        # json.dumps writes a character as at most 12 bytes (a surrogate pair's two \uXXXX), so
        # a string that short needs no encoding to be within the cap.
        if type(puzzle) is str and 12 * len(puzzle) + 2 <= cap:
            return
        size = len(json.dumps(puzzle))
        if size > cap:
            raise solvers.InvalidPuzzle(f"a {kind} puzzle may be at most {cap} bytes of JSON; "
                                        f"this one is {size}")

    def check_options(self, kind: str, options: dict[str, Any]) -> None:
        for name, value in options.items():
            limit = self.option_limits.get(f"{kind}.{name}")
            if limit is not None and isinstance(value, (int, float)) and value > limit:
                raise solvers.InvalidOption(f"option '{name}' is limited to {limit:g} on this service; "
                                            f"got {value}")


class PuzzleItem(BaseModel):
    """A puzzle to solve (kind, puzzle, options), or puzzles to make (kind, generate): puzzle i of
    a generate item is stored as the puzzle i with the options {"generate": the request}."""

    model_config = ConfigDict(extra="forbid",
                              json_schema_extra={"example": {"kind": "nqueens", "puzzle": {"n": 8}}})

    kind: str = Field(description="a kind listed by GET /api/v1/kinds")
    puzzle: Any = Field(None, description="the puzzle in the kind's input format (not with generate)")
    options: dict[str, Any] | None = Field(None, description="the kind's options; defaults fill in the rest")
    generate: dict[str, Any] | None = Field(
        None, description="instead of puzzle and options: make `count` puzzles (at most MAX_GENERATE) "
                          "with the kind's generate options (GET /api/v1/kinds), one stored puzzle each",
        json_schema_extra={"example": {"count": 100, "difficulty": "hard", "symmetry": "rotational",
                                       "seed": 7}})
    _options: dict[str, Any] = PrivateAttr(default_factory=dict)
    _estimate: solvers.Estimate = PrivateAttr(default=solvers.Estimate(0.0))
    _count: int = PrivateAttr(default=0)

    @model_validator(mode="after")
    def _check_with_registry(self, info: ValidationInfo) -> PuzzleItem:
        limits = (info.context or {}).get("limits") or Limits()
        item = self.model_dump(exclude_unset=True)
        try:
            if "generate" in item:
                kind, self._count, options = solvers.read_generate_item(item, limits.max_generate)
                puzzle: Any = 0
            else:
                kind, puzzle, options = solvers.prepare_item(item)
                limits.check(kind.name, self.puzzle, options)
        except solvers.PuzzleError as exc:
            raise PydanticCustomError("puzzle_item", "{message}", {"message": str(exc), "field": exc.field}) \
                from None
        self._options = options
        self._estimate = kind.predict(puzzle, options)
        return self

    def stored(self) -> list[tuple[Any, dict[str, Any], solvers.Estimate]]:
        """(puzzle, options with every default filled in, prediction) of each row it stores: one
        for a puzzle, ``count`` for a generate item (its indexes)."""
        if self.generate is not None:
            return [(i, self._options, self._estimate) for i in range(self._count)]
        return [(self.puzzle, self._options, self._estimate)]


class Envelope(BaseModel):
    """A batch with its items not yet looked at (service.batches checks them in bulk)."""

    model_config = ConfigDict(extra="forbid")

    label: str | None = Field(None, max_length=500, pattern=r"^[^\x00]*$",
                              description="free text, up to 500 characters")
    callback_url: str | None = Field(
        None, description="an http or https URL on a host this service allows (WEBHOOK_ALLOWED_HOSTS): "
                          "the job's summary is POSTed there, signed, when the job ends")
    accept_cost: bool = Field(False, description="accept puzzles predicted above the service's cap "
                                                 "(MAX_PUZZLE_CPU_SECONDS); the client's budget still holds")
    puzzles: list[Any] = Field(min_length=1)


class JobSubmit(Envelope):
    puzzles: list[PuzzleItem] = Field(min_length=1)


class SubmitHeaders(BaseModel):
    """Documents the optional header of POST /jobs (checked in the view)."""

    idempotency_key: str | None = Field(
        # The view refuses what str.isprintable refuses; a header's characters are Latin-1.
        None, alias="Idempotency-Key", min_length=1, max_length=200,
        pattern=r"^[\x20-\x7e\xa1-\xac\xae-\xff]+$",
        description="the same key with the same body returns the original job (200); "
                    "with another body it is 409")


class Counts(BaseModel):
    queued: int = 0
    running: int = 0
    solved: int = 0
    no_solution: int = 0
    failed: int = 0
    cancelled: int = 0


class JobOut(BaseModel):
    id: str
    status: JobStatus
    label: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    total: int
    counts: Counts
    progress: float = Field(
        description="fraction of the job's work done, each puzzle weighted by its predicted seconds (a split "
                    "puzzle's parts by their share of them); by count of puzzles in a final state for a job "
                    "stored without predictions")
    estimated_seconds_total: float | None = Field(
        None, description="predicted CPU seconds of all its puzzles (sum of their estimated_seconds)")
    estimated_seconds_done: float | None = Field(
        None, description="predicted CPU seconds of its finished work (what progress counts)")
    eta_seconds: float | None = Field(
        None, description="seconds until it ends at the rate its work has gone since it started (predicted "
                          "seconds done per wall second), no less than its dear work's wait in the dear "
                          "lane; before any work is done, predicted from the work queued ahead and its own "
                          "over the workers; 0 once ended, null in the answer to the POST")
    eta_range: list[float] | None = Field(
        None, description="[low, high] seconds: the band around eta_seconds, from the predictions' range "
                          "of the work left")

    @classmethod
    def of(cls, job: JobState) -> JobOut:
        return cls(**job.summary())


class JobList(BaseModel):
    items: list[JobOut]
    next_cursor: str | None


class PuzzleOut(BaseModel):
    index: int
    kind: str
    status: PuzzleStatus
    result: dict[str, Any] | None
    stats: dict[str, Any] | None
    error: str | None
    attempts: int
    started_at: str | None
    finished_at: str | None
    subtasks: dict[str, int] | None = Field(None, description="{done, total} while a split puzzle runs")
    progress: float | None = Field(
        None, description="while a whole puzzle runs: the share of its search done, 0 to 1, as its solver "
                          "last reported it (long n-Queens counts and estimates)")
    puzzle: Any = Field(None, description="the puzzle as it was submitted")
    options: dict[str, Any] | None = Field(None,
                                           description="the options it is solved with, defaults filled in")
    estimated_seconds: float | None = Field(None, description="its predicted CPU seconds when accepted")
    estimated_range: list[float] | None = Field(
        None, description="[low, high]: the predicted CPU seconds the truth is expected between")
    estimate_basis: str | None = Field(None, description="what the prediction rests on, e.g. typical; "
                                                         "unmeasured or measured: a price (docs/API.md)")
    cpu_seconds: float | None = Field(
        None, description="the CPU seconds measured of its solves so far, every attempt and part; null "
                          "while none was measured on its own (queued, or solved in a run of cheap puzzles)")

    @classmethod
    def of(cls, p: Puzzle, result: dict[str, Any] | None, stats: dict[str, Any] | None) -> PuzzleOut:
        """A puzzle's row, with its result and stats as read from its block (store.blocks)."""
        split = p.parts_total and p.status == RUNNING
        parts = {"done": p.parts_done, "total": p.parts_total} if split else None
        share = p.progress if p.status == RUNNING and not p.parts_total else None
        return cls(index=p.index, kind=p.kind, status=p.status, result=result, stats=stats,
                   error=p.error, attempts=p.attempts, started_at=iso_time(p.started_at),
                   finished_at=iso_time(p.finished_at), subtasks=parts, progress=share, puzzle=p.input,
                   options=p.options, cpu_seconds=None if p.cpu_seconds is None else round(p.cpu_seconds, 6),
                   **costs.of_puzzle(p.estimated_seconds, p.estimate_factor, p.estimate_basis))


class PuzzleList(BaseModel):
    items: list[PuzzleOut]
    next_cursor: str | None


class PageQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(100, ge=1, le=1000)
    cursor: str | None = Field(None, min_length=1, description="the next_cursor of the previous page")


class JobListQuery(PageQuery):
    status: JobStatus | None = None
    label: str | None = Field(None, min_length=1, max_length=200,
                              description="only jobs whose label holds this text (any case)")


class PuzzleStatusFilter(BaseModel):
    """``?status=``: puzzles in any of these statuses; repeated (``status=failed&status=cancelled``)
    or comma-separated (``status=failed,cancelled``)."""

    model_config = ConfigDict(extra="forbid")

    status: list[PuzzleStatus] | None = Field(
        None, description="only puzzles in one of these statuses (repeat it, or separate them by commas)")

    @field_validator("status", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if value is None:
            return None
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            return value  # pydantic says what is wrong
        out = [part.strip() for v in values for part in v.split(",") if part.strip()]
        for one in out:
            if one not in PUZZLE_STATUSES:
                raise PydanticCustomError(
                    "puzzle_status", "{message}",
                    {"field": "status", "message": f"unknown puzzle status {_clipped(one)!r}; "
                                                   f"one of {', '.join(PUZZLE_STATUSES)}"})
        return list(dict.fromkeys(out)) or None


class PuzzlePageQuery(PageQuery, PuzzleStatusFilter):
    pass


class EventPageQuery(PageQuery):
    index: int | None = Field(None, ge=0, le=2**31 - 1,
                              description="only the events of the puzzle at this index (and the job's own)")


class EventOut(BaseModel):
    at: str
    type: Literal[events.ORDER] = Field(  # type: ignore[valid-type]
        description="what happened (docs/API.md, \"Events\")")
    index: int | None = Field(description="the first puzzle it concerns; null: the job as a whole")
    last_index: int | None = Field(description="the last puzzle of the run it concerns (a chunk's)")
    part: int | None = Field(None, description="the part of a split puzzle it concerns")
    worker: str | None = Field(None, description="the worker that claimed it, or held it when it was lost")
    attempt: int | None = Field(None, description="the attempt number of that claim")
    detail: dict[str, Any] = Field(default_factory=dict, description="what else the event says, by type")

    @classmethod
    def of(cls, e: events.Event) -> EventOut:
        return cls(at=iso_time(e.at) or "", type=e.type, index=e.first, last_index=e.last, part=e.part,
                   worker=e.worker, attempt=e.attempt, detail=e.detail)


class EventList(BaseModel):
    items: list[EventOut]
    next_cursor: str | None


class RetryIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "example": {"indexes": [3, 7], "options": {"strategy": "sat"}}})

    indexes: list[int] | None = Field(
        None, min_length=1,
        description="the failed or cancelled puzzles to retry (default: every one of the job's)")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="options merged into each puzzle's before it runs again, key by key at every depth "
                    "(an object into the stored object; null: the default again)")
    accept_cost: bool = Field(False, strict=True,
                              description="accept puzzles predicted above the service's cap "
                                          "(MAX_PUZZLE_CPU_SECONDS), as a job's accept_cost; the "
                                          "client's budget still holds")


class BulkIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "example": {"action": "retry", "status": "completed", "label": "nightly"}})

    action: Literal["cancel", "retry", "delete"] = Field(
        description="cancel unfinished jobs; retry the failed and cancelled puzzles of jobs; delete "
                    "finished jobs")
    status: JobStatus | None = Field(None, description="only jobs in this status")
    label: str | None = Field(None, min_length=1, max_length=200,
                              description="only jobs whose label holds this text (any case)")
    limit: int = Field(100, ge=1, le=1000, description="at most this many jobs, oldest first")


class BulkSkipped(BaseModel):
    id: str
    reason: str


class BulkOut(BaseModel):
    action: str
    done: list[str] = Field(description="the jobs the action was applied to")
    skipped: list[BulkSkipped] = Field(description="jobs that matched but the action left, and why")
    more: bool = Field(description="more jobs match than the limit took: send the request again")


class AttemptOut(BaseModel):
    number: int
    at: str
    status: int | None = Field(description="the HTTP status the callback answered; null: none came")
    error: str | None = Field(description="why no answer came, or what the answer was")
    ms: float = Field(description="milliseconds the attempt took")


class DeliveryOut(BaseModel):
    id: int
    url: str
    state: Literal["due", "delivered", "failed"] = Field(
        description="due: an attempt is owed at next_attempt_at; delivered: a 2xx came back; "
                    "failed: given up, WEBHOOK_RETRY_SECONDS after the job ended")
    ended_at: str = Field(description="the job's finished_at this delivery reports")
    attempts: list[AttemptOut]
    next_attempt_at: str | None
    delivered_at: str | None


class DeliveryList(BaseModel):
    items: list[DeliveryOut]


class WebhookSecretOut(BaseModel):
    secret: str = Field(description="the client's key: X-Signature is sha256=<hex HMAC-SHA256 of the exact "
                                    "body under this key>")
    header: str = "X-Signature"
    algorithm: str = "HMAC-SHA256"


class WebhookTestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    callback_url: str = Field(description="the URL to try, as a job's callback_url would name it")


class WebhookTestOut(BaseModel):
    callback_url: str
    delivered: bool = Field(description="a 2xx came back: a job's delivery to this URL would be accepted")
    status: int | None = Field(description="the HTTP status the URL answered; null: none came")
    error: str | None = Field(description="why no answer came, or what the answer was; null when delivered")
    ms: float = Field(description="milliseconds the attempt took")
    delivery_id: int = Field(description="the X-Delivery-Id sent: 0, which no job's delivery has")
    body: str = Field(description="the exact body sent, a completed job's summary marked \"test\": true")


class KindOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: str
    summary: str
    input: str
    options: dict[str, Any]
    result: dict[str, str]
    stats: dict[str, str]
    example: dict[str, Any]
    generate: dict[str, Any] | None = Field(
        None, description="the kind's generate options ({options, result}) or null for a kind that does not "
                          "make puzzles; a generate item's `count` is beside them")
    hints: bool = Field(False, description="whether POST /api/v1/hint gives the kind's next steps")
    service_limits: dict[str, Any] = Field(description="this service's caps: puzzle JSON size, option maxima")


class KindList(BaseModel):
    items: list[KindOut]


class ItemError(BaseModel):
    index: int | None
    field: str
    message: str
    estimated_seconds: float | None = Field(None, description="an item refused for its predicted cost: the "
                                                              "CPU seconds predicted")


class ProblemOut(BaseModel):
    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    errors: list[ItemError] | None = Field(None, description=f"the first {ERRORS_SHOWN} errors")
    errors_omitted: int | None = Field(None, description=f"errors past the first {ERRORS_SHOWN}, not listed")
    max_puzzle_cpu_seconds: float | None = Field(None, description="422 for a puzzle's predicted cost: "
                                                                   "the cap")
    estimated_seconds: float | None = Field(None, description="429 (or 422, above the whole budget) for a "
                                                              "client's budget: the batch's predicted CPU "
                                                              "seconds")
    puzzle_time_limit: float | None = Field(None, description="422 for a generate item predicted above the "
                                                              "seconds one puzzle may run: that limit")
    budget: float | None = Field(None, description="429 or 422 for a client's budget: its CPU seconds")
    budget_left: float | None = Field(None, description="429 or 422 for a client's budget: what its "
                                                        "unfinished work leaves of it")



# The most characters of a field's name or an error's message in a 422: what a client sent is
# quoted in some messages (an unknown kind or option), and a huge one is not sent back whole.
QUOTED_MAX = 200


def _clipped(text: str) -> str:
    cut = len(text) - QUOTED_MAX
    return text if cut <= 0 else f"{text[:QUOTED_MAX]}... ({cut} more characters)"


def item_errors(errors: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """pydantic errors of a JobSubmit -> ``[{index, field, message}]``, one per bad item or field."""
    out = []
    for err in errors:
        loc = list(err["loc"])
        index = loc[1] if len(loc) > 1 and loc[0] == "puzzles" and isinstance(loc[1], int) else None
        rest = [str(p) for p in loc[2 if index is not None else 0:]]
        ctx = err.get("ctx") or {}
        field = ctx.get("field") or (".".join(rest) if rest else ("item" if index is not None else "body"))
        message = err["msg"]
        if err["type"] == "missing":
            message = f"missing field {field!r}"
        elif err["type"] == "extra_forbidden":
            message = f"unknown field {field!r}"
        elif err["type"] != "puzzle_item" and rest:
            message = f"{field}: {message}"
        out.append({"index": index, "field": _clipped(field), "message": _clipped(message)})
    return out
