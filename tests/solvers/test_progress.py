"""A long search's progress (solvers/progress.py): the share of the search finished, as the n-Queens
counting kernels and Sudoku's tree search report it while they run."""

import itertools
import json

import numpy as np
import pytest

import solvers
from solvers import progress
from solvers.base import DONE, NODES, BudgetExceeded, read_options, stop_flag
from solvers.nqueens import constellations, count, estimate
from tests.solvers.test_nqueens import run_python

# Each write of the share, with the nodes searched at that moment: the kernels run as plain Python
# (NUMBA_DISABLE_JIT=1), so the flag can be an array that records what is written into it. The
# constellations' shares by class are predictions that come closer from n = 12 on (at n = 10
# half the search done implies half its size); the strategy counts from n = 13 by default.
CASES = [("tree", 10), ("tree", 11), ("tree", 12), ("constellations", 12), ("constellations", 13)]
TRAJECTORIES = """
import json
import numpy as np
from solvers.base import DONE, NODES, stop_flag
from solvers.nqueens import constellations, count

class Recording(np.ndarray):
    def __setitem__(self, index, value):
        super().__setitem__(index, value)
        if index == DONE:
            self.trace.append((float(value), float(self[NODES])))

out = {}
for strategy, n in CASES:
    flag = stop_flag().view(Recording)
    flag.trace = []
    if strategy == "tree":
        count.count_below(n, 1, flag)
    else:
        constellations.count(n, *constellations.classes(n), flag)
    out[f"{strategy} {n}"] = flag.trace
print(json.dumps(out))
""".replace("CASES", repr(CASES))

# The whole search's nodes that the share implies, halfway through, is within this factor of the
# nodes finally searched (measured: 0.96 for the tree at n = 10..12, 0.84 and 0.87 for the
# constellations at 12 and 13).
HALFWAY_FACTOR = 1.5


@pytest.fixture(scope="module")
def trajectories():
    return json.loads(run_python(TRAJECTORIES, NUMBA_DISABLE_JIT="1"))


@pytest.mark.parametrize(("strategy", "n"), CASES)
def test_the_share_rises_from_0_to_1_and_implies_the_size_halfway(trajectories, strategy, n):
    trace = trajectories[f"{strategy} {n}"]
    shares = [share for share, _ in trace]
    assert shares[0] == 0.0 and shares[-1] == 1.0
    assert all(a <= b for a, b in itertools.pairwise(shares))
    assert len(set(shares)) > 100  # written all along the search, not only per prefix or class
    nodes = [searched for _, searched in trace]
    assert all(a <= b for a, b in itertools.pairwise(nodes))
    final = nodes[-1]
    share, searched = next((s, k) for s, k in trace if s >= 0.5)
    assert 1 / HALFWAY_FACTOR < (searched / share) / final < HALFWAY_FACTOR


@pytest.mark.parametrize("n", [10, 13])
def test_compiled_counts_end_with_the_whole_search_done(n):
    flag = stop_flag()
    nodes, _ = constellations.count(n, *constellations.classes(n), flag)
    assert flag[DONE] == 1.0 and flag[NODES] == nodes and progress.implied_nodes(flag) == nodes
    flag = stop_flag()
    prefixes, weights, _above = count.canonical_prefixes(n, 1)
    weighted, _ = count.count_prefixes(n, prefixes, weights, flag)
    assert flag[DONE] == 1.0 and n <= flag[NODES] < weighted  # each mirrored subtree searched once


def test_probes_report_the_share_of_their_blocks():
    flag = stop_flag()
    sums = estimate.probe_sums(12, 7, 0, 3, 25_000, flag)
    assert flag[DONE] == 1.0 and flag[NODES] == sums[:, 7].sum()


def test_nothing_reported_is_no_share():
    flag = stop_flag()
    assert progress.done(flag) == 0.0 and progress.implied_nodes(flag) is None


def test_bounds_share_the_search_out_ending_at_exactly_1():
    assert progress.bounds([1, 3]).tolist() == [0.0, 0.25, 1.0]
    thirds = progress.bounds([1.0] * 3)
    assert thirds[-1] == 1.0 and np.all(np.diff(thirds) > 0)


# Sudoku's backtracking trees are less even: halfway, the implied size was within 1.2 of the truth
# for these two of norvig_top95 (within 2.1 for its second to eighth puzzles).
SUDOKU_HALFWAY_FACTOR = 2.5


@pytest.mark.parametrize("line", [2, 3])
def test_a_sudoku_search_reports_its_share_up_to_its_node_budget(data_dir, line):
    kind = solvers.get("sudoku")
    puzzles = [t.split()[0] for t in (data_dir / "sudoku" / "norvig_top95.txt").read_text().splitlines()
               if t.strip() and not t.startswith("#")]
    grid, options = kind.parse(puzzles[line]), read_options(kind.options, {"strategy": "backtrack"}, "sudoku")
    flag = stop_flag()
    total = kind.solve(grid, options, stop=flag).stats["nodes"]  # max_solutions 2: the whole tree
    assert flag[DONE] == 1.0 and flag[NODES] == total
    # Stopped at a node budget, the flag keeps what the search last reported.
    shares = []
    for part in (0.1, 0.5, 0.9):
        flag = stop_flag()
        with pytest.raises(BudgetExceeded):
            kind.solve(grid, options, node_limit=int(total * part), stop=flag)
        shares.append(flag[DONE])
        if part == 0.5:
            assert 1 / SUDOKU_HALFWAY_FACTOR < flag[NODES] / flag[DONE] / total < SUDOKU_HALFWAY_FACTOR
    assert 0 < shares[0] < shares[1] < shares[2] < 1
