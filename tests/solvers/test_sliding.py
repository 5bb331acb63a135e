"""Sliding tiles against known answers: a full 8-puzzle BFS, Korf's 100 and their node counts."""

import itertools
import os
import random
import subprocess
import sys
from collections import Counter, deque
from pathlib import Path

import numpy as np
import pytest

import solvers
from solvers import search
from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    BudgetExceeded,
    InvalidOption,
    InvalidPuzzle,
    Outcome,
    ParseError,
    Stopped,
    WrongAnswer,
    stop_flag,
)
from solvers.sliding import ida, pdb, reduce
from solvers.sliding.board import MOVES, default_goal, random_board, solvable
from solvers.sliding.kernels import rank
from solvers.sliding.kind import KIND
from solvers.sliding.problem import SlidingProblem

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
    assert all(solvable(3, b, GOAL8) for b in random.Random(1).sample(sorted(eight_depths), 500))
    assert not any(solvable(3, b, GOAL8) for b in random.Random(2).sample(sorted(other), 500))


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
            problem = SlidingProblem(3, board, GOAL8, heuristic)
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
    _, board, _, length, nodes = korf_rows(data_dir)[78]
    problem = SlidingProblem(4, tuple(board), tuple(range(16)), "manhattan")
    found = search.ida_star(problem)
    assert (len(found.path), found.stats["generated"]) == (length, nodes) == (42, 540_860)


@pytest.fixture(scope="session")
def built_pdb(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    pdb.build(folder, quiet=True)
    return folder


def pattern_distances(k, pattern):
    """The oracle for a pattern table, apart from the builder: a 0-1 breadth-first search over
    (the pattern tiles' cells, the blank's cell), where the blank steps onto a free cell for 0
    and swaps with a pattern tile for 1; a placement's entry is its nearest blank. Listed in
    the order of itertools.permutations, which the tables' rank follows."""
    n = k * k
    start = (tuple(pattern), 0)
    best = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        cells, blank = state
        r, c = divmod(blank, k)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if not (0 <= rr < k and 0 <= cc < k):
                continue
            there = rr * k + cc
            cost = best[state] + (there in cells)
            following = (tuple(blank if x == there else x for x in cells), there)
            if cost < best.get(following, n * n):
                best[following] = cost
                (queue.appendleft if there not in cells else queue.append)(following)
    nearest = {}
    for (cells, _), cost in best.items():
        nearest[cells] = min(cost, nearest.get(cells, cost))
    return [nearest[cells] for cells in itertools.permutations(range(n), len(pattern))]


@pytest.mark.parametrize(("k", "pattern"), [(3, (1, 2, 3)), (3, (5, 6, 7, 8)), (3, (2, 4, 6, 8)),
                                            (4, (1, 2, 3)), (4, (5, 10, 15)), (4, (12, 3))])
def test_pattern_tables_equal_a_search_of_the_abstract_space(k, pattern):
    table = pdb.build_table(k, pattern)
    assert table.tolist() == pattern_distances(k, pattern)


def test_ranked_tables_probe_what_spread_tables_probe(eight_depths):
    """The 7-8's way (compact tables, re-ranked per move) against the 6-6-3's (spread, shifted)
    on an 8-puzzle 4-4 split, with and without the reflection: the same moves and node counts."""
    patterns = ((1, 2, 3, 4), (5, 6, 7, 8))
    tables = [pdb.build_table(3, p) for p in patterns]
    frame = pdb.frame_for(3, GOAL8)
    for reflect in (False, True):
        spread = pdb.tables_from(3, patterns, tables, reflect).arrays()
        ranked = pdb.ranked_tables(3, patterns, np.concatenate(tables), reflect).arrays()
        for board in random.Random(12).sample(sorted(eight_depths), 100):
            canonical = np.array(frame.to_canonical(3, board, GOAL8))
            found = [ida.ida_star(canonical, np.arange(9), 3, ida.PATTERN_DB,
                                              *arrays, 10**7, stop_flag())
                     for arrays in (spread, ranked)]
            assert len(found[1][1]) == eight_depths[board]
            assert found[0][1].tolist() == found[1][1].tolist() and found[0][2:] == found[1][2:], board


def test_the_7_8_asked_for_but_not_built_falls_back_with_a_note(no_pdb):
    outcome = solve("1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15", goal=KORF_GOAL, heuristic="pdb78")
    assert outcome.result["moves"] == "L"
    assert outcome.stats["heuristic"] == "linear_conflict" and "not built" in outcome.stats["note"]


@pytest.mark.slow
def test_all_100_korf_instances_with_the_pattern_database(data_dir, built_pdb, monkeypatch):
    monkeypatch.setenv("PUZZLE_CACHE_DIR", str(built_pdb))
    for number, board, flipped, length, _ in korf_rows(data_dir):
        outcome = solve(text(board), goal=KORF_GOAL)
        assert outcome.stats["heuristic"] == "pdb" and outcome.stats["note"] is None
        assert outcome.result["length"] == length, number
        if number % 10 == 0:  # the mirrored frame, on a tenth of them
            assert solve(text(flipped)).result["length"] == length, number


@pytest.mark.slow
def test_all_100_korf_instances_with_the_7_8_database(data_dir):
    """Only where the 7-8 has been built (python -m solvers.sliding.pdb build --pdb 78): its build
    costs too much time and memory for the suite (docs/benchmarks.md); auto takes it over the
    6-6-3 once it is there."""
    if pdb.load("78") is None:
        pytest.skip(f"the 7-8 database is not built in {pdb.cache_dir()} "
                    "(python -m solvers.sliding.pdb build --pdb 78)")
    for number, board, flipped, length, _ in korf_rows(data_dir):
        outcome = solve(text(board), goal=KORF_GOAL)
        assert outcome.stats["heuristic"] == "pdb78" and outcome.stats["note"] is None
        assert outcome.result["length"] == length, number
        if number % 10 == 0:
            assert solve(text(flipped), heuristic="pdb78").result["length"] == length, number


def test_small_pattern_database_is_admissible_and_exact_where_it_must_be(eight_depths):
    """An 8-puzzle 4-4 split built by the same code: h never overestimates, lengths equal BFS."""
    patterns = ((1, 2, 3, 4), (5, 6, 7, 8))
    tables = [pdb.build_table(3, p) for p in patterns]
    assert all(t[pattern_rank(p)] == 0 for t, p in zip(tables, patterns, strict=True))
    arrays = pdb.tables_from(3, patterns, tables).arrays()
    frame = pdb.frame_for(3, GOAL8)
    for board in random.Random(5).sample(sorted(eight_depths), 300):
        canonical = frame.to_canonical(3, board, GOAL8)
        status, moves, *_ = ida.ida_star(
            np.array(canonical), np.arange(9), 3, ida.PATTERN_DB, *arrays, 10**7,
            stop_flag())
        assert status == ida.SOLVED and len(moves) == eight_depths[board]


def pattern_rank(pattern):
    return rank(np.array(pattern), len(pattern), 9)


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
        (" ".join(map(str, range(81))), {}, ParseError, "has 81 numbers"),
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
        (" ".join(map(str, range(25))), {"algorithm": "astar"}, InvalidOption, "for 5x5 use auto or idastar"),
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
    message = "idastar with misplaced stopped after generating 1,001"
    with pytest.raises(search.NodeLimitReached, match=message):
        KIND.solve(board, opts)
    board, opts = KIND.prepare("8 6 7 2 5 4 3 0 1", {"algorithm": "astar"})
    with pytest.raises(BudgetExceeded):
        KIND.solve(board, opts, node_limit=500)


def test_five_by_five_scrambled_board():
    rng = random.Random(3)
    board = (*tuple(range(1, 25)), 0)
    for _ in range(40):
        board = rng.choice(list(neighbours_of(board, 5)))
    outcome = solve(text(board), algorithm="idastar", max_nodes=10**7)
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
            generic = search.ida_star(SlidingProblem(3, board, GOAL8, heuristic))
            assert "".join(generic.path) == kernel.result["moves"]
            assert generic.stats["generated"] == kernel.stats["generated"]
    pattern = (1, 2, 3)
    table = pdb.build_table(3, pattern)
    assert table.size == 9 * 8 * 7 and table[pattern_rank(pattern)] == 0
    zeros = np.zeros(9 * 8 * 7 * 6 * 5, "u1")
    arrays = pdb.tables_from(3, (pattern, (4, 5, 6, 7, 8)), [table, zeros], reflect=False).arrays()
    frame = pdb.frame_for(3, GOAL8)
    for board in random.Random(11).sample(shallow, 8):
        status, moves, *_ = ida.ida_star(
            np.array(frame.to_canonical(3, board, GOAL8)), np.arange(9), 3,
            ida.PATTERN_DB, *arrays, 10**6, stop_flag())
        assert status == ida.SOLVED and len(moves) == eight_depths[board]


# -- auto: every solvable board answered; optimal where it can be proved


def random_walk(k, steps, seed):
    """A board ``steps`` random blank moves (no immediate returns) from the default goal."""
    rng = random.Random(seed)
    board, previous = default_goal(k), None
    for _ in range(steps):
        board, previous = rng.choice([b for b in neighbours_of(board, k) if b != previous]), board
    return board


def shuffled(k, seed):
    return random_board(k, random.Random(seed))


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 7, 8])
def test_auto_answers_shuffled_boards_of_every_size(k, no_pdb):
    """Without the pattern database a 15-puzzle is proved if linear conflict finishes within
    auto's budget, else reduced; from the 24-puzzle up a shuffled board is always reduced."""
    outcome = solve(text(shuffled(k, seed=k)))  # solve() verifies the moves
    assert outcome.stats["algorithm"] == "auto"
    assert outcome.result["optimal"] is (outcome.stats["strategy"] == "idastar")
    if k <= 3:
        assert outcome.stats["strategy"] == "idastar"
    if k >= 5:
        assert outcome.stats["strategy"] == "reduction"
    if outcome.stats["strategy"] == "reduction":
        assert [t["strategy"] for t in outcome.stats["abandoned"]] == ["idastar"]
        assert outcome.stats["abandoned"][0]["nodes"] > 0


@pytest.mark.parametrize(("k", "steps"), [(5, 300), (5, 3000), (6, 1000), (7, 2000), (8, 3000)])
def test_auto_answers_long_random_walks_with_default_options(k, steps, no_pdb):
    """The issue's hidden cases: states from random walks of 300-3000 moves, default options."""
    board = random_walk(k, steps, seed=steps + k)
    outcome = solve(text(board))
    assert outcome.status == SOLVED and outcome.result["length"] == len(outcome.result["moves"])


def test_auto_proves_what_is_near_the_goal_on_big_boards(no_pdb):
    board = random_walk(7, 14, seed=1)
    outcome = solve(text(board))
    assert outcome.stats["strategy"] == "idastar" and outcome.result["optimal"] is True
    assert outcome.result["length"] <= 14 and outcome.stats["abandoned"] == []


def test_auto_falls_back_within_its_budget_on_the_15_puzzle(data_dir, no_pdb):
    """Korf's instance 3 needs 157 M linear-conflict nodes: capped, auto says what it abandoned."""
    _, board, _, length, _ = korf_rows(data_dir)[2]
    outcome = solve(text(board), goal=KORF_GOAL, max_nodes=100_000)
    assert outcome.stats["strategy"] == "reduction" and outcome.result["optimal"] is False
    assert outcome.result["length"] >= length
    [abandoned] = outcome.stats["abandoned"]
    assert abandoned.pop("elapsed_ms") >= 0
    assert abandoned == {"strategy": "idastar", "heuristic": "linear_conflict", "nodes": 100_001,
                         "why": "node budget of 100,000 spent without a proof"}


def test_optimal_true_demands_a_proof(no_pdb):
    board = text(shuffled(5, seed=3))
    with pytest.raises(BudgetExceeded):
        solve(board, optimal=True, max_nodes=50_000)
    proved = solve("8 6 7 2 5 4 3 0 1", optimal=True)
    assert proved.result == {"moves": proved.result["moves"], "length": 31, "optimal": True}
    for algorithm in ("dfs", "reduction"):
        with pytest.raises(InvalidOption, match="proves no optimality"):
            KIND.prepare("1 2 3 4 5 6 7 0 8", {"optimal": True, "algorithm": algorithm})


def test_named_strategies_keep_their_statistics(eight_depths):
    board = (8, 6, 7, 2, 5, 4, 3, 0, 1)
    for algorithm in ("bfs", "dfs", "astar", "idastar", "reduction"):
        outcome = solve(text(board), algorithm=algorithm, max_nodes=400_000)
        assert outcome.stats["strategy"] == outcome.stats["algorithm"] == algorithm
        assert outcome.stats["abandoned"] == []
        assert outcome.result["optimal"] is (algorithm not in ("dfs", "reduction"))
        if outcome.result["optimal"]:
            assert outcome.result["length"] == eight_depths[board]
    bfs = solve(text(board), algorithm="bfs")
    assert bfs.stats["expanded"] > 100_000 and bfs.stats["max_frontier"] > 1000


def test_auto_with_a_custom_goal_on_a_big_board(no_pdb):
    goal = list(range(36))
    random.Random(4).shuffle(goal)  # the blank anywhere, the tiles in any order
    board = list(goal)
    a, b, c = [cell for cell in range(36) if board[cell]][:3]
    board[a], board[b], board[c] = board[b], board[c], board[a]  # a 3-cycle keeps the parity
    rng = random.Random(5)
    for _ in range(200):
        board = list(rng.choice(list(neighbours_of(tuple(board), 6))))
    outcome = solve(text(board), goal=text(goal))
    assert outcome.status == SOLVED and outcome.stats["strategy"] == "reduction"


def test_reduction_on_korf_instances_is_valid_and_not_shorter_than_optimal(data_dir, no_pdb):
    lengths = []
    for _, board, _, length, _ in korf_rows(data_dir)[:20]:
        outcome = solve(text(board), goal=KORF_GOAL, algorithm="reduction")
        assert outcome.result["optimal"] is False and outcome.result["length"] >= length
        lengths.append(outcome.result["length"] / length)
    assert sum(lengths) / len(lengths) < 1.6  # bench/sliding.py measures about 1.25


def test_a_set_stop_flag_ends_auto_on_a_big_board(no_pdb):
    board, opts = KIND.prepare(text(shuffled(7, seed=9)), {})
    stop = stop_flag()
    stop[0] = True
    with pytest.raises(Stopped):
        KIND.solve(board, opts, stop=stop)


def test_reduction_small_cases():
    """Peel 4x4 and 5x5 boards to a 3x3, solve it, shorten: every route reaches the goal.
    Small enough to run uncompiled."""
    stop = stop_flag()
    for k, seed in ((4, 1), (4, 2), (5, 3)):
        board, goal = shuffled(k, seed), default_goal(k)
        moves, after, square = reduce.peel(k, board, goal, 3)
        assert reduce.replay(k, board, moves) == after
        assert all(after[c] == goal[c] for c in range(k * k) if c not in square.cells)
        small, small_goal = square.puzzle(after, goal)
        assert sorted(small) == list(range(9)) and solvable(3, small, small_goal)
        rest = solve(text(small), algorithm="idastar", goal=text(small_goal)).result["moves"]
        route = moves + [MOVES.index(m) for m in rest]
        assert reduce.replay(k, board, route) == goal
        short = reduce.shorten(k, board, route, (12, 7), 20_000, stop)
        assert reduce.replay(k, board, short) == goal and len(short) <= len(route)
    assert reduce.cancel_returns([0, 1, 2, 3, 0]) == [0]


# -- the kernels uncompiled and bounds-checked


@pytest.mark.parametrize("flag", ["NUMBA_DISABLE_JIT",
                                  pytest.param("NUMBA_BOUNDSCHECK", marks=pytest.mark.slow)])
def test_kernels_under_numba_debug_modes(flag, tmp_path, boundscheck_cache):
    root = Path(__file__).resolve().parents[2]
    here = "tests/solvers/test_sliding.py::"
    cases = [here + "test_kernel_small_cases", here + "test_two_by_two_lengths_equal_bfs",
             here + "test_reduction_small_cases",
             here + "test_pattern_tables_equal_a_search_of_the_abstract_space",
             here + "test_ranked_tables_probe_what_spread_tables_probe",
             here + "test_korf_easy_instances_reproduce_manhattan_node_counts"]
    if flag == "NUMBA_DISABLE_JIT":
        cases = cases[:5]  # uncompiled, millions of 15-puzzle nodes would take minutes
    # Bounds-checked machine code goes to a cache of its own, never where normal runs load it.
    cache = boundscheck_cache if flag == "NUMBA_BOUNDSCHECK" else str(tmp_path)
    env = dict(os.environ, **{flag: "1"}, NUMBA_CACHE_DIR=cache)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *cases],
                         check=False, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"{len(cases) + 5} passed" in run.stdout  # the pattern tables' test is 6 cases


def test_the_pdb_command_runs_without_a_runpy_warning():
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-W", "error::RuntimeWarning", "-m", "solvers.sliding.pdb", "--help"]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "usage: python -m solvers.sliding.pdb" in run.stdout and "Warning" not in run.stderr


def test_the_cache_folder_defaults_to_var_cache_in_the_checkout(monkeypatch):
    monkeypatch.delenv("PUZZLE_CACHE_DIR", raising=False)
    assert pdb.cache_dir() == Path(__file__).resolve().parents[2] / "var" / "cache"


def test_ensure_builds_a_missing_database_once_and_leaves_a_build_under_way_to_its_process(
        no_pdb, monkeypatch):
    import fcntl

    built = []

    def fake_build(directory, quiet, name):
        built.append(name)
        path = directory / pdb.DATABASES[name].file_name
        path.write_bytes(b"tables")
        return path

    monkeypatch.setattr(pdb, "build", fake_build)
    path = pdb.cache_dir() / pdb.DATABASES["663"].file_name
    assert solvers.provision_missing()
    with open(path.with_suffix(".lock"), "w") as held:  # another process building it
        fcntl.flock(held, fcntl.LOCK_EX)
        assert pdb.ensure() is None and not path.exists()
    assert pdb.ensure() == path and built == ["663"]
    assert pdb.ensure() == path and built == ["663"]
    assert not solvers.provision_missing()  # a worker's start then spawns no build


@pytest.mark.slow
def test_provision_builds_the_database_that_auto_then_answers_optimally_with(no_pdb):
    korf_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf's first: 57 moves at the fewest
    subprocess.run([sys.executable, "-m", "solvers", "provision"], check=True, timeout=300)
    assert (pdb.cache_dir() / pdb.DATABASES["663"].file_name).exists()
    outcome = solve(korf_1, goal=KORF_GOAL)
    assert outcome.stats["heuristic"] == "pdb" and outcome.result["optimal"]
    assert outcome.result["length"] == 57
