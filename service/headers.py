"""Headers on every answer against framing, type sniffing and leaked addresses: a Content Security
Policy per kind of answer (the web page, the API documentation pages, everything else), with
X-Frame-Options for older browsers, nosniff and no referrer."""

from __future__ import annotations

from flask import Flask, Response, request

# The web page loads its own scripts, styles and pictures only; nothing may frame it.
PAGE = ("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'")
# Swagger's and Redoc's pages (spectree, served offline) start themselves with inline scripts.
DOCS = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
# JSON, problem documents, metrics: nothing to run or load.
DATA = "default-src 'none'; frame-ancestors 'none'"
DOCS_PREFIX = "/api/v1/docs/"


def _secure(response: Response) -> Response:
    html = response.mimetype == "text/html"
    if request.path.startswith(DOCS_PREFIX):
        policy = DOCS
    else:
        policy = PAGE if html or request.path.startswith("/static/") else DATA
    response.headers.setdefault("Content-Security-Policy", policy)
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


def init_app(app: Flask) -> None:
    app.after_request(_secure)
