"""Additive disjoint pattern database for the 15-puzzle (Korf & Felner's 6-6-3 split).

    python -m solvers.sliding_pdb build     # ~1 min, writes $PUZZLE_CACHE_DIR/sliding_pdb_663.npz

Glossary
  canonical goal  Korf's: blank in cell 0 and tile t in cell t. A goal with the
                  blank in another corner is brought to it by a frame.
  frame           a mirror of the board (rows and/or columns) plus a relabelling
                  of tiles by their goal cell; moves map back by swapping U/D, L/R.
  pattern         a set of tiles; its table holds, for every placement of those
                  tiles, the fewest moves *of those tiles* that bring them home
                  (the other tiles are indistinguishable and move for free), so
                  the tables of disjoint patterns add up to an admissible bound.
  reflection      the same tables probed through the main-diagonal mirror (tile t
                  at cell c read as tile t' at cell c'): a second admissible sum;
                  the heuristic is the larger of the two.

The tables are built once, stored in the cache folder (``PUZZLE_CACHE_DIR``,
default ``var/cache`` in the checkout) and loaded lazily, once per process.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from math import perm
from pathlib import Path
from typing import Any

import numpy as np

from solvers import sliding_kernels as kernels

K = 4
PATTERNS = ((1, 2, 3), (4, 5, 8, 9, 12, 13), (6, 7, 10, 11, 14, 15))
FILE_NAME = "sliding_pdb_663.npz"
ROOT = Path(__file__).resolve().parents[1]


# -- frames: any goal with the blank in a corner, seen as the canonical goal


@dataclass(frozen=True)
class Frame:
    flip_rows: bool = False
    flip_cols: bool = False

    def cell(self, k: int, cell: int) -> int:
        r, c = divmod(cell, k)
        return (k - 1 - r if self.flip_rows else r) * k + (k - 1 - c if self.flip_cols else c)

    def to_canonical(self, k: int, board: tuple[int, ...], goal: tuple[int, ...]) -> list[int]:
        home = {tile: cell for cell, tile in enumerate(goal)}
        out = [0] * (k * k)
        for cell, tile in enumerate(board):
            out[self.cell(k, cell)] = self.cell(k, home[tile]) if tile else 0
        return out

    def moves_back(self, moves: str) -> str:
        swap = {"U": "D" if self.flip_rows else "U", "D": "U" if self.flip_rows else "D",
                "L": "R" if self.flip_cols else "L", "R": "L" if self.flip_cols else "R"}
        return "".join(swap[m] for m in moves)


IDENTITY = Frame()


def frame_for(k: int, goal: tuple[int, ...]) -> Frame | None:
    """The frame that puts the goal's blank in cell 0, or None if the blank is not in a corner."""
    r, c = divmod(goal.index(0), k)
    if r not in (0, k - 1) or c not in (0, k - 1):
        return None
    return Frame(flip_rows=r == k - 1, flip_cols=c == k - 1)


# -- the tables as the kernel reads them


@dataclass(frozen=True)
class Tables:
    pdb: kernels.Bytes       # every pattern's table spread out (kernels.spread_table), one after another
    lk_tiles: kernels.Ints   # [lookup, i] = the tile read as the pattern's i-th tile
    lk_size: kernels.Ints    # [lookup] = tiles in the pattern
    lk_offset: kernels.Ints  # [lookup] = where its table starts in pdb
    lk_cells: kernels.Ints   # [lookup, cell] = the cell as the table sees it
    tile_lookup: kernels.Ints  # [tile, group] = the lookup that reads the tile

    def arrays(self) -> tuple[kernels.Bytes, kernels.Ints, kernels.Ints, kernels.Ints, kernels.Ints,
                              kernels.Ints]:
        return (self.pdb, self.lk_tiles, self.lk_size, self.lk_offset, self.lk_cells, self.tile_lookup)


NO_TABLES = Tables(np.zeros(1, np.uint8), np.zeros((0, 1), np.int64), np.zeros(0, np.int64),
                   np.zeros(0, np.int64), np.zeros((0, 1), np.int64), np.zeros((1, 1), np.int64))


def transpose(k: int, cell: int) -> int:
    r, c = divmod(cell, k)
    return c * k + r


def tables_from(k: int, patterns: tuple[tuple[int, ...], ...], tables: list[kernels.Bytes],
                reflect: bool = True) -> Tables:
    """Arrange built tables for the kernel; ``reflect`` adds the diagonal-mirror probes."""
    n = k * k
    groups = (False, True) if reflect else (False,)
    spread = [kernels.spread_table(t, len(p), n) for t, p in zip(tables, patterns, strict=True)]
    offsets = np.cumsum([0] + [t.size for t in spread[:-1]])
    lookups = [(p, mirrored) for mirrored in groups for p in range(len(patterns))]
    lk_tiles = np.zeros((len(lookups), max(map(len, patterns))), np.int64)
    lk_cells = np.zeros((len(lookups), n), np.int64)
    tile_lookup = np.zeros((n, len(groups)), np.int64)
    for j, (p, mirrored) in enumerate(lookups):
        for i, tile in enumerate(patterns[p]):
            lk_tiles[j, i] = transpose(k, tile) if mirrored else tile
            tile_lookup[lk_tiles[j, i], int(mirrored)] = j
        lk_cells[j] = [transpose(k, c) if mirrored else c for c in range(n)]
    return Tables(np.concatenate(spread), lk_tiles,
                  np.array([len(patterns[p]) for p, _ in lookups], np.int64),
                  np.array([offsets[p] for p, _ in lookups], np.int64), lk_cells, tile_lookup)


# -- building


def build_table(k: int, pattern: tuple[int, ...], progress: Any = None) -> kernels.Bytes:
    """Fewest pattern-tile moves home for every placement of ``pattern`` (canonical goal)."""
    n, m = k * k, len(pattern)
    dist = np.full(perm(n, m + 1), kernels.UNSEEN, np.uint8)
    done = np.zeros(dist.size, np.bool_)
    dist[kernels.rank(np.array([*list(pattern), 0], np.int64), m + 1, n)] = 0
    depth = 0
    while True:
        settled, labelled = kernels.expand_layer(dist, done, depth, m, k)
        if progress is not None:
            progress.update(settled)
        if labelled == 0:
            break
        depth += 1
    # blank last in the ranking: the blank's digit is the fastest-changing one
    table: kernels.Bytes = dist.reshape(-1, n - m).min(axis=1)
    return table


def build(directory: Path | None = None, quiet: bool = False) -> Path:
    from tqdm import tqdm

    directory = directory or cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    total = sum(perm(K * K, len(p) + 1) for p in PATTERNS)
    with tqdm(total=total, unit="state", unit_scale=True, desc="15-puzzle 6-6-3 PDB", disable=quiet) as bar:
        tables = [build_table(K, p, bar) for p in PATTERNS]
    path = directory / FILE_NAME
    partial = path.with_suffix(".tmp.npz")
    np.savez(partial, *tables)
    os.replace(partial, path)  # workers never see half a file
    return path


# -- loading (lazily, once per process and folder)


def cache_dir() -> Path:
    return Path(os.environ.get("PUZZLE_CACHE_DIR") or ROOT / "var" / "cache")


_loaded: dict[Path, Tables] = {}


def load() -> Tables | None:
    """The tables from the cache folder, or None if they have not been built there."""
    path = cache_dir() / FILE_NAME
    if path not in _loaded:
        if not path.exists():
            return None
        with np.load(path) as saved:
            tables = [saved[f"arr_{i}"] for i in range(len(PATTERNS))]
        _loaded[path] = tables_from(K, PATTERNS, tables)
    return _loaded[path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solvers.sliding_pdb",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="build the 6-6-3 tables into the cache folder")
    make.add_argument("--dir", type=Path, default=None,
                      help="cache folder (default $PUZZLE_CACHE_DIR or var/cache)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    path = build(args.dir)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
