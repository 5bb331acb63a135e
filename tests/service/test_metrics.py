"""/metrics: running totals (store.tallies), read without touching the puzzle rows."""

from __future__ import annotations

from sqlalchemy import event

from tests.service.conftest import assert_tallies_match_rows


def scrape(client) -> str:
    r = client.get("/metrics")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def submit(client, n):
    items = [{"kind": "toy", "puzzle": str(i + 1)} for i in range(n)]
    r = client.post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202
    return r.json["id"]


def test_a_scrape_reads_no_puzzle_row(app, client):
    submit(client, 5)
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_rest):
        statements.append(statement.lower())

    event.listen(app.extensions["engine"], "before_cursor_execute", seen)
    try:
        text = scrape(client)
    finally:
        event.remove(app.extensions["engine"], "before_cursor_execute", seen)
    assert 'puzzle_queue_queue_depth{kind="toy",status="queued"} 5.0' in text
    assert statements and not [s for s in statements if "puzzles" in s or "jobs" in s]


def test_submit_and_cancel_move_the_totals_and_deleting_keeps_the_counters(app, client):
    first = submit(client, 3)
    submit(client, 2)
    client.post(f"/api/v1/jobs/{first}/cancel")
    text = scrape(client)
    assert "puzzle_queue_jobs_submitted_total 2.0" in text
    assert 'puzzle_queue_puzzles_finished_total{kind="toy",status="cancelled"} 3.0' in text
    assert 'puzzle_queue_queue_depth{kind="toy",status="queued"} 2.0' in text
    assert_tallies_match_rows(app.extensions["sessions"])
    assert client.delete(f"/api/v1/jobs/{first}").status_code == 204
    # Counters never go down: a deleted job was still submitted, its puzzles still finished.
    after = scrape(client)
    assert "puzzle_queue_jobs_submitted_total 2.0" in after
    assert 'puzzle_queue_puzzles_finished_total{kind="toy",status="cancelled"} 3.0' in after
