"""The API's first POST on an empty numba cache: seconds to answer the README's four-kind request
(bench.startup's README_JOB) in a fresh API process, its checks' kernels compiled on first use
(``waits``: a request waits for their compile) against warmed in a thread with the numpy forms
answering meanwhile (``warms``: what create_app does, solvers.sudoku.checks); then what each form of
the checks costs a 1,000-puzzle 9x9 run once warm (median of 50 calls).

    python -m bench.first_post [--runs 3]

Each run is a process of its own with a numba cache and an SQLite file of its own, both empty; the
modes alternate, and the medians are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from bench.startup import README_JOB
from tests.support.devstack import ROOT

ONE_RUN = """
import json, os, sys, time
start = time.perf_counter()
import solvers
if sys.argv[1] == "waits":
    solvers.answer_without_compiling = lambda: None
from service import create_app
from store.models import Base
from store.settings import Settings
tmp = sys.argv[2]
app = create_app(Settings.from_env(DATABASE_URL=f"sqlite:///{tmp}/db.sqlite", BROKER_DIR=f"{tmp}/broker",
                                   REDIS_URL=None, RATE_LIMIT="", READ_RATE_LIMIT=""))
Base.metadata.create_all(app.extensions["engine"])
loaded = time.perf_counter()
r = app.test_client().post("/api/v1/jobs", json=json.loads(sys.argv[3]))
assert r.status_code == 202, r.json
print(json.dumps({"load": loaded - start, "post": time.perf_counter() - loaded}))
"""


def one_run(mode: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="first-post-") as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": f"{tmp}/numba", "LOG_LEVEL": "WARNING"}
        out = subprocess.run([sys.executable, "-c", ONE_RUN, mode, tmp, json.dumps(README_JOB)], cwd=ROOT,
                             env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])


def check_costs() -> tuple[float, float]:
    """Median seconds of the kernel and of the numpy form on 1,000 9x9 rows (warm)."""
    from solvers.sudoku import checks, kernels
    from solvers.sudoku.grid import layout

    rng = np.random.default_rng(0)
    givens = np.zeros((1000, 81), np.uint8)
    for row in givens:
        row[rng.choice(81, 25, replace=False)] = rng.integers(1, 10, 25)
    units = layout(9).cell_units
    costs = []
    for form in (kernels.conflicting_rows, checks.plain_conflicting_rows):
        form(givens, units)
        times = []
        for _ in range(50):
            start = time.perf_counter()
            form(givens, units)
            times.append(time.perf_counter() - start)
        costs.append(statistics.median(times))
    return costs[0], costs[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.1f}", flush=True)
    seen: dict[str, list[dict[str, float]]] = {"waits": [], "warms": []}
    for i in range(args.runs):
        for mode in ("waits", "warms") if i % 2 == 0 else ("warms", "waits"):
            seen[mode].append(one_run(mode))
            print(f"{mode}: first POST {seen[mode][-1]['post']:.2f} s (app loaded in "
                  f"{seen[mode][-1]['load']:.2f} s)", flush=True)
    for mode, runs in seen.items():
        median = statistics.median(r["post"] for r in runs)
        print(f"{mode}: median first POST {median:.2f} s over {len(runs)}")
    kernel, plain = check_costs()
    print(f"1,000 rows checked: kernel {kernel * 1e3:.2f} ms, numpy {plain * 1e3:.2f} ms "
          f"({plain / kernel:.0f}x)")
    print(f"load: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
