"""make swarm-test's checks, run against the stack `make swarm-up` deployed (deploy/stack.yml).

Over HTTP through the proxy, with the `swarm` client's token (a Docker secret): a mixed batch with
known answers; a job of 2,000 dear-lane puzzles while `docker service scale` takes the workers
1 -> 4 -> 2 (every puzzle solved right, each by one attempt, the rate of each phase printed);
`docker service update --force` of the workers during a job (no puzzle lost, none failed, the
time it added printed); 32 worker processes through PgBouncer, PostgreSQL seeing at most its pool.
Reads SQL in the postgres task (psql, direct) for attempts and server connections.
Prints a table of figures; exits 1 if any check failed. Wall times are printed, never asserted.

Glossary
  dear puzzle  a 15-puzzle 20-28 random moves from the goal, solved by A*: estimated at 10 s
               (Kind.predict, by board side), so each goes to the dear lane as a task of its own;
               solved far within that estimate
  phase        a stretch of the scaled job at one replica count; its rate counts what it solved
  server connections  PostgreSQL sessions whose client is PgBouncer's address
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compose_test import (  # run as a script: deploy/ is on the path
    Expectation,
    Report,
    Result,
    Stack,
    eight_puzzle_cases,
    finish,
    korf_cases,
    machine_row,
    nqueens_cases,
    spokes_cases,
    start_up_rows,
    sudoku_cases,
    timed_job,
)

ROOT = Path(__file__).resolve().parents[1]
SWARM_STATE = ROOT / "var" / "swarm"
STACK = os.environ.get("STACK_NAME", "puzzle")
POOL = 10  # default_pool_size and max_db_connections of deploy/pgbouncer.ini
GOAL = (*range(1, 16), 0)
STEPS = {"U": -4, "D": 4, "L": -1, "R": 1}
Cases = list[tuple[dict[str, Any], Expectation]]


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def task_container(service: str) -> str:
    """The id of a running container of the stack's service (on this node)."""
    label = f"label=com.docker.swarm.service.name={STACK}_{service}"
    ids = run("docker", "ps", "-q", "--filter", label).split()
    if not ids:
        raise RuntimeError(f"no running container of {service}")
    return ids[0]


@dataclass
class SwarmStack(Stack):
    def sql(self, query: str, patience: float = 60) -> list[list[str]]:
        deadline = time.monotonic() + patience
        while True:
            try:
                out = run("docker", "exec", task_container("postgres"), "psql", "-U", "puzzle",
                          "-d", "puzzle", "-At", "-F", "\t", "-c", query)
                return [line.split("\t") for line in out.splitlines() if line]
            except (subprocess.CalledProcessError, RuntimeError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)

    def solved(self, job_id: str) -> int:
        return int(self.sql(f"SELECT count(*) FROM puzzles WHERE job_id = '{job_id}' "
                            "AND status IN ('solved', 'failed')")[0][0])

    def attempts(self, job_id: str) -> Counter[tuple[str, int]]:
        rows = self.sql(f"SELECT status, attempts, count(*) FROM puzzles WHERE job_id = '{job_id}' "
                        "GROUP BY status, attempts")
        return Counter({(status, int(attempts)): int(n) for status, attempts, n in rows})

    def server_connections(self) -> int:
        """PostgreSQL's sessions from PgBouncer (its task's address, resolved in the postgres task)."""
        address = run("docker", "exec", task_container("postgres"), "getent", "hosts", "pgbouncer").split()[0]
        return int(self.sql(f"SELECT count(*) FROM pg_stat_activity WHERE client_addr = '{address}'")[0][0])

    def scale(self, service: str, replicas: int) -> float:
        """`docker service scale`, returning once the tasks run; its seconds."""
        started = time.monotonic()
        run("docker", "service", "scale", f"{STACK}_{service}={replicas}")
        return time.monotonic() - started


# -- dear puzzles

def walk(rng: random.Random, moves: int) -> str:
    """A board this many random blank moves from the goal (no move undoing the last)."""
    board, blank, last = list(GOAL), 15, ""
    opposite = {"U": "D", "D": "U", "L": "R", "R": "L"}
    for _ in range(moves):
        options = [m for m in STEPS if m != opposite.get(last) and _legal(blank, m)]
        last = rng.choice(options)
        target = blank + STEPS[last]
        board[blank], board[target], blank = board[target], 0, target
    return " ".join(map(str, board))


def _legal(blank: int, move: str) -> bool:
    row, col = divmod(blank, 4)
    return {"U": row > 0, "D": row < 3, "L": col > 0, "R": col < 3}[move]


def solves(puzzle: str, most: int) -> Expectation:
    def right(item: Result) -> str | None:
        if item["status"] != "solved":
            return f"{item['status']}: {item['error']}"
        board = [int(x) for x in puzzle.split()]
        blank = board.index(0)
        moves = item["result"]["moves"]
        for move in moves:
            if not _legal(blank, move):
                return f"illegal move {move}"
            target = blank + STEPS[move]
            board[blank], board[target], blank = board[target], 0, target
        if tuple(board) != GOAL:
            return "the moves do not reach the goal"
        return None if len(moves) <= most else f"{len(moves)} moves, more than the {most} of the walk"
    return right


def dear_cases(count: int, seed: int) -> Cases:
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        moves = rng.randint(20, 28)
        puzzle = walk(rng, moves)
        cases.append(({"kind": "sliding", "puzzle": puzzle, "options": {"algorithm": "astar"}},
                      solves(puzzle, moves)))
    return cases


def check_answers(stack: SwarmStack, job_id: str, cases: Cases) -> list[str]:
    errors = []
    for item in stack.results(job_id):
        if (error := cases[item["index"]][1](item)) is not None:
            errors.append(f"item {item['index']}: {error}")
    return errors


def check_once(report: Report, stack: SwarmStack, job_id: str, count: int, what: str) -> None:
    attempts = stack.attempts(job_id)
    shown = ", ".join(f"{s}/{a}: {n}" for (s, a), n in sorted(attempts.items()))
    report.row(f"{what}: puzzles by status/attempts", shown)
    report.check(attempts.get(("solved", 1), 0) == count,
                 f"{what}: all {count} solved, each by one attempt (none lost, failed or solved twice)")


class Sampler:
    """The most server connections seen while it runs (a look every second)."""

    def __init__(self, stack: SwarmStack):
        self.stack, self.most, self.stop = stack, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(1.0):
            with contextlib.suppress(subprocess.CalledProcessError, RuntimeError, IndexError):
                self.most = max(self.most, self.stack.server_connections())

    def done(self) -> int:
        self.stop.set()
        self.thread.join()
        return self.most


# -- the steps

def mixed_batch(stack: SwarmStack, report: Report, korf: int) -> None:
    cases = [*sudoku_cases(800), *eight_puzzle_cases(149), *spokes_cases(40), *nqueens_cases(12),
             *korf_cases(list(range(1, korf + 1)))]
    print(f"mixed batch of {len(cases)} puzzles", flush=True)
    _, seconds, errors = timed_job(stack, cases, "swarm-test mixed batch", timeout=900)
    report.row(f"mixed batch, {len(cases)} puzzles with known answers", f"{seconds:.1f} s")
    report.check(not errors, f"every answer right ({len(errors)} wrong: {errors[:3]})")


def scaled_job(stack: SwarmStack, report: Report, count: int) -> None:
    """Workers 1 -> 4 -> 2 while the job runs. A phase's rate counts what was solved from the
    moment its tasks ran (`docker service scale` returned) to the next scale; what was solved
    while tasks started is printed apart. 4 replicas from a fifth solved, 2 once the 4 solved
    another fifth (and 60 % in all)."""
    print(f"scaling the workers 1 -> 4 -> 2 under a job of {count} dear puzzles", flush=True)
    report.row("scale worker to 1 before the job", f"{stack.scale('worker', 1):.1f} s")
    cases = dear_cases(count, seed=1)
    sampler = Sampler(stack)
    started = time.monotonic()
    job_id = stack.submit([p for p, _ in cases], "swarm-test scaled")
    rates = []
    phase_start, done_before = started, 0
    for replicas, next_replicas in ((1, 4), (4, 2), (2, 0)):
        if replicas == 1:
            until = count // 5
        elif next_replicas:
            until = max(count * 6 // 10, done_before + count // 5)
        else:
            until = count
        deadline = phase_start + 900
        while (done := stack.solved(job_id)) < until and time.monotonic() < deadline:
            time.sleep(0.5)
        seconds = time.monotonic() - phase_start
        rate = (done - done_before) / seconds if seconds > 0 else 0.0
        rates.append(rate)
        report.row(f"  {replicas} worker replica(s) running: {done - done_before} puzzles",
                   f"{seconds:.1f} s, {rate:.1f}/s")
        if next_replicas:
            scale_seconds = stack.scale("worker", next_replicas)
            phase_start, done_before = time.monotonic(), stack.solved(job_id)
            report.row(f"docker service scale worker={next_replicas} (until its tasks run)",
                       f"{scale_seconds:.1f} s, {done_before - done} puzzles meanwhile")
    stack.wait(job_id, 300)
    report.row(f"scaled job, {count} dear puzzles, wall time", f"{time.monotonic() - started:.1f} s")
    report.row("  rate at 1 / 4 / 2 replicas", " / ".join(f"{r:.1f}/s" for r in rates))
    most = sampler.done()
    report.row("  most PostgreSQL server connections from PgBouncer", str(most))
    errors = check_answers(stack, job_id, cases)
    report.check(not errors, f"scaled job: every answer right ({len(errors)} wrong: {errors[:3]})")
    check_once(report, stack, job_id, count, "scaled job")
    report.check(most <= POOL, f"PostgreSQL saw at most the pool ({most} <= {POOL})")


def rolling_update(stack: SwarmStack, report: Report, count: int) -> None:
    """The same size of job twice at 2 replicas: undisturbed, then with `docker service update
    --force` of the workers (one task at a time, each finishing what it holds) in its middle."""
    cases = dear_cases(count, seed=2)
    started = time.monotonic()
    job_id = stack.submit([p for p, _ in cases], "swarm-test undisturbed")
    stack.wait(job_id, 900)
    normal = time.monotonic() - started
    report.row(f"{count} dear puzzles at 2 worker replicas, undisturbed", f"{normal:.1f} s")

    cases = dear_cases(count, seed=3)
    started = time.monotonic()
    job_id = stack.submit([p for p, _ in cases], "swarm-test rolling update")
    while stack.solved(job_id) < count // 5:
        time.sleep(0.3)
    # The update in the background: the job's own time is measured, not the update's.
    update_seconds: list[float] = []

    def update() -> None:
        update_started = time.monotonic()
        run("docker", "service", "update", "--force", "--quiet", f"{STACK}_worker")
        update_seconds.append(time.monotonic() - update_started)

    updating = threading.Thread(target=update, daemon=True)
    updating.start()
    stack.wait(job_id, 900)
    seconds = time.monotonic() - started
    updating.join()
    report.row("docker service update --force worker (2 tasks, one at a time, each healthy)",
               f"{update_seconds[0]:.1f} s" if update_seconds else "failed")
    report.row(f"{count} dear puzzles through the rolling update", f"{seconds:.1f} s")
    report.row("  time the update added", f"{seconds - normal:.1f} s")
    errors = check_answers(stack, job_id, cases)
    report.check(not errors, f"rolling update: every answer right ({len(errors)} wrong: {errors[:3]})")
    check_once(report, stack, job_id, count, "rolling update")


def many_processes(stack: SwarmStack, report: Report, count: int, processes: int) -> None:
    """4 worker tasks of processes/4 each through PgBouncer: PostgreSQL sees at most the pool."""
    per_task = processes // 4
    args = ["celery", "-A", "worker.app", "worker", "--loglevel", "INFO", "--concurrency", str(per_task),
            "--without-gossip", "--without-mingle", "-Q", "puzzles,puzzles.dear"]
    started = time.monotonic()
    run("docker", "service", "update", "--quiet", "--replicas", "4", "--args", " ".join(args),
        f"{STACK}_worker")
    report.row(f"worker: 4 tasks x --concurrency {per_task} ({processes} processes), update",
               f"{time.monotonic() - started:.1f} s")
    cases = dear_cases(count, seed=4)
    sampler = Sampler(stack)
    started = time.monotonic()
    job_id = stack.submit([p for p, _ in cases], "swarm-test many processes")
    stack.wait(job_id, 900)
    report.row(f"{count} dear puzzles on {processes} worker processes", f"{time.monotonic() - started:.1f} s")
    most = sampler.done()
    clients = stack.sql("SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = 'puzzle' AND backend_type = 'client backend'")
    report.row(f"  most PostgreSQL server connections from PgBouncer, {processes} processes", str(most))
    report.row("  PostgreSQL sessions at the end, all clients (direct LISTENs, psql included)", clients[0][0])
    errors = check_answers(stack, job_id, cases)
    report.check(not errors, f"{processes} processes: every answer right ({len(errors)} wrong: {errors[:3]})")
    report.check(0 < most <= POOL,
                 f"{processes} processes: PostgreSQL saw at most the pool ({most} <= {POOL})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", default=f"http://127.0.0.1:{os.environ.get('API_PORT', '8000')}")
    parser.add_argument("--korf", type=int, default=int(os.environ.get("SWARM_KORF", "20")),
                        help="how many of Korf's 100 the mixed batch holds")
    parser.add_argument("--dear", type=int, default=int(os.environ.get("SWARM_DEAR", "2000")),
                        help="dear puzzles in the scaled job")
    parser.add_argument("--update", type=int, default=int(os.environ.get("SWARM_UPDATE", "600")),
                        help="dear puzzles in each job of the rolling update")
    parser.add_argument("--processes", type=int, default=int(os.environ.get("SWARM_PROCESSES", "32")),
                        help="worker processes of the pool check (4 tasks)")
    args = parser.parse_args(argv)
    token = (SWARM_STATE / "api_tokens").read_text().strip().partition(":")[2]
    stack, report = SwarmStack(args.api, token=token), Report()
    machine_row(report)
    start_up_rows(report, SWARM_STATE / "timings", [
        ("swarm_up_seconds", "make swarm-up (engine, base images, build, swarm, stack converged)"),
        ("build_seconds", "  of which the image builds (cached layers)"),
        ("deploy_seconds", "  of which deploy until every task is healthy")])
    report.step(mixed_batch, stack, report, args.korf)
    report.step(scaled_job, stack, report, args.dear)
    report.step(rolling_update, stack, report, args.update)
    report.step(many_processes, stack, report, args.update, args.processes)
    return finish(report)


if __name__ == "__main__":
    sys.exit(main())
