"""Sliding tiles against known answers: a full 8-puzzle BFS, Korf's 100 and their node counts."""

import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from solvers import search, sliding, sliding_pdb
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

KIND = sliding.KIND
GOAL8 = (1, 2, 3, 4, 5, 6, 7, 8, 0)
KORF_GOAL = " ".join(map(str, range(16)))
# OEIS A089473: 8-puzzle states at each distance from the goal
DEPTH_COUNTS = [1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638,
                9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2]


def neighbours_of(board, k=3):
    """Written apart from the solver on purpose: the oracle must not share its code."""
    blank = board.index(0)
    r, c = divmod(blank, k)
    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < k and 0 <= cc < k:
            cells = list(board)
            cells[blank], cells[rr * k + cc] = cells[rr * k + cc], 0
            yield tuple(cells)


def distances_from(goal, k=3):
    depth = {goal: 0}
    layer = [goal]
    while layer:
        following = []
        for board in layer:
            for nxt in neighbours_of(board, k):
                if nxt not in depth:
                    depth[nxt] = depth[board] + 1
                    following.append(nxt)
        layer = following
    return depth


@pytest.fixture(scope="session")
def eight_depths():
    return distances_from(GOAL8)


@pytest.fixture
def no_pdb(tmp_path, monkeypatch):
    monkeypatch.setenv("PUZZLE_CACHE_DIR", str(tmp_path))


def text(board):
    return " ".join(map(str, board))


def solve(puzzle, **options):
    board, opts = KIND.prepare(puzzle, options)
    outcome = KIND.solve(board, opts)
    KIND.verify(board, opts, outcome)
    return outcome


def read_rows(path):
    return [[int(x) for x in line.split()] for line in path.read_text().splitlines() if line.strip()]


# -- the 8-puzzle, exhaustively


def test_each_parity_class_has_181440_states(eight_depths):
    assert len(eight_depths) == 181_440
    other = distances_from((2, 1, 3, 4, 5, 6, 7, 8, 0))
    assert len(other) == 181_440 and not set(other) & set(eight_depths)
    assert all(sliding.solvable(3, b, GOAL8) for b in random.Random(1).sample(sorted(eight_depths), 500))
    assert not any(sliding.solvable(3, b, GOAL8) for b in random.Random(2).sample(sorted(other), 500))


def test_bfs_depths_match_oeis_and_the_two_hardest(eight_depths):
    counts = Counter(eight_depths.values())
    assert [counts[d] for d in range(max(counts) + 1)] == DEPTH_COUNTS
    hardest = sorted(b for b, d in eight_depths.items() if d == 31)
    assert hardest == [(6, 4, 7, 8, 5, 0, 3, 2, 1), (8, 6, 7, 2, 5, 4, 3, 0, 1)]


@pytest.mark.parametrize("heuristic", ["misplaced", "manhattan", "linear_conflict"])
def test_idastar_lengths_equal_bfs_on_a_large_sample(eight_depths, heuristic):
    sample = random.Random(heuristic).sample(sorted(eight_depths), 100 if heuristic == "misplaced" else 500)
    for board in sample:
        outcome = solve(text(board), heuristic=heuristic)
        assert outcome.result["length"] == eight_depths[board], board
        assert outcome.result["optimal"] is True


@pytest.mark.parametrize("heuristic", ["manhattan", "linear_conflict"])
def test_astar_lengths_equal_bfs(eight_depths, heuristic):
    for board in random.Random(7).sample(sorted(eight_depths), 60):
        outcome = solve(text(board), algorithm="astar", heuristic=heuristic)
        assert outcome.result["length"] == eight_depths[board], board


def test_bfs_solver_lengths_equal_the_table(eight_depths):
    for board in random.Random(8).sample(sorted(eight_depths), 4):
        assert solve(text(board), algorithm="bfs").result["length"] == eight_depths[board]


def test_generic_and_kernel_idastar_agree_node_for_node(eight_depths):
    for board in [*random.Random(9).sample(sorted(eight_depths), 12), (8, 6, 7, 2, 5, 4, 3, 0, 1)]:
        for heuristic in ("manhattan", "linear_conflict"):
            kernel = solve(text(board), heuristic=heuristic)
            problem = sliding.SlidingProblem(3, board, GOAL8, heuristic)
            generic = search.ida_star(problem)
            assert "".join(generic.path) == kernel.result["moves"]
            for field in ("expanded", "generated", "max_frontier"):
                assert generic.stats[field] == kernel.stats[field], (board, heuristic, field)


def rotate_relabel(board, n):
    """The 180-degree symmetry that swaps the blank-last and blank-first goals (SOURCES.md)."""
    return tuple(n - board[n - 1 - i] if board[n - 1 - i] else 0 for i in range(n))


@pytest.mark.parametrize("algorithm", ["idastar", "astar"])
def test_eight_puzzle_samples_both_goal_conventions(data_dir, algorithm):
    rows = read_rows(data_dir / "sliding" / "eight_puzzle_samples.txt")
    assert len(rows) == 149
    if algorithm == "astar":
        rows = rows[::4]
    for row in rows:
        board, length = tuple(row[:9]), row[9]
        assert solve(text(board), algorithm=algorithm).result["length"] == length
        flipped = rotate_relabel(board, 9)
        blank_first = solve(text(flipped), algorithm=algorithm, goal="0 1 2 3 4 5 6 7 8")
        assert blank_first.result["length"] == length


# -- the 15-puzzle: Korf's 100


def korf_rows(data_dir):
    instances = read_rows(data_dir / "sliding" / "korf100.txt")
    blank_last = read_rows(data_dir / "sliding" / "korf100_blank_last.txt")
    lines = (data_dir / "sliding" / "korf100_nodes.tsv").read_text().splitlines()[1:]
    nodes = [line.split("\t") for line in lines]
    rows = enumerate(zip(instances, blank_last, nodes, strict=True))
    return [(i + 1, a[:16], b[:16], a[16], int(n[4])) for i, (a, b, n) in rows]


EASY = 3_000_000  # Manhattan-only IDA* nodes: the 16 easiest instances, about a second in all


def test_korf_easy_instances_reproduce_manhattan_node_counts(data_dir):
    easy = [r for r in korf_rows(data_dir) if r[4] <= EASY]
    assert len(easy) == 16
    for number, board, _, length, nodes in easy:
        outcome = solve(text(board), goal=KORF_GOAL, heuristic="manhattan")
        assert outcome.result["length"] == length, number
        assert outcome.stats["generated"] == nodes, number


def test_korf_easy_instances_optimal_in_both_conventions_without_pdb(data_dir, no_pdb):
    for number, board, flipped, length, nodes in korf_rows(data_dir):
        if nodes > EASY:
            continue
        korf = solve(text(board), goal=KORF_GOAL)
        last = solve(text(flipped))
        assert korf.result["length"] == last.result["length"] == length, number
        assert korf.stats["heuristic"] == "linear_conflict" and "not built" in korf.stats["note"]


@pytest.mark.slow
def test_generic_idastar_reproduces_korf_instance_79(data_dir):
    _number, board, _, length, nodes = korf_rows(data_dir)[78]
    problem = sliding.SlidingProblem(4, tuple(board), tuple(range(16)), "manhattan")
    found = search.ida_star(problem)
    assert (len(found.path), found.stats["generated"]) == (length, nodes) == (42, 540_860)


@pytest.fixture(scope="session")
def built_pdb(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    sliding_pdb.build(folder, quiet=True)
    return folder


@pytest.mark.slow
def test_all_100_korf_instances_with_the_pattern_database(data_dir, built_pdb, monkeypatch):
    monkeypatch.setenv("PUZZLE_CACHE_DIR", str(built_pdb))
    for number, board, flipped, length, _ in korf_rows(data_dir):
        outcome = solve(text(board), goal=KORF_GOAL)
        assert outcome.stats["heuristic"] == "pdb" and outcome.stats["note"] is None
        assert outcome.result["length"] == length, number
        if number % 10 == 0:  # the mirrored frame, on a tenth of them
            assert solve(text(flipped)).result["length"] == length, number


def test_small_pattern_database_is_admissible_and_exact_where_it_must_be(eight_depths):
    """An 8-puzzle 4-4 split built by the same code: h never overestimates, lengths equal BFS."""
    patterns = ((1, 2, 3, 4), (5, 6, 7, 8))
    tables = [sliding_pdb.build_table(3, p) for p in patterns]
    assert all(t[sliding_kernels_rank(p)] == 0 for t, p in zip(tables, patterns, strict=True))
    arrays = sliding_pdb.tables_from(3, patterns, tables).arrays()
    frame = sliding_pdb.frame_for(3, GOAL8)
    for board in random.Random(5).sample(sorted(eight_depths), 300):
        canonical = frame.to_canonical(3, board, GOAL8)
        status, moves, *_ = sliding.kernels.ida_star(
            sliding.np.array(canonical), sliding.np.arange(9), 3, sliding.kernels.PATTERN_DB, *arrays, 10**7,
            sliding.stop_flag())
        assert status == sliding.kernels.SOLVED and len(moves) == eight_depths[board]


def sliding_kernels_rank(pattern):
    return sliding.kernels.rank(sliding.np.array(pattern), len(pattern), 9)


# -- parity, validation, verification, limits


def test_unsolvable_parity_is_no_solution_without_search():
    outcome = solve("1 2 3 4 5 6 8 7 0")
    assert outcome.status == NO_SOLUTION and outcome.result is None
    assert outcome.stats["generated"] == 0
    korf_swapped = solve(" ".join(map(str, [0, 2, 1, *list(range(3, 16))])), goal=KORF_GOAL)
    assert korf_swapped.status == NO_SOLUTION


@pytest.mark.parametrize(
    ("puzzle", "options", "error", "message"),
    [
        ("1 2 3 4 5 6 7 8", {}, ParseError, "has 8 numbers"),
        ("1 2 3 4 5 6 7 8 0 9 10", {}, ParseError, "has 11 numbers"),
        (" ".join(map(str, range(36))), {}, ParseError, "has 36 numbers"),
        ("1 2 3 4 5 6 7 8 8", {}, InvalidPuzzle, "row 3, column 3: 8 appears twice"),
        ("1 2 3 4 5 6 7 9 0", {}, InvalidPuzzle, "holds 9"),
        ("1 2 3 a 5 6 7 8 0", {}, ParseError, "'a' is not a tile number"),
        ("1 2 3 -4 5 6 7 8 0", {}, ParseError, "'-4' is not a tile number"),
        ([[1, 2, 3], [4, 5], [6, 7, 8, 0]], {}, ParseError, "row 2 has 2 numbers"),
        ([1, 2, 3, 4, 5, 6, 7, 8, True], {}, ParseError, "True is not a tile number"),
        ({"board": 1}, {}, ParseError, "not dict"),
        ("1 2 3 4 5 6 7 8 0", {"goal": "0 1 2 3"}, InvalidOption, "2x2 board but the puzzle is 3x3"),
        ("1 2 3 4 5 6 7 8 0", {"goal": "0 1 2 3 4 5 6 7 7"}, InvalidOption, "7 appears twice"),
        ("1 2 3 4 5 6 7 8 0", {"algorithm": "bogo"}, InvalidOption, "must be one of"),
        (KORF_GOAL, {"algorithm": "bfs"}, InvalidOption, "up to 3x3"),
        (" ".join(map(str, range(25))), {"algorithm": "astar"}, InvalidOption, "for 5x5 use idastar"),
        ("1 2 3 4 5 6 7 8 0", {"heuristic": "pdb"}, InvalidOption, "15-puzzle"),
        (KORF_GOAL, {"heuristic": "pdb", "algorithm": "astar"}, InvalidOption,
         "only with algorithm 'idastar'"),
        ("1 2 3 4 5 6 7 8 0", {"max_depth": 5}, InvalidOption, "bounds algorithm 'dfs' only"),
        ("1 2 3 4 5 6 7 8 0", {"algorithm": "astar", "max_nodes": 10**8}, InvalidOption, "at most 3,000,000"),
        ("1 2 3 4 5 6 7 8 0", {"max_nodes": 10**11}, InvalidOption, "at most"),
    ],
)
def test_validation_says_what_is_wrong(puzzle, options, error, message):
    with pytest.raises(error, match=message):
        KIND.prepare(puzzle, options)


def test_inputs_in_every_accepted_form_agree():
    forms = ["8 6 7 2 5 4 3 0 1", "8,6,7,2,5,4,3,0,1", "8 6 7\n2 5 4\n3 0 1",
             [8, 6, 7, 2, 5, 4, 3, 0, 1], [[8, 6, 7], [2, 5, 4], [3, 0, 1]]]
    assert {solve(form).result["length"] for form in forms} == {31}


def test_verify_rejects_wrong_move_strings():
    board, opts = KIND.prepare("1 2 3 4 5 6 7 0 8", {})
    assert KIND.solve(board, opts).result["moves"] == "R"
    for moves, length, why in [("L", 1, "not the goal"), ("D", 1, "off the board"), ("X", 1, "moves are"),
                               ("R", 2, "does not fit"), ("RLR", 3, None)]:
        outcome = Outcome(SOLVED, {"moves": moves, "length": length, "optimal": True}, {})
        if why is None:
            KIND.verify(board, opts, outcome)  # a longer but legal route is still a route
            continue
        with pytest.raises(WrongAnswer, match=why):
            KIND.verify(board, opts, outcome)
    with pytest.raises(WrongAnswer, match="parity"):
        KIND.verify(board, opts, Outcome(NO_SOLUTION, None, {}))


def test_dfs_path_is_valid_and_not_optimal(eight_depths):
    board = (1, 2, 3, 4, 5, 6, 0, 7, 8)
    outcome = solve(text(board), algorithm="dfs")
    assert outcome.result["optimal"] is False
    assert outcome.result["length"] >= eight_depths[board]
    bounded = solve(text(board), algorithm="dfs", max_depth=6)
    assert bounded.result["length"] <= 6 and bounded.result["optimal"] is False


def test_dfs_depth_bound_exhausted_is_a_failure_not_no_solution():
    board, opts = KIND.prepare("8 6 7 2 5 4 3 0 1", {"algorithm": "dfs", "max_depth": 10})
    with pytest.raises(search.DepthLimitReached, match="no goal within 10 moves"):
        KIND.solve(board, opts)


def test_node_budget_ends_the_search_with_a_clear_message():
    board, opts = KIND.prepare("8 6 7 2 5 4 3 0 1", {"max_nodes": 1000, "heuristic": "misplaced"})
    stopped = "idastar with misplaced stopped after generating 1,001"
    with pytest.raises(search.NodeLimitReached, match=stopped):
        KIND.solve(board, opts)
    board, opts = KIND.prepare("8 6 7 2 5 4 3 0 1", {"algorithm": "astar"})
    with pytest.raises(BudgetExceeded):
        KIND.solve(board, opts, node_limit=500)


def test_five_by_five_scrambled_board():
    rng = random.Random(3)
    board = (*tuple(range(1, 25)), 0)
    for _ in range(40):
        board = rng.choice(list(neighbours_of(board, 5)))
    outcome = solve(text(board), max_nodes=10**7)
    assert outcome.result["length"] <= 40 and outcome.stats["heuristic"] == "linear_conflict"


def test_two_by_two_lengths_equal_bfs():
    depth = distances_from((1, 2, 3, 0), k=2)
    assert len(depth) == 12
    for board, d in depth.items():
        assert solve(text(board)).result["length"] == d
    assert solve("2 1 3 0").status == NO_SOLUTION


def test_kernel_small_cases(eight_depths):
    """Kernel against the generic IDA*, and a 3-tile table (zeros for the other tiles, so h is 0 off the
    goal too) against BFS: small enough to run uncompiled."""
    shallow = sorted(b for b, d in eight_depths.items() if d <= 14)
    for board in random.Random(10).sample(shallow, 8):
        for heuristic in ("misplaced", "manhattan", "linear_conflict"):
            kernel = solve(text(board), heuristic=heuristic)
            generic = search.ida_star(sliding.SlidingProblem(3, board, GOAL8, heuristic))
            assert "".join(generic.path) == kernel.result["moves"]
            assert generic.stats["generated"] == kernel.stats["generated"]
    pattern = (1, 2, 3)
    table = sliding_pdb.build_table(3, pattern)
    assert table.size == 9 * 8 * 7 and table[sliding_kernels_rank(pattern)] == 0
    empty = sliding.np.zeros(9 * 8 * 7 * 6 * 5, "u1")
    arrays = sliding_pdb.tables_from(3, (pattern, (4, 5, 6, 7, 8)), [table, empty], reflect=False).arrays()
    frame = sliding_pdb.frame_for(3, GOAL8)
    for board in random.Random(11).sample(shallow, 8):
        status, moves, *_ = sliding.kernels.ida_star(
            sliding.np.array(frame.to_canonical(3, board, GOAL8)), sliding.np.arange(9), 3,
            sliding.kernels.PATTERN_DB, *arrays, 10**6, sliding.stop_flag())
        assert status == sliding.kernels.SOLVED and len(moves) == eight_depths[board]


# -- the kernels uncompiled and bounds-checked


@pytest.mark.parametrize("flag", ["NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"])
def test_kernels_under_numba_debug_modes(flag, tmp_path):
    root = Path(__file__).resolve().parents[2]
    here = "tests/solvers/test_sliding.py::"
    cases = [here + "test_kernel_small_cases", here + "test_two_by_two_lengths_equal_bfs",
             here + "test_korf_easy_instances_reproduce_manhattan_node_counts"]
    if flag == "NUMBA_DISABLE_JIT":
        cases = cases[:2]  # uncompiled, millions of 15-puzzle nodes would take minutes
    env = dict(os.environ, **{flag: "1"}, NUMBA_CACHE_DIR=str(tmp_path))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *cases],
                         cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"{len(cases)} passed" in run.stdout
