"""n-Queens benchmark: exact counts and Knuth's estimates, printed as markdown tables.

    PYTHONPATH=. taskset -c 1 python bench/nqueens.py [--quick] [--strategies 14 15 16 17 18]

Everything goes through the library's public call (prepare + solve). The strategies
table counts each n by constellations and by the tree (the prefixes' kernel) against
the plain C counter. The tree's count table compares against a plain-Python bitboard
backtracker run in the same process, and against a plain C bitboard counter with mirror symmetry
(bench/c/nqueens_count.c, compiled here with -O3 -march=native when a C compiler
is on PATH, skipped with a note when not; CPU time by clock(), the median of
C_RUNS runs); the estimate tables compare against the exact tree sizes of
tree_nodes.csv (tests/data/nqueens).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import solvers  # noqa: E402
from bench.anchor import compile_c  # noqa: E402

DATA = ROOT / "tests" / "data" / "nqueens"
C_SOURCE = ROOT / "bench" / "c" / "nqueens_count.c"
C_RUNS = 5
C_LONG = 5.0       # a C count longer than this many seconds is run once, not C_RUNS times
KIND = solvers.get("nqueens")


MIN_SECONDS = 0.3  # quick calls are repeated until they add up to this much CPU time


def per_run(call):
    """(value, wall seconds, CPU seconds) per call; on a shared machine CPU time is the steadier figure."""
    runs, wall, cpu = 0, time.perf_counter(), time.process_time()
    while True:
        value = call()
        runs += 1
        if time.process_time() - cpu >= MIN_SECONDS:
            return value, (time.perf_counter() - wall) / runs, (time.process_time() - cpu) / runs


def timed(puzzle, **options):
    n, opts = KIND.prepare(puzzle, options)
    return per_run(lambda: KIND.solve(n, opts))


def python_tree(n: int) -> tuple[int, int]:
    """(tree nodes, solutions): the textbook recursive bitboard backtracker, no symmetry, no compiler."""
    mask = (1 << n) - 1

    def below(cols: int, left: int, right: int, row: int) -> tuple[int, int]:
        if row == n:
            return 1, 1
        nodes, found = 1, 0
        free = mask & ~(cols | left | right)
        while free:
            bit = free & -free
            free ^= bit
            sub_nodes, sub_found = below(cols | bit, ((left | bit) << 1) & mask, (right | bit) >> 1, row + 1)
            nodes += sub_nodes
            found += sub_found
        return nodes, found

    return below(0, 0, 0, 0)


def read_tree_nodes() -> dict[int, int]:
    with open(DATA / "tree_nodes.csv", newline="") as f:
        return {int(r["n"]): int(r["nodes"]) for r in csv.DictReader(f)}



def c_count(binary: Path, n: int, runs: int = C_RUNS) -> tuple[int, float]:
    """(solutions, median CPU seconds of the runs) of the plain C counter."""
    out = subprocess.run([str(binary)], input=f"{n}\n" * runs, capture_output=True, text=True, check=True)
    runs = [line.split() for line in out.stdout.splitlines()]
    assert len({r[1] for r in runs}) == 1, runs
    return int(runs[0][1]), statistics.median(float(r[2]) for r in runs)


def count_table(sizes: range, baseline_up_to: int, tree_nodes: dict[int, int]) -> None:
    print("### count (exact): kernel with mirror symmetry vs plain Python and plain C\n")
    with tempfile.TemporaryDirectory() as folder:
        binary = compile_c(C_SOURCE, Path(folder))
        if binary is None:
            print("No C compiler (cc, clang, gcc) on PATH: the C anchor is skipped.\n")
        print("| n | solutions | tree nodes | wall (s) | CPU (s) | tree nodes/CPU s | plain Python CPU (s) "
              "| speed-up | plain C CPU (s) | C / kernel time |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in sizes:
            outcome, wall, seconds = timed({"n": n}, mode="count", strategy="tree")
            nodes = outcome.stats["nodes"]
            assert nodes == tree_nodes[n], f"n={n}: {nodes} nodes, table says {tree_nodes[n]}"
            python = ratio = c_time = c_ratio = "-"
            if n <= baseline_up_to:
                found, _, base = per_run(lambda n=n: python_tree(n))
                assert found == (nodes, outcome.result["solutions"])
                python, ratio = f"{base:.3g}", f"{base / seconds:.0f}x"
            if binary is not None:
                c_found, c_seconds = c_count(binary, n)
                assert c_found == outcome.result["solutions"], (n, c_found)
                c_time, c_ratio = f"{c_seconds:.3g}", f"{c_seconds / seconds:.2f}"
            print(f"| {n} | {outcome.result['solutions']:,} | {nodes:,} | {wall:.3g} | {seconds:.3g} | "
                  f"{nodes / seconds:,.0f} | {python} | {ratio} | {c_time} | {c_ratio} |", flush=True)
    print()


def strategies_table(sizes: list[int]) -> None:
    print("### count (exact): constellations vs the tree's prefixes vs plain C, CPU seconds\n")
    with tempfile.TemporaryDirectory() as folder:
        binary = compile_c(C_SOURCE, Path(folder))
        if binary is None:
            print("No C compiler (cc, clang, gcc) on PATH: the C column is empty.\n")
        print("| n | solutions | constellations' nodes | constellations (s) | tree (s) | plain C (s) "
              "| tree / constellations | C / constellations |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in sizes:
            found, _, fast = timed({"n": n}, mode="count", strategy="constellations")
            tree, _, slow = timed({"n": n}, mode="count", strategy="tree")
            solutions = found.result["solutions"]
            assert tree.result == found.result, (n, tree.result, found.result)
            c_time = c_ratio = "-"
            if binary is not None:
                c_found, c_seconds = c_count(binary, n, 1 if slow > C_LONG else C_RUNS)
                assert c_found == solutions, (n, c_found)
                c_time, c_ratio = f"{c_seconds:.3g}", f"{c_seconds / fast:.2f}"
            print(f"| {n} | {solutions:,} | {found.stats['nodes']:,} | {fast:.3g} | {slow:.3g} | {c_time} "
                  f"| {slow / fast:.2f} | {c_ratio} |", flush=True)
    print()


def probe_rate_table(sizes: tuple[int, ...], probes: int) -> None:
    print(f"### estimate: probes per second ({probes:,} probes each)\n")
    print("| n | wall (s) | CPU (s) | probes/CPU s | nodes on probe paths/CPU s |")
    print("|---:|---:|---:|---:|---:|")
    for n in sizes:
        outcome, wall, seconds = timed({"n": n}, mode="estimate", probes=probes, seed=1)
        print(f"| {n} | {wall:.3g} | {seconds:.3g} | {probes / seconds:,.0f} | "
              f"{outcome.stats['nodes'] / seconds:,.0f} |")
    print()


def accuracy_table(n: int, exponents: range, tree_nodes: dict[int, int]) -> None:
    exact = tree_nodes[n]
    print(f"### estimate: accuracy for n={n} (exact tree: {exact:,} nodes, seed 1)\n")
    print("| probes | estimated tree nodes | relative error | reported relative std. error | CPU (s) |")
    print("|---:|---:|---:|---:|---:|")
    for e in exponents:
        outcome, _, seconds = timed({"n": n}, mode="estimate", probes=10**e, seed=1)
        est, err = outcome.result["estimated_tree_nodes"], outcome.result["tree_std_error"]
        print(f"| 10^{e} | {est:,.0f} | {(est - exact) / exact:+.4%} | {err / est:.4%} | {seconds:.3g} |")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer probes")
    parser.add_argument("--strategies", type=int, nargs="*", metavar="N",
                        help="the sizes of the strategies table (default 14-17, with --quick 12-14)")
    parser.add_argument("--only-strategies", action="store_true", help="print the strategies table alone")
    args = parser.parse_args(argv)
    tree_nodes = read_tree_nodes()
    solvers.warm_up()  # load the compiled kernels before timing
    print("Measured on a shared, loaded 2-core VM (other jobs running): one process, one core; "
          "wall time suffers from the load, CPU time much less.\n")
    strategies_table(args.strategies or list(range(12, 15) if args.quick else range(14, 18)))
    if args.only_strategies:
        return 0
    if args.quick:
        count_table(range(8, 14), 10, tree_nodes)
        probe_rate_table((8, 16, 32), 10**5)
        accuracy_table(12, range(3, 6), tree_nodes)
    else:
        count_table(range(8, 17), 12, tree_nodes)
        probe_rate_table((8, 12, 16, 24, 32, 63), 10**6)
        accuracy_table(16, range(3, 8), tree_nodes)
        accuracy_table(12, range(3, 8), tree_nodes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
