"""n-Queens, strategy constellations: the classes of border queens, their completions, the parts."""

import csv
import itertools
import json
import math

import numpy as np
import pytest

import solvers
from solvers.base import Outcome, Parts
from solvers.nqueens import checks, constellation_kernels, constellation_search, constellations, count
from tests.solvers.test_nqueens import run_python

KIND = solvers.get("nqueens")


@pytest.fixture(scope="module")
def totals(data_dir):
    with open(data_dir / "nqueens" / "counts.csv", newline="") as f:
        return {int(r["n"]): int(r["total"]) for r in csv.DictReader(f)}


def border_queens(queens):
    """The constellation (a, b, c, d) of a solution given as columns by row."""
    n = len(queens)
    return (queens[0], queens[n - 1], queens.index(0), queens.index(n - 1))


def solutions(n):
    return [q for q in itertools.permutations(range(n)) if checks.is_placement(list(q), n)]


@pytest.mark.parametrize("n", range(1, 13))
def test_classes_times_sizes_give_the_published_totals(n, totals):
    consts, sizes = constellations.classes(n)
    assert constellations.count(n, consts, sizes)[1] == totals[n]
    assert set(sizes) <= {1, 2, 4, 8}


@pytest.mark.parametrize("n", range(1, 13))
def test_count_through_the_kind(n, totals):
    opts = KIND.read_options({"mode": "count", "strategy": "constellations"})
    outcome = KIND.solve(n, opts)
    KIND.verify(n, opts, outcome)
    assert outcome.result["solutions"] == totals[n]
    assert outcome.stats["strategy"] == "constellations" and outcome.stats["checked_nodes"] is None


@pytest.mark.slow
@pytest.mark.parametrize("n", range(13, 17))
def test_constellations_count_the_larger_boards(n, totals):
    assert constellations.count(n, *constellations.classes(n))[1] == totals[n]


@pytest.mark.parametrize("n", range(4, 9))
def test_each_class_counts_the_solutions_with_its_border_queens(n):
    # Brute force: every solution's border queens; each class's members share one count.
    by_border = {}
    for queens in solutions(n):
        by_border[border_queens(queens)] = by_border.get(border_queens(queens), 0) + 1
    consts, sizes = constellations.classes(n)
    images = np.zeros((8, 4), np.int64)
    seen = set()
    for const, size in zip(consts, sizes, strict=True):
        constellation_kernels.class_of(n, np.array(const, np.int64), images)
        members = {tuple(int(v) for v in image) for image in images}
        assert len(members) == size and min(members) == tuple(const)
        assert len({by_border.get(m, 0) for m in members}) == 1
        assert constellations.count(n, [const], [1])[1] == by_border.get(tuple(const), 0)
        seen |= members
    assert set(by_border) <= seen  # every solution's border queens lie in some listed class


@pytest.mark.parametrize("n", range(1, 10))
def test_classes_cover_every_constellation_once(n):
    m = n - 1
    every = {(a, b, c, d) for a, b, c, d in itertools.product(range(n), repeat=4)
             if constellation_kernels.is_constellation(n, np.array([a, b, c, d], np.int64))}
    # Sanity of the test itself: a constellation holds the border queens of some placement of them.
    assert all(len({(0, a), (m, b), (c, 0), (d, m)}) >= 2 or n == 1 for a, b, c, d in every)
    assert sum(constellations.classes(n)[1]) == len(every)


def row_by_row(n, rows, blocked):
    """Solutions of filling ``rows`` in order, each square checked against the placed queens."""
    def below(k, placed):
        if k == len(rows):
            return 1
        r = rows[k]
        return sum(below(k + 1, [*placed, (r, c)]) for c in range(n)
                   if not blocked[r] >> c & 1
                   and all(c != pc and abs(c - pc) != abs(r - pr) for pr, pc in placed))
    return below(0, [])


@pytest.mark.parametrize("seed", range(40))
def test_fill_counts_as_a_plain_backtracker(seed):
    # Random fixed squares on random free rows: the fewest-first order, the dead-row cut-off and
    # the closed form of the last two rows must leave the count as a plain row-by-row search has it.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 10))
    m = int(rng.integers(0, n + 1))
    rows = sorted(int(r) for r in rng.choice(n, m, replace=False))
    free_cols = sorted(int(c) for c in rng.choice(n, m, replace=False))
    outside = ~((1 << n) - 1)
    blocked = np.zeros(n, np.int64)
    for r in rows:
        taken = sum(1 << c for c in range(n) if c not in free_cols)
        blocked[r] = outside | taken | int(rng.integers(0, 1 << n)) & int(rng.integers(0, 1 << n))
    order = np.array(rows + [0] * (n - m), np.int64)
    stack = np.zeros(int(constellation_search.STACK) * n, np.int64)
    words = np.zeros(constellation_search.WORDS, np.int64)
    nodes, found = constellation_search.fill(n, m, order, blocked, stack, words, np.zeros(1, np.int8))
    assert found == row_by_row(n, rows, blocked)
    assert sorted(order[:m].tolist()) == rows and nodes >= min(m, 2) * found


@pytest.mark.parametrize(("n", "parts"), [(10, 1), (12, 7), (13, 64), (14, 5000)])
def test_parts_sum_to_the_whole(n, parts, totals):
    opts = KIND.read_options({"mode": "count", "strategy": "constellations"})
    split = KIND.split(n, opts, parts)
    assert len(split.parts) == min(parts, len(constellations.classes(n)[0]))
    listed = [tuple(c) for p in split.parts for c in p["constellations"]]
    assert sorted(listed) == sorted(tuple(c) for c in constellations.classes(n)[0])
    outcomes = [Outcome.from_json(json.loads(json.dumps(KIND.solve_part(n, opts, json.loads(json.dumps(p)))
                                                        .to_json()))) for p in split.parts]
    assert sum(o.result["solutions"] for o in outcomes) == totals[n]
    merged = KIND.merge(n, opts, split.head, outcomes)
    KIND.verify(n, opts, merged)
    assert merged.result == KIND.solve(n, opts).result and merged.stats["subtasks"] == len(split.parts)


@pytest.mark.parametrize(("part", "message"), [
    ({}, "non-empty list"),
    ({"constellations": []}, "non-empty list"),
    ({"constellations": [[1, 2, 3]]}, "is not a constellation"),
    ({"constellations": [[1, 1, 3, 4]]}, "is not a constellation"),        # two queens in one column
    ({"constellations": [[0, 3, 2, 4]]}, "is not a constellation"),        # a corner queen named once
    ({"constellations": [[1, True, 3, 4]]}, "is not a constellation"),
    ({"constellations": [[1, 3, 12, 4]]}, "is not a constellation"),
    ({"constellations": [[7, 3, 5, 1]]}, "not the smallest member"),
    ({"constellations": [[1, 3, 5, 2], [1, 3, 5, 2]]}, "twice"),
])
def test_bad_parts_are_refused(part, message):
    opts = KIND.read_options({"mode": "count", "strategy": "constellations"})
    with pytest.raises(ValueError, match=message):
        KIND.solve_part(12, opts, part)


def test_a_constellation_part_refused_by_the_tree_and_back():
    tree = KIND.read_options({"mode": "count", "strategy": "tree"})
    with pytest.raises(ValueError, match="prefixes"):
        KIND.solve_part(12, tree, {"constellations": [[1, 3, 5, 2]]})


def test_auto_counts_by_constellations_from_its_threshold():
    opts = KIND.read_options({"mode": "count"})
    below, at = count.AUTO_CONSTELLATIONS_N - 1, count.AUTO_CONSTELLATIONS_N
    assert KIND.solve(below, opts).stats["strategy"] == "tree"
    assert KIND.solve(at, opts).stats["strategy"] == "constellations"


def test_hours_of_counting_are_cut_into_more_parts():
    opts = KIND.read_options({"mode": "count"})
    settings = {"SPLIT_PARTS": 64, "SPLIT_NODE_BUDGET": 1000, "SPLIT_QUEENS_N": 14, "SPLIT_PROBES": 10**5}
    plan = KIND.plan(21, opts, settings)
    assert plan == Parts(math.ceil(KIND.predict(21, opts).seconds / 30.0)) and plan.count > 64
    assert KIND.plan(16, opts, settings) == Parts(64)


INTERPRETED = """
import json, numpy as np
from numba import njit
from solvers.bits import popcount
from solvers.nqueens import constellations
counted = njit(lambda word: popcount(word))  # the processor's count compiled, bin's interpreted
def popcounts(n):
    return [int(counted(np.int64((1 << k) - 1 << n))) for k in range(n)]
out = {n: [constellations.classes(n), constellations.count(n, *constellations.classes(n)), popcounts(n)]
       for n in range(1, 10)}
print(json.dumps(out))
"""


# slow: every kernel compiled again with bounds checks (minutes of CPU); `make test` runs it
@pytest.mark.slow
def test_kernels_give_identical_numbers_interpreted_and_bounds_checked(boundscheck_cache):
    compiled = json.loads(run_python(INTERPRETED))
    assert compiled == json.loads(run_python(INTERPRETED, NUMBA_DISABLE_JIT="1"))
    # The bounds-checked runs' cache: such machine code must not be stored where normal runs load it.
    checked = run_python(INTERPRETED, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=boundscheck_cache)
    assert compiled == json.loads(checked)
    assert compiled["8"][1][1] == 92
