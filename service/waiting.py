"""Long polling: `GET /api/v1/jobs/{id}?wait=SECONDS` answers once the job is final or the wait ends.

A client that waits for a job asks once a minute instead of several times a second; the
API process looks at the job's row, a primary-key read, every few hundred milliseconds
meanwhile (the workers write the status to SQL; nothing publishes it).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from service.models import CANCELLED, COMPLETED
from service.schemas import JobOut

MAX_WAIT_SECONDS = 60.0
FINAL_JOB = (COMPLETED, CANCELLED)
# The first looks come soon (most small jobs finish within a second), then every half second.
POLL_SECONDS = (0.05, 0.1, 0.2, 0.3, 0.5)


class JobQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    wait: float = Field(0.0, ge=0, le=MAX_WAIT_SECONDS,
                        description="seconds to wait for the job to become completed or cancelled "
                                    f"(at most {MAX_WAIT_SECONDS:g}); the answer comes as soon as it is")


def wait_for_job(describe: Callable[[], JobOut], seconds: float,
                 sleep: Callable[[float], None] = time.sleep) -> JobOut:
    """Describe the job until it is final or ``seconds`` have passed; return the last description."""
    deadline = time.monotonic() + seconds
    job = describe()
    step = 0
    while job.status not in FINAL_JOB:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        sleep(min(left, POLL_SECONDS[min(step, len(POLL_SECONDS) - 1)]))
        step += 1
        job = describe()
    return job
