"""The forcing chains' kernels (forcingk.py) compiled and as plain Python give the same
propagations, contradictions and ancestor counts."""

import json

from tests.solvers.test_nqueens import run_python

# every candidate of a diabolical puzzle's start, assumed true and false, static and dynamic
CASES = """
import json
import numpy as np
from solvers.sudoku import forcingk, gradek
from solvers.sudoku.grid import parse_text
puzzle = "7...4...6...759...9..8.1..3...524....3.....2.4.......75.1...2.8.8.....1.2.9...3.4"
givens = parse_text(puzzle).givens
cands = gradek.initial_cands(givens.astype(np.int64))
out = []
for start in range(0, forcingk.NODES, 7):
    if not cands[start // 18] >> (start % 18 // 2) & 1:
        continue
    for dynamic in (False, True):
        present = np.empty(forcingk.NODES, np.bool_)
        parents = np.empty((forcingk.NODES, forcingk.WIDTH), np.int64)
        sizes = np.empty(forcingk.NODES, np.int64)
        ons, offs = np.empty(forcingk.NODES, np.int64), np.empty(forcingk.NODES, np.int64)
        late, early, trues, falses = forcingk.propagate(cands, start, dynamic, True, present, parents,
                                                        sizes, ons, offs)
        found = ons[:trues].tolist() + offs[:falses].tolist()
        out.append([start, dynamic, int(late), int(early), found,
                    [int(forcingk.ancestors(n, parents, sizes)) for n in found]])
print(json.dumps(out))
"""


def test_propagation_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(CASES))
    assert compiled == json.loads(run_python(CASES, NUMBA_DISABLE_JIT="1"))
    assert len(compiled) > 100
    # the dynamic propagation reaches further than the static one from some start, and some
    # assumptions end in a contradiction
    by_start: dict[int, list[int]] = {}
    for start, _, _, _, found, _ in compiled:
        by_start.setdefault(start, []).append(len(found))
    assert any(dynamic > static for static, dynamic in by_start.values())
    assert any(late >= 0 for _, _, late, _, _, _ in compiled)
