"""Sudoku benchmark: puzzles per second through the library's public calls.

    python bench/sudoku.py [--quick] [--no-py-sudoku] [--only batch|profile|strategies|py-sudoku]
                           [--tdoku path/to/libtdoku.so]

Each puzzle goes through ``KIND.prepare`` (parse, validate) and ``KIND.solve``
(search and statistics), for each strategy (``sat`` with each of its SAT solvers),
once for the first solution
(``max_solutions=1``, how outside solvers are measured) and once with the default
proof of uniqueness (``max_solutions=2``). One run per figure; the compiled kernels
are loaded before timing. ``backtrack`` gets a node budget per puzzle (a puzzle over
it counts in the time and in the "over budget" column). py-sudoku (PyPI), run in a
child process with a time cap per puzzle, is compared with greedy on the same puzzles.

The batch table runs whole data sets through ``batch`` (the worker's calls: ``KIND.prepare_batch``
reads and checks a chunk, ``KIND.solve_batch`` solves and verifies it in one kernel call, and the
outcomes' columns are read as the worker writes them) with the
default strategy, against tdoku on the same puzzles in the same run (``--tdoku``, a shared library
of tdoku's solver built from its sources, which are not part of this project; ``bench/tdoku.py``),
as CPU seconds (``time.process_time``), the medians of REPEATS alternating runs of each; beside
them the per-puzzle ``prepare`` + ``solve`` (+ ``verify``) of ``fast`` and of ``greedy``, one run.

The profile table splits ``batch``'s time per puzzle into the batch kernel's
(``solvers.sudoku.fast.solve_batch`` on the chunk's givens array: check, search, verify) and the rest
(options, reading the strings into one array and checking their givens, the outcomes' columns, the
answers' texts written by their own kernel and split), the medians of PROFILE_REPEATS alternating runs.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing as mp
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

import solvers
from bench import tdoku as bench_tdoku
from solvers.base import BudgetExceeded
from solvers.sudoku import KIND, fast
from solvers.sudoku.batch import read_9x9
from store import fastjson

ROOT = Path(__file__).resolve().parents[1]

DATA = ROOT / "tests" / "data" / "sudoku"
BACKTRACK_BUDGET = 300_000
PY_SUDOKU_CAP_S = 5.0

# the strategies compared: label -> options
STRATEGIES = {
    "auto": {},
    "fast": {"strategy": "fast"},
    "greedy": {"strategy": "greedy"},
    "backtrack": {"strategy": "backtrack"},
    "sat": {"strategy": "sat"},
    "sat cadical195": {"strategy": "sat", "sat_solver": "cadical195"},
}


@dataclass(frozen=True)
class PuzzleSet:
    label: str
    file: str
    n_greedy: int | None = None  # puzzles for greedy (None = all)
    n_other: int | None = None   # puzzles for the other strategies
    first: int = 0               # the set is the file's puzzles from this one on
    strategies: tuple[str, ...] = ("auto", "greedy", "backtrack", "sat", "sat cadical195")
    n_quick: int = 50            # at most this many puzzles per strategy in quick mode (greedy: 200)


GECODE_25 = "gecode_25x25.txt"
SETS = [
    PuzzleSet("17-clue", "tdoku_puzzles2_17_clue_first10000.txt", 10_000, 200),
    PuzzleSet("top1465", "tdoku_puzzles3_magictour_top1465.txt", 1465, 300),
    PuzzleSet("forum_hardest_1106", "tdoku_puzzles6_forum_hardest_1106.txt", 375, 375),
    PuzzleSet("serg (2+ solutions)", "tdoku_puzzles7_serg_benchmark.txt", 10_000, 500),
    PuzzleSet("16x16 janko", "gecode_16x16_janko.txt", 55, 55),
    # Gecode's instances 89 and 90, the two 25x25 puzzles the greedy tree reaches
    PuzzleSet("25x25 gecode 89-90", GECODE_25, first=16),
    # each of the 16 minimal ones needs over 200,000 greedy nodes and up to about
    # 450,000 MiniSat conflicts; CaDiCaL solves them in seconds to tens of seconds
    PuzzleSet("25x25 gecode, all 18", GECODE_25, strategies=("auto", "sat cadical195"), n_quick=3),
]
PY_SUDOKU_SETS = [("17-clue", "tdoku_puzzles2_17_clue_first10000.txt"),
                  ("unbiased", "tdoku_puzzles1_unbiased_first1000.txt"),
                  ("diabolical (SE 5-9)", "sudoku_exchange_diabolical_first5000.txt")]


def load(name: str) -> list[str]:
    lines = [line.strip() for line in (DATA / name).read_text().splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if name.startswith("sudoku_exchange"):
        lines = [line.split()[1] for line in lines]
    return lines


def run(puzzles: list[str], strategy: str, max_solutions: int) -> dict[str, Any] | None:
    """Solve every puzzle once; None when the strategy refuses the size."""
    options = {**STRATEGIES[strategy], "max_solutions": max_solutions}
    limit = BACKTRACK_BUDGET if strategy == "backtrack" else None
    try:
        KIND.prepare(puzzles[0], options)
    except solvers.InvalidOption:
        return None
    nodes, leaves, depth, over = [], [], [], 0
    start = time.process_time()
    for puzzle in puzzles:
        grid, opts = KIND.prepare(puzzle, options)
        try:
            stats = KIND.solve(grid, opts, node_limit=limit).stats
        except BudgetExceeded:
            over += 1
            continue
        nodes.append(stats["nodes"])
        leaves.append(stats["leaves"])
        depth.append(stats["max_depth"])
    seconds = time.process_time() - start
    return {"rate": len(puzzles) / seconds, "nodes": mean(nodes), "leaves": mean(leaves),
            "depth": mean(depth) if options.get("strategy") != "sat" else None, "over": over}


def need(measured: dict[str, Any] | None) -> dict[str, Any]:
    assert measured is not None, "the strategy accepts these puzzles"
    return measured


def mean(xs: list[int]) -> str:
    return f"{statistics.fmean(xs):,.1f}" if xs else "-"


def fmt_rate(r: float) -> str:
    return f"{r:,.0f}" if r >= 100 else f"{r:,.1f}"


def solver_table(quick: bool) -> None:
    print("| set | strategy | puzzles | first sol. /s | nodes | leaves | depth | unique proof /s | nodes "
          "| leaves | depth | over budget |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for pset in SETS:
        label = pset.label
        puzzles = load(pset.file)[pset.first:]
        rates = {}
        for strategy in pset.strategies:
            count = pset.n_greedy if strategy in ("greedy", "auto") else pset.n_other
            count = count if count is not None else len(puzzles)
            count = max(min(count, 200 if strategy == "greedy" else pset.n_quick), 2) if quick else count
            subset = puzzles[:count]
            first, proof = run(subset, strategy, 1), run(subset, strategy, 2)
            if first is None or proof is None:
                print(f"| {label} | {strategy} | - | refused (9x9 at most) | | | | | | | | |")
                continue
            rates[strategy] = (first["rate"], proof["rate"])
            cells = [f"{fmt_rate(m['rate'])} | {m['nodes']} | {m['leaves']} | {m['depth'] or '-'}"
                     for m in (first, proof)]
            over = first["over"] + proof["over"]
            print(f"| {label} | {strategy} | {len(subset)} | {cells[0]} | {cells[1]} | {over or ''} |",
                  flush=True)
        if "greedy" in rates and "sat" in rates:
            ratios.append((label, rates["greedy"][0] / rates["sat"][0], rates["greedy"][1] / rates["sat"][1]))
    print()
    print("| set | greedy / sat, first solution | greedy / sat, uniqueness proof |")
    print("|---|---:|---:|")
    for label, first, proof in ratios:
        print(f"| {label} | {first:,.3g}x | {proof:,.3g}x |")


# -- the fast kernel through prepare_batch and solve_batch, against the per-puzzle calls and tdoku


REPEATS = 5
BATCH_SETS = [("17-clue", "tdoku_puzzles2_17_clue_first10000.txt"),
              ("top1465", "tdoku_puzzles3_magictour_top1465.txt"),
              ("forum_hardest_1106", "tdoku_puzzles6_forum_hardest_1106.txt"),
              ("forum_hardest_1905 11+ (first 10000)",
               "tdoku_puzzles5_forum_hardest_1905_11plus_first10000.txt"),
              ("serg (2+ solutions)", "tdoku_puzzles7_serg_benchmark.txt")]


def cpu_rate(work: Callable[[], object], count: int, repeats: int) -> float:
    """Puzzles per CPU second: the median of ``repeats`` runs of ``work``."""
    return count / statistics.median(cpu_seconds(work) for _ in range(repeats))


def batch(puzzles: list[str], options: dict[str, Any] | None) -> None:
    """Wire puzzles to verified outcomes as the worker takes a run of them: one ``prepare_batch``
    call, one ``solve_batch`` call, and the columns of its outcomes that the worker writes
    (statuses, node counts, each answer as JSON text)."""
    opts = KIND.read_options(options)
    outcomes = KIND.solve_batch(KIND.prepare_batch(puzzles, opts), opts)
    outcomes.statuses(), outcomes.nodes(), outcomes.encoded(fastjson.dumps)


def one_by_one(puzzles: list[str], options: dict[str, Any]) -> None:
    for puzzle in puzzles:
        grid, opts = KIND.prepare(puzzle, options)
        KIND.verify(grid, opts, KIND.solve(grid, opts))


def against_tdoku(puzzles: list[str], max_solutions: int, tdoku: bench_tdoku.Run | None,
                  repeats: int) -> tuple[float, float | None]:
    """Puzzles per CPU second of ``batch`` and of tdoku (None without it) at ``max_solutions``: the
    medians of ``repeats`` runs of each, alternating so that both see the same load."""
    options = {"max_solutions": max_solutions}
    ours: list[float] = []
    theirs: list[float] = []
    encoded = bench_tdoku.encode(puzzles)
    for _ in range(repeats):
        ours.append(cpu_seconds(functools.partial(batch, puzzles, options)))
        if tdoku is not None:
            theirs.append(cpu_seconds(functools.partial(tdoku, encoded, max_solutions)))
    count = len(puzzles)
    return count / statistics.median(ours), (count / statistics.median(theirs) if theirs else None)


def batch_table(quick: bool, tdoku: bench_tdoku.Run | None) -> None:
    print("| set | puzzles | batch, first /s | batch, unique /s | tdoku first /s | tdoku unique /s "
          "| batch / tdoku, first | batch / tdoku, unique | fast one by one, first / unique /s "
          "| greedy one by one, first /s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    repeats = 1 if quick else REPEATS
    for label, name in BATCH_SETS:
        puzzles = load(name)[:300 if quick else None]
        count = len(puzzles)
        (first, td_first), (unique, td_unique) = (against_tdoku(puzzles, m, tdoku, repeats) for m in (1, 2))
        single = [cpu_rate(functools.partial(one_by_one, puzzles, {"strategy": "fast", "max_solutions": m}),
                           count, 1) for m in (1, 2)]
        greedy = cpu_rate(functools.partial(one_by_one, puzzles, {"strategy": "greedy", "max_solutions": 1}),
                          count, 1)
        anchor = "- | - | - | -"
        if td_first and td_unique:
            anchor = (f"{fmt_rate(td_first)} | {fmt_rate(td_unique)} | {first / td_first:.2f} "
                      f"| {unique / td_unique:.2f}")
        print(f"| {label} | {count} | {fmt_rate(first)} | {fmt_rate(unique)} | {anchor} "
              f"| {fmt_rate(single[0])} / {fmt_rate(single[1])} | {fmt_rate(greedy)} |", flush=True)


PROFILE_REPEATS = 7


def profile_table(quick: bool, tdoku: bench_tdoku.Run | None) -> None:
    print("| set | puzzles | max_solutions | kernel µs/puzzle | batch µs/puzzle "
          "| the rest µs/puzzle | kernel share | guesses/puzzle | tdoku's guesses/puzzle |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, name in BATCH_SETS[:3]:
        puzzles = load(name)[:300 if quick else None]
        _, givens = read_9x9(puzzles)
        for m in (1, 2):
            kernel: list[float] = []
            whole: list[float] = []
            for _ in range(1 if quick else PROFILE_REPEATS):  # alternating, so that both see the same load
                kernel.append(cpu_seconds(functools.partial(batch_kernel, givens, m)))
                whole.append(cpu_seconds(functools.partial(batch, puzzles, {"max_solutions": m})))
            k, w = (statistics.median(t) / len(puzzles) * 1e6 for t in (kernel, whole))
            guesses = batch_kernel(givens, m) / len(puzzles)
            theirs = "-"
            if tdoku is not None:
                theirs = f"{tdoku(bench_tdoku.encode(puzzles), m)[1] / len(puzzles):.2f}"
            print(f"| {label} | {len(puzzles)} | {m} | {k:.2f} | {w:.2f} | {w - k:.2f} | {k / w:.0%} "
                  f"| {guesses:.2f} | {theirs} |", flush=True)


def cpu_seconds(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def batch_kernel(givens: Any, max_solutions: int) -> int:
    """The batch kernel alone on a givens array, with its output arrays, as solve_batch calls it;
    the guesses it made."""
    rows = len(givens)
    counters = np.zeros((rows, fast.COUNTERS), np.int64)
    fast.solve_batch(givens, max_solutions, True, np.zeros((rows, 81), np.uint8), np.zeros(rows, np.int64),
                     counters, np.zeros((rows, 3), np.int64))
    return int(counters[:, fast.GUESSES].sum())


# -- py-sudoku in a child process, so that a slow puzzle can be cut off


def _py_sudoku_worker(conn: Any) -> None:
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]  # this file is sudoku.py too
    from sudoku import Sudoku

    while True:
        puzzle = conn.recv()
        n = 9
        board = [[int(ch) if ch not in ".0" else 0 for ch in puzzle[r * n:(r + 1) * n]] for r in range(n)]
        start = time.perf_counter()
        solved = Sudoku(3, 3, board=board).solve()
        conn.send((time.perf_counter() - start, solved.board[0][0] is not None))


def py_sudoku_times(puzzles: list[str]) -> tuple[list[float], int]:
    """Seconds per puzzle (the cap for a puzzle cut off) and how many were cut off."""
    times: list[float] = []
    capped = 0
    ctx = mp.get_context("spawn")
    conn, child = ctx.Pipe()
    worker = ctx.Process(target=_py_sudoku_worker, args=(child,), daemon=True)
    worker.start()
    try:
        for puzzle in puzzles:
            conn.send(puzzle)
            if conn.poll(PY_SUDOKU_CAP_S + 30 if not times else PY_SUDOKU_CAP_S):
                times.append(conn.recv()[0])
                continue
            capped += 1
            times.append(PY_SUDOKU_CAP_S)
            worker.terminate()
            worker.join()
            conn, child = ctx.Pipe()
            worker = ctx.Process(target=_py_sudoku_worker, args=(child,), daemon=True)
            worker.start()
    finally:
        worker.terminate()
        worker.join()
    return times, capped


def py_sudoku_table(quick: bool) -> None:
    print(f"| set | puzzles | py-sudoku /s (cap {PY_SUDOKU_CAP_S:.0f} s) | cut off | greedy /s, first sol. "
          "| greedy / py-sudoku |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, name in PY_SUDOKU_SETS:
        puzzles = load(name)[:10 if quick else 30]
        times, capped = py_sudoku_times(puzzles)
        py_rate = len(times) / sum(times)
        greedy = need(run(puzzles, "greedy", 1))["rate"]
        bound = "<= " if capped else ""
        print(f"| {label} | {len(puzzles)} | {bound}{fmt_rate(py_rate)} | {capped} | {fmt_rate(greedy)} "
              f"| {'>= ' if capped else ''}{greedy / py_rate:,.0f}x |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few puzzles per set")
    parser.add_argument("--no-py-sudoku", action="store_true", help="leave out the py-sudoku comparison")
    parser.add_argument("--only", choices=TABLES, action="append", help="run only these tables")
    parser.add_argument("--tdoku", type=Path, default=os.environ.get("TDOKU_LIB") or None,
                        help="a shared library of tdoku's solver, the batch table's anchor "
                             "(default: $TDOKU_LIB)")
    args = parser.parse_args()
    tdoku = bench_tdoku.loader(args.tdoku) if args.tdoku else None
    tables = {**TABLES, "batch": functools.partial(batch_table, tdoku=tdoku),
              "profile": functools.partial(profile_table, tdoku=tdoku)}
    solvers.warm_up()
    batch(load(BATCH_SETS[0][1])[:10], None)
    chosen = args.only or [t for t in TABLES if not (t == "py-sudoku" and args.no_py_sudoku)]
    print(f"CPU: {os.cpu_count()} cores here; rates are puzzles per CPU second (time.process_time)\n")
    for name in chosen:
        tables[name](args.quick)
        print()


TABLES: dict[str, Callable[[bool], None]] = {"batch": functools.partial(batch_table, tdoku=None),
                                              "profile": functools.partial(profile_table, tdoku=None),
                                              "strategies": solver_table, "py-sudoku": py_sudoku_table}

if __name__ == "__main__":
    main()
