"""Mode ``count``: every solution and the solutions fixed by the turns, by one of two strategies.
``tree`` enumerates the whole backtracking tree below the canonical prefixes (the first queen in
the left half; the kernel counts each subtree) and reports its exact size; split by sharing the
prefixes out.

  prefix     the columns of the queens in the first k rows: the root of one subtree.
  weight     how many times a prefix's subtree counts: 2 when its first queen is left
             of the middle (the mirror image is never enumerated), 1 in the middle column.
  fixed      solutions that a half or quarter turn maps onto themselves; with the
             total they give the classes under the 8 symmetries (Burnside's lemma).

``constellations`` (constellations.py: the border queens first, faster from n = 12 on) reports
its own search's nodes and is split by sharing the classes of constellations out. Both strategies
solve, split, merge and are verified here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from solvers import progress
from solvers.base import SOLVED, Outcome, Part, Split, StopFlag, Stopwatch, check_stop, stop_flag
from solvers.nqueens import constellations, kernels
from solvers.nqueens.checks import brute_force_count, is_placement, need
from solvers.nqueens.outcome import N, QueensStats, result_of

Prefix = tuple[int, ...]

TREE = "tree"
CONSTELLATIONS = "constellations"
MAX_TREE_N = 18                    # the tree's count grows costly past this; the constellations' far less
MAX_COUNT_N = 21
AUTO_CONSTELLATIONS_N = 13         # auto counts by constellations from here on (bench/nqueens.py)
PREFIXES_PER_PART = 64             # many subtrees per part even out their unequal sizes
MAX_PREFIXES = 200_000             # bounds the time and memory of split, whatever the wanted parts
MIN_SPLIT_COUNT_N = 10             # below this a whole count takes well under a millisecond
BRUTE_FORCE_N = 8                  # verify recounts by permutations up to this size


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


def count_prefixes(n: N, prefixes: Sequence[Sequence[int]], weights: Sequence[int],
                   stop: StopFlag | None = None) -> tuple[int, int]:
    """(tree nodes, solutions) below the prefixes, each counted ``weights`` times; in ``stop``'s
    progress each prefix stands for an equal share of the search, as Kilby's weights have it."""
    stop = stop_flag() if stop is None else stop
    nodes, solutions = kernels.count_subtrees(n, np.array(prefixes, np.int64), np.array(weights, np.int64),
                                              stop, progress.bounds([1.0] * len(prefixes)))
    check_stop(stop)
    return int(nodes), int(solutions)


def count_below(n: N, depth: int, stop: StopFlag | None = None) -> tuple[int, int]:
    """(tree nodes, solutions) of the whole tree, enumerated below the prefixes of a depth."""
    prefixes, weights, above = canonical_prefixes(n, depth)
    nodes, solutions = count_prefixes(n, prefixes, weights, stop)
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


def strategy_of(n: N, chosen: str) -> str:
    """The strategy that counts: the one chosen, or for ``auto`` the faster for this n."""
    if chosen != "auto":
        return chosen
    return CONSTELLATIONS if n >= AUTO_CONSTELLATIONS_N else TREE


def _outcome(n: N, strategy: str, nodes: int, solutions: int, half: int, quarter: int, elapsed_ms: float,
             subtasks: int = 0) -> Outcome:
    result = {"solutions": solutions, "fundamental": fundamental(n, solutions, half, quarter),
              "half_turn_symmetric": half, "quarter_turn_symmetric": quarter}
    checked = 1 + n * (nodes - solutions) if strategy == TREE else None  # the seed's count: the tree's
    stats = QueensStats(nodes=nodes, checked_nodes=checked, strategy=strategy, elapsed_ms=elapsed_ms,
                        subtasks=subtasks)
    return Outcome(SOLVED, result, stats.as_dict())  # a count of zero is an answer too


def solve(n: N, strategy: str, clock: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    if strategy == TREE:
        nodes, solutions = count_below(n, 1, stop)
    else:
        nodes, solutions = constellations.count(n, *constellations.classes(n), stop)
    return _outcome(n, strategy, nodes, solutions, *rotation_fixed(n), clock.ms())


def _tree_parts(n: N, wanted: int) -> tuple[list[Part], int]:
    """(parts of about PREFIXES_PER_PART prefixes, tree nodes above the prefixes)."""
    depth = 1
    prefixes, weights, above = canonical_prefixes(n, depth)
    # A level has at most n times as many prefixes as the one above it.
    while len(prefixes) < PREFIXES_PER_PART * wanted and len(prefixes) * n <= MAX_PREFIXES and depth < n - 1:
        depth += 1
        prefixes, weights, above = canonical_prefixes(n, depth)
    groups = min(wanted, len(prefixes))
    # Dealt round-robin: neighbouring prefixes have similar subtrees, so each part gets a mix.
    return [{"prefixes": [list(p) for p in prefixes[g::groups]], "weights": weights[g::groups]}
            for g in range(groups)], above


def _constellation_parts(n: N, wanted: int) -> list[Part]:
    """The classes of constellations dealt round-robin, for the same reason as the prefixes."""
    consts, _ = constellations.classes(n)
    groups = min(wanted, len(consts))
    return [{"constellations": consts[g::groups]} for g in range(groups)]


def split(n: N, strategy: str, wanted: int, clock: Stopwatch) -> Split:
    if n < MIN_SPLIT_COUNT_N or wanted < 1:
        return Split([], solve(n, strategy, clock))
    if strategy == TREE:
        parts, above = _tree_parts(n, wanted)
    else:
        parts, above = _constellation_parts(n, wanted), 0
    half, quarter = rotation_fixed(n)
    head = Outcome(SOLVED, {"half_turn_symmetric": half, "quarter_turn_symmetric": quarter},
                   QueensStats(nodes=above, strategy=strategy, elapsed_ms=clock.ms()).as_dict())
    return Split(parts, head)


def _read_part(n: N, part: Part) -> tuple[list[list[int]], list[int]]:
    prefixes, weights = part.get("prefixes"), part.get("weights")
    if not isinstance(prefixes, list) or not isinstance(weights, list) or len(prefixes) != len(weights):
        raise ValueError("a count part needs lists 'prefixes' and 'weights' of equal length")
    depths = {len(p) for p in prefixes if isinstance(p, list)}
    if len(depths) > 1 or not depths or not 1 <= depths.pop() < n:
        raise ValueError(f"a count part needs prefixes of one depth between 1 and {n - 1}")
    for prefix in prefixes:
        if not is_placement(prefix, n):
            raise ValueError(f"prefix {prefix} is not a placement of non-attacking queens on {n}x{n}")
    if not all(w in (1, 2) for w in weights):
        raise ValueError("prefix weights must be 1 or 2")
    return prefixes, weights


def solve_part(n: N, strategy: str, part: Part, stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    if strategy == TREE:
        nodes, solutions = count_prefixes(n, *_read_part(n, part), stop)
    else:
        nodes, solutions = constellations.count(n, *constellations.read_part(n, part), stop)
    return Outcome(SOLVED, {"solutions": solutions},
                   QueensStats(nodes=nodes, strategy=strategy, elapsed_ms=clock.ms()).as_dict())


def merge(n: N, strategy: str, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    nodes = head.stats["nodes"] + sum(o.stats["nodes"] for o in outcomes)
    solutions = sum(result_of(o)["solutions"] for o in outcomes)
    elapsed = head.stats["elapsed_ms"] + sum(o.stats["elapsed_ms"] for o in outcomes)
    symmetric = result_of(head)
    return _outcome(n, strategy, nodes, solutions, symmetric["half_turn_symmetric"],
                    symmetric["quarter_turn_symmetric"], round(elapsed, 3), len(outcomes))


def verify(n: N, strategy: str, outcome: Outcome) -> None:
    result, stats = outcome.result or {}, outcome.stats
    fields = ("solutions", "fundamental", "half_turn_symmetric", "quarter_turn_symmetric")
    need(all(isinstance(result.get(f), int) and result[f] >= 0 for f in fields), "count fields missing")
    total, classes = result["solutions"], result["fundamental"]
    half, quarter = result["half_turn_symmetric"], result["quarter_turn_symmetric"]
    need(outcome.status == SOLVED, "a count is solved, a count of zero included")
    need((total == 0) == (n in (2, 3)), f"n={n}: solutions exist exactly when n is not 2 or 3")
    need(quarter <= half <= total and (n == 1 or total % 2 == 0), "symmetric counts are inconsistent")
    need(8 * classes == total + half + 2 * quarter + 4 * (total if n == 1 else 0),
          "fundamental does not follow from the symmetric counts (Burnside)")
    need(stats.get("strategy") == strategy, f"the count was not made by strategy {strategy}")
    nodes = stats.get("nodes")
    need(isinstance(nodes, int) and 0 <= nodes <= sum(math.perm(n, k) for k in range(n + 1)),
          "node count out of range")
    if strategy == TREE:
        need(nodes >= total + 1, "the tree has fewer nodes than solutions")
        need(stats.get("checked_nodes") == 1 + n * (nodes - total),
              "checked_nodes != 1 + n * (nodes - solutions)")
    if n <= BRUTE_FORCE_N:
        need((total, classes) == brute_force_count(n), "counts differ from a brute-force recount")
