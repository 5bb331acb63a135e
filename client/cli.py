"""The `puzzle-queue` command: submit puzzle files, watch them, get every answer in one file.

Exit status: 0 every puzzle solved or proved to have no solution; 1 some failed or were
cancelled, a cancel or delete was not confirmed, or a hint found a placed value wrong; 2 the
request was refused (bad input, named by file and line; nothing is stored) or could not be
made; 130 interrupted while sending or waiting (the jobs already made keep running, and the
message names them).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
import httpx

from client import fleet, hints, history
from client.api import DEFAULT_URL, Client, Job
from client.deliveries import deliveries_text, trial_text
from client.errors import ApiError, InvalidRequest
from client.inputs import BadLines, Line, parse_options, read_files
from client.messages import by_puzzle, count, cpu_seconds, grouped, invocation
from client.output import exit_status, write_results
from client.progress import ProgressBar

F = TypeVar("F", bound=Callable[..., Any])
DECLINED, REFUSED, INTERRUPTED = 1, 2, 130
WRONG = 1  # a hint found a placed value or candidate wrong
JOBS_SHOWN = 50  # `jobs` without --limit, --all or --since


def as_json(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="machine-readable JSON output")(fn)


def results_options(fn: F) -> F:
    fn = click.option("--format", "fmt", type=click.Choice(["jsonl", "csv", "text"]), default="jsonl",
                      show_default=True, help="results as JSON Lines or CSV; text: a generate job's "
                                              "puzzles one per line")(fn)
    return click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
                        help="write the results here (default: standard output)")(fn)


def accept_cost_option(fn: F) -> F:
    return click.option("--accept-cost", is_flag=True,
                        help="accept puzzles predicted above the service's cap on one puzzle's CPU seconds "
                             "(MAX_PUZZLE_CPU_SECONDS) instead of refusing them")(fn)


def options_option(help_text: str) -> Callable[[F], F]:
    return click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
                        help=f"{help_text}; NAME.FIELD=VALUE sets a field of an object option "
                             "(generate.seed=3); VALUE is JSON when it reads as JSON, else text")


def confirm_option(fn: F) -> F:
    return click.option("--yes", "-y", is_flag=True,
                        help="no question asked (none is asked when standard input is not a terminal)")(fn)


class Command(click.Group):
    """The command group; a service that cannot be reached or answers with an error ends the
    command with a message (naming the address tried) and exit status 2, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except httpx.TransportError as exc:
            _fail(_unreachable(ctx, exc))
        except ApiError as exc:
            _fail(str(exc))


def _unreachable(ctx: click.Context, exc: httpx.TransportError) -> str:
    """``cannot reach the service at URL (the default): why``, and how to give another address;
    or, once connected, ``no answer from the service at URL: why``."""
    url = ctx.params.get("url", DEFAULT_URL)
    source = ctx.get_parameter_source("url")
    whence = {click.core.ParameterSource.ENVIRONMENT: " (from $PUZZLE_QUEUE_URL)",
              click.core.ParameterSource.DEFAULT: " (the default)"}.get(source, "") if source else ""
    why = str(exc) or type(exc).__name__
    if not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return f"no answer from the service at {url}{whence}: {why}"
    return (f"cannot reach the service at {url}{whence}: {why}\n"
            "Is it running there? Give its address with --url URL (before the subcommand) or "
            "$PUZZLE_QUEUE_URL.")


@click.group(cls=Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--url", envvar="PUZZLE_QUEUE_URL", default=DEFAULT_URL, show_default=True,
              help="the service (default $PUZZLE_QUEUE_URL)")
@click.option("--token", envvar="PUZZLE_QUEUE_TOKEN", help="bearer token (default $PUZZLE_QUEUE_TOKEN)")
@click.pass_context
def main(ctx: click.Context, url: str, token: str | None) -> None:
    """Submit puzzles to a puzzle-queue service, watch them, fetch the results."""
    ctx.obj = ctx.with_resource(Client(url, token))


def _again(client: Client, *args: str) -> str:
    """The command line that does ``args`` on the same service, as this command was started (a
    token is never shown: the user gives it again, by --token or $PUZZLE_QUEUE_TOKEN)."""
    where = [] if client.url == DEFAULT_URL.rstrip("/") else ["--url", client.url]
    return " ".join([invocation(), *map(shlex.quote, [*where, *args])])


def _writable(path: Path | None) -> None:
    """Refuse an output file that cannot be written, before anything is sent or fetched. The file
    is opened to append (nothing in it changes); one made by this look is removed again."""
    if path is None:
        return
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        _fail(f"cannot write the results to {path}: {exc.strerror or exc}")
    if not existed:
        path.unlink()


@contextmanager
def _output(path: Path | None) -> Any:
    if path is None:
        yield sys.stdout
        return
    try:  # a disk that fills up half-way is told as plainly as a folder that is missing
        with path.open("w", encoding="utf-8", newline="") as out:
            yield out
    except OSError as exc:
        _fail(f"cannot write the results to {path}: {exc.strerror or exc}")


def _say(text: str) -> None:
    click.echo(text, err=True)


def _fail(message: str) -> NoReturn:
    _say(f"puzzle-queue: {message}")
    sys.exit(REFUSED)


def _bad_lines(exc: BadLines) -> NoReturn:
    files = ", ".join(dict.fromkeys(b.where.file for b in exc.bad))
    _say(f"puzzle-queue: {count(len(exc.bad), 'bad line')} in {files}; nothing was sent")
    for text in grouped((b.where, b.message) for b in exc.bad):
        _say(text)
    sys.exit(REFUSED)


def _refused(exc: InvalidRequest, lines: Sequence[Line]) -> NoReturn:
    """Every bad item by file and line: ``puzzles.txt:3: puzzle: a sudoku string has ...``; a fault
    repeated on many lines (a bad --option, an unknown --kind) once, with the count of lines."""
    _say(f"puzzle-queue: the service refused the puzzles: {exc.problem.get('detail', '')}")
    faults = []
    for err in exc.errors:
        index = err.get("index")
        where = lines[index] if isinstance(index, int) and 0 <= index < len(lines) else None
        faults.append((where, _fault(err, exc.problem)))
    for text in grouped(faults):
        _say(text)
    _cost_hint(exc)
    sys.exit(REFUSED)


def _fault(err: dict[str, Any], problem: dict[str, Any]) -> str:
    """``field: message``; a puzzle over the service's cap on predicted cost in this command's words."""
    cap = problem.get("max_puzzle_cpu_seconds")
    seconds = err.get("estimated_seconds")
    if isinstance(cap, int | float) and isinstance(seconds, int | float):
        return (f"{err.get('field', '')}: predicted at {cpu_seconds(seconds)}, above the service's cap of "
                f"{cpu_seconds(cap)} (MAX_PUZZLE_CPU_SECONDS)")
    return f"{err.get('field', '')}: {err.get('message', '')}"


def _cost_hint(exc: InvalidRequest) -> None:
    """How to send puzzles the cap on predicted cost refused, when it refused some."""
    if any("estimated_seconds" in err for err in exc.errors):
        _say("puzzle-queue: --accept-cost accepts puzzles predicted above the cap")


def _jobs_word(jobs: Sequence[Job]) -> str:
    return f"job{'s' if len(jobs) != 1 else ''} {' '.join(j['id'] for j in jobs)}"


def _wait_and_write(client: Client, jobs: list[Job], out_path: Path | None, fmt: str) -> NoReturn:
    bar = ProgressBar(sys.stderr)
    try:  # a live bar asks every second; a log gets a line (and the service a request) every 10 s
        jobs = client.wait_all(jobs, bar, poll=1.0 if bar.tty else bar.every)
    except KeyboardInterrupt:
        bar.interrupted()
        extra = ["--output", str(out_path)] if out_path else []
        extra += ["--format", fmt] if fmt != "jsonl" else []
        _say(f"stopped waiting; {'the job keeps' if len(jobs) == 1 else 'the jobs keep'} running. "
             f"Resume with:\n"
             f"  {_again(client, 'wait', *(j['id'] for j in jobs), *extra)}")
        sys.exit(INTERRUPTED)
    _write(client, jobs, out_path, fmt)


def _write(client: Client, jobs: list[Job], out_path: Path | None, fmt: str,
           status: Sequence[str] = ()) -> NoReturn:
    with _output(out_path) as out:
        write_results(client, jobs, fmt, out, status or None)
    if out_path is not None:
        n = sum(j["counts"][s] for j in jobs for s in status) if status else sum(j["total"] for j in jobs)
        _say(f"{count(n, 'result')} written to {out_path}")
    sys.exit(exit_status(jobs))


def _created(job: Job) -> str:
    """``2026-12-05 22:10:03`` (UTC) from the job's RFC 3339 ``created_at``."""
    text = str(job.get("created_at") or "")
    return text[:19].replace("T", " ") if text else "-"


def _print_job(job: Job) -> None:
    counts = "  ".join(f"{k} {v:,}" for k, v in job["counts"].items() if v)
    label = f"  label: {job['label']}" if job.get("label") else ""
    click.echo(f"{job['id']}  {_created(job)}  {job['status']:<9}  {100 * job['progress']:5.1f}%  "
               f"{count(job['total'], 'puzzle')}  {counts}{label}")


def _emit(obj: Any, as_json_flag: bool, show: Callable[[Any], None], empty: str = "") -> None:
    """JSON for scripts, or each object (or the one) shown for people."""
    if as_json_flag:
        click.echo(json.dumps(obj, indent=2))
        return
    for one in obj if isinstance(obj, list) else [obj]:
        show(one)
    if obj == [] and empty:
        click.echo(empty)


def _sending_stopped(client: Client, created: list[Job], total: int) -> NoReturn:
    """Ctrl-C while a file goes as several jobs: the jobs already stored run; say which."""
    if not created:
        _say("stopped before the service confirmed a job. A job whose request had arrived may "
             f"still have been stored: see {_again(client, 'jobs')}")
        sys.exit(INTERRUPTED)
    ids = [j["id"] for j in created]
    sent = sum(j["total"] for j in created)
    _say(f"stopped sending: {count(sent, 'puzzle')} of {total:,} went as {_jobs_word(created)}, "
         f"which {'runs' if len(created) == 1 else 'run'}; the other {count(total - sent, 'puzzle')} "
         f"were not stored as a job (one whose request had arrived may have been: see "
         f"{_again(client, 'jobs')}).\n"
         f"  follow:  {_again(client, 'wait', *ids)}\n"
         f"  cancel:  {_again(client, 'cancel', '--yes', *ids)}")
    sys.exit(INTERRUPTED)


def puzzle_files(fn: F) -> F:
    fn = click.argument("files", nargs=-1, required=True)(fn)
    fn = options_option("an option for every puzzle")(fn)
    return click.option("--kind", help="each line is one puzzle of this kind in its text form "
                                        "(without it: JSON Lines of {kind, puzzle, options})")(fn)


def _read(files: tuple[str, ...], kind: str | None,
          options: tuple[str, ...]) -> tuple[list[Line], list[dict[str, Any]]]:
    """The puzzles of the files with the options given for every one; the command ends with a
    message naming every bad line (or the bad --option, or a file that cannot be read)."""
    try:
        lines, items = read_files(files, kind, parse_options(options))
    except BadLines as exc:
        _bad_lines(exc)
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    if not items:
        _fail("no puzzles in " + ", ".join(files))
    return lines, items


@main.command()
@puzzle_files
@click.option("--label", help="the job's label (default: the file names)")
@click.option("--callback-url", help="where the service POSTs the job, signed, when it ends")
@accept_cost_option
@click.option("--wait", "wait_", is_flag=True, help="show progress until done, then write the results")
@results_options
@as_json
@click.pass_obj
def submit(client: Client, kind: str | None, options: tuple[str, ...], label: str | None,
           callback_url: str | None, accept_cost: bool, wait_: bool, output: Path | None, fmt: str,
           as_json: bool, files: tuple[str, ...]) -> None:
    """Submit the puzzles of FILE... ('-' = standard input; UTF-8) as one job (several past the
    service's batch limit; the results still come back in file order)."""
    lines, items = _read(files, kind, options)
    if wait_:
        _writable(output)
    created: list[Job] = []
    try:
        jobs = client.submit_all(items, label if label is not None else " ".join(files), callback_url,
                                 created.append, accept_cost)
    except InvalidRequest as exc:
        _refused(exc, lines)
    except KeyboardInterrupt:
        _sending_stopped(client, created, len(items))
    if wait_:
        _say(f"submitted {count(len(items), 'puzzle')} as {_jobs_word(jobs)}")
        _wait_and_write(client, jobs, output, fmt)
    _emit(jobs, as_json, _print_job)
    _say(f"follow with: {_again(client, 'wait', *(j['id'] for j in jobs))}")


def _print_costs(answer: dict[str, Any], lines: Sequence[Line]) -> None:
    """Each puzzle's predicted cost by file and line, then the batch's."""
    for where, item in zip(lines, answer["items"], strict=True):
        low, high = item["estimated_range"]
        click.echo(f"{where}  {cpu_seconds(item['estimated_seconds'])}  (range {low:.3g} to {high:.3g})  "
                   f"{item['estimate_basis']}")
    low, high = answer["estimated_range_total"]
    click.echo(f"{count(answer['puzzles'], 'puzzle')}: {cpu_seconds(answer['estimated_seconds_total'])} "
               f"in all (range {low:.3g} to {high:.3g})")


@main.command()
@puzzle_files
@accept_cost_option
@as_json
@click.pass_obj
def validate(client: Client, kind: str | None, options: tuple[str, ...], accept_cost: bool, as_json: bool,
             files: tuple[str, ...]) -> None:
    """Check the puzzles of FILE... as submit would and show what each is predicted to cost (CPU
    seconds of one core); nothing is stored. Of the client's budget only the whole is checked:
    what is left of it depends on what is unfinished when the job is sent."""
    lines, items = _read(files, kind, options)
    try:
        answer = client.validate(items, accept_cost)
    except InvalidRequest as exc:
        _refused(exc, lines)
    if as_json:
        click.echo(json.dumps(answer, indent=2))
    else:
        _print_costs(answer, lines)


@main.command()
@click.argument("puzzle")
@click.argument("placed", required=False)
@click.option("--kind", required=True, help="the puzzle's kind (one whose `kinds` entry gives hints)")
@click.option("--candidates", metavar="FILE",
              help="a JSON file ('-' = standard input) of the candidates kept in each cell, cell r*n + c")
@as_json
@click.pass_obj
def hint(client: Client, puzzle: str, placed: str | None, kind: str, candidates: str | None,
         as_json: bool) -> None:
    """The next easiest step from PLACED, the values placed so far in PUZZLE (both in the kind's
    text form; without PLACED, from the givens), or which placed value is wrong (exit status 1);
    nothing is stored."""
    try:
        kept = None if candidates is None else hints.read_candidates(candidates, sys.stdin)
    except ValueError as exc:
        _fail(str(exc))
    try:
        answer = client.hint(kind, puzzle, placed, kept)
    except InvalidRequest as exc:
        _fail("the service refused the hint: " + "; ".join(_fault(e, exc.problem) for e in exc.errors))
    click.echo(json.dumps(answer, indent=2) if as_json else hints.describe(answer, hints.side(puzzle)))
    sys.exit(WRONG if answer["status"] == "wrong" else 0)


@main.command()
@click.argument("kind")
@click.option("--count", "number", type=click.IntRange(min=1), required=True, help="how many puzzles to make")
@click.option("--difficulty",
              help="a band of the kind's rating (sudoku: easy, medium, hard, expert, master, extreme)")
@click.option("--rating-min", type=float, help="the least rating (instead of --difficulty)")
@click.option("--rating-max", type=float, help="the rating stays below this (instead of --difficulty)")
@click.option("--symmetry", help="the givens' symmetry (sudoku: none, rotational, diagonal, mirror)")
@click.option("--minimal/--not-minimal", default=None, help="whether no given can be removed")
@click.option("--seed", type=click.IntRange(min=0), help="the same seed makes the same puzzles")
@options_option("any other generate option of the kind (GET /api/v1/kinds)")
@click.option("--label", help="the job's label (default: generate KIND)")
@accept_cost_option
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl", "csv"]), default="text",
              show_default=True,
              help="text: the puzzles one per line, ready for submit; jsonl or csv: every result with its "
                   "solution and rating")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="write them here (default: standard output)")
@click.pass_obj
def generate(client: Client, kind: str, number: int, difficulty: str | None, rating_min: float | None,
             rating_max: float | None, symmetry: str | None, minimal: bool | None, seed: int | None,
             options: tuple[str, ...], label: str | None, accept_cost: bool, fmt: str,
             output: Path | None) -> None:
    """Make COUNT puzzles of KIND as one job, show progress until done, then write them."""
    named = {"difficulty": difficulty, "rating_min": rating_min, "rating_max": rating_max,
             "symmetry": symmetry, "minimal": minimal, "seed": seed}
    try:
        request = {"count": number, **{k: v for k, v in named.items() if v is not None},
                   **parse_options(options)}
    except ValueError as exc:
        _fail(str(exc))
    _writable(output)
    try:
        job = client.submit([{"kind": kind, "generate": request}], label or f"generate {kind}",
                            accept_cost=accept_cost)
    except InvalidRequest as exc:
        details = "; ".join(_fault(e, exc.problem) for e in exc.errors)
        _say(f"puzzle-queue: the service refused the request: {details or exc.problem.get('detail', '')}")
        _cost_hint(exc)
        sys.exit(REFUSED)
    _say(f"generating {count(number, 'puzzle')} as job {job['id']}")
    _wait_and_write(client, [job], output, fmt)


def jobs_and_output(fn: F) -> F:
    return click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")(results_options(fn))


@main.command()
@jobs_and_output
@click.pass_obj
def wait(client: Client, output: Path | None, fmt: str, job_ids: tuple[str, ...]) -> None:
    """Show progress until the jobs are done, then write their results (in order)."""
    _writable(output)
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
    _writable(output)
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


def _confirmed(yes: bool, question: str) -> None:
    """Ask on a terminal, unless --yes; a script (standard input not a terminal) is not asked.
    A no ends the command with exit status 1, nothing changed."""
    if yes or not sys.stdin.isatty():
        return
    if not click.confirm(question, default=False, err=True):
        _say("nothing changed")
        sys.exit(DECLINED)


@main.command()
@confirm_option
@as_json
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")
@click.pass_obj
def cancel(client: Client, yes: bool, as_json: bool, job_ids: tuple[str, ...]) -> None:
    """Cancel the jobs' unfinished puzzles (one JOB: a JSON object with --json, several: a list)."""
    _confirmed(yes, f"cancel the unfinished puzzles of {_jobs_word([{'id': j} for j in job_ids])}?")
    done = [client.cancel(j) for j in job_ids]
    _emit(done if len(done) > 1 else done[0], as_json, _print_job)


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
        _fail(str(exc))
    try:
        job = client.retry(job_id, list(indexes) or None, opts, accept_cost)
    except InvalidRequest as exc:
        _say(f"puzzle-queue: the service refused the retry: {exc.problem.get('detail', '')}")
        for text in by_puzzle((e.get("index"), f"{e.get('field', '')}: {e.get('message', '')}")
                              for e in exc.errors):
            _say(text)
        _cost_hint(exc)
        sys.exit(REFUSED)
    _emit(job, as_json, _print_job)
    _say(f"follow with: {_again(client, 'wait', job['id'])}")


@main.command()
@click.option("--cancel", "cancel_first", is_flag=True, help="cancel an unfinished job first (else refused)")
@confirm_option
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB...")
@click.pass_obj
def delete(client: Client, cancel_first: bool, yes: bool, job_ids: tuple[str, ...]) -> None:
    """Delete finished jobs with their results (the service refuses an unfinished one: --cancel)."""
    first = "cancel and delete" if cancel_first else "delete"
    _confirmed(yes, f"{first} {_jobs_word([{'id': j} for j in job_ids])} with their results?")
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
    _confirmed(yes, f"{action} every job of yours{' ' + which if which else ''}?")
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
    _say(f"{count(len(done), 'job')} {PAST[action]}, {count(len(skipped), 'job')} left")


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
    _emit(found, as_json, _print_job, empty="no jobs")
    if more and not as_json:
        _say(f"the newest {count(cap or 0, 'job')} shown; more with --all, --since WHEN or --limit N")


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


def _show(body: dict[str, Any], as_json_flag: bool, as_table: Callable[[dict[str, Any]], str]) -> None:
    click.echo(json.dumps(body, indent=2) if as_json_flag else as_table(body))


@main.command()
@as_json
@click.argument("job_id", metavar="JOB")
@click.pass_obj
def deliveries(client: Client, as_json: bool, job_id: str) -> None:
    """The deliveries of the job's callback_url: one per time the job ended, its state (due,
    delivered, failed) and every attempt with the HTTP status or error it met."""
    found = client.deliveries(job_id)
    click.echo(json.dumps(found, indent=2) if as_json else deliveries_text(found))


@main.command("test-webhook")
@as_json
@click.argument("callback_url", metavar="URL")
@click.pass_obj
def test_webhook(client: Client, as_json: bool, callback_url: str) -> None:
    """Send a sample callback to URL once, signed with your secret and checked against the
    service's allow-list as a job's delivery is, and say what came back (exit status 1 unless a 2xx
    did). The sample is marked "test": true, its X-Delivery-Id is 0."""
    answer = client.test_webhook(callback_url)
    click.echo(json.dumps(answer, indent=2) if as_json else trial_text(answer))
    if not answer["delivered"]:
        raise SystemExit(1)


@main.command()
@as_json
@click.pass_obj
def workers(client: Client, as_json: bool) -> None:
    """The service's worker processes: lane, heartbeat age, puzzles done in the last minute, what
    each holds (needs an operator's token, ADMIN_TOKENS, when the service sets tokens)."""
    _show(client.workers(), as_json, fleet.workers_table)


@main.command()
@as_json
@click.pass_obj
def queues(client: Client, as_json: bool) -> None:
    """Each lane's broker queue: tasks waiting, the oldest one's age, live workers; and the puzzles in
    and out over the last minute (needs an operator's token when the service sets tokens)."""
    _show(client.queues(), as_json, fleet.queues_table)


@main.command()
@as_json
@click.option("--minutes", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              help="how far back")
@click.option("--kind", help="only puzzles of this kind")
@click.option("--error", "error_text", metavar="TEXT", help="only failures whose error holds TEXT (any case)")
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.pass_obj
def failures(client: Client, as_json: bool, minutes: float, kind: str | None, error_text: str | None,
             limit: int) -> None:
    """Failed puzzles of every job, newest first (needs an operator's token when the service sets
    tokens)."""
    found = client.failures(minutes, kind, error_text, limit)
    click.echo(json.dumps(found, indent=2) if as_json else fleet.failures_table(found))


@main.command()
@as_json
@click.option("--undo", is_flag=True, help="let a drained worker take work again")
@click.argument("name")
@click.pass_obj
def drain(client: Client, as_json: bool, undo: bool, name: str) -> None:
    """Drain the `celery worker` NAME (a WORKER or its celery_node, as `workers` lists them): it
    finishes what it holds and takes nothing new, within a heartbeat or two; stop it once it holds
    nothing (needs an operator's token when the service sets tokens)."""
    body = client.undrain(name) if undo else client.drain(name)
    _show(body, as_json, fleet.drained_text)


def run(argv: Sequence[str] | None = None) -> None:
    """The entry point (``puzzle-queue``, ``python -m client``)."""
    main.main(args=list(argv) if argv is not None else None, prog_name="puzzle-queue", standalone_mode=True)
