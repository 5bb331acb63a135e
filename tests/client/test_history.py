"""`puzzle-queue events JOB` and ``Client.events``: a job's history against the API in this process,
every page, one puzzle's; and each event type in words (client.history)."""

from __future__ import annotations

import json

import pytest

from client.history import describe, events_table


def cancelled_and_retried(api_client):
    """A job of two toy puzzles cancelled before anything ran, then retried with a new option."""
    job = api_client.submit([{"kind": "toy", "puzzle": "1"}, {"kind": "toy", "puzzle": "2"}])
    api_client.cancel(job)
    api_client.retry(job, options={"sleep": 0.5})
    return job


def test_the_command_prints_the_history_as_a_table(run_command, api_client):
    job = cancelled_and_retried(api_client)
    status, out, err = run_command("events", job["id"])
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["AT", "(UTC)", "EVENT", "PUZZLES", "WORKER", "ATTEMPT", "DETAIL"]
    assert "submitted" in lines[1] and lines[1].endswith("2 puzzles")
    assert any("ended" in line and line.endswith("cancelled") for line in lines)
    retried = [line for line in lines if " retried " in line]
    # the options each runs with now, every default filled in
    assert len(retried) == 2 and all("was cancelled; options {" in line and '"sleep": 0.5' in line
                                     for line in retried)
    assert [line.split()[3] for line in retried] == ["#0", "#1"]


def test_one_puzzles_events_and_json(run_command, api_client):
    job = cancelled_and_retried(api_client)
    status, out, err = run_command("events", "--index", "1", "--json", job["id"])
    assert status == 0, err
    found = json.loads(out)
    assert {e["index"] for e in found} == {None, 1}
    assert [e["type"] for e in found if e["index"] == 1] == ["retried"]
    assert run_command("events", "--index", "-1", job["id"])[0] == 2


def test_the_client_reads_every_page(api_client):
    job = cancelled_and_retried(api_client)
    found = list(api_client.events(job))
    assert list(api_client.events(job, limit=2)) == found
    assert [e["type"] for e in found] == ["submitted", "ended", "retried", "retried"]


def test_a_job_not_found_fails_the_command(run_command):
    status, _out, err = run_command("events", "nope")
    assert status != 0 and "nope" in err


@pytest.mark.parametrize(("event", "said"), [
    ({"type": "submitted", "detail": {"total": 1200}}, "1,200 puzzles"),
    ({"type": "finished", "detail": {"status": "failed", "error": "boom", "estimated_seconds": 0.031,
                                     "seconds": 12.9}}, "failed; predicted 0.031 s, took 12.9 s; boom"),
    ({"type": "finished", "detail": {"statuses": {"solved": 98, "failed": 2}, "errors": {"7": "bad"}}},
     "solved 98, failed 2; #7: bad"),
    ({"type": "moved", "detail": {"lane": "dear", "cap_seconds": 2.5}}, "to the dear lane, past 2.5 s"),
    ({"type": "split", "detail": {"parts": 64}}, "into 64 parts"),
    ({"type": "left", "detail": {"reason": "lost"}}, "its chunk's worker was lost"),
    ({"type": "left", "detail": {"reason": "solved_alone"}}, "to be solved alone"),
    ({"type": "handed_on", "worker": "w1@host"}, "published again"),
    ({"type": "handed_on", "worker": None}, "published again (its message was lost)"),
    ({"type": "retried", "detail": {"was": "failed", "error": "x", "options": {"b": 1, "a": 2}}},
     'was failed: x; options {"a": 2, "b": 1}'),
    ({"type": "ended", "detail": {"status": "completed"}}, "completed"),
    ({"type": "claimed"}, ""),
])
def test_each_event_in_words(event, said):
    assert describe(event) == said


def test_the_table_names_puzzles_runs_and_parts():
    rows = events_table([
        {"at": "2026-12-07T08:00:00.123456Z", "type": "claimed", "index": 0, "last_index": 99, "worker": "w1",
         "attempt": 1},
        {"at": "2026-12-07T08:00:01Z", "type": "claimed", "index": 5, "last_index": 5, "part": 3,
         "worker": "w2", "attempt": 2}]).splitlines()
    assert rows[1].split()[:6] == ["2026-12-07", "08:00:00.123", "claimed", "#0-99", "w1", "1"]
    assert rows[2].split()[:7] == ["2026-12-07", "08:00:01Z", "claimed", "#5", "part", "3", "w2"]
    assert events_table([]) == "no events"
