"""The `puzzle-queue` command: submit puzzle files, watch them, get every answer in one file.

Exit status: 0 every puzzle solved or proved to have no solution; 1 some failed or were
cancelled; 2 the request was refused (bad input, named by file and line; nothing is
stored) or could not be made; 130 interrupted while waiting (the jobs keep running).
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
import httpx

from client.api import DEFAULT_URL, Client, Job
from client.errors import ApiError, InvalidRequest
from client.inputs import BadLine, Line, parse_option, read_files
from client.output import exit_status, write_results
from client.progress import ProgressBar

F = TypeVar("F", bound=Callable[..., Any])
REFUSED, INTERRUPTED = 2, 130


def as_json(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="machine-readable JSON output")(fn)


def results_options(fn: F) -> F:
    fn = click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl",
                      show_default=True, help="results as JSON Lines or CSV")(fn)
    return click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
                        help="write the results here (default: standard output)")(fn)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--url", envvar="PUZZLE_QUEUE_URL", default=DEFAULT_URL, show_default=True,
              help="the service (default $PUZZLE_QUEUE_URL)")
@click.option("--token", envvar="PUZZLE_QUEUE_TOKEN", help="bearer token (default $PUZZLE_QUEUE_TOKEN)")
@click.pass_context
def main(ctx: click.Context, url: str, token: str | None) -> None:
    """Submit puzzles to a puzzle-queue service, watch them, fetch the results."""
    ctx.obj = ctx.with_resource(Client(url, token))


@contextmanager
def _output(path: Path | None) -> Any:
    if path is None:
        yield sys.stdout
        return
    with path.open("w", encoding="utf-8", newline="") as out:
        yield out


def _say(text: str) -> None:
    click.echo(text, err=True)


def _fail(message: str) -> NoReturn:
    _say(f"puzzle-queue: {message}")
    sys.exit(REFUSED)


def _refused(exc: InvalidRequest, lines: Sequence[Line]) -> NoReturn:
    """Every bad item by file and line: ``puzzles.txt:3: puzzle: a sudoku string has ...``."""
    _say(f"puzzle-queue: the service refused the puzzles: {exc.problem.get('detail', '')}")
    for err in exc.errors:
        index = err.get("index")
        where = f"{lines[index]}: " if isinstance(index, int) and 0 <= index < len(lines) else ""
        _say(f"{where}{err.get('field', '')}: {err.get('message', '')}")
    sys.exit(REFUSED)


def _wait_and_write(client: Client, jobs: list[Job], out_path: Path | None, fmt: str) -> NoReturn:
    bar = ProgressBar(sys.stderr)
    try:  # a live bar asks every second; a log gets a line (and the service a request) every 10 s
        jobs = client.wait_all(jobs, bar, poll=1.0 if bar.tty else bar.every)
    except KeyboardInterrupt:
        bar.interrupted()
        ids = " ".join(j["id"] for j in jobs)
        extra = (f" --output {shlex.quote(str(out_path))}" if out_path else "") + \
                (f" --format {fmt}" if fmt != "jsonl" else "")
        _say(f"stopped waiting; the job{'s' if len(jobs) > 1 else ''} keep running. "
             f"Resume with:\n  puzzle-queue wait {ids}{extra}")
        sys.exit(INTERRUPTED)
    _write(client, jobs, out_path, fmt)


def _write(client: Client, jobs: list[Job], out_path: Path | None, fmt: str,
           status: Sequence[str] = ()) -> NoReturn:
    with _output(out_path) as out:
        write_results(client, jobs, fmt, out, status or None)
    if out_path is not None:
        n = sum(j["counts"][s] for j in jobs for s in status) if status else sum(j["total"] for j in jobs)
        _say(f"{n:,} results written to {out_path}")
    sys.exit(exit_status(jobs))


def _print_job(job: Job) -> None:
    counts = "  ".join(f"{k} {v:,}" for k, v in job["counts"].items() if v)
    label = f"  label: {job['label']}" if job.get("label") else ""
    click.echo(f"{job['id']}  {job['status']:<9}  {100 * job['progress']:5.1f}%  "
               f"{job['total']:,} puzzle{'s' if job['total'] != 1 else ''}  {counts}{label}")


def _emit(obj: Any, as_json_flag: bool, show: Callable[[Any], None], empty: str = "") -> None:
    """JSON for scripts, or each object (or the one) shown for people."""
    if as_json_flag:
        click.echo(json.dumps(obj, indent=2))
        return
    for one in obj if isinstance(obj, list) else [obj]:
        show(one)
    if obj == [] and empty:
        click.echo(empty)


@main.command()
@click.option("--kind", help="each line is one puzzle of this kind in its text form "
                             "(without it: JSON Lines of {kind, puzzle, options})")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="an option for every puzzle")
@click.option("--label", help="the job's label (default: the file names)")
@click.option("--callback-url", help="where the service POSTs the job, signed, when it ends")
@click.option("--wait", "wait_", is_flag=True, help="show progress until done, then write the results")
@results_options
@as_json
@click.argument("files", nargs=-1, required=True)
@click.pass_obj
def submit(client: Client, kind: str | None, options: tuple[str, ...], label: str | None,
           callback_url: str | None, wait_: bool, output: Path | None, fmt: str, as_json: bool,
           files: tuple[str, ...]) -> None:
    """Submit the puzzles of FILE... ('-' = standard input) as one job (several past the service's
    batch limit; the results still come back in file order)."""
    try:
        opts = dict(parse_option(o) for o in options)
        lines, items = read_files(files, kind, opts)
    except (BadLine, ValueError, OSError) as exc:
        _fail(str(exc))
    if not items:
        _fail("no puzzles in " + ", ".join(files))
    try:
        jobs = client.submit_all(items, label if label is not None else " ".join(files), callback_url)
    except InvalidRequest as exc:
        _refused(exc, lines)
    total = sum(j["total"] for j in jobs)
    ids = " ".join(j["id"] for j in jobs)
    if wait_:
        _say(f"submitted {total:,} puzzles as job{'s' if len(jobs) > 1 else ''} {ids}")
        _wait_and_write(client, jobs, output, fmt)
    _emit(jobs, as_json, _print_job)
    _say(f"follow with: puzzle-queue wait {ids}")


def jobs_and_output(fn: F) -> F:
    return click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")(results_options(fn))


@main.command()
@jobs_and_output
@click.pass_obj
def wait(client: Client, output: Path | None, fmt: str, job_ids: tuple[str, ...]) -> None:
    """Show progress until the jobs are done, then write their results (in order)."""
    _wait_and_write(client, [client.job(j) for j in job_ids], output, fmt)


PUZZLE_STATUSES = ["queued", "running", "solved", "no_solution", "failed", "cancelled"]


@main.command()
@click.option("--status", "statuses", multiple=True, type=click.Choice(PUZZLE_STATUSES),
              help="only the puzzles in this status (repeatable)")
@jobs_and_output
@click.pass_obj
def results(client: Client, statuses: tuple[str, ...], output: Path | None, fmt: str,
            job_ids: tuple[str, ...]) -> None:
    """Write the results of the jobs now (unfinished puzzles show their status)."""
    _write(client, [client.job(j) for j in job_ids], output, fmt, statuses)


@main.command()
@as_json
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")
@click.pass_obj
def status(client: Client, as_json: bool, job_ids: tuple[str, ...]) -> None:
    """The jobs' status, progress and counts (one JOB: a JSON object with --json, several: a list)."""
    found = [client.job(j) for j in job_ids]
    _emit(found if len(found) > 1 else found[0], as_json, _print_job)


@main.command()
@as_json
@click.argument("job_id", metavar="JOB")
@click.pass_obj
def cancel(client: Client, as_json: bool, job_id: str) -> None:
    """Cancel the job's unfinished puzzles."""
    job = client.cancel(job_id)
    _emit(job, as_json, _print_job)


@main.command()
@click.option("--index", "indexes", multiple=True, type=click.IntRange(min=0),
              help="retry the puzzle at this index (repeatable; default: every failed and cancelled one)")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="an option for the retried puzzles, merged with their own")
@as_json
@click.argument("job_id", metavar="JOB")
@click.pass_obj
def retry(client: Client, indexes: tuple[int, ...], options: tuple[str, ...], as_json: bool,
          job_id: str) -> None:
    """Put the job's failed and cancelled puzzles back in the queue; the job runs again."""
    try:
        opts = dict(parse_option(o) for o in options)
    except ValueError as exc:
        _fail(str(exc))
    job = client.retry(job_id, list(indexes) or None, opts)
    _emit(job, as_json, _print_job)
    _say(f"follow with: puzzle-queue wait {job['id']}")


@main.command()
@click.option("--cancel", "cancel_first", is_flag=True, help="cancel an unfinished job first (else refused)")
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")
@click.pass_obj
def delete(client: Client, cancel_first: bool, job_ids: tuple[str, ...]) -> None:
    """Delete finished jobs with their results (the service refuses an unfinished one: --cancel)."""
    for job_id in job_ids:
        client.delete_job(job_id, cancel=cancel_first)
        click.echo(f"{job_id}  deleted")


@main.command()
@click.option("--status", type=click.Choice(["queued", "running", "completed", "cancelled"]))
@click.option("--limit", type=int, default=50, show_default=True, help="at most this many, newest first")
@as_json
@click.pass_obj
def jobs(client: Client, status: str | None, limit: int, as_json: bool) -> None:
    """Your jobs, newest first."""
    found: list[Job] = []
    for job in client.jobs(status, limit=min(limit, 1000)):
        if len(found) == limit:
            break
        found.append(job)
    _emit(found, as_json, _print_job, empty="no jobs")


def _print_kind(kind: dict[str, Any]) -> None:
    click.echo(f"{kind['kind']}: {kind['summary']}\n  input: {kind['input']}")
    for name, opt in kind["options"].items():
        choices = f" ({', '.join(map(str, opt['choices']))})" if opt.get("choices") else ""
        click.echo(f"  --option {name}=...  default {json.dumps(opt['default'])}{choices}: {opt['doc']}")


@main.command()
@as_json
@click.pass_obj
def kinds(client: Client, as_json: bool) -> None:
    """The puzzle kinds the service solves, their input forms and options."""
    found = client.kinds()
    _emit(found, as_json, _print_kind)


def run(argv: Sequence[str] | None = None) -> None:
    """The entry point: service errors become a message and exit status 2, not a traceback."""
    try:
        main.main(args=list(argv) if argv is not None else None, prog_name="puzzle-queue",
                  standalone_mode=True)
    except ApiError as exc:
        _fail(str(exc))
    except httpx.TransportError as exc:
        _fail(f"cannot reach the service: {exc}")
