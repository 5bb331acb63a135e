"""Additive disjoint pattern databases for the 15-puzzle (Korf & Felner's 6-6-3 and 7-8 splits).

    python -m solvers.sliding.pdb build             # 6-6-3: $PUZZLE_CACHE_DIR/sliding_pdb_663.npz
    python -m solvers.sliding.pdb build --pdb 78    # 7-8 (costly: docs/benchmarks.md): sliding_pdb_78.npy

  canonical goal  Korf's: blank in cell 0 and tile t in cell t. A goal with the
                  blank in another corner is brought to it by a frame.
  frame           a mirror of the board (rows and/or columns) plus a relabelling
                  of tiles by their goal cell; moves map back by swapping U/D, L/R.
  pattern         a set of tiles; its table holds, for every placement of those
                  tiles, the fewest moves *of those tiles* that bring them home
                  (the other tiles are indistinguishable and move for free), so
                  the tables of disjoint patterns add up to an admissible bound.
  placement       the cells of a pattern's tiles, in the pattern's order; tables
                  are indexed by its rank (kernels.rank): 16!/(16-m)! entries.
  reflection      the same tables probed through the main-diagonal mirror (tile t
                  at cell c read as tile t' at cell c'): a second admissible sum;
                  the heuristic is the larger of the two.
  database        a split into patterns and its file: ``663`` (the default, 11.5 MB,
                  spread out when loaded) or ``78`` (577 MB, memory-mapped and probed
                  by rank, so every process on a machine shares the page cache's one copy).

The tables are built once per machine, stored in the cache folder (``PUZZLE_CACHE_DIR``,
default ``var/cache`` in the checkout) and loaded lazily, once per process. The 6-6-3 is built by
``ensure`` (a worker's first start runs it in the background; the image has it built in); the 7-8
only on request.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import time
from dataclasses import dataclass
from math import perm
from pathlib import Path
from typing import Any

import numpy as np

from solvers.sliding import pdb_kernels
from solvers.sliding.kernels import Bytes, Ints, rank

K = 4


@dataclass(frozen=True)
class Database:
    patterns: tuple[tuple[int, ...], ...]
    file_name: str
    mapped: bool  # one compact .npy, memory-mapped; else an .npz of tables spread when loaded


DATABASES = {
    "663": Database(((1, 2, 3), (4, 5, 8, 9, 12, 13), (6, 7, 10, 11, 14, 15)), "sliding_pdb_663.npz",
                    mapped=False),
    "78": Database(((1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14, 15)), "sliding_pdb_78.npy",
                   mapped=True),
}
DEFAULT = "663"
ROOT = Path(__file__).resolve().parents[3]  # the checkout: solvers/sliding/pdb/__init__.py


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
    pdb: Bytes       # every pattern's table, one after another (spread, or ranked: compact)
    lk_tiles: Ints   # [lookup, i] = the tile read as the pattern's i-th tile
    lk_size: Ints    # [lookup] = tiles in the pattern
    lk_offset: Ints  # [lookup] = where its table starts in pdb
    lk_cells: Ints   # [lookup, cell] = the cell as the table sees it
    tile_lookup: Ints  # [tile, group] = the lookup that reads the tile
    ranked: bool = False     # tables indexed by rank (kernels.rank) instead of spread

    def arrays(self) -> tuple[Bytes, Ints, Ints, Ints, Ints,
                              Ints, bool]:
        return (self.pdb, self.lk_tiles, self.lk_size, self.lk_offset, self.lk_cells, self.tile_lookup,
                self.ranked)


NO_TABLES = Tables(np.zeros(1, np.uint8), np.zeros((0, 1), np.int64), np.zeros(0, np.int64),
                   np.zeros(0, np.int64), np.zeros((0, 1), np.int64), np.zeros((1, 1), np.int64))


def transpose(k: int, cell: int) -> int:
    r, c = divmod(cell, k)
    return c * k + r


def tables_from(k: int, patterns: tuple[tuple[int, ...], ...], tables: list[Bytes],
                reflect: bool = True) -> Tables:
    """Built tables spread for the kernel (pdb_kernels.spread_table: a move shifts the index by a
    constant); ``reflect`` adds the diagonal-mirror probes."""
    spread = [pdb_kernels.spread_table(t, len(p), k * k) for t, p in zip(tables, patterns, strict=True)]
    return _arranged(k, patterns, np.concatenate(spread), [t.size for t in spread], reflect, ranked=False)


def ranked_tables(k: int, patterns: tuple[tuple[int, ...], ...], pdb: Bytes,
                  reflect: bool = True) -> Tables:
    """Compact tables, one after another in ``pdb`` (as built; memory-mapped for the 7-8), probed by rank."""
    sizes = [perm(k * k, len(p)) for p in patterns]
    assert pdb.size == sum(sizes), f"{pdb.size} bytes for tables of {sizes}"
    return _arranged(k, patterns, pdb, sizes, reflect, ranked=True)


def _arranged(k: int, patterns: tuple[tuple[int, ...], ...], pdb: Bytes, sizes: list[int],
              reflect: bool, ranked: bool) -> Tables:
    n = k * k
    groups = (False, True) if reflect else (False,)
    offsets = np.cumsum([0, *sizes[:-1]])
    lookups = [(p, mirrored) for mirrored in groups for p in range(len(patterns))]
    lk_tiles = np.zeros((len(lookups), max(map(len, patterns))), np.int64)
    lk_cells = np.zeros((len(lookups), n), np.int64)
    tile_lookup = np.zeros((n, len(groups)), np.int64)
    for j, (p, mirrored) in enumerate(lookups):
        for i, tile in enumerate(patterns[p]):
            lk_tiles[j, i] = transpose(k, tile) if mirrored else tile
            tile_lookup[lk_tiles[j, i], int(mirrored)] = j
        lk_cells[j] = [transpose(k, c) if mirrored else c for c in range(n)]
    return Tables(pdb, lk_tiles, np.array([len(patterns[p]) for p, _ in lookups], np.int64),
                  np.array([offsets[p] for p, _ in lookups], np.int64), lk_cells, tile_lookup, ranked)


# -- building


def build_table(k: int, pattern: tuple[int, ...], progress: Any = None) -> Bytes:
    """Fewest pattern-tile moves home for every placement of ``pattern`` (canonical goal), by rank."""
    n, m = k * k, len(pattern)
    w = n - m  # free cells: three w-bit masks per placement (pdb_kernels.pattern_layer)
    words = np.zeros(perm(n, m), np.uint32 if 3 * w <= 32 else np.int64)
    dist = np.full(words.size, pdb_kernels.UNSEEN, np.uint8)
    free = sorted(set(range(n)) - set(pattern))
    words[rank(np.array(pattern, np.int64), m, n)] = 1 << (w + free.index(0))  # blank home
    depth = 0
    while True:
        settled, labelled = pdb_kernels.pattern_layer(words, dist, depth, m, k)
        if progress is not None:
            progress.update(settled)
        if labelled == 0:
            return dist
        depth += 1


def build(directory: Path | None = None, quiet: bool = False, name: str = DEFAULT) -> Path:
    from tqdm import tqdm

    database = DATABASES[name]
    directory = directory or cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    total = sum(perm(K * K, len(p)) for p in database.patterns)
    with tqdm(total=total, unit="placement", unit_scale=True, desc=f"15-puzzle {name} PDB",
              disable=quiet) as bar:
        tables = [build_table(K, p, bar) for p in database.patterns]
    path = directory / database.file_name
    partial = path.with_name(path.stem + ".tmp" + path.suffix)
    if database.mapped:
        np.save(partial, np.concatenate(tables))
    else:
        np.savez(partial, *tables)
    os.replace(partial, path)  # workers never see half a file
    return path


def missing(name: str = DEFAULT) -> bool:
    """Whether the cache folder lacks the database's file."""
    return not (cache_dir() / DATABASES[name].file_name).exists()


def ensure(name: str = DEFAULT) -> Path | None:
    """The database's file, built first if the cache folder lacks it; None while another process
    builds it (a lock file beside it says so), so that many workers starting at once build it once."""
    path = cache_dir() / DATABASES[name].file_name
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        return path if path.exists() else build(path.parent, quiet=True, name=name)


# -- loading (lazily, once per process and folder)


def cache_dir() -> Path:
    return Path(os.environ.get("PUZZLE_CACHE_DIR") or ROOT / "var" / "cache")


_loaded: dict[Path, Tables] = {}


def load(name: str = DEFAULT) -> Tables | None:
    """The database's tables from the cache folder, or None if it has not been built there."""
    database = DATABASES[name]
    path = cache_dir() / database.file_name
    if path not in _loaded:
        if not path.exists():
            return None
        if database.mapped:  # read-only pages of the file: one copy per machine, in the page cache
            _loaded[path] = ranked_tables(K, database.patterns, np.asarray(np.load(path, mmap_mode="r")))
        else:
            with np.load(path) as saved:
                tables = [saved[f"arr_{i}"] for i in range(len(database.patterns))]
            _loaded[path] = tables_from(K, database.patterns, tables)
    return _loaded[path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solvers.sliding.pdb",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="build a database's tables into the cache folder")
    make.add_argument("--pdb", choices=sorted(DATABASES), default=DEFAULT,
                      help=f"which split (default {DEFAULT}; 78 takes ~6 min of CPU and 2.8 GB of memory)")
    make.add_argument("--dir", type=Path, default=None,
                      help="cache folder (default $PUZZLE_CACHE_DIR or var/cache)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    path = build(args.dir, name=args.pdb)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s")
    return 0

