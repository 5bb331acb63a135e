"""Errors of the client: each carries the service's problem document (RFC 9457) when there is one."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """The service answered with an error status; ``problem`` is its problem+json body."""

    def __init__(self, status: int, problem: dict[str, Any], retry_after: float | None = None) -> None:
        self.status = status
        self.problem = problem
        self.retry_after = retry_after  # seconds, from a Retry-After header
        super().__init__(f"{status} {problem.get('title', '')}: {problem.get('detail', '')}".strip(": "))

    @property
    def errors(self) -> list[dict[str, Any]]:
        """``[{index, field, message}]`` of a 422."""
        return list(self.problem.get("errors") or [])


class InvalidRequest(ApiError):
    """422: the batch (or a query parameter) was refused and nothing was stored."""


class Unauthorized(ApiError):
    """401: the service wants a token (``--token`` or ``$PUZZLE_QUEUE_TOKEN``)."""


class Forbidden(ApiError):
    """403: the token is valid, but not for this: the fleet view wants an operator's token."""


class NotFound(ApiError):
    """404: no such job for this client."""


class Conflict(ApiError):
    """409: the job is not finished (delete it after a cancel), or an Idempotency-Key was reused with
    another body."""


class TooLarge(ApiError):
    """413: the body or the batch is over the service's limit."""


class Busy(ApiError):
    """429 or 503: try again later (``retry_after`` seconds, when the service said)."""


BY_STATUS: dict[int, type[ApiError]] = {401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict,
                                        413: TooLarge, 422: InvalidRequest, 429: Busy, 503: Busy}


def error_for(status: int, problem: dict[str, Any], retry_after: float | None = None) -> ApiError:
    return BY_STATUS.get(status, ApiError)(status, problem, retry_after)
