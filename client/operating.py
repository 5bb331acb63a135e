"""The commands on the service itself: its kinds, a job's deliveries, a test delivery, and the
operator's views (workers, queues, failures) and draining."""

from __future__ import annotations

import json
from typing import Any

import click

from client import fleet
from client.api import Client
from client.deliveries import deliveries_text, trial_text
from client.shell import (
    as_json,
    emit,
    main,
    show,
)


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
    emit(found, as_json, _print_kind)


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
    show(client.workers(), as_json, fleet.workers_table)


@main.command()
@as_json
@click.pass_obj
def queues(client: Client, as_json: bool) -> None:
    """Each lane's broker queue: tasks waiting, the oldest one's age, live workers; and the puzzles in
    and out over the last minute (needs an operator's token when the service sets tokens)."""
    show(client.queues(), as_json, fleet.queues_table)


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
    show(body, as_json, fleet.drained_text)

