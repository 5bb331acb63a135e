"""The workers' heartbeat rows (store.workers), on SQLite and PostgreSQL: a beat makes a worker's
row once and renews it after, a clean stop removes it, the reaper forgets the rows it names."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from store import workers
from store.models import WorkerBeat, aware, now
from tests.services import database_url, postgres_url  # noqa: F401  both databases


def rows(app):
    with app.extensions["sessions"]() as s:
        return {r.name: r for r in s.scalars(select(WorkerBeat))}


def beat(app, name, since=None, queues=()):
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, name, since, queues)


def test_a_beat_makes_the_row_once_and_renews_it_after(app):
    beat(app, "h:1:n")
    first = rows(app)["h:1:n"]
    assert first.since is None and first.queues is None
    since = now() - timedelta(seconds=30)
    beat(app, "h:1:n", since, ["puzzles", "puzzles.dear"])
    again = rows(app)["h:1:n"]
    assert aware(again.started_at) == aware(first.started_at), "the row's start stays"
    assert aware(again.beat_at) >= aware(first.beat_at)
    assert aware(again.since) == since and again.queues == "puzzles,puzzles.dear"
    with app.extensions["sessions"]() as s:
        assert [tuple(r) for r in workers.beats(s)] == [("h:1:n", again.beat_at)]


def test_leaving_and_forgetting_remove_only_the_rows_named(app):
    for name in ("h:1:a", "h:2:a", "h:3:b", "h:4:b"):
        beat(app, name)
    with app.extensions["sessions"]() as s, s.begin():
        workers.leave(s, "h:1:a")
    with app.extensions["sessions"]() as s, s.begin():
        workers.forget(s, ["h:2:a", "h:4:b"])
    assert set(rows(app)) == {"h:3:b"}


def test_a_workers_node_is_the_last_part_of_its_name():
    assert workers.node_of("host:42:cafe") == "cafe"
    assert workers.node_of("a:b:c:d") == "d"
    assert workers.node_of("plain") == "plain"
