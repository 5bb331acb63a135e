"""The uniqueness kernels (uniquek.py: unique loops, BUG cells) and the aligned-exclusion kernel
(alignedk.py) compiled and as plain Python find the same loops, BUG cells and exclusions."""

import json

from tests.solvers.test_nqueens import run_python

# the starting candidates of diabolical puzzles, singles placed, and the positions of two BUG
# steps: each kernel's finds
CASES = """
import json
import numpy as np
from solvers.sudoku import alignedk, uniquek
from tests.solvers.sudoku_starts import diabolical_lines, start
from tests.solvers.test_sudoku_hint import path
lines = diabolical_lines()
out = []
for line in lines[:80]:
    cands = start(line.split()[1])
    loops = np.zeros((uniquek.MOST, uniquek.LONGEST), np.int64)
    lengths = np.zeros(uniquek.MOST, np.int64)
    n = uniquek.loops(cands, loops, lengths)
    row = [[loops[i, :lengths[i]].tolist() for i in range(n)]]
    cells, digits = np.zeros(81, np.int64), np.zeros(81, np.int64)
    k = uniquek.bug_cells(cands, cells, digits)
    row.append([k, cells[:max(k, 0)].tolist(), digits[:max(k, 0)].tolist()])
    for degree in (2, 3):
        cells = np.zeros(16, np.int64)
        elims = np.zeros((81, 2), np.int64)
        k, e = alignedk.aligned(degree, cands, cells, elims)
        row.append([cells[:k].tolist(), elims[:e].tolist()])
    out.append(row)
# the positions where the grader takes a BUG step (puzzles 69 and 189: types 1 and 2)
for line in (lines[69], lines[189]):
    for _values, cands, move in path(line.split()[1]):
        if move["technique"].startswith("BUG"):
            masks = np.array([sum(1 << (v - 1) for v in c) for c in cands], np.int64)
            cells, digits = np.zeros(81, np.int64), np.zeros(81, np.int64)
            k = uniquek.bug_cells(masks, cells, digits)
            out.append([move["technique"], cells[:k].tolist(), digits[:k].tolist()])
print(json.dumps(out))
"""


def test_unique_and_aligned_kernels_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(CASES))
    assert compiled == json.loads(run_python(CASES, NUMBA_DISABLE_JIT="1"))
    compiled, bugs = compiled[:80], compiled[80:]
    # one BUG cell at the type 1 step, BUG cells sharing one BUG digit at the type 2 step
    assert [b[0] for b in bugs] == ["BUG type 1", "BUG type 2"]
    assert len(bugs[0][1]) == 1 and len(bugs[1][1]) >= 2 and len(set(bugs[1][2])) == 1
    # loops, aligned pairs and aligned triples are each found in some of these positions
    assert any(row[0] for row in compiled)
    assert any(row[2][1] for row in compiled) and any(row[3][1] for row in compiled)
    # a loop has an even number of cells, four or more
    for row in compiled:
        assert all(len(loop) % 2 == 0 and len(loop) >= 4 for loop in row[0])
