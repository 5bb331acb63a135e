"""The workers' heartbeat rows (store.workers), on SQLite and PostgreSQL: a beat makes a worker's
row once and renews it after, a clean stop removes it, the reaper forgets the rows it names."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from store import workers
from store.bookkeeping import WorkerBeat
from store.models import aware, now
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


def drain(app, name, draining=True):
    with app.extensions["sessions"]() as s, s.begin():
        return workers.drain(s, name, draining)


def test_draining_marks_every_process_of_the_named_celery_worker_and_only_it(app):
    for name in ("w@a:1:n1", "w@a:2:n1", "w@ab:3:n2", "w@b:4:n3"):
        beat(app, name)
    assert drain(app, "w@a:2:n1") == ["w@a:1:n1", "w@a:2:n1"], "by one process's name: its whole node"
    found = rows(app)
    assert found["w@a:1:n1"].draining_at is not None and found["w@a:2:n1"].draining_at is not None
    assert found["w@ab:3:n2"].draining_at is None and found["w@b:4:n3"].draining_at is None
    assert drain(app, "w@b") == ["w@b:4:n3"], "by its Celery node name"
    assert drain(app, "w@a", draining=False) == ["w@a:1:n1", "w@a:2:n1"]
    assert rows(app)["w@a:1:n1"].draining_at is None and rows(app)["w@b:4:n3"].draining_at is not None


def test_draining_an_unknown_worker_finds_none(app):
    beat(app, "w@a:1:n1")
    assert drain(app, "w@x") is None
    assert drain(app, "w@a:1") is None, "a name's head that is no node name nor a process's name"
    assert drain(app, "w@%") is None, "no pattern"
    assert rows(app)["w@a:1:n1"].draining_at is None


def test_a_beat_says_whether_to_drain_and_a_new_process_takes_the_mark_of_its_node(app):
    with app.extensions["sessions"]() as s, s.begin():
        assert workers.beat(s, "w@a:1:n1") is False
    drain(app, "w@a")
    with app.extensions["sessions"]() as s, s.begin():
        assert workers.beat(s, "w@a:1:n1") is True
        assert workers.beat(s, "w@a:9:n1") is True, "a replaced pool process of the same node"
        assert workers.beat(s, "w@a:5:n2") is False, "a restarted worker is a new node"
    assert rows(app)["w@a:9:n1"].draining_at is not None


def test_the_kinds_still_being_prepared_are_those_the_living_workers_last_named(app):
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "a:1:n", None, (), ["spokes", "sliding"])
        workers.beat(s, "b:2:n", None, (), ["sudoku", "sliding"])
        workers.beat(s, "c:3:n", None, (), ["nqueens"])  # silent below: its host is not heard of
        workers.beat(s, "d:4:n")
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(WorkerBeat).where(WorkerBeat.name == "c:3:n")
                  .values(beat_at=now() - timedelta(seconds=60)))
    assert rows(app)["a:1:n"].preparing == "spokes,sliding" and rows(app)["d:4:n"].preparing is None
    with app.extensions["sessions"]() as s:
        heard = ["sliding", "spokes"]
        assert workers.preparing(s, now() - timedelta(seconds=15)) == ["sudoku", *heard]
        assert workers.preparing(s, now() - timedelta(seconds=120)) == ["sudoku", "nqueens", *heard]
    assert workers.by_registry({"spokes", "later-kind", "sudoku"}) == ["sudoku", "spokes", "later-kind"]
