"""The commands that send puzzles and fetch what comes back: submit, validate, hint, generate,
wait and results."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click

from client import hints
from client.api import Client, Job
from client.errors import InvalidRequest
from client.inputs import BadLines, Line, parse_options, read_files
from client.messages import count, cpu_seconds, grouped
from client.output import exit_status, write_results
from client.progress import ProgressBar
from client.shell import (
    INTERRUPTED,
    REFUSED,
    F,
    accept_cost_option,
    again,
    as_json,
    emit,
    fail,
    jobs_word,
    main,
    options_option,
    print_job,
    results_options,
    say,
)

WRONG = 1  # a hint found a placed value or candidate wrong


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
        fail(f"cannot write the results to {path}: {exc.strerror or exc}")
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
        fail(f"cannot write the results to {path}: {exc.strerror or exc}")


def _bad_lines(exc: BadLines) -> NoReturn:
    files = ", ".join(dict.fromkeys(b.where.file for b in exc.bad))
    say(f"puzzle-queue: {count(len(exc.bad), 'bad line')} in {files}; nothing was sent")
    for text in grouped((b.where, b.message) for b in exc.bad):
        say(text)
    sys.exit(REFUSED)


def _refused(exc: InvalidRequest, lines: Sequence[Line]) -> NoReturn:
    """Every bad item by file and line: ``puzzles.txt:3: puzzle: a sudoku string has ...``; a fault
    repeated on many lines (a bad --option, an unknown --kind) once, with the count of lines."""
    say(f"puzzle-queue: the service refused the puzzles: {exc.problem.get('detail', '')}")
    faults = []
    for err in exc.errors:
        index = err.get("index")
        where = lines[index] if isinstance(index, int) and 0 <= index < len(lines) else None
        faults.append((where, _fault(err, exc.problem)))
    for text in grouped(faults):
        say(text)
    cost_hint(exc)
    sys.exit(REFUSED)


def _fault(err: dict[str, Any], problem: dict[str, Any]) -> str:
    """``field: message``; a puzzle over the service's cap on predicted cost in this command's words."""
    cap = problem.get("max_puzzle_cpu_seconds")
    seconds = err.get("estimated_seconds")
    if isinstance(cap, int | float) and isinstance(seconds, int | float):
        return (f"{err.get('field', '')}: predicted at {cpu_seconds(seconds)}, above the service's cap of "
                f"{cpu_seconds(cap)} (MAX_PUZZLE_CPU_SECONDS)")
    return f"{err.get('field', '')}: {err.get('message', '')}"


def cost_hint(exc: InvalidRequest) -> None:
    """How to send puzzles the cap on predicted cost refused, when it refused some."""
    if any("estimated_seconds" in err for err in exc.errors):
        say("puzzle-queue: --accept-cost accepts puzzles predicted above the cap")



def _wait_and_write(client: Client, jobs: list[Job], out_path: Path | None, fmt: str) -> NoReturn:
    bar = ProgressBar(sys.stderr)
    try:  # a live bar asks every second; a log gets a line (and the service a request) every 10 s
        jobs = client.wait_all(jobs, bar, poll=1.0 if bar.tty else bar.every)
    except KeyboardInterrupt:
        bar.interrupted()
        extra = ["--output", str(out_path)] if out_path else []
        extra += ["--format", fmt] if fmt != "jsonl" else []
        say(f"stopped waiting; {'the job keeps' if len(jobs) == 1 else 'the jobs keep'} running. "
             f"Resume with:\n"
             f"  {again(client, 'wait', *(j['id'] for j in jobs), *extra)}")
        sys.exit(INTERRUPTED)
    _write(client, jobs, out_path, fmt)


def _write(client: Client, jobs: list[Job], out_path: Path | None, fmt: str,
           status: Sequence[str] = ()) -> NoReturn:
    with _output(out_path) as out:
        write_results(client, jobs, fmt, out, status or None)
    if out_path is not None:
        n = sum(j["counts"][s] for j in jobs for s in status) if status else sum(j["total"] for j in jobs)
        say(f"{count(n, 'result')} written to {out_path}")
    sys.exit(exit_status(jobs))


def _sending_stopped(client: Client, created: list[Job], total: int) -> NoReturn:
    """Ctrl-C while a file goes as several jobs: the jobs already stored run; say which."""
    if not created:
        say("stopped before the service confirmed a job. A job whose request had arrived may "
             f"still have been stored: see {again(client, 'jobs')}")
        sys.exit(INTERRUPTED)
    ids = [j["id"] for j in created]
    sent = sum(j["total"] for j in created)
    say(f"stopped sending: {count(sent, 'puzzle')} of {total:,} went as {jobs_word(created)}, "
         f"which {'runs' if len(created) == 1 else 'run'}; the other {count(total - sent, 'puzzle')} "
         f"were not stored as a job (one whose request had arrived may have been: see "
         f"{again(client, 'jobs')}).\n"
         f"  follow:  {again(client, 'wait', *ids)}\n"
         f"  cancel:  {again(client, 'cancel', '--yes', *ids)}")
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
        fail(str(exc))
    if not items:
        fail("no puzzles in " + ", ".join(files))
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
        say(f"submitted {count(len(items), 'puzzle')} as {jobs_word(jobs)}")
        _wait_and_write(client, jobs, output, fmt)
    emit(jobs, as_json, print_job)
    say(f"follow with: {again(client, 'wait', *(j['id'] for j in jobs))}")


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
        fail(str(exc))
    try:
        answer = client.hint(kind, puzzle, placed, kept)
    except InvalidRequest as exc:
        fail("the service refused the hint: " + "; ".join(_fault(e, exc.problem) for e in exc.errors))
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
        fail(str(exc))
    _writable(output)
    try:
        job = client.submit([{"kind": kind, "generate": request}], label or f"generate {kind}",
                            accept_cost=accept_cost)
    except InvalidRequest as exc:
        details = "; ".join(_fault(e, exc.problem) for e in exc.errors)
        say(f"puzzle-queue: the service refused the request: {details or exc.problem.get('detail', '')}")
        cost_hint(exc)
        sys.exit(REFUSED)
    say(f"generating {count(number, 'puzzle')} as job {job['id']}")
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


