"""One digit's chains of two or three strong links for the 9x9 grader (grade.py), as Sukaku
Explainer (SE's maintained fork) rates them: a strong link is a unit with two places left for
the digit; the links follow each other through weak links (the end of one sees the start of
the next), so one of the chain's two ends holds the digit, which leaves every cell seeing both.

  two links (skyscraper, 2-string kite, turbot fish)   4.0 in two parallel lines, 4.1 in a
                                                        row and a column, 4.2 with a box
  three links                                          5.4 in parallel lines, 5.5 with a box,
                                                        5.6 in rows and columns mixed

(SE's grouped links, whose places of a box lie in one row and one column, are not searched.)
The finder returns (technique, rating, cells, eliminations) or None: the lowest rated, then
the most eliminations.
"""

from __future__ import annotations

import numpy as np

from solvers.sudoku import patternk
from solvers.sudoku.masks import PEERS

NAMES = {40: "skyscraper", 41: "2-string kite", 42: "turbot fish", 54: "3 skyscrapers",
         55: "3 strong links (with a box)", 56: "3-string kite"}  # by rating in tenths

Found = tuple[str, float, list[int], list[tuple[int, int]]]


def strong_links(count: int, cands: list[int]) -> Found | None:
    """The best chain of ``count`` (2 or 3) strong links (module doc; the search is
    patternk.strong_links)."""
    out = np.empty(7, np.int64)
    rating = patternk.strong_links(count, np.array(cands, np.int64), out)
    if not rating:
        return None
    d, *cells = out[:2 * count + 1].tolist()
    holders = {c for c in range(81) if cands[c] >> d & 1}
    elims = sorted((c, d + 1) for c in PEERS[cells[0]] & PEERS[cells[-1]] & holders if c not in cells)
    return NAMES[rating], rating / 10, cells, elims
