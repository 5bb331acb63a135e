"""Long polling: `GET /api/v1/jobs/{id}?wait=SECONDS` answers once the job is final or the wait ends.

A client that waits for a job asks once a minute instead of several times a second; the
API process looks at the job's status, a primary-key read, meanwhile (the workers write the
status to SQL), and describes the job (its counts too) only once it is final or the wait ends.
On PostgreSQL a notice (store.notices) wakes the waiter as soon as the transaction that makes
the job final commits, and the waiter then looks only every 0.1 to 0.5 s on its own
(NOTIFIED_SECONDS: for a notice lost with the listener's connection). Without notices (SQLite,
or the listener's connection down) the looks come every 2 ms for the first 20 ms, since a small
job of cheap puzzles is done within milliseconds and a coarser look would be most of its
latency, then every 5 ms to half a second (POLL_SECONDS).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from service.schemas import JobOut
from store.models import CANCELLED, COMPLETED, UNFINISHED

MAX_WAIT_SECONDS = 60.0
FINAL_JOB = (COMPLETED, CANCELLED)
# Seconds between looks: soon at first (most small jobs finish within milliseconds), then every half second.
POLL_SECONDS = (0.002,) * 10 + (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
# The same when a notice wakes the waiter: these looks are only the fallback.
NOTIFIED_SECONDS = POLL_SECONDS[-4:]


class JobQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    wait: float = Field(0.0, ge=0, le=MAX_WAIT_SECONDS,
                        description="seconds to wait for the job to become completed or cancelled "
                                    f"(at most {MAX_WAIT_SECONDS:g}); the answer comes as soon as it is")


def wait_for_job(describe: Callable[[], JobOut], seconds: float,
                 sleep: Callable[[float], bool | None] = time.sleep,
                 status: Callable[[], str | None] | None = None,
                 schedule: Sequence[float] = POLL_SECONDS) -> JobOut:
    """The job's description once it is final or ``seconds`` have passed. ``status`` reads the
    job's status alone (None: the job is gone), for the looks in between; without it each look
    describes the job. ``sleep`` waits between looks, the seconds taken from ``schedule`` (its last
    repeated); a notice's wake (store.notices) returns early, and True, and the job is described
    at once (a notice comes only when the job is final)."""
    deadline = time.monotonic() + seconds
    job = describe()
    step = 0
    while job.status not in FINAL_JOB and seconds > 0:
        left = max(0.0, deadline - time.monotonic())
        # A first look that took the whole wait still sleeps once, for 0 s: the request came to
        # wait on an unfinished job, and the sleep is what marks it paced (service.ratelimit).
        noticed = sleep(min(left, schedule[min(step, len(schedule) - 1)]))
        if left == 0 and not noticed:
            break
        step += 1
        if noticed or status is None or status() not in UNFINISHED or time.monotonic() >= deadline:
            job = describe()
    return job
