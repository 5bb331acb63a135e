"""Predicted costs in the API: each puzzle's estimate, the job's predicted total, its progress
weighted by predicted seconds (a split puzzle's parts, a running one's reported share of its
search) and its eta from the observed rate; the job's sums move with its counter, each finish
counted once."""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import select, update

import solvers
from solvers.base import Estimate
from store import costs, rows, workers
from store.models import Job, Puzzle, now
from tests.service.conftest import RecordingPublisher, assert_job_costs_match_rows, row_counts, runtime_of
from tests.services import database_url, postgres_url  # noqa: F401  the statements differ by database
from tests.toykind import TOY
from worker import parts as worker_parts
from worker.chunk import run_chunk


def by_digit_sum(puzzle, options):
    """A prediction each test can steer: the digits' sum in seconds, within a factor of 2."""
    return Estimate(float(sum(puzzle)), 2.0, "test")


@pytest.fixture
def steered(monkeypatch):
    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(TOY, predict=by_digit_sum))


@pytest.fixture
def app(make_app, steered):
    return make_app(PUZZLE_TIME_LIMIT=20.0)


def submit(client, *digits, **options):
    body = {"puzzles": [{"kind": "toy", "puzzle": d, "options": options} for d in digits]}
    r = client.post("/api/v1/jobs", json=body)
    assert r.status_code == 202, r.json
    return r.json


def ids_of(app, job_id):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id).order_by(Puzzle.index)))


def job(client, job_id):
    return client.get(f"/api/v1/jobs/{job_id}").json


def test_each_puzzle_shows_its_estimate_and_the_job_their_total(client, app):
    stored = submit(client, "1", "27", "0")
    assert stored["estimated_seconds_total"] == 10.0 and stored["estimated_seconds_done"] == 0.0
    assert stored["eta_seconds"] is None and stored["eta_range"] is None  # nothing done: no rate yet
    assert job(client, stored["id"])["estimated_seconds_total"] == 10.0
    one = client.get(f"/api/v1/jobs/{stored['id']}/puzzles/1").json
    assert one["estimated_seconds"] == 9.0 and one["estimated_range"] == [4.5, 18.0]
    assert one["estimate_basis"] == "test"
    page = client.get(f"/api/v1/jobs/{stored['id']}/puzzles").json["items"]
    assert [p["estimated_seconds"] for p in page] == [1.0, 9.0, 0.0]


def test_progress_is_weighted_by_predicted_seconds_and_the_eta_by_the_observed_rate(client, app):
    stored = submit(client, "1", "333")
    light, heavy = ids_of(app, stored["id"])
    run_chunk(runtime_of(app), [light], "w")
    # One puzzle of two is finished, but only a tenth of the predicted work.
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).values(started_at=now() - timedelta(seconds=20)))
    shown = job(client, stored["id"])
    assert shown["counts"]["solved"] == 1 and shown["progress"] == 0.1
    assert shown["estimated_seconds_done"] == 1.0
    # 1 predicted second done in about 20 wall seconds: the 9 left take about 180.
    assert shown["eta_seconds"] == pytest.approx(180.0, rel=0.02)
    low, high = shown["eta_range"]
    # The band: the job's factor (2) to the power of the share left (0.9).
    assert low == pytest.approx(shown["eta_seconds"] / 2 ** 0.9, rel=1e-3)
    assert high == pytest.approx(shown["eta_seconds"] * 2 ** 0.9, rel=1e-3)
    run_chunk(runtime_of(app), [heavy], "w")
    done = job(client, stored["id"])
    assert done["status"] == "completed" and done["progress"] == 1.0
    assert done["eta_seconds"] == 0.0 and done["eta_range"] == [0.0, 0.0]
    assert done["estimated_seconds_done"] == 10.0
    assert_job_costs_match_rows(app.extensions["sessions"])


def test_a_redelivered_chunk_counts_its_puzzles_done_once(client, app):
    stored = submit(client, "2", "3")
    ids = ids_of(app, stored["id"])
    for _ in range(3):
        run_chunk(runtime_of(app), ids[:1], "w")
    assert job(client, stored["id"])["estimated_seconds_done"] == 2.0
    assert_job_costs_match_rows(app.extensions["sessions"])


def test_a_split_puzzle_counts_its_estimate_shared_among_its_parts(client, app):
    stored = submit(client, "1234", "1111", split=4)  # 10 and 4 predicted seconds
    split_id, _other = ids_of(app, stored["id"])
    report = run_chunk(runtime_of(app), [split_id], "coordinator")
    assert len(report.fanned) == 4
    for part in report.fanned[:2]:
        assert worker_parts.run_part(runtime_of(app), part, "w")
    assert job(client, stored["id"])["progress"] == pytest.approx(5 / 14, abs=1e-6)
    assert job(client, stored["id"])["estimated_seconds_done"] == pytest.approx(5.0)
    assert_job_costs_match_rows(app.extensions["sessions"])


def test_a_running_puzzle_counts_the_share_its_solver_reports(client, app):
    stored = submit(client, "1", "333")
    light, heavy = ids_of(app, stored["id"])
    with app.extensions["sessions"]() as s, s.begin():
        (held,) = rows.claim(s, [heavy], "w", now() + timedelta(minutes=5))
    run_chunk(runtime_of(app), [light], "w")
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).values(started_at=now() - timedelta(seconds=20)))
    since = time.monotonic()
    bands = []
    for share in (0.5, 0.75):
        with app.extensions["sessions"]() as s, s.begin():
            rows.record_progress(s, held, share)
        shown = job(client, stored["id"])
        done = 1.0 + 9.0 * share
        assert shown["progress"] == pytest.approx(done / 10) and shown["estimated_seconds_done"] == done
        # The job has run 20 s and the time this test took since (a busy machine's slow request).
        least, most = 20.0, 20.0 + time.monotonic() - since
        assert (10 - done) * least / done * 0.99 <= shown["eta_seconds"] <= (10 - done) * most / done * 1.01
        low, high = shown["eta_range"]
        assert high == pytest.approx(shown["eta_seconds"] * 2 ** (1 - done / 10), rel=1e-3)
        bands.append(high / low)
        page = client.get(f"/api/v1/jobs/{stored['id']}/puzzles").json["items"]
        assert [p["progress"] for p in page] == [None, share]
    assert bands[1] < bands[0]  # the band narrows as the search goes on
    # Another claim of the puzzle starts with nothing to show, and a late report of the old one is
    # not written.
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.id == heavy).values(status="queued"))
        rows.claim(s, [heavy], "w2", now() + timedelta(minutes=5))
        rows.record_progress(s, held, 0.9)
    assert job(client, stored["id"])["estimated_seconds_done"] == 1.0
    assert client.get(f"/api/v1/jobs/{stored['id']}/puzzles/1").json["progress"] is None


def test_cancel_and_retry_move_the_done_seconds(client, app):
    stored = submit(client, "5", "6", "7")
    first, *_ = ids_of(app, stored["id"])
    run_chunk(runtime_of(app), [first], "w")
    assert client.post(f"/api/v1/jobs/{stored['id']}/cancel").status_code == 202
    cancelled = job(client, stored["id"])
    assert cancelled["progress"] == pytest.approx(1 / 3, abs=1e-6)  # one puzzle of three ran
    assert cancelled["estimated_seconds_done"] == 18.0
    assert_job_costs_match_rows(app.extensions["sessions"])
    retried = client.post(f"/api/v1/jobs/{stored['id']}/retry", json={"indexes": [2]}).json
    assert retried["estimated_seconds_done"] == 11.0
    assert retried["progress"] == pytest.approx(11 / 18, abs=1e-6)
    assert_job_costs_match_rows(app.extensions["sessions"])


def test_a_job_stored_without_predictions_counts_puzzles(client, app):
    stored = submit(client, "2", "4")
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).values(estimated_seconds=None, estimated_high=None))
        s.execute(update(Puzzle).values(estimated_seconds=None, estimate_factor=None, estimate_basis=None))
    run_chunk(runtime_of(app), ids_of(app, stored["id"])[:1], "w")
    shown = job(client, stored["id"])
    assert shown["progress"] == 0.5
    assert shown["estimated_seconds_total"] is None and shown["eta_seconds"] is None
    one = client.get(f"/api/v1/jobs/{stored['id']}/puzzles/0").json
    assert one["estimated_seconds"] is None and one["estimated_range"] is None


def test_validate_predicts_the_cost_of_each_item_and_of_the_batch_and_stores_nothing(client, app):
    body = {"puzzles": [{"kind": "toy", "puzzle": d} for d in ("1", "22", "333")]}
    r = client.post("/api/v1/validate", json=body)
    assert r.status_code == 200, r.json
    assert r.json["puzzles"] == 3 and r.json["estimated_seconds_total"] == 14.0
    assert r.json["estimated_range_total"] == [7.0, 28.0]
    assert [i["estimated_seconds"] for i in r.json["items"]] == [1.0, 4.0, 9.0]
    assert r.json["items"][2] == {"estimated_seconds": 9.0, "estimated_range": [4.5, 18.0],
                                  "estimate_basis": "test"}
    assert row_counts(app) == (0, 0, 0)


BUDGETS = {"API_TOKENS": "alice:secret-a,bob:secret-b", "MAX_PUZZLE_CPU_SECONDS": 10.0,
           "CLIENT_CPU_BUDGET": 30.0, "CLIENT_CPU_BUDGETS": {"bob": 100.0}}
ALICE, BOB = {"Authorization": "Bearer secret-a"}, {"Authorization": "Bearer secret-b"}


def post(client, digits, headers, **job):
    return client.post("/api/v1/jobs", headers=headers,
                       json={**job, "puzzles": [{"kind": "toy", "puzzle": d} for d in digits]})


def test_a_puzzle_over_the_cap_refuses_the_batch_naming_each_such_item(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    for url in ("/api/v1/jobs", "/api/v1/validate"):
        # 1, 10 (at the cap: accepted), 12 and 18 predicted seconds
        r = client.post(url, headers=ALICE, json={"puzzles": [{"kind": "toy", "puzzle": d}
                                                              for d in ("1", "55", "66", "99")]})
        assert r.status_code == 422 and r.mimetype == "application/problem+json"
        assert r.json["max_puzzle_cpu_seconds"] == 10.0
        assert [(e["index"], e["field"], e["estimated_seconds"]) for e in r.json["errors"]] == \
            [(2, "puzzle", 12.0), (3, "puzzle", 18.0)]
        assert "predicted at 18 CPU seconds, above this service's cap of 10" in r.json["errors"][1]["message"]
    assert row_counts(app) == (0, 0, 0)


def test_accept_cost_lifts_the_cap_but_not_the_budget(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    accepted = post(client, ["99"], ALICE, accept_cost=True)  # 18 seconds, over the cap of 10
    assert accepted.status_code == 202 and accepted.json["estimated_seconds_total"] == 18.0
    refused = post(client, ["99"], ALICE, accept_cost=True)  # 36 of a budget of 30
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert "Retry-After" in refused.headers
    assert (refused.json["estimated_seconds"], refused.json["budget"], refused.json["budget_left"]) == \
        (18.0, 30.0, 12.0)
    assert row_counts(app)[:2] == (1, 1)


def test_the_budget_counts_unfinished_work_and_names_overrides(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    first = post(client, ["9", "9", "9"], ALICE)  # 27 of 30
    assert first.status_code == 202
    assert post(client, ["4"], ALICE).status_code == 429  # 31
    assert post(client, ["9", "9", "9", "9"], BOB).status_code == 202  # bob's own budget: 100
    run_chunk(runtime_of(app), ids_of(app, first.json["id"])[:2], "w")  # 18 of alice's done
    assert post(client, ["4"], ALICE).status_code == 202  # 9 + 4 of 30
    cancelled = client.post(f"/api/v1/jobs/{first.json['id']}/cancel", headers=ALICE)
    assert cancelled.status_code == 202
    assert post(client, ["9", "9", "8"], ALICE).status_code == 202  # 4 + 26: finished work counts no more
    assert post(client, ["1"], ALICE).status_code == 429
    assert row_counts(app)[:2] == (4, 11)


def test_concurrent_posts_of_one_client_store_at_most_its_budget(make_app, steered):
    """Four POSTs at once, each alone within the budget and any two past it: one is stored. On
    PostgreSQL each job's INSERT is slowed (a trigger), so that unserialised submits would all read
    the backlog before any of them is stored."""
    app = make_app(**BUDGETS)
    engine = app.extensions["engine"]
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE OR REPLACE FUNCTION slow_job() RETURNS trigger AS "
                                 "$$ BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$ LANGUAGE plpgsql")
            conn.exec_driver_sql("CREATE TRIGGER slow_job BEFORE INSERT ON jobs "
                                 "FOR EACH ROW EXECUTE FUNCTION slow_job()")
    together = threading.Barrier(4)

    def one() -> int:
        client = app.test_client()
        together.wait()
        return post(client, ["9", "9"], ALICE).status_code  # 18 of a budget of 30

    with ThreadPoolExecutor(4) as pool:
        codes = sorted(pool.map(lambda _: one(), range(4)))
    assert codes == [202, 429, 429, 429]
    assert row_counts(app)[:2] == (1, 2)


def test_a_retry_and_a_post_of_one_client_at_once_store_at_most_its_budget(make_app, steered):
    """A retry and a POST at once, each alone within the budget and the two past it: one is
    stored. On PostgreSQL the job's INSERT and the retried puzzles' UPDATE are slowed (triggers),
    so that unserialised, each would read the backlog before the other is stored."""
    app = make_app(**BUDGETS)
    client = app.test_client()
    failing = [{"kind": "toy", "puzzle": "9", "options": {"crash": True}}] * 2
    done = client.post("/api/v1/jobs", headers=ALICE, json={"puzzles": failing}).json
    run_chunk(runtime_of(app), ids_of(app, done["id"]), "w")  # 18 s failed, nothing unfinished
    engine = app.extensions["engine"]
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE OR REPLACE FUNCTION slow_row() RETURNS trigger AS "
                                 "$$ BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$ LANGUAGE plpgsql")
            conn.exec_driver_sql("CREATE TRIGGER slow_job BEFORE INSERT ON jobs "
                                 "FOR EACH ROW EXECUTE FUNCTION slow_row()")
            conn.exec_driver_sql("CREATE TRIGGER slow_retry BEFORE UPDATE ON puzzles "
                                 "FOR EACH ROW EXECUTE FUNCTION slow_row()")
    together = threading.Barrier(2)

    def one(retry: bool) -> int:
        each = app.test_client()
        together.wait()
        if retry:  # 18 of a budget of 30
            return each.post(f"/api/v1/jobs/{done['id']}/retry", headers=ALICE,
                             json={"options": {"crash": False}}).status_code
        return post(each, ["9", "9"], ALICE).status_code  # 18 too

    with ThreadPoolExecutor(2) as pool:
        codes = sorted(pool.map(one, (True, False)))
    assert codes == [202, 429]
    with app.extensions["sessions"]() as s:
        unfinished = s.scalars(select(Job.estimated_seconds - Job.done_seconds)
                               .where(Job.status.in_(("queued", "running")))).all()
    assert sum(unfinished) <= 30.0


def test_a_retry_past_the_budget_is_refused_whole_and_changes_nothing(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    failing = [{"kind": "toy", "puzzle": d, "options": {"crash": c}} for d, c in (("9", True), ("9", True),
                                                                                   ("5", False))]
    done = client.post("/api/v1/jobs", headers=ALICE, json={"puzzles": failing}).json
    run_chunk(runtime_of(app), ids_of(app, done["id"]), "w")  # two of 9 s failed, nothing left
    assert post(client, ["55", "3"], ALICE).status_code == 202  # 13 s unfinished
    url, sent = f"/api/v1/jobs/{done['id']}/retry", app.extensions["publisher"]
    before, published = job(client, done["id"]), len(sent.chunks)
    refused = client.post(url, headers=ALICE, json={"options": {"crash": False}})  # 13 + 18 of 30
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert "Retry-After" in refused.headers
    assert (refused.json["estimated_seconds"], refused.json["budget"], refused.json["budget_left"]) == \
        (18.0, 30.0, 17.0)
    assert "the retried puzzles are predicted at 18 CPU seconds" in refused.json["detail"]
    assert job(client, done["id"]) == before and len(sent.chunks) == published
    assert client.post(url, headers=ALICE, json={"indexes": [1]}).status_code == 202  # 13 + 9
    again = client.post(url, headers=ALICE, json={"indexes": [0]})  # 22, this job's 9 among them, + 9
    assert again.status_code == 429 and again.json["budget_left"] == 8.0
    assert client.post(url, headers=BOB, json={"indexes": [0]}).status_code == 404  # alice's job
    assert_job_costs_match_rows(app.extensions["sessions"])


def by_digit_sum_and_spin(puzzle, options):
    """The digits' sum in seconds, plus the ``spin`` option: a retry's options change it."""
    return Estimate(float(sum(puzzle)) + options["spin"], 2.0, "test")


def test_a_batch_over_the_whole_budget_is_422_not_an_invitation_to_retry(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    r = post(client, ["99", "99"], ALICE, accept_cost=True)  # 36 of a budget of 30, with nothing unfinished
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert "Retry-After" not in r.headers
    assert (r.json["estimated_seconds"], r.json["budget"], r.json["budget_left"]) == (36.0, 30.0, 30.0)
    [err] = r.json["errors"]
    assert err["index"] is None and err["field"] == "puzzles"
    assert "more than your whole budget of 30 (CLIENT_CPU_BUDGET): it can never be accepted" in err["message"]
    assert r.json["detail"].startswith("puzzles: predicted at 36 CPU seconds")
    assert row_counts(app) == (0, 0, 0)
    assert post(client, ["99", "99"], BOB, accept_cost=True).status_code == 202  # bob's budget: 100


def test_a_retry_over_the_whole_budget_is_422_naming_indexes(make_app, monkeypatch):
    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(TOY, predict=by_digit_sum_and_spin))
    app = make_app(**BUDGETS)
    client = app.test_client()
    done = post(client, ["9"], ALICE).json
    client.post(f"/api/v1/jobs/{done['id']}/cancel", headers=ALICE)
    r = client.post(f"/api/v1/jobs/{done['id']}/retry", headers=ALICE,
                    json={"options": {"spin": 25.0}, "accept_cost": True})
    assert r.status_code == 422 and "Retry-After" not in r.headers  # 34 of a budget of 30
    assert [(e["index"], e["field"]) for e in r.json["errors"]] == [(None, "indexes")]
    assert client.get(f"/api/v1/jobs/{done['id']}", headers=ALICE).json["status"] == "cancelled"
    r = client.post(f"/api/v1/jobs/{done['id']}/retry", headers=ALICE, json={"options": {"spin": 1.0}})
    assert r.status_code == 202  # 10: within the cap on a puzzle (MAX_PUZZLE_CPU_SECONDS) too


@pytest.mark.parametrize("bulk", [False, True], ids=["retry", "bulk"])
def test_a_retry_holds_the_cap_on_a_puzzle_as_a_post_does(make_app, steered, bulk):
    app = make_app(**BUDGETS)
    client = app.test_client()
    # 14 and 1 seconds: the first above the cap of 10, which the job accepted.
    done = post(client, ["95", "1"], ALICE, accept_cost=True).json
    client.post(f"/api/v1/jobs/{done['id']}/cancel", headers=ALICE)
    url = f"/api/v1/jobs/{done['id']}/retry"
    if bulk:  # each job retried as it was: a job that needs accept_cost is left, saying why
        r = client.post("/api/v1/bulk", headers=ALICE, json={"action": "retry"})
        assert r.status_code == 200 and r.json["done"] == []
        [skipped] = r.json["skipped"]
        assert skipped["id"] == done["id"]
        assert skipped["reason"] == "1 item(s) predicted above the cap of 10 CPU seconds; nothing changed"
    else:
        r = client.post(url, headers=ALICE)
        assert r.status_code == 422 and r.json["max_puzzle_cpu_seconds"] == 10.0
        [err] = r.json["errors"]
        assert (err["index"], err["field"], err["estimated_seconds"]) == (0, "puzzle", 14.0)
        assert "a retry with accept_cost: true accepts it" in err["message"]
    assert client.get(f"/api/v1/jobs/{done['id']}", headers=ALICE).json["status"] == "cancelled"
    for not_a_boolean in (1, 0, "true", None):  # the body's accept_cost is a JSON boolean
        r = client.post(url, headers=ALICE, json={"accept_cost": not_a_boolean})
        assert r.status_code == 422 and [e["field"] for e in r.json["errors"]] == ["accept_cost"], r.json
    r = client.post(url, headers=ALICE, json={"accept_cost": True})
    assert r.status_code == 202 and r.json["status"] == "queued"


def test_budget_messages_show_seconds_without_an_exponent(make_app, monkeypatch):
    as_number = dataclasses.replace(TOY, predict=lambda puzzle, _options: Estimate(
        float("".join(map(str, puzzle)))))
    monkeypatch.setitem(solvers.KINDS, "toy", as_number)  # "1028240" is predicted at 1,028,240 seconds
    app = make_app(CLIENT_CPU_BUDGET=864000.0, MAX_PUZZLE_CPU_SECONDS=0.0)
    client = app.test_client()
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1028240"}]})
    assert r.status_code == 422, r.json  # the whole budget is less
    assert "predicted at 1,028,240 CPU seconds, more than your whole budget of 864,000" in r.json["detail"]
    def one(puzzle):
        return client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": puzzle}]})

    assert one("864000").status_code == 202
    r = one("1500")
    assert r.status_code == 429 and "Retry-After" in r.headers
    assert r.json["detail"] == ("the batch is predicted at 1,500 CPU seconds; 0 of your budget of 864,000 "
                                "are left")


def test_validate_refuses_a_batch_over_the_whole_budget_as_a_post_would(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    assert post(client, ["9", "9"], ALICE).status_code == 202  # 18 of 30 unfinished
    body = {"accept_cost": True, "puzzles": [{"kind": "toy", "puzzle": d} for d in ("99", "99")]}
    r = client.post("/api/v1/validate", headers=ALICE, json=body)  # 36: more than the whole 30
    assert r.status_code == 422 and "Retry-After" not in r.headers
    assert (r.json["estimated_seconds"], r.json["budget"], r.json["budget_left"]) == (36.0, 30.0, 12.0)
    assert [(e["index"], e["field"]) for e in r.json["errors"]] == [(None, "puzzles")]
    body["puzzles"] = body["puzzles"][:1]  # 18: past what is left, but /validate does not check that
    assert client.post("/api/v1/validate", headers=ALICE, json=body).status_code == 200
    assert client.post("/api/v1/validate", headers=BOB, json={**body, "puzzles": body["puzzles"] * 2}
                       ).status_code == 200  # bob's budget: 100


def test_the_eta_of_a_job_whose_last_puzzle_waits_in_the_dear_lane_counts_the_work_ahead(make_app, steered):
    """Issue 43: the last puzzle of a job, moved to the dear lane past the cheap lane's cap, waits
    behind 64 queued parts of another job; the rate alone says the job is all but done."""
    app = make_app(PUZZLE_TIME_LIMIT=20.0, CHEAP_LANE_SECONDS=0.03, DEAR_SHARE_SECONDS=1000.0)
    client = app.test_client()
    other = submit(client, *["1" * 16] * 4, split=16)  # 4 puzzles of 16 s, each cut into 16 parts of 1 s
    fanned = [part for whole in ids_of(app, other["id"])
              for part in run_chunk(runtime_of(app), [whole], "c").fanned]
    assert len(fanned) == 64
    slow = {"kind": "toy", "puzzle": "0", "options": {"sleep": 0.2}}
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}, slow]})
    mine = r.json["id"]
    light, last = ids_of(app, mine)
    report = run_chunk(runtime_of(app), [light, last], "w", cheap_lane=True)
    assert report.moved == [last]
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).where(Job.id == mine).values(started_at=now() - timedelta(seconds=20)))
    shown = job(client, mine)
    # The rate says 0 s (all but 0 predicted seconds done); 64 s of parts wait ahead (1 s each within
    # a factor of 2), and the moved puzzle ran past the cap of 0.03 s, on one worker.
    assert shown["eta_seconds"] == pytest.approx(64.03, rel=1e-3)
    assert shown["eta_range"] == pytest.approx([32.015, 128.06], rel=1e-3)
    listed = client.get("/api/v1/jobs").json["items"]
    assert [j["eta_seconds"] for j in listed if j["id"] == mine] == [shown["eta_seconds"]]
    # Each part done is a second less to wait.
    assert worker_parts.run_part(runtime_of(app), fanned[0], "w")
    assert job(client, mine)["eta_seconds"] == pytest.approx(63.03, rel=1e-3)


def by_sleep(puzzle, options):
    """A prediction near the truth of a toy: its sleep, once a part (within a factor of 2)."""
    return Estimate(0.01 * len(puzzle) + options["sleep"] * max(options["split"], 1), 2.0, "test")


def busy_dear_lane(app, client) -> list:
    """Another job's 16 parts of 0.15 s each queued in the dear lane (split, not yet run)."""
    other = submit(client, "1" * 16, "1" * 16, split=8, sleep=0.15)
    fanned = [part for whole in ids_of(app, other["id"])
              for part in run_chunk(runtime_of(app), [whole], "c").fanned]
    assert len(fanned) == 16
    return fanned


def test_the_eta_of_a_job_waiting_in_a_busy_dear_lane_covers_the_time_it_then_takes(make_app, monkeypatch):
    """The dear lane busy with 16 parts of another job (one worker, in the broker's order) when the
    last puzzle of a job moves there: the job's eta_range holds the work until it ends (the sleeps
    ahead and its own; the wall time adds what a busy machine adds, which no ETA can know)."""
    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(TOY, predict=by_sleep))
    app = make_app(PUZZLE_TIME_LIMIT=20.0, CHEAP_LANE_SECONDS=0.03, DEAR_SHARE_SECONDS=1000.0)
    client = app.test_client()
    fanned = busy_dear_lane(app, client)
    slow = {"kind": "toy", "puzzle": "2", "options": {"sleep": 0.2}}
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1" * 20}, slow]})
    mine = r.json["id"]
    light, last = ids_of(app, mine)
    assert run_chunk(runtime_of(app), [light, last], "w", cheap_lane=True).moved == [last]
    low, high = job(client, mine)["eta_range"]
    started = time.monotonic()
    for part in fanned:
        assert worker_parts.run_part(runtime_of(app), part, "dear")
    assert run_chunk(runtime_of(app), [last], "dear").written == 1
    took, work = time.monotonic() - started, 16 * 0.15 + 0.2
    assert job(client, mine)["status"] == "completed"
    assert took >= work and low <= work <= high, (low, work, took, high)


def test_before_any_work_is_done_the_eta_is_predicted_over_the_cheap_lanes_workers(make_app, steered):
    app = make_app(PUZZLE_TIME_LIMIT=20.0, DEAR_SECONDS=10.0)
    client = app.test_client()
    stored = submit(client, "1", "27", "0")  # 10 predicted seconds of cheap work, within a factor of 2
    assert stored["eta_seconds"] is None  # the POST's answer reads no queue
    shown = job(client, stored["id"])
    assert shown["estimated_seconds_done"] == 0.0
    # No worker seen: one process at a time.
    assert shown["eta_seconds"] == pytest.approx(10.0) and shown["eta_range"] == pytest.approx([5.0, 20.0])
    with app.extensions["sessions"]() as s, s.begin():
        for i in range(5):
            workers.beat(s, f"h:{i}:a", queues=["puzzles", "puzzles.dear"])
        workers.beat(s, "h:9:b", queues=["puzzles.dear"])  # takes no cheap work
    # Five processes of the cheap lane, but three puzzles: at most three at once.
    shown = job(client, stored["id"])
    assert shown["eta_seconds"] == pytest.approx(10 / 3)
    assert shown["eta_range"] == pytest.approx([5 / 3, 20 / 3])
    listed = [(j["eta_seconds"], j["eta_range"]) for j in client.get("/api/v1/jobs").json["items"]]
    assert listed == [(shown["eta_seconds"], shown["eta_range"])]


def test_before_any_work_is_done_the_eta_counts_the_dear_work_queued_ahead(make_app, steered):
    app = make_app(PUZZLE_TIME_LIMIT=20.0, DEAR_SHARE_SECONDS=1000.0)
    client = app.test_client()
    submit(client, "9")  # dear, alone in its task at level 0
    mine = submit(client, "5", "1")["id"]  # its dear puzzle at level 1, behind the 9 s; its cheap one
    shown = job(client, mine)
    # One worker of the dear lane: 9 s ahead and its own 5 s (within a factor of 2); 1 s of cheap work.
    assert shown["eta_seconds"] == pytest.approx(14.0) and shown["eta_range"] == pytest.approx([7.0, 28.0])
    with app.extensions["sessions"]() as s, s.begin():
        for i in range(7):
            workers.beat(s, f"h:{i}:a", queues=["puzzles", "puzzles.dear"])
    assert job(client, mine)["eta_seconds"] == pytest.approx(2.0)


def test_before_any_work_is_done_the_eta_of_a_job_in_a_busy_dear_lane_covers_the_time_it_takes(make_app,
                                                                                                 monkeypatch):
    """The dear lane holds 16 parts of another job (one worker, in the broker's order) when a job of
    one dear puzzle arrives: its eta_range before anything of it ran holds the work until it ends
    (the sleeps ahead and its own; the wall time adds what a busy machine adds)."""
    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(TOY, predict=by_sleep))
    app = make_app(PUZZLE_TIME_LIMIT=20.0, DEAR_SECONDS=0.1, DEAR_SHARE_SECONDS=1000.0)
    client = app.test_client()
    fanned = busy_dear_lane(app, client)
    mine = submit(client, "2", sleep=0.3, split=0)["id"]
    shown = job(client, mine)
    assert shown["estimated_seconds_done"] == 0.0 and shown["eta_seconds"] is not None
    low, high = shown["eta_range"]
    started = time.monotonic()
    for part in fanned:
        assert worker_parts.run_part(runtime_of(app), part, "dear")
    assert run_chunk(runtime_of(app), ids_of(app, mine), "dear").written == 1
    took, work = time.monotonic() - started, 16 * 0.15 + 0.3
    assert job(client, mine)["status"] == "completed"
    assert took >= work and low <= work <= high, (low, work, took, high)


# -- charged as done: CPU seconds measured count beside the predictions


def measured_seconds(app, job_id):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.cpu_seconds).where(Puzzle.job_id == job_id)
                              .order_by(Puzzle.index)))


def charged(app, owner):
    with app.extensions["sessions"]() as s:
        return costs.work_left(s, [owner])[owner]


def test_each_solve_and_part_keeps_its_cpu_seconds_on_its_row_across_attempts(client, app):
    """The toy's ``spin`` spends the process's CPU seconds, which the worker measures: a failed
    attempt's stay when the puzzle is retried and solved, and every part's add up on its puzzle."""
    failing = submit(client, "1", spin=0.2, crash=True)
    run_chunk(runtime_of(app), ids_of(app, failing["id"]), "w")
    assert job(client, failing["id"])["status"] == "completed"
    [first] = measured_seconds(app, failing["id"])
    assert first >= 0.2
    retried = client.post(f"/api/v1/jobs/{failing['id']}/retry", json={"options": {"crash": False}})
    assert retried.status_code == 202, retried.json
    run_chunk(runtime_of(app), ids_of(app, failing["id"]), "w")
    [both] = measured_seconds(app, failing["id"])
    assert both >= first + 0.2
    split = submit(client, "1234", spin=0.1, split=2)
    publisher = RecordingPublisher()
    report = run_chunk(runtime_of(app, publisher), ids_of(app, split["id"]), "w")
    assert len(report.fanned) == 2
    for part in report.fanned:
        assert worker_parts.run_part(runtime_of(app), part, "w")
    assert job(client, split["id"])["status"] == "completed"
    [parts] = measured_seconds(app, split["id"])
    assert parts >= 0.2


def test_each_puzzle_answer_shows_the_cpu_seconds_measured_of_it(client, app):
    stored = submit(client, "1", "2", spin=0.1)
    shown = client.get(f"/api/v1/jobs/{stored['id']}/puzzles").json["items"]
    assert [p["cpu_seconds"] for p in shown] == [None, None]  # queued: nothing measured yet
    first, _second = ids_of(app, stored["id"])
    run_chunk(runtime_of(app), [first], "w")
    [took, none] = measured_seconds(app, stored["id"])
    assert took >= 0.1 and none is None
    assert client.get(f"/api/v1/jobs/{stored['id']}/puzzles/0").json["cpu_seconds"] == round(took, 6)
    shown = client.get(f"/api/v1/jobs/{stored['id']}/puzzles").json["items"]
    assert [p["cpu_seconds"] for p in shown] == [round(took, 6), None]


def measured_at(app, job_id, seconds, status="running"):
    """The job's puzzle as its worker leaves it after ``seconds`` CPU seconds (a part's record, or a
    failed attempt's write)."""
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.job_id == job_id).values(status=status, cpu_seconds=seconds))


def test_work_past_its_prediction_is_charged_against_the_budget_and_the_fair_share(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    running = post(client, ["9"], ALICE).json  # predicted at 9 of 30
    measured_at(app, running["id"], 25.0)  # its parts have taken 25 CPU seconds so far
    assert charged(app, "alice") == 25.0  # what the dear lane's levels count too (store.publish)
    refused = post(client, ["9"], ALICE)  # 25 + 9 of 30
    assert refused.status_code == 429, refused.json
    assert (refused.json["estimated_seconds"], refused.json["budget"], refused.json["budget_left"]) == \
        (9.0, 30.0, 5.0)
    checked = client.post("/api/v1/validate", headers=ALICE,  # 36: more than the whole budget
                          json={"puzzles": [{"kind": "toy", "puzzle": "9"}] * 4})
    assert checked.json["budget_left"] == 5.0, checked.json
    assert post(client, ["4"], ALICE).status_code == 202  # 29
    assert charged(app, "bob") == 0.0
    client.post(f"/api/v1/jobs/{running['id']}/cancel", headers=ALICE)  # finished work counts no more
    assert charged(app, "alice") == 4.0
    assert post(client, ["9", "9"], ALICE).status_code == 202


@pytest.mark.parametrize("bulk", [False, True], ids=["retry", "bulk"])
def test_a_retry_is_priced_at_what_its_puzzles_already_took(make_app, steered, bulk):
    """A puzzle predicted at 1 s that failed after 20 CPU s (a generate item whose rating the
    generator never reaches, say) is priced at 20 s when retried: refused as a POST of 20 s is, and
    once accepted charged 20 s until it finishes."""
    app = make_app(**BUDGETS)
    client = app.test_client()
    failed = post(client, ["1"], ALICE, label="gen").json
    measured_at(app, failed["id"], 20.0, "failed")
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).where(Job.id == failed["id"]).values(status="completed", pending=0,
                                                                      done_seconds=1.0))
    other = post(client, ["55", "3"], ALICE).json  # 13 s unfinished
    as_post = post(client, ["55", "55"], ALICE)  # a POST of 20 s
    url = f"/api/v1/jobs/{failed['id']}/retry"
    if bulk:
        r = client.post("/api/v1/bulk", headers=ALICE, json={"action": "retry", "label": "gen"})
        assert r.status_code == 200 and r.json["done"] == []
        [skipped] = r.json["skipped"]
        assert skipped["id"] == failed["id"] and "priced at 20 CPU seconds" in skipped["reason"], skipped
    else:
        refused = client.post(url, headers=ALICE)
        assert refused.status_code == as_post.status_code == 429
        assert "Retry-After" in refused.headers and "Retry-After" in as_post.headers
        keys = ("estimated_seconds", "budget", "budget_left", "status", "title")
        assert [refused.json[k] for k in keys] == [as_post.json[k] for k in keys] == [20.0, 30.0, 17.0, 429,
                                                                                       "Too Many Requests"]
        assert "the retried puzzles are priced at 20 CPU seconds" in refused.json["detail"]
    assert client.get(f"/api/v1/jobs/{failed['id']}", headers=ALICE).json["status"] == "completed"
    client.post(f"/api/v1/jobs/{other['id']}/cancel", headers=ALICE)
    if bulk:
        r = client.post("/api/v1/bulk", headers=ALICE, json={"action": "retry", "label": "gen"})
        assert r.json["done"] == [failed["id"]], r.json
    else:
        assert client.post(url, headers=ALICE).status_code == 202
    assert charged(app, "alice") == 20.0  # not its prediction of 1
    assert post(client, ["55", "2"], ALICE).status_code == 429  # 20 + 12 of 30
    assert post(client, ["55"], ALICE).status_code == 202  # 20 + 10


def test_a_retried_puzzle_that_took_more_than_the_cheap_lane_allows_goes_to_the_dear_lane(make_app, steered):
    """Predicted cheap, it failed after 8 CPU s (past the cheap lane's cap, in the dear lane): its
    retry publishes it to the dear lane, where no cap holds, not to the cheap lane by its prediction."""
    app = make_app(**BUDGETS)
    client = app.test_client()
    failed = post(client, ["1"], ALICE).json
    measured_at(app, failed["id"], 8.0, "failed")
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).where(Job.id == failed["id"]).values(status="completed", pending=0,
                                                                      done_seconds=1.0))
        [puzzle_id] = s.scalars(select(Puzzle.id).where(Puzzle.job_id == failed["id"]))
    publisher = app.extensions["publisher"]
    publisher.chunks.clear()
    publisher.dear.clear()
    assert client.post(f"/api/v1/jobs/{failed['id']}/retry", headers=ALICE).status_code == 202
    assert publisher.dear == [[puzzle_id]]


def test_a_retry_that_already_took_more_than_the_whole_budget_is_422_saying_so(make_app, steered):
    app = make_app(**BUDGETS)
    client = app.test_client()
    failed = post(client, ["1"], ALICE).json
    measured_at(app, failed["id"], 45.0, "failed")  # predicted at 1 s, it took 45 of a budget of 30
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).where(Job.id == failed["id"]).values(status="completed", pending=0,
                                                                      done_seconds=1.0))
    r = client.post(f"/api/v1/jobs/{failed['id']}/retry", headers=ALICE)
    assert r.status_code == 422 and "Retry-After" not in r.headers
    assert (r.json["estimated_seconds"], r.json["budget"]) == (45.0, 30.0)
    [err] = r.json["errors"]
    assert err["field"] == "indexes"
    assert err["message"].startswith("priced at what they already took: 45 CPU seconds, more than your whole")
