"""Job notices (store.notices): the NOTIFY of the write that completes a job wakes the long poll
waiting on that job, on the real PostgreSQL; SQLite has none, and the long poll looks on its own
schedule there."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select, text, update

from service import api
from store import jobs, notices
from store.models import COMPLETED, SOLVED, Job, Puzzle, now
from tests.service.conftest import runtime_of
from tests.services import postgres_url  # noqa: F401  the fixture, for database_url below
from worker import chunk, stored

pytestmark = pytest.mark.integration

# Bounds on waiting for something that happens within milliseconds: reached only when it never happens.
NEVER = 20.0


@pytest.fixture
def database_url(postgres_url):  # noqa: F811  the fixture imported above
    return postgres_url


@pytest.fixture
def listening(app):
    """The app's listener, live."""
    with app.app_context():
        listener = api.job_listener()
    assert listener is not None
    with listener.watch("none"):  # the first watch starts its thread
        pass
    assert listener.live.wait(NEVER)
    yield listener
    listener.close()
    for _ in range(int(NEVER / 0.01)):  # its connection closed, out of the next test's way
        if not listener.live.is_set():
            break
        time.sleep(0.01)


def waiting_on(listener, job_id):
    for _ in range(int(NEVER / 0.01)):
        with listener._lock:
            if listener._waiting.get(job_id):
                return
        time.sleep(0.01)
    raise AssertionError(f"nothing waits on {job_id}")


def send(app, job_ids):
    """Notices of these jobs, in a transaction of their own."""
    with app.extensions["sessions"]() as s, s.begin():
        notices.notify(s, job_ids)


def test_a_notice_wakes_the_waiters_of_its_job_only(app, listening):
    with listening.watch("a") as wake_a, listening.watch("b") as wake_b:
        assert wake_a is not None and wake_b is not None
        send(app, ["a"])
        assert wake_a(NEVER) is True
        assert wake_b(0) is False


def test_the_long_poll_answers_on_the_notice_alone(app, listening, monkeypatch):
    """The waiter's own looks are pushed past its wait and counted: the notice alone brings the answer."""
    monkeypatch.setattr("service.api.NOTIFIED_SECONDS", (NEVER,))
    looks = []
    status = jobs.job_status
    monkeypatch.setattr(jobs, "job_status", lambda *args: looks.append(1) or status(*args))
    client = app.test_client()
    r = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}]})
    job = r.json["id"]
    answers = []
    waiter = threading.Thread(target=lambda: answers.append(client.get(f"/api/v1/jobs/{job}?wait=10")))
    waiter.start()
    # Completed once the request waits on it, with its notice, as a worker's write would.
    waiting_on(listening, job)
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.job_id == job).values(status=SOLVED, result={"sum": 1}))
        s.execute(update(Job).where(Job.id == job).values(pending=0, status=COMPLETED, finished_at=now()))
        notices.notify(s, [job])
    waiter.join(NEVER)
    assert answers[0].status_code == 200
    assert answers[0].json["status"] == COMPLETED and answers[0].json["counts"]["solved"] == 1
    assert not looks


def test_a_lost_connection_wakes_every_waiter_and_the_listener_listens_again(app, listening):
    engine = app.extensions["engine"]
    with listening.watch("a") as wake:
        assert wake is not None
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE datname = current_database() AND query = :listen"),
                         {"listen": f"LISTEN {notices.CHANNEL}"})
        assert wake(NEVER) is True  # woken by the failure: it looks at the job once more
    woken = False
    for _ in range(int(NEVER)):
        with listening.watch("b") as wake:
            if wake is not None:
                send(app, ["b"])
                woken = wake(1.0)
        if woken:
            break
        listening.live.wait(1.0)
    assert woken


def test_an_outage_is_logged_once_however_often_the_listener_tries_again(app, listening, caplog, monkeypatch):
    monkeypatch.setattr(notices, "RECONNECT_SECONDS", 0.05)
    engine = app.extensions["engine"]
    refused = []

    class Down:  # the database refuses every new connection of the listener
        def raw_connection(self):
            refused.append(1)
            raise ConnectionRefusedError("down")

    monkeypatch.setattr(listening, "engine", Down())
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND query = :listen"),
                     {"listen": f"LISTEN {notices.CHANNEL}"})
    for _ in range(int(NEVER / 0.05)):
        if len(refused) >= 5:
            break
        time.sleep(0.05)
    monkeypatch.setattr(listening, "engine", engine)
    assert len(refused) >= 5
    failures = [r for r in caplog.records if r.name == "store.notices"]
    assert len(failures) == 1
    assert listening.live.wait(NEVER)  # and it listens again once the database answers


@pytest.fixture
def heard(app):
    """A connection of its own that LISTENs, as the API's listener does; call it for the job ids
    of the notices delivered so far (waiting up to ``seconds`` for the first)."""
    pooled = app.extensions["engine"].raw_connection()
    conn = pooled.driver_connection
    pooled.detach()  # its own: never handed to the sessions under test
    conn.autocommit = True
    conn.execute(f"LISTEN {notices.CHANNEL}")

    def payloads(seconds):
        return [n.payload for n in conn.notifies(timeout=seconds, stop_after=1)] + \
               [n.payload for n in conn.notifies(timeout=0.2)]

    yield payloads
    pooled.close()


def job_ids_of(app, job):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job).order_by(Puzzle.index)))


def test_the_write_that_completes_a_job_sends_its_notice_at_the_commit(app, heard):
    client = app.test_client()
    one, two = (client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": p} for p in pair]})
                .json["id"] for pair in (("1", "2"), ("3", "4")))
    lone = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "5"}]}).json["id"]
    sessions, publisher = app.extensions["sessions"], app.extensions["publisher"]
    first, second = publisher.stored  # a chunk each (store.chunks)
    runtime = runtime_of(app, publisher)
    stored.run_stored(runtime, first, "w1")
    assert heard(NEVER) == [one]  # the job it completed
    with sessions() as s:  # what a waiter woken by it reads
        assert s.get(Job, one).status == COMPLETED and s.get(Job, two).status != COMPLETED
    stored.run_stored(runtime, second, "w1")
    assert heard(NEVER) == [two]
    chunk.run_chunk(runtime, job_ids_of(app, lone), "w1")  # a job of one puzzle: its row
    assert heard(NEVER) == [lone]
    stored.run_stored(runtime, first, "w1", redelivered=True)
    chunk.run_chunk(runtime, job_ids_of(app, lone), "w1")
    assert heard(0.2) == []  # again (redeliveries): nothing written, no notice


def test_a_notice_goes_out_only_when_its_transaction_commits(app, heard):
    with app.extensions["sessions"]() as s:
        with s.begin():
            notices.notify(s, ["kept", "kept"])
            assert heard(0.2) == []  # not yet: the transaction is open
        assert heard(NEVER) == ["kept"]  # once a job
        s.begin()
        notices.notify(s, ["dropped"])
        s.rollback()
    assert heard(0.2) == []


def test_a_cancel_sends_its_notice(app, heard):
    client = app.test_client()
    job = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1"}]}).json["id"]
    assert client.post(f"/api/v1/jobs/{job}/cancel").status_code == 202
    assert heard(NEVER) == [job]
    assert client.post(f"/api/v1/jobs/{job}/cancel").status_code == 202
    assert heard(0.2) == []  # final already: nothing changed, nothing to tell
