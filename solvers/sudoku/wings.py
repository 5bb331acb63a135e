"""Patterns of the 9x9 grader (grade.py) before the chains, as Sukaku
Explainer (SE's maintained fork, whose ratings the project's rated sets carry) finds them:

  WXYZ-wing 5.5-5.6   three cells that see each other pairwise holding four digits between
                      them (an almost locked set) and a two-digit cell {x, z} outside them
                      that sees every one of them holding x: x cannot be in both, so z is
                      in one of them and leaves every cell seeing all of z's holders. When
                      z links them too (doubly linked), x does the same and the set's two
                      other digits leave every cell seeing all of their holders in the set.
                      5.5, plus 0.1 when the set's largest cell holds three digits (SE:
                      base + (size - 2 - |3 - largest|) / 10).
  VWXYZ-wing 6.2-6.4  the same with four cells holding five digits: 6.2, plus 0.1 when the
                      largest cell holds two or four digits, 0.2 when it holds three.

(The uniqueness techniques, unique rectangles and loops and BUG, are unique.py's.)

Each finder takes the candidate masks (list of 81 ints, bit d for digit d + 1) and returns
(technique, rating, cells, eliminations) or None; SE's order among its finds is kept: the
lowest rated, then the most eliminations.
"""

from __future__ import annotations

import numpy as np

from solvers.sudoku import gradek, patternk
from solvers.sudoku.masks import DIGITS, PEERS

UNITS: list[list[int]] = gradek.UNITS.tolist()
CELL_UNITS: list[list[int]] = gradek.CELL_UNITS.tolist()

Found = tuple[str, float, list[int], list[tuple[int, int]]]


def _seeing_all(cands: list[int], holders: list[int], d: int, skip: set[int]) -> list[tuple[int, int]]:
    """(cell, d + 1) for each cell outside ``skip`` holding d and seeing every one of ``holders``."""
    if not holders:
        return []
    seen = set.intersection(*(set(PEERS[h]) for h in holders)) - skip
    return [(c, d + 1) for c in sorted(seen) if cands[c] >> d & 1]


def als_wing(size: int, cands: list[int]) -> Found | None:
    """The first WXYZ-wing (``size`` 3) or VWXYZ-wing (``size`` 4) in SE's order (module doc;
    the search is patternk.als_wing)."""
    out = np.empty(5, np.int64)
    rating = patternk.als_wing(size, np.array(cands, np.int64), out)
    if not rating:
        return None
    *als, yz = out[:size + 1].tolist()
    union = 0
    for x in als:
        union |= cands[x]
    digits = DIGITS[cands[yz]]
    linked = [d for d in digits if all(yz in PEERS[x] for x in als if cands[x] >> d & 1)]
    skip = {*als, yz}
    elims: list[tuple[int, int]] = []
    for d in digits:
        if d not in linked or len(linked) == 2:
            elims += _seeing_all(cands, [x for x in (*als, yz) if cands[x] >> d & 1], d, skip)
    if len(linked) == 2:
        for w in DIGITS[union & ~cands[yz]]:
            elims += _seeing_all(cands, [x for x in als if cands[x] >> w & 1], w, skip)
    name = "WXYZ-wing" if size == 3 else "VWXYZ-wing"
    return name, rating / 10, [*als, yz], sorted(set(elims))
