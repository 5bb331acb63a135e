"""A real `celery worker`'s log (store.logs through celery's setup_logging signal): every line
of a task names the task, and a solve's lines its job and puzzle (issue 12, failure 16)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.integration


def test_a_solver_error_in_a_worker_is_logged_with_its_task_job_and_puzzle(real_stack, toy_kind):
    job = real_stack.submit([{"kind": "toy", "puzzle": "77", "options": {"crash": True}}])
    real_stack.wait(job)
    (puzzle,) = real_stack.puzzles(job)
    assert puzzle["status"] == "failed"
    logs = "".join(p.log.read_text() for p in real_stack.workers.procs)
    line = next(line for line in logs.splitlines() if job in line and "solver error" in line)
    assert re.search(r" ERROR worker\.outcome \[task=puzzle_queue\.solve_chunk task_id=[0-9a-f-]{36} "
                     rf"job={job} puzzle=\d+\]: solver error on ", line), line
    assert "RuntimeError: toy solver crashed on purpose" in logs  # the traceback follows
