"""Sudoku Explainer's (SE) multiple and dynamic forcing chains for the 9x9 grader (grade.py):
the consequences of a candidate assumed true or false, followed to the end, compared across
every digit of a cell or every place of a digit in a unit.

Nodes and links are chains.py's. ``propagate`` is SE's doChaining: on nodes first, each
followed once, until nothing new follows or a candidate is both true and false. In the
dynamic families the off nodes are removed from the grid as they are followed, so the links
read the grid as the assumption has changed it; a node made true that way has every removed
candidate that made it so among its parents, and a chain's complexity counts its distinct
ancestors.

The families, in SE's order (``Chaining(multiple, dynamic, nishio)``):

  Nishio forcing chains 7.5        X-links only, dynamic: a candidate whose truth (or
                                   falsity) leads to a contradiction is false (true)
  cell / region forcing chains 8.0 static: every digit of a cell of three digits or more,
                                   or every place of a digit in a unit, implies the same
  dynamic forcing chains 8.5       dynamic: contradictions, both states of a candidate
                                   implying the same, and the cell and region chains

each rated base + chains.length_extra(complexity); of a family's finds the step is the lowest
rated, then the least complex, then SE's sort key (double implications 1, cells 5, regions 6,
contradictions 7).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from solvers.sudoku.chains import DIGITS, POP, REGIONS, Chain, Links, length_extra, on_to_off

Parents = dict[int, tuple[int, ...]]


class Outcome(NamedTuple):
    """What an assumption implies: the nodes made true and false with their parents, and the
    first contradiction, if any: the node that arrived last (left out of ``on`` and ``off``,
    as SE leaves it), its parents, and its negation, which was already there."""
    on: Parents
    off: Parents
    absurd: tuple[int, tuple[int, ...], int] | None = None


Offer = Callable[[str, int, int, list[int], int], None]


def _off_to_on(grid: list[int], source: list[int], n: int, y: bool) -> list[tuple[int, tuple[int, ...]]]:
    """chains.off_to_on read on ``grid``, each result with its parents: ``n`` and the
    candidates of ``source`` missing from ``grid`` that the link relies on."""
    cell, d = n // 18, n % 18 // 2
    out: list[tuple[int, tuple[int, ...]]] = []
    if y and POP[grid[cell]] == 2:
        other = DIGITS[grid[cell] & ~(1 << d)][0]
        hidden = tuple(cell * 18 + v * 2 for v in DIGITS[source[cell] & ~grid[cell]])
        out.append((cell * 18 + other * 2 + 1, (n, *hidden)))
    for region in REGIONS[cell]:
        others = [c for c in region if c != cell and grid[c] >> d & 1]
        if len(others) == 1 and all(on != others[0] * 18 + d * 2 + 1 for on, _ in out):
            hidden = tuple(c * 18 + d * 2 for c in region if source[c] >> d & 1 and not grid[c] >> d & 1)
            out.append((others[0] * 18 + d * 2 + 1, (n, *hidden)))
    return out


def propagate(source: list[int], start: int, dynamic: bool, y: bool, links: Links | None = None) -> Outcome:
    """SE's doChaining from ``start`` (a node on or off) on the candidates ``source`` (whose
    ``Links`` serve the static propagation when given)."""
    grid = list(source) if dynamic else source
    on: Parents = {start: ()} if start & 1 else {}
    off: Parents = {} if start & 1 else {start: ()}
    pending_on, pending_off = deque(on), deque(off)
    while pending_on or pending_off:
        if pending_on:
            p = pending_on.popleft()
            for q in (links.off(p, y) if links else on_to_off(grid, p, y)):
                if q + 1 in on:
                    return Outcome(on, off, (q, (p,), q + 1))
                if q not in off:
                    off[q] = (p,)
                    pending_off.append(q)
            continue
        p = pending_off.popleft()
        made = [(q, (p,)) for q in links.on(p, y, True)] if links else _off_to_on(grid, source, p, y)
        if dynamic:
            grid[p // 18] &= ~(1 << (p % 18 // 2))
        for q, parents in made:
            if q - 1 in off:
                return Outcome(on, off, (q, parents, q - 1))
            if q not in on:
                on[q] = parents
                pending_on.append(q)
    return Outcome(on, off)


def ancestors(n: int, parents: Parents, other: Parents) -> int:
    """The distinct nodes ``n`` rests on, itself included (on and off parents in two maps)."""
    seen = {n}
    todo = [n]
    while todo:
        m = todo.pop()
        for q in (parents if m & 1 == n & 1 else other).get(m, ()):
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return len(seen)


def _count(n: int, out: Outcome) -> int:
    """The ancestors of node ``n`` in an outcome."""
    return ancestors(n, out.on, out.off) if n & 1 else ancestors(n, out.off, out.on)


def _absurd_count(out: Outcome) -> int:
    """SE's complexity of a contradiction: the ancestors of its true and of its false node."""
    assert out.absurd is not None
    late, parents, early = out.absurd
    if late & 1:
        grown = Outcome({**out.on, late: parents}, out.off)
    else:
        grown = Outcome(out.on, {**out.off, late: parents})
    return _count(late, grown) + _count(early, out)


def _elims(grid: list[int], target: int) -> list[tuple[int, int]]:
    """A conclusion as eliminations: an off target loses its digit, an on target the rest."""
    cell, d = target // 18, target % 18 // 2
    if not target & 1:
        return [(cell, d + 1)] if grid[cell] >> d & 1 else []
    return [(cell, v + 1) for v in DIGITS[grid[cell]] if v != d]


class Family(NamedTuple):
    """One of SE's families: its name, base rating and switches."""
    name: str
    base: float
    multiple: bool
    dynamic: bool
    nishio: bool


NISHIO = Family("Nishio forcing chain", 7.5, False, True, True)
MULTIPLE = Family("forcing chains", 8.0, True, False, False)
DYNAMIC = Family("dynamic forcing chains", 8.5, True, True, False)


def find(family: Family, grid: list[int]) -> Chain | None:
    """The family's best step on the candidates ``grid`` (module doc)."""
    best: Chain | None = None

    def offer(kind: str, sort_key: int, complexity: int, cells: list[int], target: int) -> None:
        nonlocal best
        elims = _elims(grid, target)
        if not elims:
            return
        rating = round(family.base + length_extra(complexity), 1)
        if best is None or (rating, complexity, sort_key) < (best.rating, best.complexity, best.sort_key):
            best = Chain(f"{kind} {family.name}".strip(), rating, complexity, sort_key, cells, elims)

    y = not family.nishio
    links = None if family.dynamic else Links(grid)
    for cell in range(81):
        size = POP[grid[cell]]
        if not (size > 2 or (size > 1 and family.dynamic)):
            continue
        by_digit: dict[int, Outcome] = {}
        for d in DIGITS[grid[cell]]:
            on = cell * 18 + d * 2 + 1
            out_on = propagate(grid, on, family.dynamic, y, links)
            by_digit[d] = out_on
            if family.dynamic:
                out_off = propagate(grid, on - 1, family.dynamic, y)
                for out, target in ((out_on, on - 1), (out_off, on)):
                    if out.absurd:
                        offer("contradiction", 7, _absurd_count(out), [cell], target)
                if size >= 3 and not family.nishio:
                    for states in (out_on.on, out_on.off):
                        for n in states:
                            if n in (out_off.on if n & 1 else out_off.off):
                                offer("double", 1, _count(n, out_on) + _count(n, out_off), [cell], n)
            if not family.nishio:
                _regions(family, grid, cell, d, out_on, offer, links)
        if not family.nishio:
            _common(list(by_digit.values()), [cell], "cell", 5, offer)
    return best


def _common(outs: list[Outcome], cells: list[int], kind: str, sort_key: int, offer: Offer) -> None:
    """Offer every node implied by all of ``outs`` (one per branch)."""
    for attr in ("on", "off"):
        shared = set(getattr(outs[0], attr))
        for out in outs[1:]:
            shared &= set(getattr(out, attr))
        for n in sorted(shared):
            offer(kind, sort_key, sum(_count(n, out) for out in outs), cells, n)


def _regions(family: Family, grid: list[int], cell: int, d: int, out_on: Outcome, offer: Offer,
             links: Links | None) -> None:
    """SE's doRegionChainings: each unit of ``cell`` where it is the first of the places of
    ``d`` (two, or more in the multiple families): what every place implies."""
    for region in REGIONS[cell]:
        places = [c for c in region if grid[c] >> d & 1]
        if len(places) < 2 or places[0] != cell or (len(places) > 2 and not family.multiple):
            continue
        outs = [out_on if c == cell else propagate(grid, c * 18 + d * 2 + 1, family.dynamic, True, links)
                for c in places]
        _common(outs, places, "region", 6, offer)
