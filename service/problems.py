"""RFC 9457 problem details: every error the API returns, in one shape."""

from __future__ import annotations

from typing import Any

from flask import Response, json
from werkzeug.exceptions import HTTPException

PROBLEM_JSON = "application/problem+json"
# A 422 lists this many of its errors and counts the rest in ``errors_omitted``: a 60 KB body of
# bad items would otherwise be answered with megabytes of messages.
ERRORS_SHOWN = 100


class Problem(Exception):
    """Raise anywhere in a request; the app turns it into a problem+json response."""

    def __init__(self, status: int, title: str, detail: str = "", headers: dict[str, str] | None = None,
                 **extra: Any):
        super().__init__(detail or title)
        self.status, self.title, self.detail = status, title, detail
        self.headers = headers or {}
        errors = extra.get("errors")
        if errors is not None and len(errors) > ERRORS_SHOWN:
            extra = {**extra, "errors": errors[:ERRORS_SHOWN], "errors_omitted": len(errors) - ERRORS_SHOWN}
        self.extra = extra

    def response(self) -> Response:
        body = {"type": "about:blank", "title": self.title, "status": self.status}
        if self.detail:
            body["detail"] = self.detail
        body.update(self.extra)
        resp = Response(json.dumps(body), status=self.status, mimetype=PROBLEM_JSON)
        for key, value in self.headers.items():
            resp.headers[key] = value
        return resp


def invalid(errors: list[dict[str, Any]], method: str = "POST") -> Problem:
    """422 naming every bad item (a POST's body) or query parameter (a GET's, which stores nothing
    anyway); a POST whose faults are in fields of the body, not in its items, names those fields."""
    n = len({e["index"] for e in errors if e.get("index") is not None}) or len(errors)
    if method != "POST":
        detail = f"{n} invalid parameter(s)"
    elif not errors or any(e.get("index") is not None for e in errors):
        detail = f"{n} invalid item(s); nothing was stored"
    else:
        detail = f"{_fields(errors)}; nothing was stored"
    return Problem(422, "Invalid request", detail, errors=errors)


def _fields(errors: list[dict[str, Any]]) -> str:
    """The body's bad fields: one with its message (``callback_url: host 'x' is not ...``), several
    by name (``invalid label, callback_url``)."""
    if len(errors) > 1:
        return "invalid " + ", ".join(dict.fromkeys(str(e.get("field")) for e in errors))
    field, message = str(errors[0].get("field")), str(errors[0].get("message"))
    return message if message.startswith(field) else f"{field}: {message}"


def from_http_exception(exc: HTTPException) -> Problem:
    # werkzeug's own headers, such as a 405's Allow; the body and its type are ours.
    headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
    if exc.code in (429, 503):
        headers["Retry-After"] = "1"
    return Problem(exc.code or 500, exc.name, exc.description or "", headers=headers)
