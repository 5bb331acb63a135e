"""The Python client (client.api) against the API in this process: the cap on a puzzle's predicted
cost lifted by ``accept_cost``, a batch's cost previewed by ``validate`` (in parts past the batch
limit), a retry's nested options merged into the puzzles' own, and hints."""

from __future__ import annotations

import pytest

import solvers
from client import InvalidRequest
from tests.solvers.test_sudoku_hint import EXAMPLE

CHEAP = {"kind": "toy", "puzzle": "12", "options": {"sleep": 1}}
DEAR = {"kind": "toy", "puzzle": "34", "options": {"sleep": 9}}  # above the fixture's cap of 5


def test_accept_cost_lets_a_puzzle_past_the_cap(api_client):
    with pytest.raises(InvalidRequest) as refused:
        api_client.submit([CHEAP, DEAR])
    [err] = refused.value.errors
    assert err["index"] == 1 and err["estimated_seconds"] == pytest.approx(9, rel=1e-3)
    assert list(api_client.jobs()) == []
    job = api_client.submit([CHEAP, DEAR], accept_cost=True)
    assert job["total"] == 2 and job["status"] == "queued"
    jobs = api_client.submit_all([DEAR] * 6, accept_cost=True)  # in parts of MAX_BATCH, each accepting
    assert [j["total"] for j in jobs] == [4, 2] and len(list(api_client.jobs())) == 3


def test_validate_previews_the_cost_and_stores_nothing(api_client):
    answer = api_client.validate([CHEAP, CHEAP])
    assert answer["puzzles"] == 2 and answer["estimated_seconds_total"] == pytest.approx(2, rel=1e-3)
    assert [item["estimate_basis"] for item in answer["items"]] == ["typical"] * 2
    with pytest.raises(InvalidRequest) as refused:
        api_client.validate([CHEAP, DEAR])
    assert [e["index"] for e in refused.value.errors] == [1]
    answer = api_client.validate([CHEAP, DEAR], accept_cost=True)
    assert answer["estimated_seconds_total"] == pytest.approx(10, rel=1e-3)
    assert list(api_client.jobs()) == []


def test_validate_past_the_batch_limit_joins_the_parts(api_client):
    items = [{**CHEAP, "options": {"sleep": n}} for n in range(1, 11)]  # MAX_BATCH is 4
    answer = api_client.validate(items, accept_cost=True)
    assert answer["puzzles"] == 10 and len(answer["items"]) == 10
    assert [round(item["estimated_seconds"]) for item in answer["items"]] == list(range(1, 11))
    assert answer["estimated_seconds_total"] == pytest.approx(55, rel=1e-3)
    low, high = answer["estimated_range_total"]
    assert low < 55 < high
    with pytest.raises(InvalidRequest) as refused:
        api_client.validate(items)  # above the cap: sleep 5 and more (plus a toy's 1e-6 s)
    assert [e["index"] for e in refused.value.errors] == [4, 5, 6, 7, 8, 9]


def test_a_retry_of_a_puzzle_above_the_cap_needs_accept_cost_again(api_client):
    job = api_client.submit([CHEAP, DEAR], accept_cost=True)
    api_client.cancel(job)
    with pytest.raises(InvalidRequest) as refused:
        api_client.retry(job)
    assert [(e["index"], e["field"]) for e in refused.value.errors] == [(1, "puzzle")]
    assert api_client.job(job)["status"] == "cancelled"
    assert api_client.retry(job, accept_cost=True)["counts"]["queued"] == 2


def test_a_retry_with_one_nested_option_keeps_the_others(api_client):
    request = {"count": 2, "width": 4, "height": 4, "level": "hard", "seed": 1}
    job = api_client.submit([{"kind": "spokes", "generate": request}])
    api_client.cancel(job)
    api_client.retry(job, options={"generate": {"max_attempts": 150}})
    for puzzle in api_client.puzzles(job):
        made = puzzle["options"]["generate"]
        assert made["max_attempts"] == 150
        assert {k: made[k] for k in ("width", "height", "level", "seed")} == {
            "width": 4, "height": 4, "level": "hard", "seed": 1}


def test_hint_answers_a_step_a_wrong_value_and_names_a_bad_field(api_client):
    step = api_client.hint("sudoku", EXAMPLE, "534" + EXAMPLE[3:])
    assert step == solvers.hint_item({"kind": "sudoku", "puzzle": EXAMPLE, "placed": "534" + EXAMPLE[3:]})
    assert step["status"] == "step"
    cands = [list(range(1, 10))] * 81
    wrong = api_client.hint("sudoku", EXAMPLE, "..1" + EXAMPLE[3:], cands)
    assert [(w["cell"], w["value"]) for w in wrong["wrong"]] == [(2, 1)]
    with pytest.raises(InvalidRequest) as refused:
        api_client.hint("sudoku", EXAMPLE, candidates=[[1]] * 3)
    assert [e["field"] for e in refused.value.errors] == ["candidates"]
    with pytest.raises(InvalidRequest) as refused:
        api_client.hint("toy", "12")
    assert "gives no hints" in refused.value.errors[0]["message"]
    assert list(api_client.jobs()) == []
