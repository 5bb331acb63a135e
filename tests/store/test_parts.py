"""A split puzzle's subtasks in SQL (store.parts), on SQLite and PostgreSQL: each part counted once,
the part that completes the count merges once, with the finished parts in index order, and a
failed part fails the puzzle. The merge here adds up the parts' sums, as the toy kind's does."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from solvers.base import NO_SOLUTION, SOLVED, Outcome, Split
from store import blocks, parts, rows
from store.models import FAILED, Puzzle, Subtask, now
from store.rows import Result, SplitPuzzle
from tests.services import database_url, postgres_url  # noqa: F401  both databases

DIGITS = [[1, 3], [2], [4]]


@pytest.fixture
def app(make_app, toy):
    return make_app(CHUNK_MAX=1)  # one puzzle a task: a row, which a split needs


class Merges:
    """The merges asked for: the puzzle's id and the sums of the outcomes given, in their order."""

    def __init__(self):
        self.calls: list[tuple[int, list[int]]] = []

    def __call__(self, p, outcomes):
        sums = [(o.result or {}).get("sum", 0) for o in outcomes]
        self.calls.append((p.id, sums))
        total = Outcome(SOLVED, {"sum": sum(sums)}, {"elapsed_ms": 0.0})
        return Result(p.id, p.job_id, p.attempts, SOLVED, answer=blocks.answer(total.result, total.stats))


def split_puzzle(app):
    """One toy puzzle, claimed and split into the parts of DIGITS: (puzzle id, subtask ids)."""
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1234"}]})
    assert r.status_code == 202, r.json
    with app.extensions["sessions"]() as s, s.begin():
        (pid,) = s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]))
        (a,) = rows.claim(s, [pid], "coordinator", now() + timedelta(minutes=5))
        split = Split([{"digits": d} for d in DIGITS], Outcome(NO_SOLUTION, None, {}))
        return pid, rows.fan_out(s, [SplitPuzzle(a, split)], 600.0)


def claim(app, subtask_id, merge, worker="w"):
    with app.extensions["sessions"]() as s, s.begin():
        return parts.claim(s, subtask_id, worker, now() + timedelta(minutes=5), merge)


def record(app, part, merge, outcome=None, error=None):
    with app.extensions["sessions"]() as s, s.begin():
        return parts.record(s, part, outcome, error, merge)


def solved(part):
    return Outcome(SOLVED, {"sum": sum(DIGITS[part.index])}, {})


def puzzle(app, pid):
    with app.extensions["sessions"]() as s:
        return s.get(Puzzle, pid)


def test_the_part_that_completes_the_count_merges_once_in_index_order(app):
    pid, ids = split_puzzle(app)
    merge = Merges()
    claimed = [claim(app, i, merge)[0] for i in ids]
    for part in (claimed[2], claimed[0]):
        assert record(app, part, merge, solved(part))
    assert merge.calls == [] and puzzle(app, pid).parts_done == 2
    assert record(app, claimed[1], merge, solved(claimed[1]))
    assert merge.calls == [(pid, [4, 2, 4])]
    p = puzzle(app, pid)
    assert (p.status, p.parts_done, p.parts_total) == ("solved", 3, 3)
    # Delivered again: the part is recorded and the puzzle final, so nothing moves.
    assert not record(app, claimed[1], merge, solved(claimed[1]))
    assert claim(app, ids[1], merge) is None
    assert merge.calls == [(pid, [4, 2, 4])] and puzzle(app, pid).parts_done == 3


def test_a_stale_claims_outcome_is_not_recorded(app):
    pid, ids = split_puzzle(app)
    merge = Merges()
    first, _p = claim(app, ids[0], merge, "w1")
    second, _p = claim(app, ids[0], merge, "w2")  # its lease ran out, and another task took it
    assert (first.attempts, second.attempts) == (1, 2)
    assert not record(app, first, merge, solved(first))
    assert puzzle(app, pid).parts_done == 0
    assert record(app, second, merge, solved(second))
    assert puzzle(app, pid).parts_done == 1


def test_a_stopped_puzzles_unclaimed_part_is_skipped_and_counted(app):
    pid, ids = split_puzzle(app)
    merge = Merges()
    done = [claim(app, i, merge)[0] for i in ids[:2]]
    for part in done:
        assert record(app, part, merge, solved(part))
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.id == pid).values(stop_requested=True))
    assert claim(app, ids[2], merge) is None
    with app.extensions["sessions"]() as s:
        assert s.get(Subtask, ids[2]).status == "cancelled"
    assert merge.calls == [(pid, [4, 2])], "the skipped part is counted, not merged"
    assert puzzle(app, pid).status == "solved"


def test_a_failed_part_fails_the_puzzle_and_the_others_record_nothing(app):
    pid, ids = split_puzzle(app)
    merge = Merges()
    failing, other = claim(app, ids[1], merge)[0], claim(app, ids[0], merge)[0]
    assert not record(app, failing, merge, error="it broke")
    p = puzzle(app, pid)
    assert p.status == FAILED and p.error == "part 2 of 3: it broke"
    assert not record(app, other, merge, solved(other))
    with app.extensions["sessions"]() as s:
        statuses = list(s.scalars(select(Subtask.status).where(Subtask.puzzle_id == pid)
                                  .order_by(Subtask.index)))
    assert statuses == ["running", "failed", "queued"] and merge.calls == []
