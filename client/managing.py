"""The commands on one's own jobs once made: status, events, cancel, retry, delete, bulk and jobs."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta

import click

from client import history
from client.api import Client, Job
from client.errors import InvalidRequest
from client.inputs import parse_options
from client.messages import by_puzzle, count
from client.sending import cost_hint
from client.shell import (
    REFUSED,
    accept_cost_option,
    again,
    as_json,
    confirm_option,
    confirmed,
    emit,
    fail,
    jobs_word,
    main,
    options_option,
    print_job,
    say,
)

JOBS_SHOWN = 50  # `jobs` without --limit, --all or --since


@main.command()
@as_json
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")
@click.pass_obj
def status(client: Client, as_json: bool, job_ids: tuple[str, ...]) -> None:
    """The jobs' status, progress and counts (one JOB: a JSON object with --json, several: a list)."""
    found = [client.job(j) for j in job_ids]
    emit(found if len(found) > 1 else found[0], as_json, print_job)


@main.command()
@click.option("--index", type=click.IntRange(min=0), help="only the events of this puzzle (and the job's)")
@as_json
@click.argument("job_id", metavar="JOB")
@click.pass_obj
def events(client: Client, index: int | None, as_json: bool, job_id: str) -> None:
    """The job's history, oldest first: submitted, each claim (by which worker), work handed on,
    moved to the dear lane, split, left a chunk, retried, each end (with what, predicted against
    actual seconds), the job's end. Times are UTC."""
    found = list(client.events(job_id, index=index))
    click.echo(json.dumps(found, indent=2) if as_json else history.events_table(found))


@main.command()
@confirm_option
@as_json
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")
@click.pass_obj
def cancel(client: Client, yes: bool, as_json: bool, job_ids: tuple[str, ...]) -> None:
    """Cancel the jobs' unfinished puzzles (one JOB: a JSON object with --json, several: a list)."""
    confirmed(yes, f"cancel the unfinished puzzles of {jobs_word([{'id': j} for j in job_ids])}?")
    done = [client.cancel(j) for j in job_ids]
    emit(done if len(done) > 1 else done[0], as_json, print_job)


@main.command()
@click.option("--index", "indexes", multiple=True, type=click.IntRange(min=0),
              help="retry the puzzle at this index (repeatable; default: every failed and cancelled one)")
@options_option("an option for the retried puzzles, merged with their own at every depth "
                "(null: back to its default)")
@accept_cost_option
@as_json
@click.argument("job_id", metavar="JOB")
@click.pass_obj
def retry(client: Client, indexes: tuple[int, ...], options: tuple[str, ...], accept_cost: bool,
          as_json: bool, job_id: str) -> None:
    """Put the job's failed and cancelled puzzles back in the queue; the job runs again."""
    try:
        opts = parse_options(options)
    except ValueError as exc:
        fail(str(exc))
    try:
        job = client.retry(job_id, list(indexes) or None, opts, accept_cost)
    except InvalidRequest as exc:
        say(f"puzzle-queue: the service refused the retry: {exc.problem.get('detail', '')}")
        for text in by_puzzle((e.get("index"), f"{e.get('field', '')}: {e.get('message', '')}")
                              for e in exc.errors):
            say(text)
        cost_hint(exc)
        sys.exit(REFUSED)
    emit(job, as_json, print_job)
    say(f"follow with: {again(client, 'wait', job['id'])}")


@main.command()
@click.option("--cancel", "cancel_first", is_flag=True, help="cancel an unfinished job first (else refused)")
@confirm_option
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")
@click.pass_obj
def delete(client: Client, cancel_first: bool, yes: bool, job_ids: tuple[str, ...]) -> None:
    """Delete finished jobs with their results (the service refuses an unfinished one: --cancel)."""
    first = "cancel and delete" if cancel_first else "delete"
    confirmed(yes, f"{first} {jobs_word([{'id': j} for j in job_ids])} with their results?")
    for job_id in job_ids:
        client.delete_job(job_id, cancel=cancel_first)
        click.echo(f"{job_id}  deleted")


def _since(_ctx: click.Context, _param: click.Parameter, value: str | None) -> datetime | None:
    """``2026-12-01``, ``2026-12-01T08:00`` (UTC unless an offset is given), or an age: ``90m``,
    ``12h``, ``7d``, ``2w``."""
    if value is None:
        return None
    age = re.fullmatch(r"(\d+)([mhdw])", value.strip())
    if age:
        unit = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[age[2]]
        return datetime.now(UTC) - timedelta(**{unit: int(age[1])})
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise click.BadParameter("a date (2026-12-01), a time (2026-12-01T08:00) or an age "
                                 "(90m, 12h, 7d, 2w)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


JOB_STATUSES = ("queued", "running", "completed", "cancelled")
PAST = {"cancel": "cancelled", "retry": "retried", "delete": "deleted"}


@main.command()
@click.argument("action", type=click.Choice(["cancel", "retry", "delete"]))
@click.option("--status", type=click.Choice(JOB_STATUSES), help="only jobs in this status")
@click.option("--label", help="only jobs whose label holds this text (any case)")
@confirm_option
@as_json
@click.pass_obj
def bulk(client: Client, action: str, status: str | None, label: str | None, yes: bool,
         as_json: bool) -> None:
    """ACTION (cancel, retry or delete) on every one of your jobs that matches --status and
    --label; each job as its own command would, the ones it cannot change listed with why."""
    which = " ".join(filter(None, [status and f"in status {status}", label and f"labelled *{label}*"]))
    confirmed(yes, f"{action} every job of yours{' ' + which if which else ''}?")
    done: list[str] = []
    skipped: dict[str, str] = {}
    while True:  # the service takes at most 1000 jobs a request; a repeat takes the next ones
        page = client.bulk(action, status, label, limit=1000)
        done += page["done"]
        skipped.update((item["id"], item["reason"]) for item in page["skipped"])
        if not page["more"] or not page["done"]:
            break
    if as_json:
        left = [{"id": job_id, "reason": reason} for job_id, reason in skipped.items()]
        click.echo(json.dumps({"action": action, "done": done, "skipped": left}, indent=2))
        return
    for job_id in done:
        click.echo(f"{job_id}  {PAST[action]}")
    for job_id, reason in skipped.items():
        click.echo(f"{job_id}  left: {reason}")
    say(f"{count(len(done), 'job')} {PAST[action]}, {count(len(skipped), 'job')} left")


@main.command()
@click.option("--status", type=click.Choice(JOB_STATUSES))
@click.option("--label", help="only jobs whose label holds this text (any case)")
@click.option("--limit", type=click.IntRange(min=1),
              help=f"at most this many, newest first (default {JOBS_SHOWN})")
@click.option("--all", "every", is_flag=True, help="every job, page after page")
@click.option("--since", callback=_since, metavar="WHEN",
              help="the jobs made since WHEN: a date, a UTC time (2026-12-01T08:00) or an age (12h, 7d)")
@as_json
@click.pass_obj
def jobs(client: Client, status: str | None, label: str | None, limit: int | None, every: bool,
         since: datetime | None, as_json: bool) -> None:
    """Your jobs, newest first, with the time each was made (UTC)."""
    if every and limit is not None:
        raise click.UsageError("--all and --limit contradict each other")
    cap = limit if limit is not None else None if every or since else JOBS_SHOWN
    found: list[Job] = []
    more = False
    for job in client.jobs(status, limit=min(cap + 1, 1000) if cap else 1000, label=label):
        if since is not None and datetime.fromisoformat(job["created_at"]) < since:
            break
        if cap is not None and len(found) == cap:
            more = True
            break
        found.append(job)
    emit(found, as_json, print_job, empty="no jobs")
    if more and not as_json:
        say(f"the newest {count(cap or 0, 'job')} shown; more with --all, --since WHEN or --limit N")


