"""n-Queens: one placement, exact counts of the backtracking tree, Knuth's estimates of it.

Glossary
  n          the board side; rows and columns are numbered 0..n-1.
  queens     a placement: ``queens[r]`` is the column of the queen in row r (the wire result).
  tree       the row-by-row backtracking tree: a node at depth k is a placement of k
             mutually non-attacking queens in rows 0..k-1, its children are the safe
             squares of row k; the root is the empty board. ``nodes`` counts all of
             them, root included (tree_nodes.csv); its leaves at depth n are the solutions.
  checked    the seed's count of checked nodes: the root plus the n squares tried
             below every node above the last row, 1 + n * (nodes - solutions).
  prefix     the columns of the queens in the first k rows: the root of one subtree.
  weight     how many times a prefix's subtree counts: 2 when its first queen is left
             of the middle (the mirror image is never enumerated), 1 in the middle column.
  fixed      solutions that a half or quarter turn maps onto themselves; with the
             total they give the classes under the 8 symmetries (Burnside's lemma).
  probe      one random walk from the root (Knuth 1975), as in the seed's pseudocode.
  block      BLOCK_PROBES consecutive probes drawing from their own random stream,
             seeded by (seed, block index): the unit of splitting and of determinism.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    WHOLE,
    BadExample,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    Options,
    Outcome,
    ParseError,
    Part,
    Parts,
    Plan,
    Settings,
    Split,
    Stats,
    StopFlag,
    Stopwatch,
    WrongAnswer,
    check_stop,
    stop_flag,
)
from solvers.nqueens import kernels

N = int                 # the puzzle: the board side
Queens = list[int]      # a placement, one column per row
Prefix = tuple[int, ...]

MAX_SOLVE_N = 1_000_000
MAX_COUNT_N = 18
MAX_ESTIMATE_N = 63                # one signed 64-bit word per row in the probe kernel
MAX_PROBES = 10**8
PROBE_BUDGET = 2 * 10**9           # probes * n rows examined; some 10**8 a second on one core
BLOCK_PROBES = 10_000
PREFIXES_PER_PART = 64             # many subtrees per part even out their unequal sizes
MAX_PREFIXES = 200_000             # bounds the time and memory of split, whatever the wanted parts
MIN_SPLIT_COUNT_N = 10             # below this a whole count takes well under a millisecond
BRUTE_FORCE_N = 8                  # verify recounts by permutations up to this size
Z95 = 1.959963984540054


@dataclass
class QueensStats(Stats):
    nodes: int = 0
    checked_nodes: int | None = None
    seed: int | None = None


# -- wire form


def parse(value: Any) -> N:
    """``{"n": 8}``, a bare int, a digit string or a JSON object in a string -> n."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ParseError(f"puzzle is not valid JSON: {exc}") from None
        elif re.fullmatch(r"[+-]?[0-9]{1,18}", text):
            return int(text)
        else:
            raise ParseError(f'puzzle must be {{"n": <int>}} or a board size such as "8"; got {value[:40]!r}')
    if isinstance(value, dict):
        if set(value) != {"n"}:
            raise ParseError(f'puzzle must be an object with the single field "n"; '
                             f"got fields {sorted(value)}")
        value = value["n"]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(f"n must be an integer (the board side), not {value!r}")
    return value


def validate(n: N, options: Options) -> None:
    mode = options["mode"]
    if n < 1:
        raise InvalidPuzzle(f"n must be at least 1 (the board side); got {n}")
    if mode == "solve" and n > MAX_SOLVE_N:
        raise InvalidPuzzle(f"solve handles n up to {MAX_SOLVE_N:,} (the answer lists one column per row); "
                            f"got {n:,}")
    if mode == "count" and n > MAX_COUNT_N:
        raise InvalidPuzzle(
            f"count handles n up to {MAX_COUNT_N}: the tree grows about 7-fold per row, so n={MAX_COUNT_N} "
            f"takes minutes of computing, n=19 most of an hour and n=20 several hours; got n={n}. "
            f"Mode 'estimate' gives the tree size of larger boards")
    if mode == "estimate":
        if n > MAX_ESTIMATE_N:
            raise InvalidPuzzle(f"estimate handles n up to {MAX_ESTIMATE_N} "
                                f"(a row must fit in one 64-bit word); got {n}")
        work = options["probes"] * n
        if work > PROBE_BUDGET:
            raise InvalidOption(f"probes x n must be at most {PROBE_BUDGET:,} (tens of seconds of "
                                f"computing); {options['probes']:,} probes on n={n} is {work:,}")


# -- solve: an explicit construction (Hoffman, Loessi & Moore 1969; Bernhardsson 1991)


def construct(n: N) -> np.ndarray:
    """A solution for n >= 4 in O(n): two interleaved knight-step staircases, and a corner queen for odd n."""
    even = n - n % 2
    half = even // 2
    i = np.arange(1, half + 1, dtype=np.int64)
    queens = np.empty(n, np.int64)
    if even % 6 != 2:
        queens[i - 1] = 2 * i - 1
        queens[half + i - 1] = 2 * i - 2
    else:
        # The plain staircases collide on a diagonal when n = 6k + 2; shifted ones do not.
        shift = (2 * i + half - 3) % even
        queens[i - 1] = shift
        queens[even - i] = even - 1 - shift
    if n % 2:
        # Neither staircase uses the main diagonal, so the corner square is safe.
        queens[n - 1] = n - 1
    return queens


def _solve_one(n: N, clock: Stopwatch) -> Outcome:
    if n >= 4:
        queens = construct(n).tolist()
        return Outcome(SOLVED, {"queens": queens}, QueensStats(elapsed_ms=clock.ms()).as_dict())
    # n <= 3: the whole tree is a handful of nodes; exhausting it is the proof.
    nodes, solutions = _count_below(n, 1)
    stats = QueensStats(nodes=nodes, elapsed_ms=clock.ms()).as_dict()
    if solutions == 0:
        return Outcome(NO_SOLUTION, None, stats)
    return Outcome(SOLVED, {"queens": [0]}, stats)


# -- count: the tree below the canonical prefixes (first queen in the left half)


def canonical_prefixes(n: N, depth: int) -> tuple[list[Prefix], list[int], int]:
    """(prefixes of the given depth, their weights, weighted number of tree nodes above that depth)."""
    mask = (1 << n) - 1
    level: list[tuple[Prefix, int, int, int, int]] = []
    for c in range((n + 1) // 2):
        bit = 1 << c
        level.append(((c,), 1 if 2 * c + 1 == n else 2, bit, (bit << 1) & mask, bit >> 1))
    above = 1
    for _ in range(depth - 1):
        above += sum(weight for _, weight, *_ in level)
        deeper: list[tuple[Prefix, int, int, int, int]] = []
        for prefix, weight, cols, left, right in level:
            free = mask & ~(cols | left | right)
            while free:
                bit = free & -free
                free ^= bit
                deeper.append(((*prefix, bit.bit_length() - 1), weight, cols | bit,
                               ((left | bit) << 1) & mask, (right | bit) >> 1))
        level = deeper
    return [p[0] for p in level], [p[1] for p in level], above


def _count_prefixes(n: N, prefixes: Sequence[Sequence[int]], weights: Sequence[int],
                    stop: StopFlag | None = None) -> tuple[int, int]:
    stop = stop_flag() if stop is None else stop
    nodes, solutions = kernels.count_subtrees(n, np.array(prefixes, np.int64), np.array(weights, np.int64),
                                              stop)
    check_stop(stop)
    return int(nodes), int(solutions)


def _count_below(n: N, depth: int, stop: StopFlag | None = None) -> tuple[int, int]:
    """(tree nodes, solutions) of the whole tree, enumerated below the prefixes of a depth."""
    prefixes, weights, above = canonical_prefixes(n, depth)
    nodes, solutions = _count_prefixes(n, prefixes, weights, stop)
    return above + nodes, solutions


def rotation_fixed(n: N) -> tuple[int, int]:
    """(solutions fixed by the half turn, solutions fixed by the quarter turn)."""
    return int(kernels.count_rotation_fixed(n, False)), int(kernels.count_rotation_fixed(n, True))


def fundamental(n: N, solutions: int, half: int, quarter: int) -> int:
    """Classes under the 8 symmetries by Burnside: the mean number of solutions each symmetry fixes.

    A reflection fixes no solution for n >= 2 (a queen and its mirror image share a
    row, a column or a diagonal), so only the identity and the turns contribute.
    """
    reflection = solutions if n == 1 else 0
    return (solutions + half + 2 * quarter + 4 * reflection) // 8


def _count_outcome(n: N, nodes: int, solutions: int, half: int, quarter: int, elapsed_ms: float,
                   subtasks: int = 0) -> Outcome:
    result = {"solutions": solutions, "fundamental": fundamental(n, solutions, half, quarter),
              "half_turn_symmetric": half, "quarter_turn_symmetric": quarter}
    stats = QueensStats(nodes=nodes, checked_nodes=1 + n * (nodes - solutions), elapsed_ms=elapsed_ms,
                        subtasks=subtasks)
    return Outcome(SOLVED if solutions else NO_SOLUTION, result, stats.as_dict())


def _count(n: N, clock: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    nodes, solutions = _count_below(n, 1, stop)
    return _count_outcome(n, nodes, solutions, *rotation_fixed(n), clock.ms())


def _split_count(n: N, wanted: int, clock: Stopwatch) -> Split:
    if n < MIN_SPLIT_COUNT_N or wanted < 1:
        return Split([], _count(n, clock))
    depth = 1
    prefixes, weights, above = canonical_prefixes(n, depth)
    # A level has at most n times as many prefixes as the one above it.
    while len(prefixes) < PREFIXES_PER_PART * wanted and len(prefixes) * n <= MAX_PREFIXES and depth < n - 1:
        depth += 1
        prefixes, weights, above = canonical_prefixes(n, depth)
    groups = min(wanted, len(prefixes))
    # Dealt round-robin: neighbouring prefixes have similar subtrees, so each part gets a mix.
    parts = [{"prefixes": [list(p) for p in prefixes[g::groups]], "weights": weights[g::groups]}
             for g in range(groups)]
    half, quarter = rotation_fixed(n)
    head = Outcome(SOLVED, {"half_turn_symmetric": half, "quarter_turn_symmetric": quarter},
                   QueensStats(nodes=above, elapsed_ms=clock.ms()).as_dict())
    return Split(parts, head)


def _read_count_part(n: N, part: Part) -> tuple[list[list[int]], list[int]]:
    prefixes, weights = part.get("prefixes"), part.get("weights")
    if not isinstance(prefixes, list) or not isinstance(weights, list) or len(prefixes) != len(weights):
        raise ValueError("a count part needs lists 'prefixes' and 'weights' of equal length")
    depths = {len(p) for p in prefixes if isinstance(p, list)}
    if len(depths) > 1 or not depths or not 1 <= depths.pop() < n:
        raise ValueError(f"a count part needs prefixes of one depth between 1 and {n - 1}")
    for prefix in prefixes:
        if not _is_placement(prefix, n):
            raise ValueError(f"prefix {prefix} is not a placement of non-attacking queens on {n}x{n}")
    if not all(w in (1, 2) for w in weights):
        raise ValueError("prefix weights must be 1 or 2")
    return prefixes, weights


def _result(o: Outcome) -> dict[str, Any]:
    """The result of a head or a part: a count's and an estimate's always have one."""
    if o.result is None:
        raise ValueError(f"a {o.status} outcome without a result cannot be merged")
    return o.result


def _merge_count(n: N, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    nodes = head.stats["nodes"] + sum(o.stats["nodes"] for o in outcomes)
    solutions = sum(_result(o)["solutions"] for o in outcomes)
    elapsed = head.stats["elapsed_ms"] + sum(o.stats["elapsed_ms"] for o in outcomes)
    symmetric = _result(head)
    return _count_outcome(n, nodes, solutions, symmetric["half_turn_symmetric"],
                          symmetric["quarter_turn_symmetric"], round(elapsed, 3), len(outcomes))


# -- estimate: Knuth's probes in blocks


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


def _estimate_outcome(seed: int, sums: np.ndarray, elapsed_ms: float, subtasks: int = 0) -> Outcome:
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


def _estimate(n: N, options: Options, clock: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    seed, probes = _seed(options), options["probes"]
    return _estimate_outcome(seed, probe_sums(n, seed, 0, _blocks(probes), probes, stop), clock.ms())


def _split_estimate(n: N, options: Options, wanted: int, clock: Stopwatch) -> Split:
    seed, probes = _seed(options), options["probes"]
    blocks = _blocks(probes)
    if blocks < 2 or wanted < 1:
        return Split([], _estimate(n, {**options, "seed": seed}, clock))
    groups = min(wanted, blocks)
    bounds = [blocks * g // groups for g in range(groups + 1)]
    parts = [{"seed": seed, "first_block": lo, "blocks": hi - lo} for lo, hi in itertools.pairwise(bounds)]
    head = Outcome(SOLVED, None, QueensStats(seed=seed, elapsed_ms=clock.ms()).as_dict())
    return Split(parts, head)


def _read_estimate_part(options: Options, part: Part) -> tuple[int, int, int]:
    values = [part.get(name) for name in ("seed", "first_block", "blocks")]
    total = _blocks(options["probes"])
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ValueError("an estimate part needs integers 'seed', 'first_block' and 'blocks'")
    seed, first, blocks = (int(v) for v in values if v is not None)
    if not (0 <= seed < 2**63 and first >= 0 and blocks >= 1 and first + blocks <= total):
        raise ValueError(f"estimate part out of range: blocks {first}..{first + blocks - 1} of {total}")
    return seed, first, blocks


def _merge_estimate(head: Outcome, outcomes: Sequence[Outcome], options: Options) -> Outcome:
    ordered = [_result(o) for o in sorted(outcomes, key=lambda o: _result(o)["first_block"])]
    covered = [r["first_block"] for r in ordered]
    expected = list(itertools.accumulate([len(r["sums"]) for r in ordered[:-1]], initial=0))
    if covered != expected or sum(len(r["sums"]) for r in ordered) != _blocks(options["probes"]):
        raise ValueError("estimate parts do not cover every probe block exactly once")
    sums = np.array([row for r in ordered for row in r["sums"]], np.float64)
    elapsed = head.stats["elapsed_ms"] + sum(o.stats["elapsed_ms"] for o in outcomes)
    return _estimate_outcome(head.stats["seed"], sums, round(elapsed, 3), len(outcomes))


# -- the Kind interface


def solve(n: N, options: Options, node_limit: int | None = None, stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    if options["mode"] == "count":
        return _count(n, clock, stop)
    if options["mode"] == "estimate":
        return _estimate(n, options, clock, stop)
    outcome = _solve_one(n, clock)  # O(n): not worth a check inside
    check_stop(stop)
    return outcome


def plan(n: N, options: Options, settings: Settings) -> Plan:
    """The work is known in advance (the board size, the probes): big counts and estimates are cut
    into parts right away, everything else is solved whole."""
    big = ((options["mode"] == "count" and n >= settings["SPLIT_QUEENS_N"])
           or (options["mode"] == "estimate" and options["probes"] >= settings["SPLIT_PROBES"]))
    return Parts(settings["SPLIT_PARTS"]) if big else WHOLE


def split(n: N, options: Options, wanted: int) -> Split:
    clock = Stopwatch()
    if options["mode"] == "count":
        return _split_count(n, wanted, clock)
    if options["mode"] == "estimate":
        return _split_estimate(n, options, wanted, clock)
    return Split([], _solve_one(n, clock))  # a construction is O(n): nothing to share out


def solve_part(n: N, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    if options["mode"] == "count":
        nodes, solutions = _count_prefixes(n, *_read_count_part(n, part), stop)
        return Outcome(SOLVED if solutions else NO_SOLUTION, {"solutions": solutions},
                       QueensStats(nodes=nodes, elapsed_ms=clock.ms()).as_dict())
    if options["mode"] == "estimate":
        seed, first, blocks = _read_estimate_part(options, part)
        sums = probe_sums(n, seed, first, blocks, options["probes"], stop)
        return Outcome(SOLVED, {"first_block": first, "sums": sums.tolist()},
                       QueensStats(nodes=int(sums[:, kernels.VISITED].sum()), seed=seed,
                                   elapsed_ms=clock.ms()).as_dict())
    raise ValueError("solve mode is never split into parts")


def merge(n: N, options: Options, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    if not outcomes:
        return head  # nothing was split off: the head is the whole answer
    if options["mode"] == "count":
        return _merge_count(n, head, outcomes)
    return _merge_estimate(head, outcomes, options)


# -- verify: independent checks, never a re-run of the solver


def _is_placement(queens: Queens, n: N) -> bool:
    """True if queens (as it arrived: any type) lists at most n non-attacking queens from row 0 on. O(n)."""
    if not isinstance(queens, list) or len(queens) > n:
        return False
    if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < n for c in queens):
        return False
    cols = np.array(queens, np.int64)
    rows = np.arange(len(cols), dtype=np.int64)
    return all(np.bincount(line, minlength=1).max(initial=0) <= 1
               for line in (cols, rows + cols, rows - cols + n - 1))


def brute_force_count(n: N) -> tuple[int, int]:
    """(solutions, classes under the 8 symmetries) by trying every permutation: for small n only."""
    solutions = [q for q in itertools.permutations(range(n))
                 if len({r + c for r, c in enumerate(q)}) == n and len({r - c for r, c in enumerate(q)}) == n]

    def images(q: tuple[int, ...]) -> list[tuple[int, ...]]:
        found = []
        for _ in range(4):
            q = tuple(q.index(r) for r in range(n))[::-1]  # quarter turn: transpose, then mirror rows
            found += [q, tuple(n - 1 - c for c in q)]
        return found

    return len(solutions), len({min(images(q)) for q in solutions})


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise WrongAnswer(message)


def _verify_solve(n: N, outcome: Outcome) -> None:
    if outcome.status == NO_SOLUTION:
        _need(n in (2, 3), f"n={n} has solutions, yet the outcome says none")
        return
    queens = (outcome.result or {}).get("queens")
    if not isinstance(queens, list) or len(queens) != n:
        raise WrongAnswer(f"the answer must list {n} columns")
    _need(_is_placement(queens, n), "two queens attack each other (or a column is off the board)")


def _verify_count(n: N, outcome: Outcome) -> None:
    result, stats = outcome.result or {}, outcome.stats
    fields = ("solutions", "fundamental", "half_turn_symmetric", "quarter_turn_symmetric")
    _need(all(isinstance(result.get(f), int) and result[f] >= 0 for f in fields), "count fields missing")
    total, classes = result["solutions"], result["fundamental"]
    half, quarter = result["half_turn_symmetric"], result["quarter_turn_symmetric"]
    _need(outcome.status == (SOLVED if total else NO_SOLUTION), "status disagrees with the count")
    _need((total == 0) == (n in (2, 3)), f"n={n}: solutions exist exactly when n is not 2 or 3")
    _need(quarter <= half <= total and (n == 1 or total % 2 == 0), "symmetric counts are inconsistent")
    _need(8 * classes == total + half + 2 * quarter + 4 * (total if n == 1 else 0),
          "fundamental does not follow from the symmetric counts (Burnside)")
    nodes = stats.get("nodes")
    _need(isinstance(nodes, int) and total + 1 <= nodes <= sum(math.perm(n, k) for k in range(n + 1)),
          "tree node count out of range")
    _need(stats.get("checked_nodes") == 1 + n * (nodes - total),
          "checked_nodes != 1 + n * (nodes - solutions)")
    if n <= BRUTE_FORCE_N:
        _need((total, classes) == brute_force_count(n), "counts differ from a brute-force recount")


def _verify_estimate(n: N, options: Options, outcome: Outcome) -> None:
    result = outcome.result or {}
    floats = ("estimated_nodes", "std_error", "estimated_tree_nodes", "tree_std_error",
              "estimated_solutions", "solutions_std_error")
    _need(all(isinstance(result.get(f), float) and math.isfinite(result[f]) for f in floats),
          "estimate fields missing or not finite")
    _need(result.get("probes") == options["probes"], "not every probe was counted")
    _need(isinstance(outcome.stats.get("seed"), int), "the seed must be reported")
    checked, tree, sols, error = (result[f] for f in ("estimated_nodes", "estimated_tree_nodes",
                                                      "estimated_solutions", "std_error"))
    # Every probe checks the n squares of row 0 and keeps all n of them as promising.
    _need(checked >= 1 + n and tree >= 1 + n and 0.0 <= sols <= tree, "estimates below the first level")
    _need(math.isclose(checked, 1 + n * (tree - sols), rel_tol=1e-9),
          "checked-node and tree estimates disagree: checked = 1 + n * (tree - solutions)")
    ci = result.get("ci95")
    _need(isinstance(ci, list) and len(ci) == 2 and math.isclose(ci[0], checked - Z95 * error, rel_tol=1e-9,
                                                                 abs_tol=1e-9)
          and math.isclose(ci[1], checked + Z95 * error, rel_tol=1e-9), "ci95 is not mean +- 1.96 std_error")


def cost(n: N, options: Options) -> float:
    """Seconds, from bench/nqueens.py: counting grows about 6.5x per row (0.73 s at n = 15),
    an estimate probe costs about 2e-7 s at n = 16, a placement is constructed in O(n)."""
    if options["mode"] == "count":
        return max(1e-5, 0.73 * 6.5 ** (n - 15))
    if options["mode"] == "estimate":
        return float(options["probes"] * 2e-7 * n / 16)
    return 1e-5 + n * 1e-7


def verify(n: N, options: Options, outcome: Outcome) -> None:
    if options["mode"] == "count":
        _verify_count(n, outcome)
    elif options["mode"] == "estimate":
        _verify_estimate(n, options, outcome)
    else:
        _verify_solve(n, outcome)


KIND = Kind(
    name="nqueens",
    summary="Place n queens so that none attacks another: one placement, exact counts, Knuth's estimates.",
    input_format='{"n": <int>} (a bare int or a digit string also works): the board side',
    options=(
        Option("mode", str, "solve", "solve: one placement; count: every solution and the exact tree size; "
               "estimate: Knuth's Monte Carlo estimate of the tree", choices=("solve", "count", "estimate")),
        Option("probes", int, 10_000, "estimate: number of random probes", minimum=2, maximum=MAX_PROBES),
        Option("seed", int, None, "estimate: random seed (default: a fresh one, reported in stats.seed)",
               minimum=0, maximum=2**63 - 1),
    ),
    result_fields={
        "queens": "solve: column (0-based) of the queen in each row",
        "solutions": "count: number of solutions",
        "fundamental": "count: solutions distinct under rotations and reflections",
        "half_turn_symmetric": "count: solutions unchanged by a half turn",
        "quarter_turn_symmetric": "count: solutions unchanged by a quarter turn",
        "estimated_nodes": "estimate: mean of the seed's numnodes, estimating 1 + n*(nodes - solutions)",
        "std_error": "estimate: standard error of estimated_nodes",
        "ci95": "estimate: 95% confidence interval of estimated_nodes",
        "estimated_tree_nodes": "estimate: Knuth's estimate of the tree size, root included",
        "tree_std_error": "estimate: standard error of estimated_tree_nodes",
        "estimated_solutions": "estimate: Knuth's estimate of the number of solutions",
        "solutions_std_error": "estimate: standard error of estimated_solutions",
        "probes": "estimate: number of probes made",
    },
    stats_fields={
        "nodes": "count: tree nodes, root included; estimate: nodes on the probes' paths; "
                 "solve: nodes searched (0 for the construction)",
        "checked_nodes": "count: the seed's checked nodes, 1 + n * (nodes - solutions)",
        "seed": "estimate: the random seed used",
        "subtasks": "parts the puzzle was split into",
        "elapsed_ms": "wall time (summed over parts)",
    },
    parse=parse,
    validate=validate,
    solve=solve,
    verify=verify,
    cost=cost,
    plan=plan,
    split=split,
    solve_part=solve_part,
    merge=merge,
    examples=(
        Example({"n": 8}),
        Example({"n": 3}, status=NO_SOLUTION),
        Example(1000),
        Example({"n": 10}, {"mode": "count"}),
        Example({"n": 12}, {"mode": "estimate", "probes": 20_000, "seed": 7}),
    ),
    bad_examples=(
        BadExample({"n": -1}, error=InvalidPuzzle),
        BadExample({"n": "eight"}),
        BadExample({"size": 8}),
        BadExample({"n": 10**9}, error=InvalidPuzzle),
        BadExample({"n": 19}, {"mode": "count"}, error=InvalidPuzzle),
        BadExample({"n": 64}, {"mode": "estimate"}, error=InvalidPuzzle),
        BadExample({"n": 16}, {"mode": "estimate", "probes": 0}, error=InvalidOption),
        BadExample({"n": 40}, {"mode": "estimate", "probes": MAX_PROBES}, error=InvalidOption),
    ),
)
