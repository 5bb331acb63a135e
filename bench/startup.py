"""`make run`'s start: seconds to "workers ready", to the README's four-kind job answered and to
every kind prepared, on an empty numba cache, then on the cache filled.

    python -m bench.startup [--starts 2] [--fresh-clone]
    python -m bench.startup --units

Starts `python -m deploy.run_local` (what `make run` runs, embedded: SQLite and the filesystem
broker) in a temporary folder with a numba cache of its own there (NUMBA_CACHE_DIR), empty at the
first start; each start waits for the API's /readyz and the workers' ready line, posts the README's
first request (a puzzle of each kind) and waits for it to complete, waits for the line saying every
kind is prepared (its kernels in the cache), then stops it as Ctrl-C does. Prints, per start, the
seconds the ready line states, the seconds from the start until the job was answered in full and
until every kind was prepared, the CPU seconds the whole start and stop took (its processes' user +
system time), and the most CPU seconds one warm-up process took (its log line): its seconds on an
idle machine with a core per warm-up process, whatever the load here.

With --fresh-clone: first `git clone` of this repository's HEAD into a temporary folder and
`make venv-run` there (timed, the `.venv`'s size printed), then the starts as above from that
clone, with its `.venv` (the runtime install only), and the `.venv`'s size again: what a new
user's `make run` installs and writes.

With --units: the CPU seconds of each warm-up unit (solvers.warm_up_units), each warmed in a
process of its own, in their order, on one numba cache empty at the first: what one process warming
up alone spends on each, which the processes warming up at once share.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

import solvers
from store.models import COMPLETED, SOLVED
from tests.support.devstack import ROOT, run_local

# The README's first request (its curl): a puzzle of each kind.
README_JOB = {"label": "first try", "puzzles": [
    {"kind": "sudoku",
     "puzzle": "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"},
    {"kind": "nqueens", "puzzle": {"n": 12}, "options": {"mode": "count"}},
    {"kind": "sliding", "puzzle": "8 6 7 2 5 4 3 0 1", "options": {"algorithm": "astar"}},
    {"kind": "spokes", "puzzle": "1 1 3 3\n1 3 2 4\n1 7 3 3\n1 1 1 1"},
]}

# One unit warmed, its process's CPU seconds printed.
WARM_UNIT = """
import resource, sys, solvers
unit = next(u for u in solvers.warm_up_units() if u.name == sys.argv[1])
start = resource.getrusage(resource.RUSAGE_SELF)
unit.warm()
end = resource.getrusage(resource.RUSAGE_SELF)
print(end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime)
"""


def cpu_of_children() -> float:
    """User + system seconds of the processes this one has waited for (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_job(base: str) -> None:
    """POST the README's first request and wait until it has completed, every puzzle solved."""
    with httpx.Client(base_url=base, timeout=60) as http:
        job = http.post("/api/v1/jobs", json=README_JOB).raise_for_status().json()
        while job["status"] != COMPLETED:
            job = http.get(f"/api/v1/jobs/{job['id']}", params={"wait": 30}).raise_for_status().json()
        statuses = [p["status"] for p in http.get(f"/api/v1/jobs/{job['id']}/puzzles").json()["items"]]
    assert statuses == [SOLVED] * len(README_JOB["puzzles"]), statuses


def one_start(folder: Path, env: dict[str, str]) -> tuple[float, float, float, float, float]:
    """The ready line's seconds, the seconds until the README's job was answered and until every kind
    was prepared, the CPU seconds of start and stop, the most CPU seconds of one warm-up process."""
    cpu, start = cpu_of_children(), time.perf_counter()
    with run_local(folder, env, timeout=3600) as running:
        first_job(running.url)
        answered = time.perf_counter() - start
        while "every kind prepared" not in running.log.read_text():
            time.sleep(0.5)
        prepared = time.perf_counter() - start
        text = running.log.read_text()
    found = re.search(r"workers ready: \d+ processes, (\d+) s", text)
    warm = [float(s) for s in re.findall(r"solvers warmed up in [\d.]+ s, ([\d.]+) CPU s", text)]
    assert found is not None and warm
    return float(found.group(1)), answered, prepared, cpu_of_children() - cpu, max(warm)


def units() -> None:
    print("| warm-up unit | CPU s |")
    print("|---|---:|")
    with tempfile.TemporaryDirectory() as name:
        env = {**os.environ, "NUMBA_CACHE_DIR": name}
        for unit in solvers.warm_up_units():
            run = subprocess.run([sys.executable, "-c", WARM_UNIT, unit.name], cwd=ROOT, env=env,
                                 capture_output=True, text=True, check=True)
            print(f"| {unit.name} | {float(run.stdout):.1f} |", flush=True)


def megabytes(folder: Path) -> int:
    return int(subprocess.run(["du", "-sm", str(folder)], capture_output=True, text=True,
                              check=True).stdout.split()[0])


def fresh_clone(starts: int) -> None:
    """A clone's install timed and measured, then this bench run from it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "NUMBA_CACHE_DIR")}
    with tempfile.TemporaryDirectory() as name:
        clone = Path(name) / "clone"
        start = time.perf_counter()
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["make", "venv-run"], cwd=clone, env=env, check=True, capture_output=True)
        installed = time.perf_counter() - start
        venv = clone / ".venv"
        print(f"git clone + make venv-run: {installed:.0f} s, .venv {megabytes(venv)} MB\n", flush=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "bench.startup", "--starts", str(starts)],
                       cwd=clone, env={**env, "PYTHONPATH": str(clone)}, check=True)
        print(f"\n.venv after the starts: {megabytes(venv)} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--starts", type=int, default=2)
    ap.add_argument("--units", action="store_true", help="each warm-up unit's CPU seconds instead")
    ap.add_argument("--fresh-clone", action="store_true",
                    help="clone this repository and install it with make venv-run first, then start that")
    args = ap.parse_args()
    if args.fresh_clone:
        fresh_clone(args.starts)
        return
    print(f"load average at the start: {os.getloadavg()[0]:.1f}\n")
    if args.units:
        units()
        print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
        return
    print("| start | numba cache | ready line, s | README's job answered, s | every kind prepared, s "
          "| CPU s (start and stop) | one warm-up, CPU s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "API_TOKENS")}
        env.update({"DATABASE_URL": f"sqlite:///{folder}/db.sqlite", "BROKER_DIR": f"{folder}/broker",
                    "NUMBA_CACHE_DIR": str(folder / "numba-cache")})
        for start in range(1, args.starts + 1):
            ready, answered, prepared, cpu, warm = one_start(folder, env)
            cache = "empty" if start == 1 else "filled"
            print(f"| {start} | {cache} | {ready:.0f} | {answered:.1f} | {prepared:.1f} | {cpu:.0f} "
                  f"| {warm:.0f} |", flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
