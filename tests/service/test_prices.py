"""Options a kind's predictor does not model (Kind.outside_model) are priced as dear until puzzles of
their kind and options have been measured, then at what those cost (store.pricing): in the budget,
the lanes and the ETA, as POST /jobs and POST /validate see them."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import select, update

import solvers
from solvers.base import Estimate
from store import pricing
from store.models import Puzzle
from tests.service.conftest import row_counts
from tests.services import database_url, postgres_url  # noqa: F401  the statements differ by database
from tests.toykind import TOY

ALICE = {"Authorization": "Bearer alice-token"}
# The puzzle time limit (the price of an unmeasured item) and a budget of five such items.
CONFIG = {"PUZZLE_TIME_LIMIT": 20.0, "CLIENT_CPU_BUDGET": 100.0, "API_TOKENS": "alice:alice-token"}


def by_digit_sum(puzzle, options):
    return Estimate(float(sum(puzzle)) / 100, 2.0, "test")


@pytest.fixture
def unmodelled(monkeypatch):
    """The toy kind, whose predictor does not model its ``lie`` option (any would do)."""
    kind = dataclasses.replace(TOY, predict=by_digit_sum, outside_model=lambda options: options["lie"])
    monkeypatch.setitem(solvers.KINDS, "toy", kind)


def items(digits, **options):
    return {"puzzles": [{"kind": "toy", "puzzle": d, "options": options} for d in digits]}


def stored(app):
    with app.extensions["sessions"]() as s:
        return s.execute(select(Puzzle.estimated_seconds, Puzzle.estimate_basis, Puzzle.signature)
                         .order_by(Puzzle.id)).all()


def test_an_unmodelled_item_is_priced_at_the_time_limit_in_the_budget_and_the_dear_lane(make_app, unmodelled):
    app = make_app(**CONFIG)
    client = app.test_client()
    modelled = client.post("/api/v1/jobs", headers=ALICE, json=items(["1"]))
    assert modelled.status_code == 202 and modelled.json["estimated_seconds_total"] == 0.01
    checked = client.post("/api/v1/validate", headers=ALICE, json=items(["1", "2"], lie=True))
    assert checked.json["estimated_seconds_total"] == 40.0
    assert [i["estimate_basis"] for i in checked.json["items"]] == ["unmeasured"] * 2
    job = client.post("/api/v1/jobs", headers=ALICE, json=items(["1", "2", "3", "4"], lie=True))
    assert job.status_code == 202 and job.json["estimated_seconds_total"] == 80.0
    shown = client.get(f"/api/v1/jobs/{job.json['id']}", headers=ALICE).json
    assert shown["eta_seconds"] >= 80.0  # the dear lane's work, its price, over its one worker
    one = client.get(f"/api/v1/jobs/{job.json['id']}/puzzles/0", headers=ALICE).json
    assert (one["estimated_seconds"], one["estimate_basis"]) == (20.0, "unmeasured")
    assert len(app.extensions["publisher"].dear) == 4  # each alone in the dear lane
    # 80.01 of a budget of 100: a fifth such item passes it, where its prediction (0.05) would not
    refused = client.post("/api/v1/jobs", headers=ALICE, json=items(["5"], lie=True))
    assert refused.status_code == 429 and refused.json["estimated_seconds"] == 20.0
    sig = pricing.signature("toy", solvers.KINDS["toy"].read_options({"lie": True}))
    assert [row.signature for row in stored(app)] == [None] + [sig] * 4
    assert row_counts(app)[:2] == (2, 5)


def measured(app, seconds, status="solved"):
    """The stored puzzles of the unmodelled options finished, having taken ``seconds`` each in turn."""
    with app.extensions["sessions"]() as s, s.begin():
        ids = s.scalars(select(Puzzle.id).where(Puzzle.signature.is_not(None)).order_by(Puzzle.id)).all()
        for i, took in zip(ids, seconds, strict=False):
            s.execute(update(Puzzle).where(Puzzle.id == i).values(status=status, cpu_seconds=took))


def test_once_measured_the_options_are_priced_at_what_their_puzzles_cost(make_app, unmodelled):
    app = make_app(**{**CONFIG, "CLIENT_CPU_BUDGET": 0})
    client = app.test_client()
    assert client.post("/api/v1/jobs", headers=ALICE, json=items(["1"] * 6, lie=True)).status_code == 202
    measured(app, [1.0, 2.0, 3.0, 4.0])  # fewer than LEARN_AFTER: still unmeasured
    assert client.post("/api/v1/validate", headers=ALICE,
                       json=items(["1"], lie=True)).json["items"][0]["estimate_basis"] == "unmeasured"
    measured(app, [1.0, 2.0, 3.0, 4.0, 10.0], status="failed")  # a failure costs what it took too
    checked = client.post("/api/v1/validate", headers=ALICE, json=items(["1"], lie=True)).json["items"][0]
    assert checked == {"estimated_seconds": 4.0, "estimated_range": [1.6, 10.0], "estimate_basis": "measured"}
    # other options of the kind: their own signature, unmeasured
    other = client.post("/api/v1/validate", headers=ALICE, json=items(["1"], lie=True, sleep=0.5)).json
    assert other["items"][0]["estimate_basis"] == "unmeasured"
    job = client.post("/api/v1/jobs", headers=ALICE, json=items(["1", "9"], lie=True)).json
    assert job["estimated_seconds_total"] == 8.0


def test_a_cancelled_puzzle_teaches_nothing_and_the_kinds_own_prediction_is_the_least_price(make_app,
                                                                                           unmodelled):
    app = make_app(**{**CONFIG, "CLIENT_CPU_BUDGET": 0})
    client = app.test_client()
    client.post("/api/v1/jobs", headers=ALICE, json=items(["1"] * 5, lie=True))
    measured(app, [0.001] * 5, status="cancelled")
    assert client.post("/api/v1/validate", headers=ALICE,
                       json=items(["1"], lie=True)).json["items"][0]["estimate_basis"] == "unmeasured"
    measured(app, [0.001] * 5)
    dear = client.post("/api/v1/validate", headers=ALICE, json=items(["9" * 20], lie=True)).json["items"][0]
    assert (dear["estimated_seconds"], dear["estimate_basis"]) == (1.8, "measured")


def test_a_backtracking_sudoku_and_a_narrow_rating_range_are_priced_as_dear_until_measured(make_app):
    app = make_app(API_TOKENS="alice:alice-token")
    client = app.test_client()
    hard = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    checked = client.post("/api/v1/validate", headers=ALICE, json={"puzzles": [
        {"kind": "sudoku", "puzzle": hard, "options": {"strategy": "backtrack"}},
        {"kind": "sudoku", "puzzle": hard}]}).json["items"]
    assert (checked[0]["estimated_seconds"], checked[0]["estimate_basis"]) == (120.0, "unmeasured")
    assert checked[1]["estimated_seconds"] < 0.01 and checked[1]["estimate_basis"] != "unmeasured"
    # 10,000 puzzles of a rating range no bench measured: the time limit each, above the whole budget
    flood = {"puzzles": [{"kind": "sudoku", "generate": {"count": 10_000, "rating_min": 11.5}}]}
    refused = client.post("/api/v1/jobs", headers=ALICE, json=flood)
    assert refused.status_code == 422 and refused.json["estimated_seconds"] == 1_200_000.0
    banded = {"puzzles": [{"kind": "sudoku", "generate": {"count": 10_000, "rating_min": 9.0}}]}
    within = client.post("/api/v1/validate", headers=ALICE, json=banded).json
    assert within["estimated_seconds_total"] < 10_000


def test_a_retry_is_signed_and_priced_as_a_post_with_its_new_options(make_app, unmodelled):
    app = make_app(**CONFIG)
    client = app.test_client()
    job = client.post("/api/v1/jobs", headers=ALICE, json=items(["9" * 20] * 2)).json  # dear: rows
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).values(status="failed"))
    retried = client.post(f"/api/v1/jobs/{job['id']}/retry", headers=ALICE, json={"options": {"lie": True}})
    assert retried.status_code == 202 and retried.json["estimated_seconds_total"] == 40.0
    sig = pricing.signature("toy", solvers.KINDS["toy"].read_options({"lie": True}))
    assert stored(app) == [(20.0, "unmeasured", sig)] * 2
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).values(status="failed"))
    back = client.post(f"/api/v1/jobs/{job['id']}/retry", headers=ALICE, json={"options": {"lie": False}})
    assert back.status_code == 202 and back.json["estimated_seconds_total"] == 3.6
    assert stored(app) == [(1.8, "test", None)] * 2
