"""Spokes puzzles: the validated grid of clues, read from the wire, and answers written back.

  point    a grid point (r, c), numbered ``p = r * width + c``; row 0 is the top.
  hub      a point with a clue 1-8; clue 0 (``.``) is an empty point, not a hub.
  clue     how many spokes leave a hub.
  spoke    a drawn edge between two hubs at Chebyshev distance 1.
  wire     the API shape: ``{"spokes": [[r1, c1, r2, c2], ...]}``, 0-based, in
           canonical order (by the first point, then the second).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from solvers.base import ParseError
from solvers.spokes.search import Edge, Graph, Point
from solvers.spokes.search import graph as _graph

Wire = list[list[int]]  # [[r1, c1, r2, c2], ...]

MAX_SIDE = 40


@dataclass(frozen=True)
class Spokes:
    """A validated puzzle: clues per point, row-major, 0 = empty point."""

    width: int
    height: int
    clues: tuple[int, ...]

    def rc(self, p: Point) -> tuple[int, int]:
        return divmod(p, self.width)

    def text(self) -> str:
        rows = [self.clues[r * self.width:(r + 1) * self.width] for r in range(self.height)]
        return "\n".join(" ".join(str(c) if c else "." for c in row) for row in rows)


# -- reading the wire form

ID_FORM = re.compile(r"(\d+)x(\d+):(\S*)")
HEADER = re.compile(r"spokes\s+(\d+)x(\d+)", re.IGNORECASE)


def _clue(token: str, where: str) -> int:
    if token == ".":
        return 0
    if len(token) == 1 and token in "012345678":
        return int(token)
    if token in ("#", "X", "?"):
        raise ParseError(f"{where}: {token!r} (holes and unknown clues) is not supported; use 0-8 or '.'")
    raise ParseError(f"{where}: {token!r} is not a hub number 0-8 or '.'")


def _parse_id(match: re.Match[str]) -> Spokes:
    width, height, desc = int(match[1]), int(match[2]), match[3]
    if len(desc) != width * height:
        raise ParseError(f"game id {width}x{height} needs {width * height} digits after ':', got {len(desc)}")
    clues = tuple(_clue(ch, f"game id character {i + 1}") for i, ch in enumerate(desc))
    return Spokes(width, height, clues)


def parse(wire: object) -> Spokes:
    """Rows of clues separated by spaces (``.`` = no hub), or x-sheep's id ``WxH:DIGITS``.

    Lines starting with ``#`` are comments; an optional first line ``spokes WxH``
    states the size, which must then match the rows.
    """
    if not isinstance(wire, str):
        raise ParseError(f"a spokes puzzle is a string of rows, not {type(wire).__name__}")
    lines = [ln.strip() for ln in wire.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if not lines:
        raise ParseError("the puzzle is empty: give rows of hub numbers 0-8 separated by spaces")
    if len(lines) == 1 and (match := ID_FORM.fullmatch(lines[0])):
        return _parse_id(match)
    size = None
    if match := HEADER.fullmatch(lines[0]):
        size = int(match[1]), int(match[2])
        lines = lines[1:]
    rows = [[_clue(tok, f"row {r + 1}, column {c + 1}") for c, tok in enumerate(line.split())]
            for r, line in enumerate(lines)]
    if not rows:
        raise ParseError("the puzzle has a header but no rows")
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ParseError(f"row {r + 1} has {len(row)} points but row 1 has {width}; "
                             "every row needs the same")
    if size is not None and size != (width, len(rows)):
        raise ParseError(f"the header says {size[0]}x{size[1]} but the rows make {width}x{len(rows)}")
    return Spokes(width, len(rows), tuple(c for row in rows for c in row))


def graph(puzzle: Spokes) -> Graph:
    return _graph(puzzle.width, puzzle.height, puzzle.clues)


def wire(g: Graph, edges: Sequence[Edge]) -> Wire:
    w = g.width
    return [[*divmod(a, w), *divmod(b, w)] for a, b in (g.ends[e] for e in edges)]
