"""A frozen broker: a private `redis-server` stopped with SIGSTOP (its socket open, nothing
answered) while a client POSTs jobs. Every POST answers 202 within seconds (a request waits for
its publishing at most SUBMIT_PUBLISH_SECONDS, store.handover), every job it reported is stored,
and once the broker thaws every job completes with right answers: what the requests handed
over, the workers' reaper publishes."""

from __future__ import annotations

import signal
import time

import pytest

from tests.integration.test_broker_outage import check, toys, two_workers

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# Past the broker's socket timeout (10 s), so that both hand-overs happen: calls still hanging when
# their request stops waiting, and calls that then fail and mark their rows due.
FROZEN = 15.0
ANSWER_WITHIN = 5.0


def test_posts_answer_in_seconds_while_redis_is_frozen_and_every_job_completes(tmp_path, toy_kind):
    with two_workers(tmp_path) as (stack, server, _db_url):
        assert server.proc is not None
        items = toys(3, 0.0)
        answers: list[tuple[int, float, str | None]] = []
        server.proc.send_signal(signal.SIGSTOP)
        try:
            frozen_at = time.monotonic()
            while time.monotonic() - frozen_at < FROZEN:
                start = time.monotonic()
                r = stack.client.post("/api/v1/jobs", json={"puzzles": items})
                answers.append((r.status_code, time.monotonic() - start, (r.json or {}).get("id")))
        finally:
            server.proc.send_signal(signal.SIGCONT)
        assert len(answers) >= 3, answers
        assert [status for status, _, _ in answers] == [202] * len(answers), answers
        assert max(seconds for _, seconds, _ in answers) < ANSWER_WITHIN, answers
        for _, _, job_id in answers:
            assert job_id is not None
            stack.wait(job_id, timeout=120)
            check(stack, job_id, items)
