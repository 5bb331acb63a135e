"""Sudoku grids: n x n for n in {4, 9, 16, 25}, read from and written to the wire.

  n        side of the grid; box = sqrt(n); C = n*n cells numbered r*n + c.
  value    1..n; symbol its character: 1-9 then A-P (A = 10 ... P = 25); 0 or '.' = blank.
  Grid     the validated puzzle: n and the givens (uint8[C], 0 = blank).
  unit     a row, column or box; peers of a cell = the other cells of its three units.
  Layout   the per-size tables the kernels use (peers, units, cell_units).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from solvers.base import ParseError

Values = np.ndarray  # uint8[C] values, 0 = blank

SIZES = (4, 9, 16, 25)
SYMBOLS = "123456789ABCDEFGHIJKLMNOP"
BLANKS = ".0"

NOT_A_SYMBOL = 255
_codes = bytearray([NOT_A_SYMBOL]) * 256
for _v, _s in enumerate(SYMBOLS, start=1):
    _codes[ord(_s)] = _codes[ord(_s.lower())] = _v
for _s in BLANKS:
    _codes[ord(_s)] = 0
SYMBOL_CODES = bytes(_codes)  # bytes.translate table: symbol -> value, 0 blank, NOT_A_SYMBOL
_VALUE_CHARS = bytes.maketrans(bytes(range(len(SYMBOLS) + 1)), ("." + SYMBOLS).encode("ascii"))


@dataclass(frozen=True, eq=False)
class Grid:
    n: int
    givens: Values

@dataclass(frozen=True, eq=False)
class Layout:
    n: int
    box: int
    full: int
    peers: np.ndarray       # int64[C, 2(n - 1) + (box - 1)^2]: the other cells of its three units
    units: np.ndarray       # int64[3n, n]: rows, then columns, then boxes
    cell_units: np.ndarray  # int64[C, 3]

@functools.cache
def layout(n: int) -> Layout:
    box = round(n ** 0.5)
    cells = np.arange(n * n).reshape(n, n)
    boxes = cells.reshape(box, box, box, box).transpose(0, 2, 1, 3).reshape(n, n)
    units = np.concatenate([cells, cells.T, boxes]).astype(np.int64)
    cell_units = np.empty((n * n, 3), np.int64)
    for u, unit in enumerate(units):
        cell_units[unit, u // n] = u
    peers = np.array([sorted(set(units[cell_units[c]].ravel()) - {c}) for c in range(n * n)], np.int64)
    return Layout(n, box, (1 << n) - 1, peers, units, cell_units)

def where(cell: int, n: int) -> str:
    return f"row {cell // n + 1}, column {cell % n + 1}"


# -- the wire form -> Grid


def parse(puzzle: Any) -> Grid:
    if isinstance(puzzle, str):
        return parse_text(puzzle)
    if isinstance(puzzle, list):
        return _parse_rows(puzzle)
    raise ParseError(f"a sudoku puzzle is a string of cells or a list of rows, not {type(puzzle).__name__}")

def _size_of(cells: int) -> int:
    n: int = round(cells ** 0.5)
    if n * n != cells or n not in SIZES:
        raise ParseError(
            f"a sudoku string has 16, 81, 256 or 625 cells (4x4, 9x9, 16x16 or 25x25) once "
            f"whitespace is removed; this one has {cells}")
    return n


def parse_text(text: str) -> Grid:
    cells = "".join(text.split())
    n = _size_of(len(cells))
    try:
        codes = np.frombuffer(cells.encode("ascii").translate(SYMBOL_CODES), np.uint8)
    except UnicodeEncodeError:
        codes = np.array([SYMBOL_CODES[ord(ch)] if ord(ch) < 128 else NOT_A_SYMBOL for ch in cells],
                         np.uint8)
    if codes.max() > n:
        cell = int(np.argmax(codes > n))
        ch = cells[cell]
        if codes[cell] == NOT_A_SYMBOL:
            raise ParseError(f"{where(cell, n)}: {ch!r} is not a sudoku symbol "
                             f"(values are 1-9 then A-P, a blank is '.' or '0')")
        raise ParseError(f"{where(cell, n)}: {ch!r} (value {codes[cell]}) is too large for a "
                         f"{n}x{n} grid, whose values are {SYMBOLS[0]}-{SYMBOLS[n - 1]}")
    return Grid(n, codes)


def _parse_rows(rows: list[Any]) -> Grid:
    n = len(rows)
    if n not in SIZES:
        raise ParseError(f"a sudoku given as rows has 4, 9, 16 or 25 rows; this one has {n}")
    givens = np.zeros(n * n, np.uint8)
    for r, row in enumerate(rows):
        if not isinstance(row, list):
            raise ParseError(f"row {r + 1} must be a list of {n} integers, not {type(row).__name__}")
        if len(row) != n:
            raise ParseError(f"row {r + 1} has {len(row)} entries; a {n}x{n} grid needs {n}")
        for c, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ParseError(f"{where(r * n + c, n)}: {v!r} is not an integer (0 = blank, 1-{n})")
            if not 0 <= v <= n:
                raise ParseError(f"{where(r * n + c, n)}: {v} is out of range (0 = blank, 1-{n})")
            givens[r * n + c] = v
    return Grid(n, givens)


# -- values -> the wire form


def render(values: np.ndarray) -> str:
    """The symbols of ``values`` (0 blank) as text; bytes.translate is the cheapest way over a chunk."""
    return np.asarray(values, np.uint8).tobytes().translate(_VALUE_CHARS).decode("ascii")
