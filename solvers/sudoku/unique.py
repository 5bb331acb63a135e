"""The uniqueness techniques of the 9x9 grader (grade.py), as Sudoku Explainer (SE) finds and
rates them: a puzzle has one solution, so a pattern that would allow two cannot be completed.

Unique rectangles and loops (4.5 and up): a loop of cells (uniquek.py) that would all hold the
same two digits {a, b}, each of its regions twice, would let a and b swap around it. The loop's
cells holding more than {a, b} must keep one of their other digits:

  type 1     one such cell: it loses a and b.
  type 2     every such cell holds the same one extra digit x: x leaves each cell seeing all
             of them.
  type 3     two such cells c1, c2 in a region, with extra digits between them: those act as
             one cell of a naked set with other cells of the region (a naked set of k digits,
             + (k - 1) tenths), whose digits leave the region's other cells; or, c1 and c2
             counted as one cell, k digits with a and b confined to k places of the region
             (a hidden set, + (k - 2) tenths), whose other digits leave those places.
  type 4     two such cells in a region where a (or b) has no other place: one of them holds
             a, the other cannot be b, so both lose b.

A rectangle (four cells) rates 4.5, a loop of 6 cells 4.6, of 8 4.7, of 10 or more 5.0 (SE's
rule), plus type 3's tenths; SE takes the lowest rated, then the lowest type, then the first
found.

Bivalue universal grave (BUG, 5.6 and up): if every open cell held two digits and every digit
two places in each unit, the grid would have two solutions. The cells with more than two
digits (BUG cells) and their digits that break that rule (their BUG digits) are found unit by
unit; without them the grid must be such a grave, so one BUG digit is true:

  type 1  5.6     one BUG cell: it holds its BUG digit.
  type 2  5.7     one BUG digit: it leaves every cell seeing all BUG cells.
  type 3  5.7+    the BUG digits of several cells act as one cell of a naked set with cells
                  seeing all of them in a region (+ (k - 1) tenths for k digits).
  type 4  5.7     two BUG cells in a region share one other digit x: x is in one of them and
                  their BUG digit in the other, so each loses its remaining digit.

Each finder takes the candidate masks (list of 81 ints, bit d for digit d + 1) and returns
(technique, rating, cells, eliminations) or None.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from solvers.sudoku import gradek, uniquek
from solvers.sudoku.masks import DIGITS, PEERS, POP

UNITS: list[list[int]] = gradek.UNITS.tolist()
REGIONS: list[list[int]] = uniquek.REGIONS.tolist()  # box, row, column: SE's order

Found = tuple[str, float, list[int], list[tuple[int, int]]]
# (rating in tenths, type, name, cells, eliminations, what else tells two hints of a loop apart)
Hint = tuple[int, int, str, list[int], list[tuple[int, int]], tuple[object, ...]]


def _colex_table(n: int, k: int) -> list[tuple[int, ...]]:
    """The k-subsets of range(n) in SE's order (its bit masks ascending: by the last item, then
    the one before...)."""
    return sorted(combinations(range(n), k), key=lambda t: t[::-1])


COLEX = [[_colex_table(n, k) for k in range(n + 1)] for n in range(10)]


def _colex(items: list[int], k: int) -> list[tuple[int, ...]]:
    """The k-subsets of ``items`` in SE's order (``COLEX``); a subset of the items keeps it."""
    if k > len(items):
        return []
    return [tuple(items[i] for i in sel) for sel in COLEX[len(items)][k]]


def _loop_tenths(size: int) -> int:
    """SE's rating of a loop of ``size`` cells in tenths (the 10-cell rule adds 0.3 and 0.2)."""
    return 45 + (5 if size >= 10 else 2 if size >= 8 else 1 if size >= 6 else 0)


def _shared(a: int, b: int) -> list[int]:
    """The regions (SE's order) holding both cells."""
    return [u for u, v in zip(REGIONS[a], REGIONS[b], strict=True) if u == v]


def _seeing_all(cells: list[int], skip: set[int]) -> list[int]:
    """The cells outside ``skip`` seeing every one of ``cells``, ascending."""
    return sorted(frozenset.intersection(*(PEERS[c] for c in cells)) - skip)


def _type3(cands: list[int], places: list[list[int]], loop: list[int], c1: int, c2: int, ab: int,
           base: int) -> list[Hint]:
    """The type 3 hints of a loop with extra cells c1, c2 (module doc), in SE's order (the sets
    drawn from the cells and digits that can be in one, which keeps that order)."""
    hints: list[Hint] = []
    extra = (cands[c1] | cands[c2]) & ~ab
    name = "unique rectangle type 3" if len(loop) == 4 else f"unique loop {len(loop)} type 3"
    shared = _shared(c1, c2)
    for degree in range(POP[extra], 8):
        for u in shared:
            unit = UNITS[u]
            open_places = 0
            for m in places[u]:
                open_places |= m
            empty = POP[open_places]
            i1, i2 = unit.index(c1), unit.index(c2)
            if degree * 2 <= empty:
                fit = [c for c in unit
                       if c not in (c1, c2) and POP[cands[c]] >= 2 and POP[cands[c] | extra] <= degree]
                for others in _colex(fit, degree - 1):
                    union = extra & cands[c1] & cands[c2]
                    for c in others:
                        union |= cands[c]
                    if POP[union] != degree or POP[union | extra] != degree:
                        continue
                    naked = union | extra
                    skip = {c1, c2, *others}
                    elims = [(c, d + 1) for c in unit if c not in skip for d in DIGITS[cands[c] & naked]]
                    if elims:
                        hints.append((base + degree - 1, 3, name, loop, elims, (u, naked, others)))
            if degree * 2 < empty:
                at = [m & ~(1 << i2) for m in places[u]]
                a, b = DIGITS[ab]
                pair = at[a] | at[b]
                if not at[a] or not at[b] or POP[pair] > degree:
                    continue
                fit = [d for d in range(9)
                       if not (ab | extra) >> d & 1 and at[d] and POP[at[d] | pair] <= degree]
                for chosen in _colex(fit, degree - 2):
                    where = pair
                    hidden = ab
                    for d in chosen:
                        where |= at[d]
                        hidden |= 1 << d
                    if POP[where] != degree:
                        continue
                    cells = [unit[i] for i in range(9) if where >> i & 1 and i != i1]
                    elims = [(c, d + 1) for c in cells for d in DIGITS[cands[c] & ~hidden]]
                    if elims:
                        hints.append((base + len(cells) - 1, 3, name, loop, elims, (u, hidden, tuple(cells))))
    return hints


def _type4(cands: list[int], loop: list[int], c1: int, c2: int, ab: int, base: int) -> Hint | None:
    """The type 4 hint of a loop with extra cells c1, c2 (module doc), or None."""
    a, b = DIGITS[ab]
    lock_a = lock_b = None
    for u in _shared(c1, c2):
        rest = [c for c in UNITS[u] if c not in (c1, c2)]
        if not any(cands[c] >> a & 1 for c in rest):
            lock_a = u
        if not any(cands[c] >> b & 1 for c in rest):
            lock_b = u
    if lock_a is None and lock_b is None:
        return None
    gone = b if lock_a is not None else a
    name = "unique rectangle type 4" if len(loop) == 4 else f"unique loop {len(loop)} type 4"
    return base, 4, name, loop, [(c1, gone + 1), (c2, gone + 1)], ()


def _loop_hints(cands: list[int], places: list[list[int]], loop: list[int]) -> list[Hint]:
    """The hints of one unique loop (module doc), in SE's order."""
    ab = cands[loop[0]]
    base = _loop_tenths(len(loop))
    shape = "unique rectangle" if len(loop) == 4 else f"unique loop {len(loop)}"
    extras = [c for c in loop if POP[cands[c]] > 2]
    if len(extras) == 1:
        return [(base, 1, f"{shape} type 1", loop, [(extras[0], d + 1) for d in DIGITS[ab]], ())]
    if not extras:
        return []
    rest = 0
    for c in extras:
        rest |= cands[c]
    rest &= ~ab
    hints: list[Hint] = []
    if len(extras) > 2 or POP[rest] == 1:
        x = DIGITS[cands[extras[0]] & ~ab][0]
        elims = [(c, x + 1) for c in _seeing_all(extras, set(extras)) if cands[c] >> x & 1]
        if elims:
            hints.append((base, 2, f"{shape} type 2", loop, elims, ()))
    elif len(extras) == 2:
        hints += _type3(cands, places, loop, extras[0], extras[1], ab, base)
    if len(extras) == 2 and (found := _type4(cands, loop, extras[0], extras[1], ab, base)) is not None:
        hints.append(found)
    return hints


def unique_loop(cands: list[int]) -> Found | None:
    """The unique rectangle or loop step SE takes first (module doc), or None."""
    out = np.empty((uniquek.MOST, uniquek.LONGEST), np.int64)
    lengths = np.empty(uniquek.MOST, np.int64)
    array = np.array(cands, np.int64)
    n = uniquek.loops(array, out, lengths)
    if not n:
        return None
    places = gradek.places(array).tolist()
    hints: list[Hint] = []
    seen: set[tuple[object, ...]] = set()
    loops: set[frozenset[int]] = set()
    for i in range(n):
        loop = out[i, :lengths[i]].tolist()
        if (cells := frozenset(loop)) in loops:
            continue  # the same loop from another start or the other way round: the same hints
        loops.add(cells)
        for hint in _loop_hints(cands, places, loop):
            key = (hint[1], frozenset(loop), hint[5])
            if key not in seen:
                seen.add(key)
                hints.append(hint)
    if not hints:
        return None
    tenths, _, name, loop, elims, _ = min(hints, key=lambda h: (h[0], h[1]))
    return name, tenths / 10, sorted(loop), sorted(set(elims))


def _bug_cells(cands: list[int]) -> tuple[list[int], dict[int, int]] | None:
    """SE's BUG cells in the order found and each one's BUG digits (a mask), or None when the
    position is no grave with them removed (module doc; the search is uniquek.bug_cells)."""
    cells = np.empty(81, np.int64)
    digits = np.empty(81, np.int64)
    n = uniquek.bug_cells(np.array(cands, np.int64), cells, digits)
    if n <= 0:
        return None
    return cells[:n].tolist(), dict(zip(cells[:n].tolist(), digits[:n].tolist(), strict=True))


def bug(cands: list[int]) -> Found | None:
    """The BUG step SE takes (module doc), or None."""
    found = _bug_cells(cands)
    if found is None:
        return None
    cells, digits = found
    every = 0
    for m in digits.values():
        every |= m
    if len(cells) == 1:
        cell = cells[0]
        return "BUG type 1", 5.6, [cell], [(cell, d + 1) for d in DIGITS[cands[cell] & ~every]]
    common = _seeing_all(cells, set(cells))
    if POP[every] == 1:
        d = DIGITS[every][0]
        elims = [(c, d + 1) for c in common if cands[c] >> d & 1]
        if elims:
            return "BUG type 2", 5.7, sorted(cells), elims
    elif not common:
        return None
    if len(cells) == 2 and (four := _bug4(cands, cells, digits, every)) is not None:
        return four
    if POP[every] == 1:
        return None
    return _bug3(cands, cells, every, common)


def _bug4(cands: list[int], cells: list[int], digits: dict[int, int], every: int) -> Found | None:
    """BUG type 4 (module doc) of two BUG cells, or None."""
    c1, c2 = cells
    shared = cands[c1] & cands[c2] & ~every
    if POP[shared] != 1 or not _shared(c1, c2):
        return None
    elims = [(c, d + 1) for c in (c1, c2) for d in DIGITS[cands[c] & ~digits[c] & ~shared]]
    return "BUG type 4", 5.7, sorted(cells), elims


def _bug3(cands: list[int], cells: list[int], every: int, common: list[int]) -> Found | None:
    """BUG type 3 (module doc): the first naked set in SE's order, or None."""
    for t in range(3):
        regions = {REGIONS[c][t] for c in cells}
        if len(regions) != 1:
            continue
        u = regions.pop()
        inside = [c for c in common if REGIONS[c][t] == u]
        for degree in range(2, 7):
            for others in _colex(inside, degree - 1):
                union = 0
                for c in others:
                    union |= cands[c]
                if POP[union] != degree or any(POP[cands[c]] < 2 for c in others) or POP[every] < 2:
                    continue
                naked = union | every
                if POP[naked] != degree:
                    continue
                skip = {*others, *cells}
                elims = [(c, d + 1) for c in inside if c not in skip for d in DIGITS[cands[c] & naked]]
                if elims:
                    return "BUG type 3", round(5.7 + (degree - 1) / 10, 1), sorted(cells), elims
    return None
