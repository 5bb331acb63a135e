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

from solvers.sudoku import gradek

UNITS: list[list[int]] = gradek.UNITS.tolist()
PEERS = [frozenset(p) for p in gradek.PEERS.tolist()]
KIND = [1] * 9 + [2] * 9 + [0] * 9  # SE's region types: 0 box, 1 row, 2 column

Found = tuple[str, float, list[int], list[tuple[int, int]]]
Link = tuple[int, int, int]  # start cell, end cell, region type


def _rating(kinds: list[int]) -> tuple[str, float]:
    """The name and rating of a chain whose strong links lie in regions of ``kinds``."""
    two = len(kinds) == 2
    if 0 in kinds:
        return ("turbot fish", 4.2) if two else ("3 strong links (with a box)", 5.5)
    if len(set(kinds)) == 1:
        return ("skyscraper", 4.0) if two else ("3 skyscrapers", 5.4)
    return ("2-string kite", 4.1) if two else ("3-string kite", 5.6)


def _links(cands: list[int], d: int) -> list[Link]:
    """Every strong link of digit ``d`` in both directions."""
    out = []
    for u, unit in enumerate(UNITS):
        places = [c for c in unit if cands[c] >> d & 1]
        if len(places) == 2:
            a, b = places
            out += [(a, b, KIND[u]), (b, a, KIND[u])]
    return out


def strong_links(count: int, cands: list[int]) -> Found | None:
    """The best chain of ``count`` (2 or 3) strong links (module doc)."""
    best: tuple[float, int, Found] | None = None
    for d in range(9):
        links = _links(cands, d)
        if len(links) < 2 * count:
            continue
        holders = {c for c in range(81) if cands[c] >> d & 1}
        # the links that may follow each link: their start sees its end
        after = {link: [n for n in links if n[0] in PEERS[link[1]]] for link in links}
        chains = [[link] for link in links]
        for _ in range(count - 1):
            chains = [[*chain, n] for chain in chains for n in after[chain[-1]]
                      if all(n[0] not in link[:2] and n[1] not in link[:2] for link in chain)]
        for chain in chains:
            start, end = chain[0][0], chain[-1][1]
            cells = [c for link in chain for c in link[:2]]
            elims = sorted((c, d + 1) for c in PEERS[start] & PEERS[end] & holders if c not in cells)
            if not elims:
                continue
            name, rating = _rating([k for _, _, k in chain])
            if best is None or (rating, -len(elims)) < best[:2]:
                best = (rating, -len(elims), (name, rating, cells, elims))
    return None if best is None else best[2]
