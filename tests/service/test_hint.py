"""`POST /api/v1/hint` (service/hints.py): the kind's next step, wrong values or a solved grid
as 200; a bad field, a kind without hints or a puzzle without one solution as 422 naming the
field; authentication and the write rate limit as every POST; nothing stored."""

from __future__ import annotations

import pytest

import solvers
from solvers.sudoku import grade
from solvers.sudoku.kind import EXPLAINED
from tests.service.conftest import row_counts
from tests.service.test_odd_requests import assert_problem
from tests.solvers.test_sudoku_hint import EXAMPLE, SOLUTION, path

URL = "/api/v1/hint"
TOKENS = "alice:secret-a"
ALICE = {"Authorization": "Bearer secret-a"}


def test_a_position_gets_the_graders_next_step_and_nothing_is_stored(client, app):
    placed = "534" + EXAMPLE[3:]
    r = client.post(URL, json={"kind": "sudoku", "puzzle": EXAMPLE, "placed": placed})
    assert r.status_code == 200, r.json
    assert r.json == solvers.hint_item({"kind": "sudoku", "puzzle": EXAMPLE, "placed": placed})
    step = r.json["step"]
    assert r.json["status"] == "step" and r.json["band"] == grade.band_of(step["rating"])
    for cell, value in step["placements"]:
        assert placed[cell] == "." and SOLUTION[cell] == str(value)
    for cell, value in step["eliminations"]:
        assert SOLUTION[cell] != str(value)
    assert row_counts(app) == (0, 0, 0)


def test_the_users_candidates_are_read(client):
    """Before the grader's hardest step, with its candidates: that step (a chain's)."""
    values, cands, move = max(path(EXPLAINED), key=lambda s: s[2]["rating"])
    rows = [values[r * 9:r * 9 + 9] for r in range(9)]
    r = client.post(URL, json={"kind": "sudoku", "puzzle": EXPLAINED, "placed": rows, "candidates": cands})
    assert r.status_code == 200, r.json
    assert r.json["step"] == move and move["rating"] >= 7


def test_a_wrong_value_is_named(client):
    r = client.post(URL, json={"kind": "sudoku", "puzzle": EXAMPLE, "placed": "..9" + EXAMPLE[3:]})
    assert r.status_code == 200, r.json
    assert r.json["status"] == "wrong" and "step" not in r.json
    assert [(w["row"], w["column"], w["field"], w["value"]) for w in r.json["wrong"]] == [(1, 3, "placed", 9)]


def test_a_solved_grid_says_so(client):
    r = client.post(URL, json={"kind": "sudoku", "puzzle": EXAMPLE, "placed": SOLUTION})
    assert r.status_code == 200 and r.json == {"status": "solved"}


@pytest.mark.parametrize(("body", "field", "says"), [
    ({"kind": "sudoku", "puzzle": "." * 81}, "puzzle", "more than one solution"),
    ({"kind": "sudoku", "puzzle": "12"}, "puzzle", "has 2"),
    ({"kind": "chess", "puzzle": EXAMPLE}, "kind", "unknown kind 'chess'"),
    ({"kind": "toy", "puzzle": "1"}, "kind", "kind 'toy' gives no hints; kinds that do: sudoku"),
    ({"puzzle": EXAMPLE}, "kind", "unknown kind None"),
    ({"kind": "sudoku"}, "puzzle", "missing field 'puzzle'"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "extra": 1}, "item", "unknown field 'extra'"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "placed": [[1, 2]]}, "placed", "has 4, 9, 16 or 25 rows"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "placed": "9" + EXAMPLE[1:]}, "placed", "holds the given 5"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "candidates": [["1"]] * 81}, "candidates", "'1' is not a digit"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "candidates": {}}, "candidates", "got dict"),
])
def test_bad_input_is_422_naming_the_field(client, app, body, field, says):
    r = client.post(URL, json=body)
    assert_problem(r, 422, "nothing was stored")
    (error,) = r.json["errors"]
    assert error["field"] == field and says in error["message"], error
    assert row_counts(app) == (0, 0, 0)


@pytest.mark.parametrize("body", ['["sudoku"]', '"x"', "7", "null"])
def test_a_body_that_is_not_an_object_is_400(client, body):
    assert_problem(client.post(URL, data=body, content_type="application/json"), 400, "a JSON object")


def test_a_body_that_is_not_json_is_415(client):
    assert client.post(URL, data="kind=sudoku", content_type="text/plain").status_code == 415


def test_tokens_and_the_rate_limit_of_writes_apply(make_app):
    client = make_app(API_TOKENS=TOKENS, RATE_LIMIT="2/hour").test_client()
    body = {"kind": "sudoku", "puzzle": EXAMPLE}
    assert client.post(URL, json=body).status_code == 401
    assert [client.post(URL, json=body, headers=ALICE).status_code for _ in range(2)] == [200, 200]
    assert client.post(URL, json=body, headers=ALICE).status_code == 429


def test_the_hint_and_the_kinds_that_give_hints_are_documented(client):
    doc = client.get("/api/v1/openapi.json").json
    responses = doc["paths"][URL]["post"]["responses"]
    assert {"200", "400", "413", "415", "422"} <= set(responses)
    kinds = {k["kind"]: k["hints"] for k in client.get("/api/v1/kinds").json["items"]}
    assert kinds["sudoku"] is True and kinds["toy"] is False
    assert {name for name, has in kinds.items() if has} == {k.name for k in solvers.KINDS.values()
                                                            if k.hint is not None}


def test_a_cell_without_candidates_is_wrong_not_an_error(client):
    cands = [list(range(1, 10))] * 81
    cands[2] = []
    r = client.post(URL, json={"kind": "sudoku", "puzzle": EXAMPLE, "candidates": cands})
    assert r.status_code == 200
    assert [(w["cell"], w["field"]) for w in r.json["wrong"]] == [(2, "candidates")]
