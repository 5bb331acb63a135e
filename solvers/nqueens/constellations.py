"""Strategy ``constellations`` of mode ``count``: the queens on the border lines first, one
symmetry class at a time, then the completions of each (the method of the Q27 project and
NQueensFAF); split by sharing the classes out. The loops are in constellation_kernels.py and
constellation_search.py.

  constellation  (a, b, c, d): the queens every solution has on the border lines, at
                 (0, a), (n-1, b), (c, 0) and (d, n-1); a corner queen sits on two lines
                 and both name it (a = c = 0 for the corner (0, 0)).
  class          a constellation's images under the 8 symmetries of the board. The
                 images' completions are the images of its completions, so each class
                 is counted once, through one member, times its size.
  size           8, 4 when a half turn maps the constellation onto itself, 2 for a
                 quarter turn (no reflection can: it would put two of the border queens
                 on one row or one diagonal), 1 for the lone queen of n = 1.
  member         each class is listed, searched and sent in parts as its smallest
                 member (lexicographically).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solvers import progress
from solvers.base import Part, StopFlag, check_stop, stop_flag
from solvers.nqueens import constellation_kernels as kernels
from solvers.nqueens.outcome import N

Constellation = list[int]


def classes(n: N) -> tuple[list[Constellation], list[int]]:
    """The smallest member of every class of constellations of n, and the class sizes."""
    found, sizes = kernels.list_classes(n)
    return found.tolist(), sizes.tolist()


def count(n: N, consts: Sequence[Constellation], sizes: Sequence[int],
          stop: StopFlag | None = None) -> tuple[int, int]:
    """(search nodes, solutions): the completions of each class's member times the class size. Each
    class stands in ``stop``'s progress for its predicted share of the search (``freedoms``)."""
    stop = stop_flag() if stop is None else stop
    members = np.array(consts, np.int64).reshape(-1, 4)
    shares = progress.bounds(kernels.freedoms(n, members))
    nodes, solutions = kernels.count_completions(n, members, np.array(sizes, np.int64), stop, shares)
    check_stop(stop)
    return int(nodes), int(solutions)


def read_part(n: N, part: Part) -> tuple[list[Constellation], list[int]]:
    """The constellations of a part, each the smallest of its class, with the class sizes."""
    listed = part.get("constellations")
    if not isinstance(listed, list) or not listed:
        raise ValueError("a constellations part needs a non-empty list 'constellations'")
    images = np.zeros((kernels.SYMMETRIES, 4), np.int64)
    sizes: list[int] = []
    for item in listed:
        if not (isinstance(item, list) and len(item) == 4
                and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n for v in item)
                and kernels.is_constellation(n, np.array(item, np.int64))):
            raise ValueError(f"{item} is not a constellation [a, b, c, d] of non-attacking queens on the "
                             f"border lines of {n}x{n}")
        smallest, size = kernels.class_of(n, np.array(item, np.int64), images)
        if not smallest:
            raise ValueError(f"constellation {item} is not the smallest member of its class")
        sizes.append(int(size))
    if len({tuple(item) for item in listed}) < len(listed):
        raise ValueError("a constellations part lists a constellation twice")
    return listed, sizes
