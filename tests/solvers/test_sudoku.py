"""Sudoku: parsing and validation, the data sets with known answers, strategies, split/merge."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    BudgetExceeded,
    InvalidOption,
    InvalidPuzzle,
    Outcome,
    ParseError,
    WrongAnswer,
)
from solvers.sudoku.kind import EXAMPLE, KIND
from solvers.sudoku.outcome import TECHNIQUES

EASY = EXAMPLE
EASY_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
MULTI = "8.........95.......76.........426798...571243...893165......916....3.487....1.532"  # serg
NONE = "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4."
HARD = "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3"


def read_puzzles(path: Path) -> list[str]:
    lines = [line.strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def sudoku_file(data_dir, name):
    return read_puzzles(data_dir / "sudoku" / name)


def run(puzzle, **options):
    grid, opts = KIND.prepare(puzzle, options)
    outcome = KIND.solve(grid, opts)
    KIND.verify(grid, opts, outcome)
    return outcome


def count(puzzle, strategy="greedy", limit=10_000):
    outcome = run(puzzle, strategy=strategy, max_solutions=limit)
    return outcome.result["solutions_found"] if outcome.result else 0


# -- parsing and validation


@pytest.mark.parametrize(
    ("puzzle", "error", "message"),
    [
        (EASY[:80], ParseError, "has 80"),
        (EASY + "1", ParseError, "has 82"),
        ("", ParseError, "has 0"),
        (EASY[:40] + "x" + EASY[41:], ParseError, r"row 5, column 5: 'x' is not a sudoku symbol"),
        (EASY[:9] + "A" + EASY[10:], ParseError, r"row 2, column 1: 'A' \(value 10\) is too large for a 9x9"),
        (EASY[:3] + "é" + EASY[4:], ParseError, "row 1, column 4: 'é' is not a sudoku symbol"),
        ("22" + "." * 14, InvalidPuzzle, r"row 1, column 2: '2' already appears in row 1 \(column 1\)"),
        ("1...1" + "." * 11, InvalidPuzzle, r"row 2, column 1: '1' already appears in column 1 \(row 1\)"),
        ("1....1" + "." * 10, InvalidPuzzle,
         r"row 2, column 2: '1' already appears in box 1 \(row 1, column 1\)"),
        (EASY[:2] + "5" + EASY[3:], InvalidPuzzle, r"row 1, column 3: '5' already appears in row 1"),
        (12, ParseError, "string of cells or a list of rows, not int"),
        (None, ParseError, "not NoneType"),
        ({"grid": EASY}, ParseError, "not dict"),
        ([[0] * 9] * 8, ParseError, "has 8"),
        ([[0] * 9] * 8 + [[0] * 8], ParseError, "row 9 has 8 entries"),
        ([[0] * 4, [0] * 4, [0] * 4, "0000"], ParseError, "row 4 must be a list"),
        ([[0] * 4, [0, 5, 0, 0], [0] * 4, [0] * 4], ParseError, r"row 2, column 2: 5 is out of range"),
        ([[0] * 4, [0, True, 0, 0], [0] * 4, [0] * 4], ParseError, "row 2, column 2: True is not an integer"),
        ([[0] * 4, [0, "1", 0, 0], [0] * 4, [0] * 4], ParseError, "row 2, column 2: '1' is not an integer"),
        ([[1, 0, 0, 1]] + [[0] * 4] * 3, InvalidPuzzle, "row 1, column 4: '1' already appears in row 1"),
    ],
)
def test_bad_puzzles_are_named_precisely(puzzle, error, message):
    with pytest.raises(error, match=message):
        KIND.prepare(puzzle)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strategy": "dlx"}, "must be one of auto, fast, greedy, backtrack, sat"),
        ({"max_solutions": 0}, "at least 1"),
        ({"max_solutions": 10_000_001}, "at most 10000000"),
        ({"max_solutions": 20_000, "strategy": "sat"}, "at most 10000 with it"),
        ({"split": -1}, "at least 0"),
        ({"sat_solver": "glucose4", "strategy": "sat"}, "must be one of minisat22, cadical195"),
        ({"sat_solver": "cadical195"}, "applies to strategy 'sat' only"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(InvalidOption, match=message):
        KIND.prepare(EASY, options)


def test_backtrack_is_refused_above_9x9(data_dir):
    puzzle = sudoku_file(data_dir, "gecode_16x16_janko.txt")[0]
    with pytest.raises(InvalidOption, match="offered up to 9x9"):
        KIND.prepare(puzzle, {"strategy": "backtrack"})


def test_forms_of_input_agree():
    rows = [[int(ch) if ch != "." else 0 for ch in EASY[r * 9:r * 9 + 9]] for r in range(9)]
    spaced = "\n".join(" ".join(EASY[r * 9:r * 9 + 9]) for r in range(9))
    zeros = EASY.replace(".", "0")
    answers = {run(p).result["solution"] for p in (EASY, rows, spaced, zeros)}
    assert answers == {EASY_SOLUTION}
    assert run("a" + "." * 255).result["solution"][0] == "A"  # letters in either case


def test_defaults_and_result_shape():
    outcome = run(EASY)
    assert outcome.status == SOLVED
    assert outcome.result == {"solution": EASY_SOLUTION, "unique": True, "solutions_found": 1}
    assert set(outcome.stats) == set(KIND.stats_fields)
    assert set(outcome.stats["techniques"]) == set(TECHNIQUES)
    first_only = run(EASY, max_solutions=1)
    assert first_only.result["unique"] is False  # one solution found, uniqueness not proved


# -- verify


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ({"solution": EASY_SOLUTION[:-1], "unique": True, "solutions_found": 1}, "string of 81"),
        ({"solution": EASY_SOLUTION[:2] + "5" + EASY_SOLUTION[3:], "unique": True, "solutions_found": 1},
         "repeats a value"),
        ({"solution": "." + EASY_SOLUTION[1:], "unique": True, "solutions_found": 1},
         "leaves row 1, column 1"),
        ({"solution": EASY_SOLUTION, "unique": False, "solutions_found": 1}, "unique=False contradicts"),
        ({"solution": EASY_SOLUTION, "unique": False, "solutions_found": 3}, "solutions_found must be 1..2"),
        ({"solution": EASY_SOLUTION}, "has solution, unique and solutions_found"),
    ],
)
def test_verify_rejects_wrong_answers(result, message):
    grid, opts = KIND.prepare(EASY)
    with pytest.raises(WrongAnswer, match=message):
        KIND.verify(grid, opts, Outcome(SOLVED, result, {}))


def test_verify_rejects_a_changed_given():
    other = run("." * 81, max_solutions=1).result["solution"]
    grid, opts = KIND.prepare(EASY)
    with pytest.raises(WrongAnswer):
        KIND.verify(grid, opts, Outcome(SOLVED, {"solution": other, "unique": True, "solutions_found": 1},
                                        {}))
    with pytest.raises(WrongAnswer, match="no result"):
        KIND.verify(grid, opts, Outcome(NO_SOLUTION, {"solution": EASY_SOLUTION}, {}))


# -- known answers


def counted_puzzles(data_dir):
    for line in sudoku_file(data_dir, "tdoku_test_puzzles_with_solution_counts.txt"):
        puzzle, known, *solution = line.split(":")
        yield puzzle, int(known), solution[0] if solution else None


@pytest.mark.parametrize("strategy", ["auto", "fast", "greedy", "sat",
                                      pytest.param("backtrack", marks=pytest.mark.slow)])
def test_known_solution_counts(data_dir, strategy):
    """tdoku's test puzzles: 0, 1 and up to 847 solutions, counted exactly by every strategy."""
    seen = set()
    for puzzle, known, solution in counted_puzzles(data_dir):
        outcome = run(puzzle, strategy=strategy, max_solutions=10_000)
        found = outcome.result["solutions_found"] if outcome.result else 0
        assert found == known, puzzle
        assert (outcome.status == NO_SOLUTION) == (known == 0)
        if known == 1:
            assert outcome.result["unique"] and outcome.result["solution"] == solution
        seen.add(min(known, 2))
    assert seen == {0, 1, 2}


UNIQUE_SETS = [
    "tdoku_puzzles1_unbiased_first1000.txt",
    "tdoku_puzzles2_17_clue_first10000.txt",
    "tdoku_puzzles3_magictour_top1465.txt",
    "tdoku_puzzles5_forum_hardest_1905_11plus_first10000.txt",
    "tdoku_puzzles6_forum_hardest_1106.txt",
    "norvig_easy50.txt",
    "norvig_top95.txt",
    "norvig_hardest.txt",
    "norvig_sudoku10k.txt",
    "sudoku_exchange_diabolical_first5000.txt",
    "gecode_16x16_janko.txt",
]


def load_set(data_dir, name):
    puzzles = sudoku_file(data_dir, name)
    if name.startswith("sudoku_exchange"):
        puzzles = [line.split()[1] for line in puzzles]  # hash, digits, rating
    return puzzles


def check_unique_set(puzzles):
    for puzzle in puzzles:
        outcome = run(puzzle)
        assert outcome.status == SOLVED and outcome.result["unique"], puzzle


def check_multi_set(puzzles):
    for puzzle in puzzles:
        outcome = run(puzzle)
        assert outcome.result["unique"] is False and outcome.result["solutions_found"] == 2, puzzle


@pytest.mark.parametrize("name", UNIQUE_SETS)
def test_data_sets_sample(data_dir, name):
    """Every solution is verified (givens kept, units permutations) and proved unique."""
    check_unique_set(load_set(data_dir, name)[:25])


def test_serg_sample_has_several_solutions(data_dir):
    check_multi_set(load_set(data_dir, "tdoku_puzzles7_serg_benchmark.txt")[:100])


@pytest.mark.slow
@pytest.mark.parametrize("name", UNIQUE_SETS)
def test_data_sets_whole(data_dir, name):
    check_unique_set(load_set(data_dir, name))


@pytest.mark.slow
def test_serg_whole(data_dir):
    check_multi_set(load_set(data_dir, "tdoku_puzzles7_serg_benchmark.txt"))


# Gecode's instances 89 and 90 (lines 17 and 18); each of the 16 minimal 25x25 puzzles
# above them needs more than 200,000 greedy nodes (line 2: more than 3 million), and
# takes CaDiCaL up to about 260,000 conflicts (MiniSat: up to about 450,000).
REACHABLE_25 = [16, 17]
CADICAL = {"strategy": "sat", "sat_solver": "cadical195"}


def test_25x25_by_sat(data_dir):
    puzzle = load_set(data_dir, "gecode_25x25.txt")[REACHABLE_25[0]]
    assert run(puzzle, strategy="sat").result["unique"]


def test_minimal_25x25_by_cadical(data_dir):
    """The cheapest of the 16 minimal puzzles (line 3, about 5,000 conflicts)."""
    puzzle = load_set(data_dir, "gecode_25x25.txt")[2]
    outcome = run(puzzle, **CADICAL)
    assert outcome.status == SOLVED and outcome.result["unique"]
    assert outcome.stats["leaves"] > 1000  # no propagation alone: the solver had to search
    assert run(puzzle, strategy="sat").result == outcome.result  # MiniSat agrees


@pytest.mark.slow
@pytest.mark.parametrize("line", range(1, 19))
def test_every_25x25_by_cadical(data_dir, line):
    """Each of the 18 is solved, verified (run() calls verify) and proved unique."""
    outcome = run(load_set(data_dir, "gecode_25x25.txt")[line - 1], **CADICAL)
    assert outcome.status == SOLVED and outcome.result["unique"], line


@pytest.mark.slow
@pytest.mark.parametrize("line", range(1, 19))
def test_every_25x25_by_default(data_dir, line):
    """auto: CaDiCaL answers each of the 18 and proves it unique (seconds of CPU each: docs/benchmarks.md)."""
    outcome = run(load_set(data_dir, "gecode_25x25.txt")[line - 1])
    assert outcome.status == SOLVED and outcome.result["unique"], line
    assert outcome.stats["strategy"] == "sat"


@pytest.mark.slow
def test_25x25_by_greedy_agrees_with_sat(data_dir):
    puzzles = load_set(data_dir, "gecode_25x25.txt")
    for i in REACHABLE_25:
        greedy = run(puzzles[i], strategy="greedy", max_solutions=1)
        assert greedy.result["solution"] == run(puzzles[i], strategy="sat").result["solution"]


# -- the strategies agree, and show the paper's comparison


def test_strategies_agree_on_hard_and_multi_solution_puzzles(data_dir):
    sample = load_set(data_dir, "tdoku_puzzles6_forum_hardest_1106.txt")[:5]
    sample += load_set(data_dir, "tdoku_puzzles7_serg_benchmark.txt")[:5]
    for puzzle in sample:
        counts = {s: count(puzzle, s, 1000) for s in ("fast", "greedy", "backtrack", "sat")}
        assert len(set(counts.values())) == 1, (puzzle, counts)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tdoku_puzzles6_forum_hardest_1106.txt",
                                  "tdoku_puzzles7_serg_benchmark.txt", "norvig_top95.txt"])
def test_greedy_agrees_with_sat_on_samples(data_dir, name):
    for puzzle in load_set(data_dir, name)[:150]:
        greedy = run(puzzle, strategy="greedy", max_solutions=1000)
        sat = run(puzzle, strategy="sat", max_solutions=1000)
        assert greedy.result["solutions_found"] == sat.result["solutions_found"], puzzle
        if greedy.result["unique"]:
            assert greedy.result["solution"] == sat.result["solution"]


def test_greedy_tree_is_shallower_than_backtracking():
    """The paper's comparison: depth and leaves of greedy against plain recursion."""
    greedy, plain = run(HARD), run(HARD, strategy="backtrack")
    assert greedy.result == plain.result
    assert plain.stats["max_depth"] == HARD.count(".")  # one level per blank cell
    assert greedy.stats["max_depth"] < plain.stats["max_depth"]
    assert greedy.stats["leaves"] < plain.stats["leaves"]
    assert sum(plain.stats["techniques"].values()) == 0
    assert greedy.stats["techniques"]["hidden_single"] > 0


def test_counts_up_to_large_limits():
    assert count("." * 16, limit=10_000) == 288
    outcome = run("." * 81, max_solutions=100_000)
    assert outcome.result["solutions_found"] == 100_000 and not outcome.result["unique"]


def test_node_limit_raises_budget_exceeded():
    grid, opts = KIND.prepare(HARD, {"strategy": "greedy"})
    with pytest.raises(BudgetExceeded) as caught:
        KIND.solve(grid, opts, node_limit=5)
    assert caught.value.nodes == 6
    assert KIND.solve(grid, opts, node_limit=10**6).status == SOLVED


# -- split and merge


def split_and_merge(puzzle, k, **options):
    grid, opts = KIND.prepare(puzzle, options)
    split = KIND.split(grid, opts, k)
    outcomes = [KIND.solve_part(grid, opts, json.loads(json.dumps(part))) for part in split.parts]
    merged = KIND.merge(grid, opts, split.head, outcomes)
    KIND.verify(grid, opts, merged)
    return split, merged


CASES = [
    (HARD, {"strategy": "greedy"}),
    (HARD, {}),
    (HARD, {"strategy": "backtrack"}),
    (MULTI, {"strategy": "greedy", "max_solutions": 1}),
    (MULTI, {"strategy": "greedy", "max_solutions": 3}),
    (MULTI, {"strategy": "greedy", "max_solutions": 10_000}),
    (MULTI, {"max_solutions": 10_000, "strategy": "backtrack"}),
    (NONE, {"strategy": "greedy"}),
    (NONE, {}),
    ("." * 16, {"max_solutions": 1000}),
    ("." * 16, {"max_solutions": 5}),
]


@pytest.mark.parametrize(("puzzle", "options"), CASES)
@pytest.mark.parametrize("k", [1, 2, 7, 40, 300])
def test_split_then_merge_equals_whole(puzzle, options, k):
    whole = run(puzzle, **options)
    split, merged = split_and_merge(puzzle, k, **options)
    assert merged.status == whole.status
    assert merged.result == whole.result
    assert merged.stats["subtasks"] == len(split.parts)
    same_tree = merged.stats["strategy"] == whole.stats["strategy"]  # auto: 9x9 whole by fast
    exhausted = whole.result is None or whole.result["solutions_found"] < options.get("max_solutions", 2)
    if same_tree and exhausted:
        # the whole tree was searched both ways: the same nodes, leaves and depth
        for name in ("nodes", "leaves", "max_depth", "guesses"):
            assert merged.stats[name] == whole.stats[name], name


def test_split_reaches_the_wanted_number_of_parts():
    split, _ = split_and_merge(HARD, 40, strategy="greedy")
    assert len(split.parts) >= 40
    assert all(p["depth"] >= 1 for p in split.parts)


def test_split_of_sat_keeps_the_whole_outcome_in_the_head():
    split, merged = split_and_merge(MULTI, 8, strategy="sat", max_solutions=10)
    assert split.parts == [] and merged.result["solutions_found"] == 10


# -- the kernels without the JIT and with bounds checks


NO_JIT_CASES = [
    ("1.3..4.22..3..2.", {}),
    (EASY, {"strategy": "backtrack"}),
    (MULTI, {"max_solutions": 1000}),
    (NONE, {}),
    ("." * 16, {"max_solutions": 300}),
]

PROBE = """
import json, sys
from solvers.sudoku import KIND
for puzzle, options in json.loads(sys.argv[1]):
    grid, opts = KIND.prepare(puzzle, options)
    out = KIND.solve(grid, opts)
    KIND.verify(grid, opts, out)
    out.stats.pop("elapsed_ms")
    print(json.dumps([out.status, out.result, out.stats]))
"""


def python_env(**extra):
    root = Path(__file__).resolve().parents[2]
    return {**os.environ, "PYTHONPATH": str(root), **extra}


def test_kernels_give_the_same_answers_without_the_jit():
    expected = []
    for puzzle, options in NO_JIT_CASES:
        out = run(puzzle, **options)
        out.stats.pop("elapsed_ms")
        expected.append([out.status, out.result, out.stats])
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(NO_JIT_CASES)], check=False,
                          capture_output=True, text=True, env=python_env(NUMBA_DISABLE_JIT="1"), timeout=600)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == expected


# slow: every kernel compiled again with bounds checks (minutes of CPU); `make test` runs it
@pytest.mark.slow
def test_kernel_tests_pass_with_bounds_checking(boundscheck_cache):
    # the bounds-checked runs' cache: code compiled without bounds checks must not be reused
    env = python_env(NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=boundscheck_cache)
    tests = Path(__file__).with_name("test_sudoku_kernels.py")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                          check=False, capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout


def test_plain_backtracking_is_outside_the_predictors_model():
    outside = KIND.outside_model
    assert outside is not None
    assert outside(KIND.read_options({"strategy": "backtrack"}))
    assert not any(outside(KIND.read_options({"strategy": s})) for s in ("auto", "fast", "greedy", "sat"))
