"""Mode ``estimate``: Knuth's Monte Carlo estimate of the backtracking tree (Knuth 1975), one
random walk per probe as in the seed's pseudocode, the probes in blocks; split by sharing the
blocks out.

  probe      one random walk from the root.
  block      BLOCK_PROBES consecutive probes drawing from their own random stream,
             seeded by (seed, block index): the unit of splitting and of determinism.
"""

from __future__ import annotations

import itertools
import math
import secrets
from collections.abc import Sequence

import numpy as np

from solvers.base import SOLVED, Options, Outcome, Part, Split, StopFlag, Stopwatch, check_stop, stop_flag
from solvers.nqueens import kernels
from solvers.nqueens.checks import need
from solvers.nqueens.outcome import N, QueensStats, result_of

MAX_ESTIMATE_N = 63                # one signed 64-bit word per row in the probe kernel
MAX_PROBES = 10**8
PROBE_BUDGET = 2 * 10**9           # probes * n rows examined; some 10**8 a second on one core
BLOCK_PROBES = 10_000
Z95 = 1.959963984540054


def _blocks(probes: int) -> int:
    return -(-probes // BLOCK_PROBES)


def probe_sums(n: N, seed: int, first_block: int, blocks: int, probes: int,
               stop: StopFlag | None = None) -> np.ndarray:
    """Per-block sums (kernels.BLOCK_COLUMNS columns) for blocks first_block .. first_block + blocks - 1."""
    stop = stop_flag() if stop is None else stop
    with np.errstate(over="ignore"):
        sums = kernels.probe_blocks(n, seed, first_block, blocks, probes, BLOCK_PROBES, stop)
    check_stop(stop)
    return sums


def _mean_and_error(sums: np.ndarray, column: int, probes: int) -> tuple[float, float]:
    # fsum is exactly rounded, so the total does not depend on how blocks were grouped.
    total = math.fsum(sums[:, column])
    squares = math.fsum(sums[:, column + 1])
    mean = total / probes
    variance = max(0.0, (squares - total * mean) / (probes - 1))
    return mean, math.sqrt(variance / probes)


def _outcome(seed: int, sums: np.ndarray, elapsed_ms: float, subtasks: int = 0) -> Outcome:
    probes = int(math.fsum(sums[:, kernels.PROBES]))
    checked, error = _mean_and_error(sums, kernels.CHECKED, probes)
    tree, tree_error = _mean_and_error(sums, kernels.TREE, probes)
    solutions, solutions_error = _mean_and_error(sums, kernels.SOLUTIONS, probes)
    result = {"estimated_nodes": checked, "std_error": error,
              "ci95": [checked - Z95 * error, checked + Z95 * error],
              "estimated_tree_nodes": tree, "tree_std_error": tree_error,
              "estimated_solutions": solutions, "solutions_std_error": solutions_error,
              "probes": probes}
    stats = QueensStats(nodes=int(math.fsum(sums[:, kernels.VISITED])), seed=seed, elapsed_ms=elapsed_ms,
                        subtasks=subtasks)
    return Outcome(SOLVED, result, stats.as_dict())


def _seed(options: Options) -> int:
    return options["seed"] if options["seed"] is not None else secrets.randbits(63)


def solve(n: N, options: Options, clock: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    seed, probes = _seed(options), options["probes"]
    return _outcome(seed, probe_sums(n, seed, 0, _blocks(probes), probes, stop), clock.ms())


def split(n: N, options: Options, wanted: int, clock: Stopwatch) -> Split:
    seed, probes = _seed(options), options["probes"]
    blocks = _blocks(probes)
    if blocks < 2 or wanted < 1:
        return Split([], solve(n, {**options, "seed": seed}, clock))
    groups = min(wanted, blocks)
    bounds = [blocks * g // groups for g in range(groups + 1)]
    parts = [{"seed": seed, "first_block": lo, "blocks": hi - lo} for lo, hi in itertools.pairwise(bounds)]
    head = Outcome(SOLVED, None, QueensStats(seed=seed, elapsed_ms=clock.ms()).as_dict())
    return Split(parts, head)


def _read_part(options: Options, part: Part) -> tuple[int, int, int]:
    values = [part.get(name) for name in ("seed", "first_block", "blocks")]
    total = _blocks(options["probes"])
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ValueError("an estimate part needs integers 'seed', 'first_block' and 'blocks'")
    seed, first, blocks = (int(v) for v in values if v is not None)
    if not (0 <= seed < 2**63 and first >= 0 and blocks >= 1 and first + blocks <= total):
        raise ValueError(f"estimate part out of range: blocks {first}..{first + blocks - 1} of {total}")
    return seed, first, blocks


def solve_part(n: N, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    seed, first, blocks = _read_part(options, part)
    sums = probe_sums(n, seed, first, blocks, options["probes"], stop)
    return Outcome(SOLVED, {"first_block": first, "sums": sums.tolist()},
                   QueensStats(nodes=int(sums[:, kernels.VISITED].sum()), seed=seed,
                               elapsed_ms=clock.ms()).as_dict())


def merge(head: Outcome, outcomes: Sequence[Outcome], options: Options) -> Outcome:
    ordered = [result_of(o) for o in sorted(outcomes, key=lambda o: result_of(o)["first_block"])]
    covered = [r["first_block"] for r in ordered]
    expected = list(itertools.accumulate([len(r["sums"]) for r in ordered[:-1]], initial=0))
    if covered != expected or sum(len(r["sums"]) for r in ordered) != _blocks(options["probes"]):
        raise ValueError("estimate parts do not cover every probe block exactly once")
    sums = np.array([row for r in ordered for row in r["sums"]], np.float64)
    elapsed = head.stats["elapsed_ms"] + sum(o.stats["elapsed_ms"] for o in outcomes)
    return _outcome(head.stats["seed"], sums, round(elapsed, 3), len(outcomes))


def verify(n: N, options: Options, outcome: Outcome) -> None:
    result = outcome.result or {}
    floats = ("estimated_nodes", "std_error", "estimated_tree_nodes", "tree_std_error",
              "estimated_solutions", "solutions_std_error")
    need(all(isinstance(result.get(f), float) and math.isfinite(result[f]) for f in floats),
          "estimate fields missing or not finite")
    need(result.get("probes") == options["probes"], "not every probe was counted")
    need(isinstance(outcome.stats.get("seed"), int), "the seed must be reported")
    checked, tree, sols, error = (result[f] for f in ("estimated_nodes", "estimated_tree_nodes",
                                                      "estimated_solutions", "std_error"))
    # Every probe checks the n squares of row 0 and keeps all n of them as promising.
    need(checked >= 1 + n and tree >= 1 + n and 0.0 <= sols <= tree, "estimates below the first level")
    need(math.isclose(checked, 1 + n * (tree - sols), rel_tol=1e-9),
          "checked-node and tree estimates disagree: checked = 1 + n * (tree - solutions)")
    ci = result.get("ci95")
    need(isinstance(ci, list) and len(ci) == 2 and math.isclose(ci[0], checked - Z95 * error, rel_tol=1e-9,
                                                                 abs_tol=1e-9)
          and math.isclose(ci[1], checked + Z95 * error, rel_tol=1e-9), "ci95 is not mean +- 1.96 std_error")
