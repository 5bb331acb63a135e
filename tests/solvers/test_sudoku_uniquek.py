"""The unique-loop kernel (uniquek.py) and the aligned-exclusion kernel (alignedk.py) compiled
and as plain Python find the same loops and the same exclusions."""

import json

from tests.solvers.test_nqueens import run_python

# the starting candidates of diabolical puzzles, singles placed: each kernel's finds
CASES = """
import json
import numpy as np
from solvers.sudoku import alignedk, gradek, uniquek
from solvers.sudoku.grid import parse_text
lines = open("tests/data/sudoku/sudoku_exchange_diabolical_first5000.txt").read().splitlines()
out = []
for line in lines[:80]:
    values = parse_text(line.split()[1]).givens.astype(np.int64)
    cands = gradek.initial_cands(values)
    gradek.singles(values, cands, np.empty((81, 3), np.int64))
    loops = np.zeros((uniquek.MOST, 81), np.int64)
    lengths = np.zeros(uniquek.MOST, np.int64)
    n = uniquek.loops(cands, loops, lengths)
    row = [[loops[i, :lengths[i]].tolist() for i in range(n)]]
    for degree in (2, 3):
        cells = np.zeros(16, np.int64)
        elims = np.zeros((81, 2), np.int64)
        k, e = alignedk.aligned(degree, cands, cells, elims)
        row.append([cells[:k].tolist(), elims[:e].tolist()])
    out.append(row)
print(json.dumps(out))
"""


def test_unique_and_aligned_kernels_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(CASES))
    assert compiled == json.loads(run_python(CASES, NUMBA_DISABLE_JIT="1"))
    # loops, aligned pairs and aligned triples are each found in some of these positions
    assert any(row[0] for row in compiled)
    assert any(row[1][1] for row in compiled) and any(row[2][1] for row in compiled)
    # a loop has an even number of cells, four or more
    for row in compiled:
        assert all(len(loop) % 2 == 0 and len(loop) >= 4 for loop in row[0])
