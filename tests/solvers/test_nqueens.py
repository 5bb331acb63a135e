"""n-Queens: counts and tree sizes against the published tables, constructions, Knuth's estimates."""

import csv
import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import solvers
from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    WHOLE,
    InvalidOption,
    InvalidPuzzle,
    Outcome,
    ParseError,
    Parts,
    WrongAnswer,
)
from solvers.nqueens import checks, count, kernels

KIND = solvers.get("nqueens")
ROOT = Path(__file__).resolve().parents[2]


def read_csv(data_dir, name):
    with open(data_dir / "nqueens" / name, newline="") as f:
        return {int(row["n"]): row for row in csv.DictReader(f)}


@pytest.fixture(scope="module")
def counts(data_dir):
    return {n: (int(r["total"]), int(r["fundamental"])) for n, r in read_csv(data_dir, "counts.csv").items()}


@pytest.fixture(scope="module")
def tree_nodes(data_dir):
    return {n: int(r["nodes"]) for n, r in read_csv(data_dir, "tree_nodes.csv").items()}


@pytest.fixture(scope="module")
def probe_cv(data_dir):
    return read_csv(data_dir, "knuth_probe_cv.csv")


def run(puzzle, **options):
    n, opts = KIND.prepare(puzzle, options)
    outcome = KIND.solve(n, opts)
    KIND.verify(n, opts, outcome)
    return outcome


def split_and_merge(puzzle, parts, **options):
    n, opts = KIND.prepare(puzzle, options)
    split = KIND.split(n, opts, parts)
    outcomes = [KIND.solve_part(n, opts, json.loads(json.dumps(p))) for p in split.parts]
    merged = KIND.merge(n, opts, split.head, [Outcome.from_json(json.loads(json.dumps(o.to_json())))
                                              for o in outcomes])
    KIND.verify(n, opts, merged)
    return split, merged


# -- count


def check_count(n, counts, tree_nodes):
    outcome = run({"n": n}, mode="count", strategy="tree")
    assert (outcome.result["solutions"], outcome.result["fundamental"]) == counts[n]
    assert outcome.stats["nodes"] == tree_nodes[n]
    assert outcome.stats["checked_nodes"] == 1 + n * (tree_nodes[n] - counts[n][0])
    assert outcome.status == SOLVED  # a count of zero is an answer too


@pytest.mark.parametrize("n", range(1, 14))
def test_kernel_count_matches_tables(n, counts, tree_nodes):
    check_count(n, counts, tree_nodes)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(14, 18))
def test_count_matches_tables_large(n, counts, tree_nodes):
    check_count(n, counts, tree_nodes)


def test_checked_nodes_is_the_seeds_count_for_8():
    assert run({"n": 8}, mode="count", strategy="tree").stats["checked_nodes"] == 15_721


def test_kernel_rotation_fixed_counts_match_brute_force():
    for n in range(1, 9):
        half, quarter = count.rotation_fixed(n)
        perms = [q for q in itertools.permutations(range(n))
                 if checks.is_placement(list(q), n)]
        assert half == sum(all(q[n - 1 - r] == n - 1 - c for r, c in enumerate(q)) for q in perms)
        assert quarter == sum(all(q[c] == n - 1 - r for r, c in enumerate(q)) for q in perms)


def test_brute_force_recount_matches_table(counts):
    for n in range(1, 9):
        assert checks.brute_force_count(n) == counts[n]


def test_canonical_prefixes_cover_the_tree(tree_nodes):
    # Above the cut plus the weighted prefixes at the cut = the tree down to that depth.
    prefixes, weights, above = count.canonical_prefixes(16, 4)
    assert above + sum(weights) == 1 + 16 + 210 + 2236 + 19688
    assert 9000 < len(prefixes) < 11000


@pytest.mark.parametrize("strategy", ["tree", "constellations"])
@pytest.mark.parametrize(("n", "parts"), [(10, 1), (10, 7), (12, 3), (12, 17), (13, 100), (13, 1000)])
def test_count_split_merge_equals_whole(n, parts, strategy):
    whole = run({"n": n}, mode="count", strategy=strategy)
    split, merged = split_and_merge({"n": n}, parts, mode="count", strategy=strategy)
    assert len(split.parts) == parts
    assert merged.result == whole.result
    assert (merged.stats["nodes"], merged.stats["checked_nodes"]) == (whole.stats["nodes"],
                                                                     whole.stats["checked_nodes"])
    assert merged.stats["subtasks"] == parts


@pytest.mark.slow
def test_count_split_16_into_thousands_of_prefixes(counts, tree_nodes):
    split, merged = split_and_merge({"n": 16}, 500, mode="count", strategy="tree")
    assert sum(len(p["prefixes"]) for p in split.parts) > 4000
    assert (merged.result["solutions"], merged.result["fundamental"]) == counts[16]
    assert merged.stats["nodes"] == tree_nodes[16]


def test_split_size_is_bounded_whatever_is_wanted():
    split = KIND.split(18, KIND.read_options({"mode": "count", "strategy": "tree"}), 10**9)
    assert sum(len(p["prefixes"]) for p in split.parts) <= count.MAX_PREFIXES


def test_small_counts_are_not_split():
    split = KIND.split(8, KIND.read_options({"mode": "count"}), 16)
    assert split.parts == [] and split.head.result["solutions"] == 92


# -- solve


@pytest.mark.parametrize("n", [1, *range(4, 301)])
def test_solve_places_n_queens(n):
    queens = run({"n": n}).result["queens"]
    assert len(queens) == n and checks.is_placement(queens, n)


@pytest.mark.parametrize("n", [2, 3])
def test_solve_two_and_three_have_no_solution(n):
    outcome = run({"n": n})
    assert outcome.status == NO_SOLUTION and outcome.result is None
    assert outcome.stats["nodes"] == {2: 3, 3: 6}[n]  # the exhausted tree


@pytest.mark.parametrize("n", [2, 3])
def test_count_two_and_three_is_solved_with_zero_solutions(n):
    n_, opts = KIND.prepare({"n": n}, {"mode": "count"})
    outcome = KIND.solve(n_, opts)
    assert outcome.status == SOLVED
    assert outcome.result == {"solutions": 0, "fundamental": 0, "half_turn_symmetric": 0,
                              "quarter_turn_symmetric": 0}
    KIND.verify(n_, opts, outcome)
    with pytest.raises(WrongAnswer, match="count"):
        KIND.verify(n_, opts, Outcome(NO_SOLUTION, outcome.result, outcome.stats))


def test_a_count_part_without_solutions_is_solved():
    part = {"prefixes": [[0]], "weights": [1]}  # a queen in the corner of a 4x4 board: no way on
    outcome = count.solve_part(4, count.TREE, part)
    assert outcome.status == SOLVED and outcome.result == {"solutions": 0}


def test_solve_a_million_queens():
    queens = run({"n": 1_000_000}).result["queens"]
    assert len(queens) == 1_000_000 and len(set(queens)) == 1_000_000


# -- verify


def solved(queens):
    return Outcome(SOLVED, {"queens": queens}, {})


@pytest.mark.parametrize(
    "queens",
    [
        [1, 3, 0, 2, 2],            # same column
        [0, 2, 4, 1, 3][:4],        # too short
        [0, 2, 4, 1, 5],            # off the board
        [0, 1, 3, 2, 4],            # shared diagonal
        [1, 3, 0, 2, True],         # not an int
        "13024",
    ],
)
def test_verify_rejects_wrong_placements(queens):
    n, opts = KIND.prepare({"n": 5})
    KIND.verify(n, opts, solved([1, 3, 0, 2, 4]))
    with pytest.raises(WrongAnswer):
        KIND.verify(n, opts, solved(queens))


def test_verify_rejects_a_false_no_solution():
    n, opts = KIND.prepare({"n": 8})
    with pytest.raises(WrongAnswer):
        KIND.verify(n, opts, Outcome(NO_SOLUTION, None, {}))


@pytest.mark.parametrize("n", [8, 12])
@pytest.mark.parametrize(
    ("where", "field", "change"),
    [("result", "solutions", 2), ("result", "fundamental", 1), ("result", "half_turn_symmetric", 8),
     ("stats", "nodes", 1), ("stats", "checked_nodes", 1)],
)
def test_verify_rejects_wrong_counts(n, where, field, change):
    good = run({"n": n}, mode="count", strategy="tree")
    bad = Outcome.from_json(json.loads(json.dumps(good.to_json())))
    getattr(bad, where)[field] += change
    with pytest.raises(WrongAnswer):
        KIND.verify(n, KIND.read_options({"mode": "count", "strategy": "tree"}), bad)


@pytest.mark.parametrize(("field", "value"), [("solutions", 14202), ("fundamental", 1788),
                                              ("quarter_turn_symmetric", 10)])
def test_verify_rejects_wrong_constellation_counts(field, value):
    opts = KIND.read_options({"mode": "count", "strategy": "constellations"})
    good = KIND.solve(12, opts)
    KIND.verify(12, opts, good)
    good.result[field] = value
    with pytest.raises(WrongAnswer):
        KIND.verify(12, opts, good)


def test_verify_rejects_a_count_by_another_strategy():
    tree = KIND.solve(13, KIND.read_options({"mode": "count", "strategy": "tree"}))
    with pytest.raises(WrongAnswer, match="strategy constellations"):
        KIND.verify(13, KIND.read_options({"mode": "count"}), tree)  # auto counts 13 by constellations


@pytest.mark.parametrize(("field", "change"), [("estimated_nodes", 1e3), ("estimated_tree_nodes", -50.0),
                                               ("std_error", 1.0), ("probes", 1)])
def test_verify_rejects_inconsistent_estimates(field, change):
    opts = KIND.read_options({"mode": "estimate", "probes": 1000, "seed": 3})
    good = KIND.solve(8, opts)
    KIND.verify(8, opts, good)
    good.result[field] += change
    with pytest.raises(WrongAnswer):
        KIND.verify(8, opts, good)


# -- estimate


def exact_checked(n, counts, tree_nodes):
    return 1 + n * (tree_nodes[n] - counts[n][0])


@pytest.mark.parametrize("n", range(8, 15))
@pytest.mark.parametrize("seed", [1, 2, 20240601])
def test_kernel_estimates_within_four_standard_errors(n, seed, counts, tree_nodes):
    result = run({"n": n}, mode="estimate", probes=20_000, seed=seed).result
    assert result["probes"] == 20_000
    assert abs(result["estimated_nodes"] - exact_checked(n, counts, tree_nodes)) <= 4 * result["std_error"]
    assert abs(result["estimated_tree_nodes"] - tree_nodes[n]) <= 4 * result["tree_std_error"]
    assert abs(result["estimated_solutions"] - counts[n][0]) <= 4 * result["solutions_std_error"]
    assert result["ci95"][0] < result["estimated_nodes"] < result["ci95"][1]


@pytest.mark.parametrize("n", range(4, 13))
def test_estimate_spread_matches_exact_coefficient_of_variation(n, probe_cv):
    result = run({"n": n}, mode="estimate", probes=200_000, seed=n).result
    probes = result["probes"]
    cv = result["tree_std_error"] * math.sqrt(probes) / result["estimated_tree_nodes"]
    assert cv == pytest.approx(float(probe_cv[n]["nodes_cv_per_probe"]), rel=0.05)
    cv = result["solutions_std_error"] * math.sqrt(probes) / result["estimated_solutions"]
    assert cv == pytest.approx(float(probe_cv[n]["solutions_cv_per_probe"]), rel=0.15)


def test_estimate_is_exact_where_the_tree_is_uniform():
    # n = 1, 2: every probe sees the same degrees, so the estimate is exact and its error zero.
    for n, nodes in [(1, 2), (2, 3)]:
        result = run({"n": n}, mode="estimate", probes=100, seed=0).result
        assert (result["estimated_tree_nodes"], result["tree_std_error"]) == (nodes, 0.0)


def test_estimate_default_seed_is_reported_and_reproduces():
    first = run({"n": 10}, mode="estimate", probes=3000)
    again = run({"n": 10}, mode="estimate", probes=3000, seed=first.stats["seed"])
    assert again.result == first.result


@pytest.mark.parametrize("parts", [1, 2, 5, 17, 25])
def test_estimate_split_merge_is_bit_identical(parts):
    options = {"mode": "estimate", "probes": 250_001, "seed": 99}
    whole = run({"n": 13}, **options)
    split, merged = split_and_merge({"n": 13}, parts, **options)
    assert len(split.parts) == min(parts, 26)
    assert merged.result == whole.result
    assert merged.stats["nodes"] == whole.stats["nodes"] and merged.stats["seed"] == 99


def test_estimate_split_chooses_one_seed_for_all_parts():
    split, merged = split_and_merge({"n": 9}, 4, mode="estimate", probes=40_000)
    assert len({p["seed"] for p in split.parts}) == 1
    assert merged.stats["seed"] == split.parts[0]["seed"]


def test_kernel_estimate_handles_the_largest_board():
    result = run({"n": 63}, mode="estimate", probes=2000, seed=5).result
    assert math.isfinite(result["estimated_tree_nodes"]) and result["estimated_tree_nodes"] > 1e60


def test_merge_rejects_missing_blocks():
    n, opts = KIND.prepare({"n": 8}, {"mode": "estimate", "probes": 30_000, "seed": 1})
    split = KIND.split(n, opts, 3)
    outcomes = [KIND.solve_part(n, opts, p) for p in split.parts]
    with pytest.raises(ValueError, match="every probe block"):
        KIND.merge(n, opts, split.head, outcomes[:2])


# -- validation


@pytest.mark.parametrize(
    ("puzzle", "options", "error", "message"),
    [
        ({"n": -1}, {}, InvalidPuzzle, "at least 1"),
        ("-1", {}, InvalidPuzzle, "at least 1"),
        ({"n": 0}, {"mode": "count"}, InvalidPuzzle, "at least 1"),
        ({"n": 10**9}, {}, InvalidPuzzle, "up to 1,000,000"),
        ({"n": 8.0}, {}, ParseError, "must be an integer"),
        ({"n": True}, {}, ParseError, "must be an integer"),
        ({"n": "8"}, {}, ParseError, "must be an integer"),
        ({"n": 8, "m": 1}, {}, ParseError, "single field"),
        ("eight", {}, ParseError, "board size"),
        ("{n: 8}", {}, ParseError, "not valid JSON"),
        ([8], {}, ParseError, "must be an integer"),
        ({"n": 19}, {"mode": "count", "strategy": "tree"}, InvalidPuzzle, "n=19 most of an hour"),
        ({"n": 22}, {"mode": "count"}, InvalidPuzzle, "up to 21"),
        ({"n": 8}, {"strategy": "tree"}, InvalidOption, "applies to mode 'count'"),
        ({"n": 8}, {"mode": "count", "strategy": "dlx"}, InvalidOption, "one of auto, tree, constellations"),
        ({"n": 64}, {"mode": "estimate"}, InvalidPuzzle, "up to 63"),
        ({"n": 16}, {"mode": "estimate", "probes": 1}, InvalidOption, "at least 2"),
        ({"n": 16}, {"mode": "estimate", "probes": 10**8 + 1}, InvalidOption, "at most"),
        ({"n": 16}, {"mode": "estimate", "probes": 2.5}, InvalidOption, "integer"),
        ({"n": 30}, {"mode": "estimate", "probes": 10**8}, InvalidOption, "probes x n"),
        ({"n": 16}, {"mode": "estimate", "seed": -3}, InvalidOption, "at least 0"),
        ({"n": 16}, {"mode": "guess"}, InvalidOption, "one of solve, count, estimate"),
    ],
)
def test_validation_says_what_is_wrong(puzzle, options, error, message):
    with pytest.raises(error, match=message):
        KIND.prepare(puzzle, options)


@pytest.mark.parametrize("puzzle", [8, "8", " 8\n", '{"n": 8}', {"n": 8}])
def test_accepted_puzzle_forms(puzzle):
    assert KIND.parse(puzzle) == 8


def test_largest_valid_inputs_are_accepted():
    KIND.prepare({"n": 1_000_000})
    KIND.prepare({"n": 18}, {"mode": "count", "strategy": "tree"})
    KIND.prepare({"n": 21}, {"mode": "count"})
    KIND.prepare({"n": 63}, {"mode": "estimate", "probes": 30_000_000})


# -- the kernels interpreted and with bounds checks


KERNEL_CASES = """
import json, numpy as np
from solvers.nqueens import count, estimate
out = {
  "count": [[above + nodes, solutions]
            for n in range(1, 9) for p, w, above in [count.canonical_prefixes(n, 1 if n < 4 else 2)]
            for nodes, solutions in [count.count_prefixes(n, p, w)]],
  "fixed": [count.rotation_fixed(n) for n in range(1, 11)],
  "probes": [estimate.probe_sums(n, 12345, 3, 2, 50_000).tolist() for n in (1, 6, 8, 63)],
}
print(json.dumps(out, default=int))
"""


def run_python(code, **env):
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_kernels_give_identical_numbers_interpreted():
    compiled = json.loads(run_python(KERNEL_CASES))
    interpreted = json.loads(run_python(KERNEL_CASES, NUMBA_DISABLE_JIT="1"))
    assert compiled == interpreted
    assert compiled["count"][7] == [2057, 92] and compiled["fixed"][7] == [4, 0]


# slow: every kernel compiled again with bounds checks (minutes of CPU); `make test` runs it
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("NUMBA_BOUNDSCHECK") == "1", reason="already the bounds-checked run")
def test_kernel_tests_pass_with_bounds_checks(boundscheck_cache):
    # The bounds-checked runs' cache: such machine code must not be stored where normal runs load it.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "kernel",
         str(Path(__file__))],
        capture_output=True, text=True, cwd=ROOT, timeout=900,
        env={**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": boundscheck_cache})
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout


def test_kernel_uniform_draws():
    state, tally = np.uint64(42), [0] * 5
    for _ in range(50_000):
        state, pick = kernels._below(state, 5)
        state = np.uint64(state)  # numba hands back a Python int; keep the kernel's uint64 typing
        tally[pick] += 1
    assert all(abs(t - 10_000) < 4 * math.sqrt(50_000 * 0.2 * 0.8) for t in tally)


SETTINGS = {"SPLIT_PARTS": 16, "SPLIT_NODE_BUDGET": 1000, "SPLIT_QUEENS_N": 14, "SPLIT_PROBES": 100_000}


@pytest.mark.parametrize(("n", "options", "plan"), [
    (13, {"mode": "count"}, WHOLE),
    (14, {"mode": "count"}, Parts(16)),
    (14, {"mode": "count", "strategy": "tree"}, Parts(16)),
    (30, {"mode": "estimate", "probes": 99_999}, WHOLE),
    (30, {"mode": "estimate", "probes": 100_000}, Parts(16)),
    (1000, {"mode": "solve"}, WHOLE),
])
def test_big_counts_and_estimates_are_cut_into_parts_right_away(n, options, plan):
    assert KIND.plan(n, KIND.read_options(options), SETTINGS) == plan
