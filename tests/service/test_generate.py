"""Generate items: one stored puzzle per index, made and checked by the worker's solving path,
exported like any result; bad requests 422 with nothing stored; explained solves."""

from __future__ import annotations

import json

import pytest

import solvers
from solvers.sudoku import grade, making
from tests.service.conftest import row_counts, run_published, runtime_of
from worker.chunk import run_chunk

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


@pytest.fixture
def app(make_app):
    app = make_app()
    yield app
    app.extensions["engine"].dispose()


def chunks(app) -> list[list[int]]:
    got = list(app.extensions["publisher"].chunks)
    app.extensions["publisher"].chunks.clear()
    return got


def generated(app, client, request: dict, split=None, kind: str = "sudoku") -> list[dict]:
    """The results of a generate job of ``request``, its tasks run as published, or by ``split``
    (the ids cut into tasks of that size, last first)."""
    job = client.post("/api/v1/jobs", json={"puzzles": [{"kind": kind, "generate": request}]})
    assert job.status_code == 202, job.json
    if split is None:
        run_published(app)
    else:  # its puzzles put back as rows (cancelled, retried), run in tasks of ``split`` ids, last first
        client.post(f"/api/v1/jobs/{job.json['id']}/cancel")
        app.extensions["publisher"].stored.clear()
        assert client.post(f"/api/v1/jobs/{job.json['id']}/retry").status_code == 202
        ids = [i for task in chunks(app) for i in task]
        for task in [ids[k:k + split] for k in range(0, len(ids), split)][::-1]:
            run_chunk(runtime_of(app), task, "w")
    state = client.get(f"/api/v1/jobs/{job.json['id']}").json
    assert state["status"] == "completed" and state["counts"]["solved"] == request["count"], state
    items = client.get(f"/api/v1/jobs/{job.json['id']}/puzzles?limit=500").json["items"]
    assert [p["index"] for p in items] == list(range(request["count"]))
    return [p["result"] for p in items]


def test_a_generate_item_makes_count_rows_each_unique_and_in_its_band(app, client):
    request = {"count": 6, "difficulty": "medium", "symmetry": "rotational", "seed": 3}
    results = generated(app, client, request)
    assert len({r["puzzle"] for r in results}) == 6
    kind = solvers.get("sudoku")
    low, high = grade.BANDS["medium"]
    for r in results:
        puzzle, options = kind.prepare(r["puzzle"], {"strategy": "sat"})  # an independent proof
        found = kind.solve(puzzle, options)
        assert found.result["unique"] and found.result["solution"] == r["solution"]
        assert low <= r["rating"] < high and r["band"] == "medium"
        regraded = grade.grade(r["puzzle"])
        assert (regraded.rating, regraded.hardest, regraded.steps) == (r["rating"], r["hardest"], r["steps"])
        givens = [c != "." for c in r["puzzle"]]
        assert givens == givens[::-1]  # rotational: cell i and 80 - i alike


def test_the_same_seed_gives_the_same_puzzles_however_the_work_is_split(app, client):
    request = {"count": 5, "difficulty": "easy", "seed": 11}
    whole = generated(app, client, request)
    one_by_one = generated(app, client, request, split=1)
    in_twos = generated(app, client, request, split=2)
    assert whole == one_by_one == in_twos
    first = generated(app, client, {**request, "count": 2})
    assert first == whole[:2]
    other = generated(app, client, {**request, "seed": 12})
    assert {r["puzzle"] for r in other}.isdisjoint({r["puzzle"] for r in whole})


@pytest.mark.parametrize(("generate", "words"), [
    ({"difficulty": "hard"}, "count"),
    ({"count": 0}, "at least 1"),
    ({"count": 10_001}, "at most 10000"),
    ({"count": 3, "difficulty": "impossible"}, "difficulty"),
    ({"count": 3, "difficulty": "hard", "rating_max": 4.0}, "not both"),
    ({"count": 3, "rating_min": 5.0, "rating_max": 4.0}, "rating_min"),
    ({"count": 3, "symmetry": "spiral"}, "symmetry"),
    ({"count": 3, "size": 25}, "size"),
    ({"count": 3, "seed": -1}, "seed"),
    ({"count": 3, "colour": "red"}, "colour"),
    ("hard", "dictionary"),
])
def test_bad_generate_options_are_422_naming_item_and_field_and_store_nothing(app, client, generate, words):
    body = {"puzzles": [{"kind": "sudoku", "puzzle": EASY}, {"kind": "sudoku", "generate": generate}]}
    for url in ("/api/v1/jobs", "/api/v1/validate"):
        r = client.post(url, json=body)
        assert r.status_code == 422, r.json
        [error] = r.json["errors"]
        assert error["index"] == 1 and error["field"] == "generate" and words in error["message"], error
    assert row_counts(app) == (0, 0, 0)


def test_a_generate_item_with_a_puzzle_or_of_a_kind_without_a_generator_is_422(app, client):
    for item in ({"kind": "sudoku", "puzzle": EASY, "generate": {"count": 2}},
                 {"kind": "nqueens", "generate": {"count": 2}}):
        r = client.post("/api/v1/jobs", json={"puzzles": [item]})
        assert r.status_code == 422 and r.json["errors"][0]["index"] == 0, r.json
    assert row_counts(app) == (0, 0, 0)


def test_validate_counts_the_rows_a_generate_item_stores(app, client):
    body = {"puzzles": [{"kind": "sudoku", "puzzle": EASY}, {"kind": "sudoku", "generate": {"count": 40}}]}
    r = client.post("/api/v1/validate", json=body)
    assert r.status_code == 200 and r.json["puzzles"] == 41


def test_the_generate_cap_is_a_setting(make_app):
    client = make_app(MAX_GENERATE="3").test_client()
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "sudoku", "generate": {"count": 4}}]})
    assert r.status_code == 422 and "at most 3" in r.json["errors"][0]["message"]


def test_kinds_describe_the_generate_options(client):
    kinds = {k["kind"]: k for k in client.get("/api/v1/kinds").json["items"]}
    generate = kinds["sudoku"]["generate"]
    assert set(generate["options"]) == {o.name for o in making.OPTIONS}
    assert generate["options"]["difficulty"]["choices"] == list(grade.BANDS)
    assert set(generate["result"]) == set(making.RESULT_FIELDS)
    assert kinds["nqueens"]["generate"] is None


def test_a_generated_row_exports_and_retries_like_any_puzzle(app, client):
    item = {"kind": "sudoku", "generate": {"count": 3, "seed": 5}}
    job = client.post("/api/v1/jobs", json={"puzzles": [item]})
    job_id = job.json["id"]
    chunks(app)
    client.post(f"/api/v1/jobs/{job_id}/cancel")
    assert client.get(f"/api/v1/jobs/{job_id}").json["counts"]["cancelled"] == 3
    r = client.post(f"/api/v1/jobs/{job_id}/retry")
    assert r.status_code == 202, r.json
    for task in chunks(app):
        run_chunk(runtime_of(app), task, "w")
    lines = client.get(f"/api/v1/jobs/{job_id}/results").get_data(as_text=True).splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["status"] for r in records] == ["solved"] * 3
    assert all(set(r["result"]) == set(making.RESULT_FIELDS) for r in records)


def test_explain_returns_the_graders_steps_with_the_solution(app, client):
    hard = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
    items = [{"kind": "sudoku", "puzzle": p, "options": {"explain": True}} for p in (EASY, hard)]
    job = client.post("/api/v1/jobs", json={"puzzles": items}).json
    run_published(app)
    easy_result, hard_result = [p["result"] for p in
                                client.get(f"/api/v1/jobs/{job['id']}/puzzles").json["items"]]
    told = easy_result["explanation"]
    assert told["rating"] == grade.grade(EASY).rating and told["guesses"] == []
    placed = sorted(cell for step in told["steps"] for cell, _ in step["placements"])
    assert placed == [i for i, c in enumerate(EASY) if c == "."]
    guessed = hard_result["explanation"]["guesses"]
    assert guessed and all(g["depth"] >= 1 and g["guesses"] >= 1 for g in guessed)
    assert hard_result["explanation"]["hardest"] == "guess"


def test_explain_is_up_to_16x16(app, client):
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "sudoku", "puzzle": "." * 625,
                                                       "options": {"explain": True}}]})
    assert r.status_code == 422 and r.json["errors"][0]["field"] == "options"


def test_explain_grades_a_position_with_its_wrong_values(app, client):
    """Options placed and candidates pass through to the kind: the position is graded from where
    it stands, a wrong placed value is reported; a placed value against a given is 422."""
    solution = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
    right = solution[:27] + EASY[27:]
    wrong = EASY[:2] + "1" + EASY[3:]  # row 1, column 3 is 4
    items = [{"kind": "sudoku", "puzzle": EASY, "options": {"explain": True, "placed": p}}
             for p in (right, wrong)]
    job = client.post("/api/v1/jobs", json={"puzzles": items}).json
    run_published(app)
    graded, refused = [p["result"]["explanation"] for p in
                       client.get(f"/api/v1/jobs/{job['id']}/puzzles").json["items"]]
    assert graded["wrong"] == [] and len(graded["steps"]) == right.count(".")
    assert [(w["cell"], w["field"], w["value"]) for w in refused["wrong"]] == [(2, "placed", 1)]
    assert refused["rating"] is None and refused["steps"] == []
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "sudoku", "puzzle": EASY, "options": {
        "explain": True, "placed": "6" + EASY[1:]}}]})
    assert r.status_code == 422 and "option 'placed'" in json.dumps(r.json)


@pytest.mark.parametrize(("kind", "request_"), [
    ("spokes", {"count": 3, "width": 5, "height": 5, "level": "easy", "seed": 2}),
    ("sliding", {"count": 3, "size": 3, "moves": 24, "seed": 2}),
])
def test_spokes_and_sliding_generate_items_make_rows_that_solve_as_posted(app, client, kind, request_):
    results = generated(app, client, request_, kind=kind)
    assert generated(app, client, request_, split=1, kind=kind) == results  # same seed, any split
    posted = client.post("/api/v1/jobs", json={"puzzles": [{"kind": kind, "puzzle": r["puzzle"]}
                                                           for r in results]})
    assert posted.status_code == 202, posted.json
    run_published(app)
    state = client.get(f"/api/v1/jobs/{posted.json['id']}").json
    assert state["counts"]["solved"] == len(results), state


def test_a_generate_item_predicted_above_the_time_limit_is_refused_up_front_naming_it(make_app):
    # A made puzzle is never split: one predicted above PUZZLE_TIME_LIMIT would fail at it, after
    # that long. accept_cost lifts MAX_PUZZLE_CPU_SECONDS, not this.
    app = make_app(PUZZLE_TIME_LIMIT=30.0)
    client = app.test_client()
    hard = {"count": 2, "width": 30, "height": 30, "level": "hard"}
    spokes = solvers.get("spokes").generator
    assert spokes is not None and spokes.seconds({**hard, "seed": 0, "max_attempts": 200}) > 30
    body = {"accept_cost": True, "puzzles": [{"kind": "sudoku", "puzzle": EASY},
                                             {"kind": "spokes", "generate": hard}]}
    for path in ("/api/v1/validate", "/api/v1/jobs"):
        r = client.post(path, json=body)
        assert r.status_code == 422, r.json
        [error] = r.json["errors"]
        assert (error["index"], error["field"]) == (1, "generate") and error["estimated_seconds"] > 30
        assert "30 s one puzzle may run (PUZZLE_TIME_LIMIT)" in error["message"]
        assert r.json["puzzle_time_limit"] == 30.0
    assert row_counts(app) == (0, 0, 0)
    smaller = {"kind": "spokes", "generate": {"count": 1, "width": 15, "height": 15, "level": "hard"}}
    assert client.post("/api/v1/jobs", json={"puzzles": [smaller]}).status_code == 202
