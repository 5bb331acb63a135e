"""The web pages: the client's jobs with live progress, the submit and generate forms, each job's
puzzles drawn, a job's printable sheet; and the operators' fleet view (/ops).

Server-side only four pages of HTML; the data comes from the JSON API itself, fetched by a
little plain JavaScript (service/static), which also carries the token when API_TOKENS is
set (on /ops an operator's, ADMIN_TOKENS, kept apart). No build step and no CDN: everything
the page loads is served from here.
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

from service.auth import auth_enabled, fleet_guarded

bp = Blueprint("web", __name__)

PRINTED = 600  # puzzles on a printed sheet at most: a hundred A4 pages (one API page, limit <= 1000)


def _page(template: str, **context: object) -> str:
    return render_template(template, **{"tokens_required": auth_enabled(), **context})


@bp.get("/")
def index() -> str:
    return _page("index.html")


@bp.get("/jobs/<job_id>")
def job(job_id: str) -> str:
    return _page("job.html", job_id=job_id)


@bp.get("/jobs/<job_id>/print")
def job_print(job_id: str) -> str:
    """The job's puzzles six to an A4 page (the first PRINTED of them); ?solutions=1 adds their
    solutions on the pages after."""
    return _page("print.html", job_id=job_id, solutions=request.args.get("solutions") == "1",
                 printed=PRINTED)


@bp.get("/ops")
def ops() -> str:
    """The fleet view: workers and queues, refreshed every few seconds (service.fleet's data)."""
    return _page("ops.html", tokens_required=fleet_guarded())
