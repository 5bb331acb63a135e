"""What every `puzzle-queue` command shares: the command group and its options, the exit
statuses, and how a command speaks (messages on standard error, a refusal ends it)."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
import httpx

from client.api import DEFAULT_URL, Client, Job
from client.errors import ApiError
from client.messages import count, invocation

F = TypeVar("F", bound=Callable[..., Any])
DECLINED, REFUSED, INTERRUPTED = 1, 2, 130


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
            fail(_unreachable(ctx, exc))
        except ApiError as exc:
            fail(str(exc))


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


def again(client: Client, *args: str) -> str:
    """The command line that does ``args`` on the same service, as this command was started (a
    token is never shown: the user gives it again, by --token or $PUZZLE_QUEUE_TOKEN)."""
    where = [] if client.url == DEFAULT_URL.rstrip("/") else ["--url", client.url]
    return " ".join([invocation(), *map(shlex.quote, [*where, *args])])


def say(text: str) -> None:
    click.echo(text, err=True)


def fail(message: str) -> NoReturn:
    say(f"puzzle-queue: {message}")
    sys.exit(REFUSED)


def jobs_word(jobs: Sequence[Job]) -> str:
    return f"job{'s' if len(jobs) != 1 else ''} {' '.join(j['id'] for j in jobs)}"


def _created(job: Job) -> str:
    """``2026-12-05 22:10:03`` (UTC) from the job's RFC 3339 ``created_at``."""
    text = str(job.get("created_at") or "")
    return text[:19].replace("T", " ") if text else "-"


def print_job(job: Job) -> None:
    counts = "  ".join(f"{k} {v:,}" for k, v in job["counts"].items() if v)
    label = f"  label: {job['label']}" if job.get("label") else ""
    click.echo(f"{job['id']}  {_created(job)}  {job['status']:<9}  {100 * job['progress']:5.1f}%  "
               f"{count(job['total'], 'puzzle')}  {counts}{label}")


def emit(obj: Any, as_json_flag: bool, show: Callable[[Any], None], empty: str = "") -> None:
    """JSON for scripts, or each object (or the one) shown for people."""
    if as_json_flag:
        click.echo(json.dumps(obj, indent=2))
        return
    for one in obj if isinstance(obj, list) else [obj]:
        show(one)
    if obj == [] and empty:
        click.echo(empty)


def confirmed(yes: bool, question: str) -> None:
    """Ask on a terminal, unless --yes; a script (standard input not a terminal) is not asked.
    A no ends the command with exit status 1, nothing changed."""
    if yes or not sys.stdin.isatty():
        return
    if not click.confirm(question, default=False, err=True):
        say("nothing changed")
        sys.exit(DECLINED)


def show(body: dict[str, Any], as_json_flag: bool, as_table: Callable[[dict[str, Any]], str]) -> None:
    click.echo(json.dumps(body, indent=2) if as_json_flag else as_table(body))


