"""Requests no client should send, each answered with a clear 4xx and nothing stored, never a 5xx
(issue 12, items 1-5, 9 and 12), on SQLite and on PostgreSQL, whose drivers refuse different things:
a NUL in a string, an integer wider than its column."""

from __future__ import annotations

import base64
import json
import random

import httpx
import pytest

from service.bodies import nesting_depth
from tests.liveserver import serving
from tests.service.conftest import row_counts
from tests.services import database_url, postgres_url  # noqa: F401  both databases

GOOD = {"puzzles": [{"kind": "toy", "puzzle": "12"}]}
NOT_OURS = "cursor is not one this API returned"
INDEX_MAX = 2**31 - 1  # puzzles.index: INTEGER


@pytest.fixture
def app(make_app, toy):
    app = make_app()
    yield app
    app.extensions["engine"].dispose()  # the next test's drop_all must not wait for these


@pytest.fixture
def job_id(client):
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "12"}] * 3})
    assert r.status_code == 202
    return r.json["id"]


def cursor(values) -> str:
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")


def assert_problem(r, status: int, detail: str) -> None:
    assert r.status_code == status, r.get_data(as_text=True)
    assert r.mimetype == "application/problem+json"
    assert detail in r.json["detail"], r.json


# -- item 1: nesting deeper than json.loads (or anything walking the value) can take


def nested(depth: int, closed: bool = True) -> str:
    return '{"puzzles":[{"kind":"toy","puzzle":' + "[" * depth + ("]" * depth + "}]}" if closed else "")


@pytest.mark.parametrize("body", [nested(1000), nested(100_000), nested(100_000, closed=False),
                                  '{"label":"' + "]" * 5000 + '",' + nested(5000)[1:]],
                         ids=["depth-1000", "depth-100000", "never-closed", "closing-brackets-in-a-string"])
@pytest.mark.parametrize("path", ["/api/v1/jobs", "/api/v1/validate"])
def test_deep_nesting_is_400_and_nothing_stored(client, app, path, body):
    r = client.post(path, data=body, content_type="application/json")
    assert_problem(r, 400, "deeper than 64 levels")
    assert row_counts(app) == (0, 0, 0)


def test_depth_is_counted_outside_strings_and_up_to_the_setting(make_app, toy):
    app = make_app(MAX_JSON_DEPTH=5)
    client = app.test_client()
    # body, puzzles, item, then two levels of puzzle: 5, refused by the kind (422), not for depth
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": [["[[[[[[["]]}]})
    assert r.status_code == 422 and r.json["errors"][0]["field"] == "puzzle"
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": [[[1]]]}]})
    assert_problem(r, 400, "deeper than 5 levels")
    assert client.post("/api/v1/jobs", json={"label": "[[[[[[", **GOOD}).status_code == 202


@pytest.mark.parametrize("seed", range(20))
def test_depth_scans_with_and_without_escapes_agree(seed):
    # A text with a backslash goes through the regex, one without through numpy alone: a string
    # of one escaped backslash at the end moves a text to the regex and adds no bracket.
    rng = random.Random(seed)
    raw = "".join(rng.choice('[]{}"ab,:') for _ in range(rng.randrange(1, 400))).encode()
    assert nesting_depth(raw) == nesting_depth(raw + b' "\\\\"')
    assert nesting_depth(b'["\\"[[[", ["\\\\", [1]]]') == 3  # escaped quotes: no string ends there


# -- item 2: a puzzle index no row can have


@pytest.mark.parametrize("index", [INDEX_MAX + 1, 2**40, 2**63, 10**30, -1, -(2**31) - 1, -(2**63) - 1])
def test_puzzle_index_outside_the_column_is_404(client, job_id, index):
    r = client.get(f"/api/v1/jobs/{job_id}/puzzles/{index}")
    assert_problem(r, 404, f"has no puzzle {index}; it has 3")


def test_puzzle_index_inside_the_column_still_answers(client, job_id):
    assert client.get(f"/api/v1/jobs/{job_id}/puzzles/2").json["index"] == 2
    assert_problem(client.get(f"/api/v1/jobs/{job_id}/puzzles/{INDEX_MAX}"), 404, "has no puzzle")


# -- item 3: cursors that no page of ours returned


@pytest.mark.parametrize("values", [[2**40], [10**22], [-1], [True], ["1"], [1.5], [[1]], [1, 2]])
def test_odd_puzzles_cursor_is_400(client, job_id, values):
    r = client.get(f"/api/v1/jobs/{job_id}/puzzles", query_string={"cursor": cursor(values)})
    assert_problem(r, 400, NOT_OURS)


def test_puzzles_cursor_of_a_page_still_works(client, job_id):
    first = client.get(f"/api/v1/jobs/{job_id}/puzzles", query_string={"limit": 2}).json
    rest = client.get(f"/api/v1/jobs/{job_id}/puzzles", query_string={"cursor": first["next_cursor"]}).json
    assert [p["index"] for p in first["items"] + rest["items"]] == [0, 1, 2]


# -- item 4 and the lengths of item 5: strings no row can hold or match


ODD_IDS = ["%00", "a%00b", "x" * 33, "x" * 5000, "%C2%85", "%1F"]


@pytest.mark.parametrize("job", ODD_IDS)
@pytest.mark.parametrize(("method", "suffix"), [("GET", ""), ("GET", "/puzzles"), ("GET", "/puzzles/0"),
                                            ("GET", "/results"), ("POST", "/cancel")])
def test_job_id_no_row_can_have_is_404(client, job_id, job, method, suffix):
    r = client.open(f"/api/v1/jobs/{job}{suffix}", method=method)
    assert_problem(r, 404, "no job")


@pytest.mark.parametrize("values", [["2026-01-01T00:00:00+00:00", "a\x00b"],
                                    ["2026-01-01T00:00:00", "\ud800"], ["2026-01-01T00:00:00", "x" * 33],
                                    ["2026-01-01\x00", "abc"], ["yesterday", "abc"], [1, "abc"]])
def test_odd_jobs_cursor_is_400(client, job_id, values):
    r = client.get("/api/v1/jobs", query_string={"cursor": cursor(values)})
    assert_problem(r, 400, NOT_OURS)


@pytest.mark.parametrize("text", ["[" * 3000 + "]" * 3000, "not base64!", "e30"])
def test_cursor_that_is_not_a_list_is_400(client, job_id, text):
    raw = text if text in ("not base64!", "e30") else base64.urlsafe_b64encode(text.encode()).decode()
    for path in ("/api/v1/jobs", f"/api/v1/jobs/{job_id}/puzzles"):
        assert_problem(client.get(path, query_string={"cursor": raw}), 400, NOT_OURS)


def test_jobs_cursor_of_a_page_still_works(client, job_id):
    other = client.post("/api/v1/jobs", json=GOOD).json["id"]
    first = client.get("/api/v1/jobs", query_string={"limit": 1}).json
    rest = client.get("/api/v1/jobs", query_string={"cursor": first["next_cursor"]}).json
    assert [j["id"] for j in first["items"] + rest["items"]] == [other, job_id]


@pytest.mark.parametrize("key", ["a\x00b", "tab\there", "\x7f", "k" * 201])
def test_idempotency_key_no_row_can_hold_is_400(client, app, key):
    r = client.post("/api/v1/jobs", json=GOOD, headers={"Idempotency-Key": key})
    assert_problem(r, 400, "Idempotency-Key has 1 to 200 printable characters")
    assert row_counts(app) == (0, 0, 0)


def test_idempotency_key_of_200_latin1_characters_is_stored(client):
    key = "\xe9" * 200  # 400 bytes in UTF-8: the column counts characters
    first = client.post("/api/v1/jobs", json=GOOD, headers={"Idempotency-Key": key})
    again = client.post("/api/v1/jobs", json=GOOD, headers={"Idempotency-Key": key})
    assert (first.status_code, again.status_code) == (202, 200) and first.json["id"] == again.json["id"]


# -- item 12 and the rest of the body: JSON only, in UTF-8


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None,
                                          "application/json; charset=latin-1", "application/jsonx"])
@pytest.mark.parametrize("path", ["/api/v1/jobs", "/api/v1/validate"])
def test_a_body_that_is_not_json_is_415(client, app, path, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    r = client.post(path, data=json.dumps(GOOD), headers=headers)
    assert_problem(r, 415, f"Content-Type: application/json (UTF-8); got {content_type or 'none'}")
    assert row_counts(app) == (0, 0, 0)


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/json;charset=UTF8",
                                          "application/vnd.puzzle+json"])
def test_json_content_types_are_taken(client, content_type):
    r = client.post("/api/v1/jobs", data=json.dumps(GOOD), headers={"Content-Type": content_type})
    assert r.status_code == 202


@pytest.mark.parametrize(("body", "detail"), [
    (b'{"puzzles":[{"kind":"toy","puzzle":"12","options":{"sleep":NaN}}]}', "NaN is not a JSON value"),
    (b'{"puzzles":[{"kind":"toy","puzzle":"12"}],"label":Infinity}', "Infinity is not a JSON value"),
    (b'{"label":"\xff","puzzles":[]}', "not UTF-8"),
    (b'{"puzzles": [', "not valid JSON"),
])
def test_what_json_is_not_is_400(client, app, body, detail):
    r = client.post("/api/v1/jobs", data=body, content_type="application/json")
    assert_problem(r, 400, detail)
    assert row_counts(app) == (0, 0, 0)


# -- item 9: a body over the limit, without a Content-Length


def test_chunked_body_over_the_limit_is_413(make_app, toy):
    app = make_app(MAX_BODY_BYTES=100_000)

    def chunks():
        yield b'{"puzzles":['
        for _ in range(300):  # 300 kB in all, against a limit of 100 kB
            yield b'{"kind":"toy","puzzle":"12"},' * 35 + b" " * 20
        yield b'{"kind":"toy","puzzle":"12"}]}'

    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/api/v1/jobs", content=chunks(), headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and "larger than 100000 bytes" in r.json()["detail"]
        small = http.post("/api/v1/jobs", content=iter([json.dumps(GOOD).encode()]),
                          headers={"Content-Type": "application/json"})
        assert small.status_code == 202, small.text
    assert row_counts(app) == (1, 1, 0)
    app.extensions["engine"].dispose()


# -- what every error carries


def test_a_method_not_allowed_says_which_are(client, job_id):
    r = client.delete(f"/api/v1/jobs/{job_id}/cancel")
    assert r.status_code == 405 and r.mimetype == "application/problem+json"
    assert set(r.headers["Allow"].replace(" ", "").split(",")) >= {"POST", "OPTIONS"}


def test_wait_is_capped_by_the_setting(make_app, toy, monkeypatch):
    waited = []
    monkeypatch.setattr("service.api.wait_for_job",
                        lambda describe, seconds, **_: waited.append(seconds) or describe())
    client = make_app(WAIT_CAP_SECONDS=0.5).test_client()
    job = client.post("/api/v1/jobs", json=GOOD).json["id"]
    for asked in (0, 0.2, 60):
        assert client.get(f"/api/v1/jobs/{job}", query_string={"wait": asked}).status_code == 200
    assert waited == [0, 0.2, 0.5]
