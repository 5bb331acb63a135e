"""make compose-test's checks, run against the stack `make compose-up` started.

Over HTTP, as a user would: 200 slow sockets that must not hold up other requests, a mixed
batch with known answers (tests/data), a split n-Queens count whose parts must have run on at
least two worker containers, the same count with the
container of one of its workers SIGKILLed mid-job (the job completes, the count is right, no
part counted twice), then PostgreSQL and Redis restarted in the middle of jobs (all complete,
all right). Reads SQL (through the postgres container) only to see which worker ran what.
Prints a table of timings; exits 1 if any check failed.

Glossary
  expectation  a function from one PuzzleResult to an error message, or None when right
  normal time  the split count's wall time with every worker alive, measured in this run
  time lost    the killed run's wall time minus the normal time
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
STATE = ROOT / "var" / "compose"

T = TypeVar("T")
Result = dict[str, Any]
Expectation = Callable[[Result], str | None]


# -- the stack: HTTP, compose, SQL

def docker(*args: str) -> bool:
    """Run a docker command; False (its error printed) when it fails."""
    out = subprocess.run(["docker", *args], check=False, capture_output=True, text=True)
    if out.returncode != 0:
        print(f"  docker {' '.join(args)}: {out.stderr.strip()}", flush=True)
    return out.returncode == 0


@dataclass
class Stack:
    api: str
    project: str = "puzzle-queue"
    token: str = ""  # a client's token, sent as a bearer token where tokens are on

    def http(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.api + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def compose(self, *args: str) -> str:
        env_file = STATE / "compose.env"
        command = ["docker", "compose", "--project-name", self.project,
                   "--env-file", str(env_file if env_file.exists() else os.devnull), *args]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    def sql(self, query: str, patience: float = 60) -> list[list[str]]:
        """Rows of a query, waiting out a server that is restarting."""
        deadline = time.monotonic() + patience
        while True:
            try:
                out = self.compose("exec", "-T", "postgres", "psql", "-U", "puzzle", "-d", "puzzle",
                                   "-At", "-F", "\t", "-c", query)
                return [line.split("\t") for line in out.splitlines() if line]
            except subprocess.CalledProcessError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)

    def worker_containers(self) -> dict[str, str]:
        """Container hostname (its short id) -> container name, for the running workers."""
        out = self.compose("ps", "--format", "{{.ID}} {{.Name}}", "worker")
        return dict(line.split()[:2] for line in out.splitlines() if line.strip())

    def submit(self, puzzles: list[dict[str, Any]], label: str) -> str:
        job: dict[str, Any] = self.http("POST", "/api/v1/jobs", {"label": label, "puzzles": puzzles})
        return str(job["id"])

    def patient_get(self, path: str, patience: float = 60) -> Any:
        """GET, waiting out a server that is restarting (no answer, or 503 while the database is
        down or still starting)."""
        deadline = time.monotonic() + patience
        while True:
            try:
                return self.http("GET", path)
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.25)

    def wait(self, job_id: str, timeout: float) -> dict[str, Any]:
        """Poll until the job completes; errors while a server restarts are waited out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job: dict[str, Any] = self.patient_get(f"/api/v1/jobs/{job_id}", deadline - time.monotonic())
            if job["status"] in ("completed", "cancelled"):
                return job
            time.sleep(0.25)
        raise TimeoutError(f"job {job_id} not complete after {timeout:.0f} s")

    def results(self, job_id: str) -> Iterator[Result]:
        cursor = ""
        while True:
            page = self.http("GET", f"/api/v1/jobs/{job_id}/puzzles?limit=500{cursor}")
            yield from page["items"]
            if not page["next_cursor"]:
                return
            cursor = f"&cursor={page['next_cursor']}"

    def wait_for_progress(self, job_id: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.http("GET", f"/api/v1/jobs/{job_id}")["progress"] > 0:
                return
            time.sleep(0.25)  # like any client: well under the default READ_RATE_LIMIT
        raise TimeoutError(f"job {job_id} made no progress within {timeout:.0f} s")

    def wait_for_running_part(self, job_id: str, timeout: float = 60, newest: bool = False) -> str:
        """The hostname of a worker holding a running part of the job (the part started last)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            [[status, worker]] = self.sql(
                "SELECT j.status, (SELECT s.worker FROM subtasks s JOIN puzzles p ON p.id = s.puzzle_id "
                "WHERE p.job_id = j.id AND s.status = 'running' AND s.worker IS NOT NULL "
                f"ORDER BY s.started_at {'DESC' if newest else ''} LIMIT 1) "
                f"FROM jobs j WHERE j.id = '{job_id}'")
            if worker:
                return host_of(worker)
            if status in ("completed", "cancelled"):
                raise RuntimeError(f"job {job_id} was {status} before a running part was seen: "
                                   "too short for this check (a larger --n lasts longer)")
            time.sleep(0.2)
        raise TimeoutError(f"no part of job {job_id} started within {timeout:.0f} s")

    def kill_a_worker_holding_a_part(self, job_id: str, tries: int = 20) -> tuple[str, list[int]]:
        """SIGKILL a worker container while it holds a part: frozen first (docker pause), so that
        the parts it holds cannot change between looking and killing. Where the freezer fails (it
        can on a busy machine), killed at once: what it held is then read after its death.

        A write the worker sent just before the freeze can still commit after it; a part so
        written was not lost, and is left out of what the victim held; where that leaves nothing,
        another worker is taken."""
        for _ in range(tries):
            victim = self.wait_for_running_part(job_id, newest=True)
            if not docker("pause", victim):
                docker("kill", "--signal", "KILL", victim)
                return victim, self.parts_of(job_id, victim)
            held = self.parts_of(job_id, victim)
            if held:
                docker("kill", "--signal", "KILL", victim)
                time.sleep(1)  # the connection's close reaches PostgreSQL; a sent commit lands
                written = self.parts_of(job_id, victim, running=False)
                lost = [index for index in held if index not in written]
                if lost:
                    return victim, lost
                continue  # it lost nothing after all: another worker is the victim
            docker("unpause", victim)
            time.sleep(0.3)
        raise RuntimeError(f"no worker caught holding a part of job {job_id} in {tries} tries")

    def parts_of(self, job_id: str, host: str, running: bool = True) -> list[int]:
        """The job's parts the host's worker claims now (``running``), or those it wrote."""
        rows = self.sql("SELECT s.index FROM subtasks s JOIN puzzles p ON p.id = s.puzzle_id "
                        f"WHERE p.job_id = '{job_id}' AND (s.status = 'running') = {running} "
                        f"AND s.worker LIKE '%{host}:%'")
        return sorted(int(row[0]) for row in rows)

    def part_hosts(self, job_id: str) -> list[str]:
        rows = self.sql("SELECT s.worker FROM subtasks s JOIN puzzles p ON p.id = s.puzzle_id "
                        f"WHERE p.job_id = '{job_id}'")
        return [host_of(row[0]) for row in rows]


def host_of(worker: str) -> str:
    """The host (a worker container's hostname) in a worker name, ``celery@host:pid:tag`` (or
    ``host:pid:tag`` before Celery names the process)."""
    return worker.split(":")[0].rsplit("@", 1)[-1]


# -- known answers

def expect_status(status: str) -> Expectation:
    def check(item: Result) -> str | None:
        return None if item["status"] == status else f"status {item['status']} ({item.get('error')})"
    return check


def both(*checks: Expectation) -> Expectation:
    def check(item: Result) -> str | None:
        return next((error for c in checks if (error := c(item)) is not None), None)
    return check


def sudoku_cases(count: int) -> Iterator[tuple[dict[str, Any], Expectation]]:
    """17-clue puzzles (each has one solution): the answer keeps the clues and breaks no rule."""
    lines = (DATA / "sudoku" / "tdoku_puzzles2_17_clue_first10000.txt").read_text().splitlines()
    puzzles = [line.strip() for line in lines if line.strip() and not line.startswith("#")][:count]
    for puzzle in puzzles:
        def right(item: Result, puzzle: str = puzzle) -> str | None:
            grid = item["result"]["solution"]
            units = ([range(r * 9, r * 9 + 9) for r in range(9)] + [range(c, 81, 9) for c in range(9)]
                     + [[(br + r) * 9 + bc + c for r in range(3) for c in range(3)]
                        for br in (0, 3, 6) for bc in (0, 3, 6)])
            if any(p not in ".0" and p != g for p, g in zip(puzzle, grid, strict=True)):
                return "solution changes a clue"
            if any(sorted(grid[i] for i in unit) != list("123456789") for unit in units):
                return "solution breaks a rule"
            return None
        yield {"kind": "sudoku", "puzzle": puzzle}, both(expect_status("solved"), right)


def nqueens_cases(largest: int, **options: Any) -> Iterator[tuple[dict[str, Any], Expectation]]:
    for line in (DATA / "nqueens" / "counts.csv").read_text().splitlines()[1:]:
        n, total, _ = (int(x) for x in line.split(","))
        if n <= largest:
            def right(item: Result, total: int = total) -> str | None:
                got = (item["result"] or {}).get("solutions")
                return None if got == total else f"count {got} != {total} ({item['status']}, {item['error']})"
            yield {"kind": "nqueens", "puzzle": {"n": n}, "options": {"mode": "count", **options}}, right


def split_count_case(n: int) -> tuple[dict[str, Any], Expectation]:
    """The count of n by the prefix tree, whose parts run for seconds at n = 15-16 (long enough to
    kill a worker holding one, or to restart a server under them), where constellations take
    milliseconds."""
    [case] = [c for c in nqueens_cases(n, strategy="tree") if c[0]["puzzle"]["n"] == n]
    return case


def sliding_case(line: str, options: dict[str, Any]) -> tuple[dict[str, Any], Expectation]:
    *tiles, length = line.split()
    def right(item: Result) -> str | None:
        if int(length) == 0 and item["status"] == "solved":
            return None
        got = (item["result"] or {}).get("length")
        return None if got == int(length) else f"length {got} != {length} ({item['status']}, {item['error']})"
    return {"kind": "sliding", "puzzle": " ".join(tiles), "options": options}, right


def eight_puzzle_cases(count: int) -> Iterator[tuple[dict[str, Any], Expectation]]:
    lines = (DATA / "sliding" / "eight_puzzle_samples.txt").read_text().splitlines()
    for line in lines[:count]:
        yield sliding_case(line, {"algorithm": "astar"})


def korf_cases(ids: list[int]) -> Iterator[tuple[dict[str, Any], Expectation]]:
    """Korf's instances solved optimally: with the image's pattern database, seconds each."""
    lines = (DATA / "sliding" / "korf100_blank_last.txt").read_text().splitlines()
    def with_the_database(item: Result) -> str | None:
        stats = item["stats"] or {}
        if stats.get("heuristic") == "pdb":
            return None
        return f"ran {stats.get('heuristic')}: {stats.get('note')}"
    for i in ids:
        puzzle, right = sliding_case(lines[i - 1], {"algorithm": "idastar", "heuristic": "pdb"})
        yield puzzle, both(right, with_the_database)


def spokes_cases(count: int) -> Iterator[tuple[dict[str, Any], Expectation]]:
    """x-sheep's generated instances, whose one solution the generator recorded."""
    lines = (DATA / "spokes" / "xsheep_generated.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    for line in lines[1:count + 1]:
        row = dict(zip(header, line.split("\t"), strict=True))
        width, hubs = int(row["width"]), row["game_id"].split(":")[1]
        grid = "\n".join(" ".join(hubs[r:r + width]) for r in range(0, len(hubs), width))
        edges = {tuple(sorted(tuple(int(x) for x in end.split(",")) for end in edge.split("-")))
                 for edge in row["solution_edges"].split(";")}
        def right(item: Result, edges: set[tuple[tuple[int, ...], ...]] = edges) -> str | None:
            got = {tuple(sorted([(a, b), (c, d)])) for a, b, c, d in (item["result"] or {}).get("spokes", [])}
            return None if got == edges else "spokes differ from the recorded solution"
        yield {"kind": "spokes", "puzzle": grid}, both(expect_status("solved"), right)


def check_results(stack: Stack, job_id: str, expectations: list[Expectation]) -> list[str]:
    errors = []
    for item in stack.results(job_id):
        if (error := expectations[item["index"]](item)) is not None:
            errors.append(f"job {job_id} item {item['index']} ({item['kind']}): {error}")
    return errors


# -- the steps

@dataclass
class Report:
    rows: list[tuple[str, str]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def row(self, what: str, value: str) -> None:
        self.rows.append((what, value))
        print(f"  {what}: {value}", flush=True)

    def step(self, run: Callable[..., T], *args: Any) -> T | None:
        """Run one step; an exception fails it (recorded) and the next step still runs."""
        try:
            return run(*args)
        except (TimeoutError, RuntimeError, OSError, subprocess.CalledProcessError, KeyError) as exc:
            self.check(False, f"{run.__name__}: {type(exc).__name__}: {exc}")
            return None

    def check(self, ok: bool, message: str) -> None:
        print(f"  {'ok ' if ok else 'FAIL'} {message}", flush=True)
        if not ok:
            self.failures.append(message)


def timed_job(stack: Stack, cases: list[tuple[dict[str, Any], Expectation]], label: str,
              timeout: float) -> tuple[str, float, list[str]]:
    started = time.monotonic()
    job_id = stack.submit([puzzle for puzzle, _ in cases], label)
    stack.wait(job_id, timeout)
    seconds = time.monotonic() - started
    return job_id, seconds, check_results(stack, job_id, [expect for _, expect in cases])


def mixed_batch(stack: Stack, report: Report, korf: int) -> None:
    cases = [*sudoku_cases(800), *eight_puzzle_cases(149), *spokes_cases(40), *nqueens_cases(12),
             *korf_cases(list(range(1, korf + 1)))]
    print(f"mixed batch of {len(cases)} puzzles", flush=True)
    _, seconds, errors = timed_job(stack, cases, "compose-test mixed batch", timeout=600)
    report.row(f"mixed batch, {len(cases)} puzzles with known answers", f"{seconds:.1f} s")
    report.check(not errors, f"every answer right ({len(errors)} wrong: {errors[:3]})")


def slow_clients(stack: Stack, report: Report, count: int = 200) -> None:
    """Sockets that send a POST's head, then a body byte at a time, hold no API thread (the proxy
    reads bodies whole first): GET /api/v1/kinds still answers at once."""
    print(f"{count} slow sockets", flush=True)
    url = urllib.parse.urlsplit(stack.api)
    head = (b"POST /api/v1/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000\r\n\r\n")
    socks = [socket.create_connection((url.hostname or "127.0.0.1", url.port or 80), timeout=5)
             for _ in range(count)]
    times = []
    try:
        for sock in socks:
            sock.sendall(head)
        for _ in range(10):
            for sock in socks:
                sock.sendall(b" ")
            started = time.perf_counter()
            with urllib.request.urlopen(stack.api + "/api/v1/kinds", timeout=5) as response:
                response.read()
            times.append(time.perf_counter() - started)
            time.sleep(0.5)
    finally:
        for sock in socks:
            sock.close()
    median = statistics.median(times)
    report.row(f"GET /api/v1/kinds with {count} slow sockets open, median of 10", f"{median * 1000:.0f} ms")
    slowest = max(times)
    report.check(median < 0.1 and slowest < 1, f"answered in < 100 ms (slowest {slowest * 1000:.0f} ms)")


def split_count(stack: Stack, report: Report, n: int) -> float:
    print(f"split count, n = {n}", flush=True)
    case = split_count_case(n)
    job_id, seconds, errors = timed_job(stack, [case], f"compose-test split n={n}", timeout=900)
    hosts = set(stack.part_hosts(job_id))
    report.row(f"split count n = {n}, all workers alive", f"{seconds:.1f} s")
    report.check(not errors, f"count right {errors}")
    report.check(len(hosts) >= 2, f"parts ran on {len(hosts)} worker containers (at least 2)")
    return seconds


def killed_worker(stack: Stack, report: Report, n: int, normal: float, max_lost: float) -> None:
    print(f"split count, n = {n}, a worker container killed mid-job", flush=True)
    case = split_count_case(n)
    started = time.monotonic()
    job_id = stack.submit([case[0]], f"compose-test kill n={n}")
    stack.wait_for_running_part(job_id)
    time.sleep(min(normal / 3, 10))  # well into the job, with parts running on every worker
    victim, held = stack.kill_a_worker_holding_a_part(job_id)
    # The dead process's name on each part it held, read before the reaper hands them on
    # (WORKER_SILENT_SECONDS later): a restarted container keeps its hostname, not its process.
    dead = dict(stack.sql(
        "SELECT s.index, s.worker FROM subtasks s JOIN puzzles p ON p.id = s.puzzle_id "
        f"WHERE p.job_id = '{job_id}' AND s.index IN ({', '.join(map(str, held or [-1]))})"))
    name = stack.worker_containers().get(victim, victim)
    print(f"  killed {name} at {time.monotonic() - started:.1f} s, holding parts {held}", flush=True)
    stack.wait(job_id, timeout=normal + 600)
    seconds = time.monotonic() - started
    errors = check_results(stack, job_id, [case[1]])
    [[total, done, rows, solved]] = stack.sql(
        "SELECT p.parts_total, p.parts_done, count(s.id), count(s.id) FILTER (WHERE s.status = 'solved') "
        f"FROM puzzles p JOIN subtasks s ON s.puzzle_id = p.id WHERE p.job_id = '{job_id}' "
        "GROUP BY p.parts_total, p.parts_done")
    lost = seconds - normal
    report.row(f"split count n = {n}, worker container killed mid-job", f"{seconds:.1f} s")
    report.row("time lost to the kill", f"{lost:.1f} s (limit {max_lost:.0f} s)")
    report.check(not errors, f"count right after the kill {errors}")
    report.check(total == done == rows == solved, f"each part counted once: parts {total}, done {done}, "
                 f"rows {rows}, solved {solved}")
    redone = [row for row in stack.sql(
        "SELECT s.index, s.worker FROM subtasks s JOIN puzzles p ON p.id = s.puzzle_id "
        f"WHERE p.job_id = '{job_id}'") if int(row[0]) in held and row[1] != dead.get(row[0])]
    report.check(bool(held) and len(redone) == len(held),
                 f"the parts the killed worker held ({held}) were finished by another worker")
    report.check(lost <= max_lost, f"time lost to the kill {lost:.1f} s <= {max_lost:.0f} s")


def restarts(stack: Stack, report: Report, n: int, limit: float) -> None:
    """PostgreSQL restarted once the batch is under way, Redis once the count's parts run; all
    must complete within limit seconds (a lost message waits for the reaper's stale sweep)."""
    print("PostgreSQL and Redis restarted mid-job", flush=True)
    count = split_count_case(n)
    batch = [*sudoku_cases(300), *eight_puzzle_cases(149)]
    started = time.monotonic()
    jobs = [(stack.submit([p for p, _ in batch], "compose-test restart batch"), [e for _, e in batch]),
            (stack.submit([count[0]], "compose-test restart count"), [count[1]])]
    stack.wait_for_progress(jobs[0][0])
    for service in ("postgres", "redis"):
        if service == "redis":  # the count's parts wait behind the batch on a busy machine
            stack.wait_for_running_part(jobs[1][0], timeout=limit)
        unfinished = sum(stack.patient_get(f"/api/v1/jobs/{job_id}")["status"] != "completed"
                         for job_id, _ in jobs)
        stack.compose("restart", service)
        print(f"  restarted {service} at {time.monotonic() - started:.1f} s, {unfinished} job(s) unfinished",
              flush=True)
        report.check(unfinished > 0, f"{service} restarted while {unfinished} job(s) ran")
    for job_id, _ in jobs:
        stack.wait(job_id, timeout=max(1.0, limit - (time.monotonic() - started)))
    seconds = time.monotonic() - started
    errors = [e for job_id, expectations in jobs for e in check_results(stack, job_id, expectations)]
    report.row(f"{len(batch)} puzzles + n = {n} count through both restarts", f"{seconds:.1f} s")
    report.check(not errors, f"all complete and right after the restarts ({len(errors)} wrong: {errors[:3]})")


def print_table(report: Report) -> None:
    width = max(len(what) for what, _ in report.rows)
    print(f"\n| {'what'.ljust(width)} | measured |\n| {'-' * width} | ---: |")
    for what, value in report.rows:
        print(f"| {what.ljust(width)} | {value} |")


def start_up_rows(report: Report, timings: Path, rows: list[tuple[str, str]]) -> None:
    """The start-up's times as its script wrote them (``key=seconds`` lines), a row per (key, label)."""
    if timings.exists():
        values = dict(line.split("=") for line in timings.read_text().split())
        for key, label in rows:
            report.row(label, f"{values[key]} s")


def machine_row(report: Report) -> None:
    report.row("machine: cores, load average (1 min) at the start of the checks",
               f"{os.cpu_count()}, {os.getloadavg()[0]:.1f}")


def finish(report: Report) -> int:
    """The table, then the failed checks if any; the exit status."""
    print_table(report)
    if report.failures:
        print(f"\n{len(report.failures)} check(s) failed:", *report.failures, sep="\n  ")
        return 1
    print("\nall checks passed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", default=f"http://127.0.0.1:{os.environ.get('API_PORT', '8000')}")
    parser.add_argument("--n", type=int, default=int(os.environ.get("COMPOSE_SPLIT_N", "17")),
                        help="n of the split count, long enough to kill a worker holding a part "
                             "(a larger n runs longer, so the kill lands mid-job)")
    parser.add_argument("--korf", type=int, default=int(os.environ.get("COMPOSE_KORF", "100")),
                        help="how many of Korf's 100 the mixed batch holds (its costliest puzzles)")
    parser.add_argument("--restart-limit", type=float,
                        default=float(os.environ.get("COMPOSE_RESTART_LIMIT", "90")),
                        help="seconds the jobs may take through the restarts of PostgreSQL and Redis "
                             "(less than a claim's lease, 150 s: waiting for one fails the check)")
    parser.add_argument("--max-lost", type=float,
                        default=float(os.environ.get("COMPOSE_KILL_MAX_LOST", "30")),
                        help="seconds a killed worker may add to its job")
    args = parser.parse_args(argv)
    stack, report = Stack(args.api), Report()
    # Every time below is wall time on a machine that may be busy with other work.
    machine_row(report)
    start_up_rows(report, STATE / "timings", [
        ("compose_up_seconds", "make compose-up (engine, Compose, base images, build, stack healthy)"),
        ("build_seconds", "  of which the image build (cached layers)"),
        ("up_seconds", "  of which `up --wait` until every service is healthy")])
    report.step(slow_clients, stack, report)
    report.step(mixed_batch, stack, report, args.korf)
    normal = report.step(split_count, stack, report, args.n)
    if normal is not None:
        report.step(killed_worker, stack, report, args.n, normal, args.max_lost)
    report.step(restarts, stack, report, args.n - 1, args.restart_limit)
    return finish(report)


if __name__ == "__main__":
    sys.exit(main())
