"""Sudoku's prepare_batch and solve_batch, and the default strategy auto; the fast kernels without the JIT."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import solvers
from solvers.base import (
    BudgetExceeded,
    InvalidOption,
    InvalidPuzzle,
    Outcome,
    ParseError,
    PuzzleError,
    WrongAnswer,
    prepare_each,
    solve_each,
)
from solvers.sudoku import KIND, solve
from solvers.sudoku.batch import Grids
from solvers.sudoku.grid import Grid
from store import fastjson

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
HARD = "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3"
MULTI = "8.........95.......76.........426798...571243...893165......916....3.487....1.532"
NONE = "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4."
CONFLICT = "55" + EASY[2:]
ROWS = [[int(ch) if ch != "." else 0 for ch in EASY[r * 9:(r + 1) * 9]] for r in range(9)]
MIXED = [EASY, HARD, "x" * 81, MULTI, CONFLICT, "1.3..4.22..3..2.", ROWS, NONE, EASY[:40] + "\n" + EASY[40:],
         EASY[:80], 42, "é" * 81]
OPTIONS = [None, {"strategy": "fast"}, {"max_solutions": 1}, {"max_solutions": 50}, {"strategy": "greedy"},
           {"strategy": "sat"}, {"strategy": "backtrack"}, {"sat_solver": "cadical195"}]


def data(data_dir, name):
    lines = (line.strip() for line in (data_dir / "sudoku" / name).read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def same(got, want):
    """Outcomes equal but for the time; errors of the same class and message."""
    if isinstance(want, PuzzleError):
        return type(got) is type(want) and str(got) == str(want)
    return (isinstance(got, Outcome) and (got.status, got.result) == (want.status, want.result)
            and {**got.stats, "elapsed_ms": 0} == {**want.stats, "elapsed_ms": 0})


def prepared(puzzles, options=None):
    """The puzzles that prepare, by prepare_batch (as it returns them when all do), and their options."""
    opts = KIND.read_options(options)
    got = KIND.prepare_batch(puzzles, opts)
    if any(isinstance(p, PuzzleError) for p in got):
        got = [p for p in got if not isinstance(p, PuzzleError)]
    return got, opts


# -- prepare_batch


@pytest.mark.parametrize("options", OPTIONS)
def test_prepare_batch_agrees_with_prepare_one_by_one(options):
    conflicts = [EASY[:k] + EASY[j] + EASY[k + 1:] for j, k in ((0, 1), (0, 9), (1, 10), (80, 72))]
    batch = MIXED + conflicts + [EASY.lower(), EASY.replace(".", "0"), "A" + EASY[1:], EASY + " "]
    opts = KIND.read_options(options)
    got = KIND.prepare_batch(batch, opts)
    want = prepare_each(KIND, batch, opts)
    assert len(got) == len(want) == len(batch)
    for g, w in zip(got, want, strict=True):
        if isinstance(w, PuzzleError):
            assert type(g) is type(w) and str(g) == str(w), (g, w)
        else:
            assert type(g) is Grid and g.n == w.n and np.array_equal(g.givens, w.givens), (g, w)
    if options is None:  # the mix holds each outcome: a grid, a bad symbol, a conflict, a short grid
        assert [type(g).__name__ for g in got[:12]] == [
            "Grid", "Grid", "ParseError", "Grid", "InvalidPuzzle", "Grid", "Grid", "Grid", "Grid",
            "ParseError", "ParseError", "ParseError"]
        assert all(isinstance(g, InvalidPuzzle) for g in got[12:16])


def test_prepare_batch_finds_every_conflict_among_many(data_dir):
    puzzles = data(data_dir, "tdoku_puzzles2_17_clue_first10000.txt")[:300]
    batch = [repeat_a_given(p) if i % 3 == 0 else p for i, p in enumerate(puzzles)]
    opts = KIND.read_options(None)
    got = KIND.prepare_batch(batch, opts)
    want = prepare_each(KIND, batch, opts)
    assert [type(g) for g in got] == [type(w) for w in want]
    assert [str(g) for g in got if isinstance(g, PuzzleError)] == [str(w) for w in want
                                                                   if isinstance(w, PuzzleError)]
    assert sum(isinstance(g, InvalidPuzzle) for g in got) == 100


def repeat_a_given(puzzle):
    """The puzzle with its first given copied into a blank cell of the same column."""
    given = next(c for c, ch in enumerate(puzzle) if ch != ".")
    blank = next(c for c in range(given % 9, 81, 9) if puzzle[c] == ".")
    return puzzle[:blank] + puzzle[given] + puzzle[blank + 1:]


def test_the_grids_of_a_chunk_are_read_only_rows_of_one_array():
    grids, _ = prepared([EASY, "x" * 81, HARD, MULTI])  # a bad symbol: the good rows are copied out
    assert all(not g.givens.flags.writeable for g in grids)
    with pytest.raises(ValueError, match="read-only"):
        grids[1].givens[0] = 1
    assert KIND.prepare(HARD)[0].givens.tolist() == grids[1].givens.tolist()


# -- plan_batch


@pytest.mark.parametrize("options", [*OPTIONS, {"split": 4}, {"split": 0},
                                     {"strategy": "greedy", "split": 2}])
@pytest.mark.parametrize("puzzles", [[EASY, HARD, MULTI, NONE], MIXED], ids=["one array", "mixed"])
def test_plans_of_a_batch_agree_with_plan_one_by_one(options, puzzles):
    grids, opts = prepared(puzzles, options)
    if options is None:  # the shared plan of one array is what is checked
        assert isinstance(grids, Grids) == (puzzles is not MIXED)
    settings = {"SPLIT_NODE_BUDGET": 1000, "SPLIT_PARTS": 8}
    assert list(KIND.plans(grids, opts, settings)) == [KIND.plan(g, opts, settings) for g in grids]


@pytest.mark.parametrize("options", [*OPTIONS, {"explain": True}, {"max_solutions": 2}, {"max_solutions": 3}])
@pytest.mark.parametrize("puzzles", [[EASY, HARD, MULTI, NONE], MIXED], ids=["one array", "mixed"])
def test_predictions_of_a_batch_agree_with_predict_one_by_one(options, puzzles):
    grids, opts = prepared(puzzles, options)
    assert list(KIND.predictions(grids, opts)) == [KIND.predict(g, opts) for g in grids]


def test_a_batch_holds_a_failure_only_where_prepare_batch_found_one():
    opts = KIND.read_options(None)
    assert not solvers.any_failed(KIND.prepare_batch([EASY, HARD], opts))
    assert solvers.any_failed(KIND.prepare_batch([EASY, "x" * 81], opts))
    assert not solvers.any_failed(KIND.prepare_batch([EASY, "1.3..4.22..3..2."], opts))  # a list, not Grids


# -- solve_batch


@pytest.mark.parametrize("options", [None, {"strategy": "fast"}, {"max_solutions": 1},
                                     {"max_solutions": 50}, {"strategy": "greedy"}])
def test_batch_agrees_with_one_by_one(options):
    grids, opts = prepared(MIXED, options)
    got = KIND.solve_batch(grids, opts)
    want = solve_each(KIND, grids, opts)
    assert len(got) == len(grids) == (6 if options == {"strategy": "fast"} else 7)  # fast: no 4x4
    assert all(same(g, w) for g, w in zip(got, want, strict=True)), list(zip(got, want, strict=True))


@pytest.mark.parametrize("options", [None, {"max_solutions": 1}, {"max_solutions": 50}])
def test_the_columns_say_what_the_outcomes_say(options):
    # what the worker writes (statuses, nodes, answers as JSON text) without making an Outcome
    grids, opts = prepared([*MIXED, MULTI, NONE], options)
    got = KIND.solve_batch(grids, opts)
    listed = [got[i] for i in range(len(got))]
    assert got[-1] == listed[-1] and got[1:3] == listed[1:3]
    assert got.statuses() == [o.status for o in listed]
    assert got.nodes() == [o.stats["nodes"] for o in listed]
    assert [json.loads(text) for text in got.encoded(json.dumps)] == [[o.result, o.stats] for o in listed]


@pytest.mark.parametrize("max_solutions", [1, 2, 50])
def test_the_kernel_writes_the_answers_as_the_encoder_does(data_dir, max_solutions):
    # byte for byte what the API serves: the texts of Outcome objects through the writer's encoder
    puzzles = [*data(data_dir, "tdoku_puzzles3_magictour_top1465.txt")[:300], NONE, MULTI,
               *data(data_dir, "tdoku_puzzles7_serg_benchmark.txt")[:100]]
    grids, opts = prepared(puzzles, {"max_solutions": max_solutions})
    assert isinstance(grids, Grids)
    got = KIND.solve_batch(grids, opts)
    texts = got.encoded(fastjson.dumps)
    assert texts == [fastjson.dumps([o.result, o.stats]) for o in got]
    assert texts[300].startswith("[null,") and all(text.startswith('[{"solution":"') for text in texts[:300])
    assert {o.result["unique"] for o in got[:300]} == {max_solutions > 1}
    assert {o.result["solutions_found"] > 1 for o in got[302:]} == {max_solutions > 1}  # serg: 2 or more


def test_the_grids_of_the_usual_chunk_are_one_array():
    grids, opts = prepared([EASY, HARD, MULTI])
    assert isinstance(grids, Grids) and len(grids) == 3 and isinstance(grids[1:], Grids)
    assert [type(g) for g in grids] == [Grid] * 3 and grids[-1].givens.tolist() == grids.givens[2].tolist()
    assert KIND.solve_batch(grids[1:], opts)[0].result == KIND.solve_batch(list(grids), opts)[1].result


def test_a_mix_of_sizes_keeps_its_order():
    grids, opts = prepared([EASY, "1.3..4.22..3..2.", ROWS, NONE, "." * 16])
    got = KIND.solve_batch(grids, opts)
    assert [g.n for g in grids] == [9, 4, 9, 9, 4]
    assert [o.stats["strategy"] for o in got] == ["fast", "greedy", "fast", "fast", "greedy"]
    assert [o.status for o in got] == ["solved", "solved", "solved", "no_solution", "solved"]
    assert got[0].result == got[2].result  # EASY as a string and as rows


def test_batch_answers_are_verified_and_named():
    grids, opts = prepared([EASY, HARD, MULTI, NONE])
    outcomes = KIND.solve_batch(grids, opts)
    for grid, outcome in zip(grids, outcomes, strict=True):
        KIND.verify(grid, opts, outcome)
        assert outcome.stats["strategy"] == "fast" and outcome.stats["abandoned"] == []
    assert [o.status for o in outcomes] == ["solved", "solved", "solved", "no_solution"]
    assert [o.result["unique"] for o in outcomes[:3]] == [True, True, False]


def test_options_that_do_not_suit_a_size_name_it_for_each_puzzle():
    opts = KIND.read_options({"strategy": "fast"})
    got = KIND.prepare_batch([EASY, "1.3..4.22..3..2.", "x" * 81], opts)
    assert [type(g) for g in got] == [Grid, InvalidOption, ParseError]
    assert "9x9" in str(got[1])


def test_givens_the_kernel_finds_contradictory_are_a_bug_not_a_no_solution():
    # a grid that never passed validate: a kernel that disagreed with it would find such givens
    grids, opts = prepared([EASY, HARD])
    bad = Grid(9, KIND.parse(CONFLICT).givens)
    named = r"puzzle 1 of the batch: .* \(row 1, column 2 against row 1, column 1\)"
    with pytest.raises(WrongAnswer, match=named):
        KIND.solve_batch([grids[0], bad, grids[1]], opts)


def test_an_empty_batch():
    opts = KIND.read_options(None)
    assert len(KIND.prepare_batch([], opts)) == 0 and len(KIND.solve_batch([], opts)) == 0
    assert KIND.solve_batch(KIND.prepare_batch([], opts), opts).encoded(fastjson.dumps) == []


def test_other_kinds_get_the_default_loop():
    queens = solvers.get("nqueens")
    opts = queens.read_options(None)
    got = queens.prepare_batch([6, "x", 3], opts)
    assert got[0] == queens.prepare(6)[0] and isinstance(got[1], ParseError)
    assert got[2] == queens.prepare(3)[0]
    outcomes = queens.solve_batch([got[0], got[2]], opts)
    assert [o.status for o in outcomes] == ["solved", "no_solution"]


# -- auto


def test_auto_takes_fast_for_9x9_and_greedy_for_4x4():
    grid, opts = KIND.prepare(HARD)
    assert [o["strategy"] for o, _ in solve.plan(grid, opts)] == ["fast"]
    out = KIND.solve(grid, opts)
    assert out.stats["strategy"] == "fast" and out.result["unique"]
    grid, opts = KIND.prepare("1.3..4.22..3..2.")
    assert KIND.solve(grid, opts).stats["strategy"] == "greedy"


def test_auto_counting_beyond_sat_stays_with_the_tree():
    grid, opts = KIND.prepare("." * 256, {"max_solutions": 20_000})
    assert [(o["strategy"], b) for o, b in solve.plan(grid, opts)] == [("greedy", None)]


def test_auto_plans_by_the_share_of_givens(data_dir):
    janko = data(data_dir, "gecode_16x16_janko.txt")[0]
    grid, opts = KIND.prepare(janko)
    assert [(o["strategy"], b) for o, b in solve.plan(grid, opts)] == [
        ("greedy", solve.AUTO_GREEDY_NODES[16]), ("sat", None)]
    out = KIND.solve(grid, opts)
    assert out.stats["strategy"] == "greedy" and out.stats["abandoned"] == [] and out.result["unique"]
    sparse = KIND.prepare("1" + "." * 255)[0]
    assert [o["strategy"] for o, _ in solve.plan(sparse, opts)] == ["sat"]
    minimal = KIND.prepare(data(data_dir, "gecode_25x25.txt")[2])[0]
    assert [o["sat_solver"] for o, _ in solve.plan(minimal, opts)] == ["cadical195"]


def test_auto_falls_back_to_sat_when_greedy_runs_out(data_dir, monkeypatch):
    monkeypatch.setitem(solve.AUTO_GREEDY_NODES, 16, 0)
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
    assert solve.tree_options(sparse, opts) is None
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
    outcomes = KIND.solve_batch(*prepared(puzzles))
    assert len(outcomes) == len(puzzles) > 300
    assert all(isinstance(o, Outcome) and o.result["unique"] for o in outcomes)
    assert {o.stats["strategy"] for o in outcomes} == {"fast"}


def test_serg_by_default_in_one_batch_finds_several_solutions(data_dir):
    grids, opts = prepared(data(data_dir, "tdoku_puzzles7_serg_benchmark.txt")[:2000])
    outcomes = KIND.solve_batch(grids, opts)
    assert len(outcomes) == 2000
    assert all(o.result["solutions_found"] == 2 and not o.result["unique"] for o in outcomes)


# -- the kernel tests without the JIT, and with bounds checks


def python_env(**extra):
    root = Path(__file__).resolve().parents[2]
    return {**os.environ, "PYTHONPATH": str(root), **extra}


@pytest.mark.parametrize("env", [{"NUMBA_DISABLE_JIT": "1"},
                                 pytest.param({"NUMBA_BOUNDSCHECK": "1"}, marks=pytest.mark.slow)],
                         ids=["no-jit", "boundscheck"])
def test_fast_kernel_tests_pass_in_each_mode(tmp_path, boundscheck_cache, env):
    # not the normal cache: code compiled without bounds checks must not be reused
    cache = boundscheck_cache if "NUMBA_BOUNDSCHECK" in env else str(tmp_path)
    tests = Path(__file__).with_name("test_sudoku_fast.py")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                          check=False, capture_output=True, text=True, timeout=900,
                          env=python_env(NUMBA_CACHE_DIR=cache, **env))
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and " failed" not in done.stdout
