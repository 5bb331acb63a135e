"""Sudoku's solve_batch and the default strategy auto; the fast kernels without the JIT."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import solvers
from solvers import sudoku
from solvers.base import (
    BudgetExceeded,
    InvalidOption,
    InvalidPuzzle,
    Outcome,
    ParseError,
    PuzzleError,
    solve_each,
)
from solvers.sudoku import KIND

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
HARD = "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3"
MULTI = "8.........95.......76.........426798...571243...893165......916....3.487....1.532"
NONE = "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4."
CONFLICT = "55" + EASY[2:]
ROWS = [[int(ch) if ch != "." else 0 for ch in EASY[r * 9:(r + 1) * 9]] for r in range(9)]
MIXED = [EASY, HARD, "x" * 81, MULTI, CONFLICT, "1.3..4.22..3..2.", ROWS, NONE, EASY[:40] + "\n" + EASY[40:],
         EASY[:80], 42, "é" * 81]


def data(data_dir, name):
    lines = (line.strip() for line in (data_dir / "sudoku" / name).read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def same(got, want):
    """Outcomes equal but for the time; errors of the same class and message."""
    if isinstance(want, PuzzleError):
        return type(got) is type(want) and str(got) == str(want)
    return (isinstance(got, Outcome) and (got.status, got.result) == (want.status, want.result)
            and {**got.stats, "elapsed_ms": 0} == {**want.stats, "elapsed_ms": 0})


@pytest.mark.parametrize("options", [None, {"strategy": "fast"}, {"max_solutions": 1},
                                     {"max_solutions": 50}, {"strategy": "greedy"}])
def test_batch_agrees_with_one_by_one(options):
    got = KIND.solve_batch(MIXED, options)
    want = solve_each(KIND, MIXED, options)
    assert len(got) == len(MIXED)
    assert all(same(g, w) for g, w in zip(got, want, strict=False)), list(zip(got, want, strict=False))
    kinds = [type(g).__name__ for g in got]
    small = "InvalidOption" if options == {"strategy": "fast"} else "Outcome"  # the 4x4 one
    assert kinds == ["Outcome", "Outcome", "ParseError", "Outcome", "InvalidPuzzle", small, "Outcome",
                     "Outcome", "Outcome", "ParseError", "ParseError", "ParseError"]


def test_a_chunk_of_81_ascii_symbols_each_agrees_with_one_by_one():
    # every puzzle a plain string of the 9x9 length: read in one go, bad symbols and conflicts included
    chunk = [EASY, "x" * 81, CONFLICT, NONE, MULTI, EASY.replace(".", "0")]
    got = KIND.solve_batch(chunk, None)
    want = solve_each(KIND, chunk, None)
    assert all(same(g, w) for g, w in zip(got, want, strict=True)), list(zip(got, want, strict=True))
    assert [type(g).__name__ for g in got] == ["Outcome", "ParseError", "InvalidPuzzle", "Outcome", "Outcome",
                                               "Outcome"]


def test_batch_answers_are_verified_and_named():
    outcomes = KIND.solve_batch([EASY, HARD, MULTI, NONE])
    for puzzle, outcome in zip([EASY, HARD, MULTI, NONE], outcomes, strict=False):
        grid, opts = KIND.prepare(puzzle)
        KIND.verify(grid, opts, outcome)
        assert outcome.stats["strategy"] == "fast" and outcome.stats["abandoned"] == []
    assert [o.status for o in outcomes] == ["solved", "solved", "solved", "no_solution"]
    assert [o.result["unique"] for o in outcomes[:3]] == [True, True, False]


def test_batch_with_bad_options_names_them_for_every_puzzle():
    got = KIND.solve_batch([EASY, HARD], {"strategy": "dlx"})
    assert all(isinstance(g, InvalidOption) for g in got)
    got = KIND.solve_batch([EASY, "1.3..4.22..3..2."], {"strategy": "fast"})
    assert isinstance(got[0], Outcome) and isinstance(got[1], InvalidOption)
    assert "9x9" in str(got[1])


def test_an_empty_batch():
    assert KIND.solve_batch([]) == []


def test_other_kinds_get_the_default_loop():
    queens = solvers.get("nqueens")
    got = queens.solve_batch([6, "x", 3], None)
    assert got[0].status == "solved" and isinstance(got[1], ParseError) and got[2].status == "no_solution"


# -- auto


def test_auto_takes_fast_for_9x9_and_greedy_for_4x4():
    grid, opts = KIND.prepare(HARD)
    assert [o["strategy"] for o, _ in sudoku.plan(grid, opts)] == ["fast"]
    out = KIND.solve(grid, opts)
    assert out.stats["strategy"] == "fast" and out.result["unique"]
    grid, opts = KIND.prepare("1.3..4.22..3..2.")
    assert KIND.solve(grid, opts).stats["strategy"] == "greedy"


def test_auto_counting_beyond_sat_stays_with_the_tree():
    grid, opts = KIND.prepare("." * 256, {"max_solutions": 20_000})
    assert [(o["strategy"], b) for o, b in sudoku.plan(grid, opts)] == [("greedy", None)]


def test_auto_plans_by_the_share_of_givens(data_dir):
    janko = data(data_dir, "gecode_16x16_janko.txt")[0]
    grid, opts = KIND.prepare(janko)
    assert [(o["strategy"], b) for o, b in sudoku.plan(grid, opts)] == [
        ("greedy", sudoku.AUTO_GREEDY_NODES[16]), ("sat", None)]
    out = KIND.solve(grid, opts)
    assert out.stats["strategy"] == "greedy" and out.stats["abandoned"] == [] and out.result["unique"]
    sparse = KIND.prepare("1" + "." * 255)[0]
    assert [o["strategy"] for o, _ in sudoku.plan(sparse, opts)] == ["sat"]
    minimal = KIND.prepare(data(data_dir, "gecode_25x25.txt")[2])[0]
    assert [o["sat_solver"] for o, _ in sudoku.plan(minimal, opts)] == ["cadical195"]


def test_auto_falls_back_to_sat_when_greedy_runs_out(data_dir, monkeypatch):
    monkeypatch.setitem(sudoku.AUTO_GREEDY_NODES, 16, 0)
    grid, opts = KIND.prepare(data(data_dir, "gecode_16x16_janko.txt")[1])
    out = KIND.solve(grid, opts)
    KIND.verify(grid, opts, out)
    assert out.stats["strategy"] == "sat" and out.result["unique"]
    [given_up] = out.stats["abandoned"]
    assert given_up["strategy"] == "greedy" and given_up["nodes"] == 1 and given_up["elapsed_ms"] >= 0


def test_fast_and_sat_first_auto_are_solved_whole_and_auto_otherwise_cuts_the_greedy_tree(data_dir):
    grid, opts = KIND.prepare(HARD, {"strategy": "fast"})
    split = KIND.split(grid, opts, 8)
    assert split.parts == [] and split.head.result["unique"]
    sparse, opts = KIND.prepare(data(data_dir, "gecode_25x25.txt")[2])
    assert sudoku.tree_options(sparse, opts) is None
    grid, opts = KIND.prepare(HARD)
    split = KIND.split(grid, opts, 8)
    assert len(split.parts) >= 8 and split.head.stats["strategy"] == "greedy"
    merged = KIND.merge(grid, opts, split.head, [KIND.solve_part(grid, opts, p) for p in split.parts])
    assert merged.result == KIND.solve(grid, opts).result and merged.stats["subtasks"] == len(split.parts)


def test_auto_holds_its_tree_searches_to_the_callers_node_budget():
    grid, opts = KIND.prepare(HARD)
    nodes = KIND.solve(grid, opts).stats["nodes"]
    assert KIND.solve(grid, opts, node_limit=nodes).result["unique"]
    with pytest.raises(BudgetExceeded):
        KIND.solve(grid, opts, node_limit=nodes - 1)
    grid, opts = KIND.prepare("." * 16, {"max_solutions": 1000})  # greedy
    with pytest.raises(BudgetExceeded):
        KIND.solve(grid, opts, node_limit=1)
    grid, opts = KIND.prepare("." * 256, {"max_solutions": 1})  # CaDiCaL first: no budget
    assert KIND.solve(grid, opts, node_limit=1).stats["strategy"] == "sat"


def test_fast_refuses_other_sizes():
    with pytest.raises(InvalidOption, match="'fast' is for 9x9"):
        KIND.prepare("." * 16, {"strategy": "fast"})
    with pytest.raises(InvalidPuzzle):
        KIND.prepare(CONFLICT, {"strategy": "fast"})


# -- whole data sets through solve_batch with default options


HARD_SETS = ["tdoku_puzzles2_17_clue_first10000.txt", "tdoku_puzzles3_magictour_top1465.txt",
             "tdoku_puzzles6_forum_hardest_1106.txt"]


@pytest.mark.parametrize("name", HARD_SETS)
def test_hard_sets_by_default_in_one_batch(data_dir, name):
    puzzles = data(data_dir, name)
    outcomes = KIND.solve_batch(puzzles)
    assert len(outcomes) == len(puzzles) > 300
    assert all(isinstance(o, Outcome) and o.result["unique"] for o in outcomes)
    assert {o.stats["strategy"] for o in outcomes} == {"fast"}


def test_serg_by_default_in_one_batch_finds_several_solutions(data_dir):
    outcomes = KIND.solve_batch(data(data_dir, "tdoku_puzzles7_serg_benchmark.txt")[:2000])
    assert all(o.result["solutions_found"] == 2 and not o.result["unique"] for o in outcomes)


# -- the kernel tests without the JIT, and with bounds checks


def python_env(**extra):
    root = Path(__file__).resolve().parents[2]
    return {**os.environ, "PYTHONPATH": str(root), **extra}


@pytest.mark.parametrize("env", [{"NUMBA_DISABLE_JIT": "1"}, {"NUMBA_BOUNDSCHECK": "1"}],
                         ids=["no-jit", "boundscheck"])
def test_fast_kernel_tests_pass_in_each_mode(tmp_path, env):
    # a fresh cache: code compiled without bounds checks must not be reused
    tests = Path(__file__).with_name("test_sudoku_fast.py")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                          check=False, capture_output=True, text=True, timeout=900,
                          env=python_env(NUMBA_CACHE_DIR=str(tmp_path), **env))
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and " failed" not in done.stdout
