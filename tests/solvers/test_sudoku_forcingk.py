"""The chains' kernels (forcingk.py, chainsk.py) compiled and as plain Python give the same
propagations, contradictions, ancestor counts, forcing chains, cycles and best static chains."""

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


# the static chains' searches from every candidate of the same position, X-only and XY
STATIC = """
import json
import numpy as np
from solvers.sudoku import chainsk, gradek
from solvers.sudoku.grid import parse_text
puzzle = "7...4...6...759...9..8.1..3...524....3.....2.4.......75.1...2.8.8.....1.2.9...3.4"
cands = gradek.initial_cands(parse_text(puzzle).givens.astype(np.int64))
parent, targets, via = np.empty(chainsk.NODES, np.int64), np.empty(4, np.int64), np.empty(4, np.int64)
node, prev, size = (np.empty(chainsk.ENTRIES, np.int64) for _ in range(3))
path = np.empty(chainsk.NODES + 1, np.int64)
comp = np.empty((2, chainsk.NODES), np.int64)
members, ids = np.empty(chainsk.NODES, np.int64), np.empty(chainsk.NODES, np.int64)
reach = np.empty((chainsk.NODES, chainsk.WORDS), np.uint64)
links = np.empty((2, chainsk.NODES, chainsk.LINKS), np.int64)
count = np.empty((2, chainsk.NODES), np.int64)
out = []
for y in (0, 1):
    chainsk.link_table(cands, y == 1, True, links[y], count[y])
    chainsk.closure(cands, links[y], count[y], comp[y], reach, members, ids)
    for start in range(1, chainsk.NODES, 2):
        if not cands[start // 18] >> (start % 18 // 2) & 1:
            continue
        n = chainsk.forcing(links[y], count[y], start, 40, parent, targets, via)
        whole = chainsk.forcing(links[y], count[y], start, chainsk.NODES, parent, targets, via)
        m = chainsk.cycles(cands, links[y], count[y], comp[y], start, 12, node, prev, size, path)
        out.append([start, y, targets[:n].tolist(), via[:n].tolist(), path[:m].tolist(), whole,
                    chainsk.reaches(start, start ^ 1, comp[y], reach, ids), int(members[comp[y, start]])])
print(json.dumps(out))
"""


def test_static_chains_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(STATIC))
    assert compiled == json.loads(run_python(STATIC, NUMBA_DISABLE_JIT="1"))
    # some candidates lead to their own negation, and some start cycles
    assert any(targets for _, _, targets, _, _, _, _, _ in compiled)
    assert any(cycle for _, _, _, _, cycle, _, _, _ in compiled)
    # the closure says a candidate reaches its negation exactly where a search without a
    # limit gets there, and a cycle runs only through a component of two nodes or more
    assert all(whole == reaches for *_, whole, reaches, _ in compiled)
    assert any(reaches for *_, reaches, _ in compiled) and not all(reaches for *_, reaches, _ in compiled)
    assert all(members > 1 for _, _, _, _, cycle, _, _, members in compiled if cycle)


# the whole static search (chainsk.static_chains) on diabolical starts, singles placed
SEARCH = """
import json
import numpy as np
from solvers.sudoku import chainsk
from tests.solvers.sudoku_starts import diabolical_lines, start
out = []
for line in diabolical_lines()[:40]:
    cands = start(line.split()[1])
    best, path = np.zeros(5, np.int64), np.zeros(chainsk.NODES + 1, np.int64)
    chainsk.static_chains(cands, best, path)
    out.append([best.tolist(), path[:best[3]].tolist()])
print(json.dumps(out))
"""


def test_static_search_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(SEARCH))
    assert compiled == json.loads(run_python(SEARCH, NUMBA_DISABLE_JIT="1"))
    # the best is an X-cycle somewhere, a Y-cycle, a forcing X-chain and a forcing chain elsewhere
    assert {kind for (_, _, _, _, kind), _ in compiled} >= {0, 1, 3, 4}
    assert all(rating >= 65 and len(path) == n for (rating, _, _, n, _), path in compiled)


# the Nishio, multiple and dynamic families' whole search (forcingk.find) on two starts
FIND = """
import json
import numpy as np
from solvers.sudoku import forcingk, nishiok
from tests.solvers.sudoku_starts import start
out = []
for puzzle in ("7...4...6...759...9..8.1..3...524....3.....2.4.......75.1...2.8.8.....1.2.9...3.4",
               "7.....81..4...82.....2.6..3...32.9..2..8.4..7..3.67...8..6.2.....95...8..51.....2"):
    cands = start(puzzle)
    for multiple, dynamic, nishio, base in ((False, True, True, 75), (True, False, False, 80),
                                            (True, True, False, 85)):
        best, cells = np.zeros(5, np.int64), np.zeros(9, np.int64)
        forcingk.find(cands, multiple, dynamic, nishio, base, best, cells)
        out.append([best.tolist(), cells[:best[4]].tolist()])
print(json.dumps(out))
"""


def test_forcing_search_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(FIND))
    assert compiled == json.loads(run_python(FIND, NUMBA_DISABLE_JIT="1"))
    # every family finds a step at both starts, rated from its base up
    assert all(rating >= base for ([rating, *_], _), base in zip(compiled, [75, 80, 85] * 2, strict=True))
    # Nishio's are contradictions (sort key 7) in one cell, the others region chains here
    assert [key for [_, _, key, _, _], _ in compiled] == [7, 6, 6, 7, 6, 6]


# Nishio's precheck (nishiok.nishio_may) beside the Nishio search itself on diabolical starts
NISHIO = """
import json
import numpy as np
from solvers.sudoku import forcingk, nishiok
from tests.solvers.sudoku_starts import diabolical_lines, start
out = []
for line in diabolical_lines()[:24]:
    cands = start(line.split()[1])
    best, cells = np.zeros(5, np.int64), np.zeros(9, np.int64)
    forcingk.find(cands, False, True, True, 75, best, cells)
    out.append([bool(nishiok.nishio_may(cands)), int(best[0])])
print(json.dumps(out))
"""


def test_nishio_precheck_compiled_and_interpreted_agree():
    compiled = json.loads(run_python(NISHIO))
    assert compiled == json.loads(run_python(NISHIO, NUMBA_DISABLE_JIT="1"))
    # wherever the search finds a Nishio chain the precheck lets it run; it rules some out
    assert all(may for may, rating in compiled if rating)
    assert any(rating for _, rating in compiled) and not all(may for may, _ in compiled)
