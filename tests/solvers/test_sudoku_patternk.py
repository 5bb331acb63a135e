"""The pattern kernels (patternk.py) compiled and as plain Python find the same chains of
strong links and ALS wings."""

import json

from tests.solvers.test_nqueens import run_python

# the starting candidates of diabolical puzzles, singles placed: each search's find
CASES = """
import json
import numpy as np
from solvers.sudoku import patternk
from tests.solvers.sudoku_starts import diabolical_lines, start
lines = diabolical_lines()
out = []
for line in lines[:80]:
    cands = start(line.split()[1])
    found = np.zeros(7, np.int64)
    row = []
    for count in (2, 3):
        row.append([int(patternk.strong_links(count, cands, found)), found.tolist()])
    for size in (3, 4):
        row.append([int(patternk.als_wing(size, cands, found)), found.tolist()])
    out.append(row)
print(json.dumps(out))
"""


def test_pattern_kernels_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(CASES))
    assert compiled == json.loads(run_python(CASES, NUMBA_DISABLE_JIT="1"))
    # each search finds something in some of these positions
    for search in range(4):
        assert any(row[search][0] for row in compiled), search
