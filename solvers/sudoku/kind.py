"""Sudoku, N x N for N in {4, 9, 16, 25}, after Kim & Kim (2017): pre-processing with
four human techniques, then a greedy search tree, pruned at contradictions.

Glossary
  n          side of the grid; box = sqrt(n); C = n*n cells numbered r*n + c.
  value      1..n; symbol its character: 1-9 then A-P (A = 10 ... P = 25).
  Grid       the validated puzzle: n and the givens (uint8[C], 0 = blank).
  mask       an int with bit v-1 set when value v is possible; cands = one mask per cell.
  unit       a row, column or box; peers of a cell = the other cells of its three units.
  Layout     the per-size tables the kernels use (peers, units, cell_units).

The search tree (the statistics are counted on it, so that greedy and backtrack
can be compared as in the paper):
  node       a grid state the search entered: the root (the puzzle) and every child,
             a copy of its parent with one open cell set to one of its values. In
             ``greedy`` each node is pre-processed (Full House, Naked Single, Hidden
             Single, Naked Pair to a fixed point) before it branches; in ``backtrack``
             nothing is inferred and the children of a node are the values of the
             first open cell in reading order that no placed peer uses.
  leaf       a node without children: a contradiction (greedy), a dead end whose
             cell has no usable value (backtrack), or a complete grid, which is
             checked by the answer verifier and counted as a solution.
  depth      the root is at depth 0, a child one deeper than its parent; in greedy
             depth is the number of guesses on the path, in backtrack the number of
             cells filled. ``max_depth`` is the deepest node entered.
  guesses    children entered whose parent cell had two or more values.
  techniques cells placed (full_house, naked_single, hidden_single) and pairs that
             removed a candidate (naked_pair) during pre-processing, over all nodes.
A search stops once it has ``max_solutions`` solutions, so a larger limit (or
proving uniqueness) enters more nodes.

Strategies: ``auto`` (the default: picks one of the others per puzzle and falls back, see
``plan``), ``fast`` (9x9 only: bit-parallel singles and locked candidates with binary
branching, ``solvers.sudoku_fast``), ``greedy`` (the paper's method), ``backtrack`` (the paper's baseline:
plain recursion in cell order) and ``sat`` (a python-sat solver on a complete
encoding; the cross-check and the outside baseline). ``sat_solver`` picks the SAT
solver: MiniSat 2.2 by default (the fastest here on 9x9), or CaDiCaL 1.9.5, which
takes about half MiniSat's time on the minimal 25x25 puzzles (up to 260,000
conflicts against 450,000), the only data that none of our own trees reach (the
greedy tree needs 200,000 to over 3 million nodes on each). For ``sat`` the statistics are the
solver's: nodes = guesses = decisions, leaves = conflicts + solutions, max_depth = 0 (not reported
by the solver). For ``fast`` nodes are the states propagated, guesses the children entered
(each branch is binary: the cell's lowest value, or not that value), and techniques count naked
and hidden singles only.
``stats.strategy`` names the method that answered; ``stats.abandoned`` lists what ``auto``
tried first and gave up, with its nodes.

``prepare_batch`` takes a whole chunk of wire puzzles: the plain 9x9 strings are read into one
array and their givens checked by one kernel call; the rest go one by one. ``solve_batch``
takes the prepared grids: the 9x9 ones that ``fast`` answers (strategy ``auto`` or ``fast``)
are solved and verified by one kernel call; the rest go one by one.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    WHOLE,
    BadExample,
    BudgetExceeded,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    Options,
    Outcome,
    ParseError,
    Part,
    Plan,
    PuzzleError,
    Settings,
    Split,
    Stats,
    StopFlag,
    Stopwatch,
    WrongAnswer,
    check_stop,
    prepare_each,
    solve_each,
    split_past_budget,
    stop_flag,
)
from solvers.sudoku import fast as fastk
from solvers.sudoku import kernels

Cands = np.ndarray   # int64[C] masks
Values = np.ndarray  # uint8[C] values, 0 = blank

SIZES = (4, 9, 16, 25)
SYMBOLS = "123456789ABCDEFGHIJKLMNOP"
BLANKS = ".0"
TECHNIQUES = ("full_house", "naked_single", "hidden_single", "naked_pair")
MAX_SOLUTIONS = 10_000_000
MAX_SAT_SOLUTIONS = 10_000  # sat enumerates with one blocking clause per solution
MAX_PARTS = 1024
NO_LIMIT = 2**63 - 1
BACKTRACK_MAX_N = 9  # plain recursion without inference can run for days on 16x16
SAT_SOLVERS = ("minisat22", "cadical195")  # python-sat names
STRATEGIES = ("auto", "fast", "greedy", "backtrack", "sat")
FAST_N = 9
# auto: SAT first when fewer cells than this share are given, otherwise greedy first with this
# many nodes before SAT (CaDiCaL) takes over. Measured: Janko's 16x16 (38-50% given) take greedy
# one node; every 25x25 of Gecode's (43-45%) takes greedy 10 s or more and CaDiCaL 0.1-15 s.
AUTO_SAT_FIRST_BELOW = {16: 0.3, 25: 0.6}
AUTO_GREEDY_NODES = {16: 20_000, 25: 2_000}
AUTO_SAT_SOLVER = "cadical195"
SAT_CHECK_CONFLICTS = 20_000  # a stop flag is looked at between runs of this many conflicts

_NOT_A_SYMBOL = 255
_codes = bytearray([_NOT_A_SYMBOL]) * 256
for _v, _s in enumerate(SYMBOLS, start=1):
    _codes[ord(_s)] = _codes[ord(_s.lower())] = _v
for _s in BLANKS:
    _codes[ord(_s)] = 0
_SYMBOL_CODES = bytes(_codes)
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


# -- parse: wire form -> Grid


def parse(puzzle: Any) -> Grid:
    if isinstance(puzzle, str):
        return _parse_text(puzzle)
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


def _parse_text(text: str) -> Grid:
    cells = "".join(text.split())
    n = _size_of(len(cells))
    try:
        codes = np.frombuffer(cells.encode("ascii").translate(_SYMBOL_CODES), np.uint8)
    except UnicodeEncodeError:
        codes = np.array([_SYMBOL_CODES[ord(ch)] if ord(ch) < 128 else _NOT_A_SYMBOL for ch in cells],
                         np.uint8)
    if codes.max() > n:
        cell = int(np.argmax(codes > n))
        ch = cells[cell]
        if codes[cell] == _NOT_A_SYMBOL:
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


# -- validate


def validate(grid: Grid, options: Options) -> None:
    strategy = options["strategy"]
    if strategy == "backtrack" and grid.n > BACKTRACK_MAX_N:
        raise InvalidOption(f"strategy 'backtrack' (plain recursion, the paper's baseline) is offered up to "
                            f"9x9; a {grid.n}x{grid.n} grid needs 'greedy' or 'sat'")
    if strategy == "fast" and grid.n != FAST_N:
        raise InvalidOption(f"strategy 'fast' is for 9x9 grids; a {grid.n}x{grid.n} grid needs 'auto', "
                            f"'greedy' or 'sat'")
    if strategy != "sat" and options["sat_solver"] != SAT_SOLVERS[0]:
        raise InvalidOption(f"option 'sat_solver' applies to strategy 'sat' only, not {strategy!r}")
    if strategy == "sat" and options["max_solutions"] > MAX_SAT_SOLUTIONS:
        raise InvalidOption(f"strategy 'sat' adds one clause per solution it finds, so max_solutions must be "
                            f"at most {MAX_SAT_SOLUTIONS} with it; use 'greedy' to count more")
    lay = layout(grid.n)
    cell, other = kernels.first_conflict(grid.givens, lay.peers)
    if cell >= 0:
        n = grid.n
        symbol = SYMBOLS[grid.givens[cell] - 1]
        if cell // n == other // n:
            seen = f"row {cell // n + 1} (column {other % n + 1})"
        elif cell % n == other % n:
            seen = f"column {cell % n + 1} (row {other // n + 1})"
        else:
            box = lay.cell_units[cell, 2] - 2 * n + 1
            seen = f"box {box} ({where(other, n)})"
        raise InvalidPuzzle(f"{where(cell, n)}: '{symbol}' already appears in {seen}")


# -- solve


@dataclass
class SudokuStats(Stats):
    nodes: int = 0
    leaves: int = 0
    max_depth: int = 0
    guesses: int = 0
    techniques: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TECHNIQUES, 0))
    strategy: str = ""
    abandoned: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = dict(vars(self))  # dataclasses.asdict deep-copies and costs more than the search
        out["techniques"] = dict(self.techniques)
        out["abandoned"] = [dict(a) for a in self.abandoned]
        return out

    @classmethod
    def from_counters(cls, counters: np.ndarray, elapsed_ms: float, strategy: str) -> SudokuStats:
        c = counters.tolist()
        k = kernels
        return cls(elapsed_ms=elapsed_ms, nodes=c[k.NODES], leaves=c[k.LEAVES], max_depth=c[k.MAX_DEPTH],
                   guesses=c[k.GUESSES],
                   techniques={"full_house": c[k.FULL_HOUSE], "naked_single": c[k.NAKED_SINGLE],
                               "hidden_single": c[k.HIDDEN_SINGLE], "naked_pair": c[k.NAKED_PAIR]},
                   strategy=strategy)


def fast_stats(nodes: int, leaves: int, max_depth: int, guesses: int, naked: int, hidden: int,
               elapsed_ms: float) -> dict[str, Any]:
    """The stats dict of a ``fast`` search from its kernel counters, in ``sudoku_fast``'s counter
    order (built directly: batches make many)."""
    return {"elapsed_ms": elapsed_ms, "subtasks": 0, "nodes": nodes, "leaves": leaves, "max_depth": max_depth,
            "guesses": guesses,
            "techniques": {"full_house": 0, "naked_single": naked, "hidden_single": hidden, "naked_pair": 0},
            "strategy": "fast", "abandoned": []}


def render(values: np.ndarray) -> str:
    """The symbols of ``values`` (0 blank) as text; bytes.translate is the cheapest way over a chunk."""
    return np.asarray(values, np.uint8).tobytes().translate(_VALUE_CHARS).decode("ascii")


def _result(first: str | None, found: int, max_solutions: int) -> dict[str, Any] | None:
    if not found:
        return None
    # only an exhausted search proves uniqueness, and it is exhausted only below the limit
    return {"solution": first, "unique": found == 1 and max_solutions > 1, "solutions_found": found}


def _outcome(first: str | None, found: int, options: Options, stats: SudokuStats) -> Outcome:
    return Outcome(SOLVED if found else NO_SOLUTION, _result(first, found, options["max_solutions"]),
                   stats.as_dict())


def _search(grid: Grid, cands: Cands, depth: int, options: Options, node_limit: int | None,
            watch: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    lay = layout(grid.n)
    solution = np.zeros(grid.n * grid.n, np.uint8)
    counters = np.zeros(kernels.STATS_LEN, np.int64)
    limit = NO_LIMIT if node_limit is None else node_limit
    stop = stop_flag() if stop is None else stop
    found = kernels.search(cands, depth, options["strategy"] == "greedy", options["max_solutions"], limit,
                     lay.full, lay.peers, lay.units, lay.cell_units, solution, counters, stop)
    if found == kernels.BUDGET_EXCEEDED:
        raise BudgetExceeded(int(counters[kernels.NODES]))
    check_stop(stop)
    first = render(solution) if found else None
    stats = SudokuStats.from_counters(counters, watch.ms(), options["strategy"])
    return _outcome(first, found, options, stats)


def solve(grid: Grid, options: Options, node_limit: int | None = None,
          stop: StopFlag | None = None) -> Outcome:
    """Solve from the givens; raise BudgetExceeded after ``node_limit`` nodes (greedy, backtrack)
    and Stopped once ``stop`` is set (SAT looks at it every SAT_CHECK_CONFLICTS conflicts).
    ``fast`` ignores ``node_limit`` (it needs no splitting); ``auto`` holds its tree searches to it
    (so that the worker splits the greedy tree past its budget, see ``tree_options``), and SAT
    to none."""
    watch = Stopwatch()
    strategy = options["strategy"]
    if strategy == "auto":
        return _solve_auto(grid, options, node_limit, watch, stop)
    if strategy == "fast":
        return _solve_fast(grid, options, watch, stop)
    if strategy == "sat":
        return _solve_sat(grid, options, watch, stop)
    cands = kernels.initial_cands(grid.givens, layout(grid.n).full)
    return _search(grid, cands, 0, options, node_limit, watch, stop)


def plan(grid: Grid, options: Options) -> list[tuple[Options, int | None]]:
    """What ``auto`` runs, in order: (options of a named strategy, its node budget or None).

    9x9: ``fast``. 4x4: ``greedy``. 16x16 and 25x25: CaDiCaL first when few cells are given
    (AUTO_SAT_FIRST_BELOW), else ``greedy`` under AUTO_GREEDY_NODES, then CaDiCaL. Counting
    beyond what SAT enumerates (MAX_SAT_SOLUTIONS) stays with the tree search, unbudgeted.
    """
    n = grid.n
    if n == FAST_N:
        return [({**options, "strategy": "fast"}, None)]
    greedy: Options = {**options, "strategy": "greedy"}
    if not _sat_may_follow(grid, options):
        return [(greedy, None)]
    sat: Options = {**options, "strategy": "sat", "sat_solver": AUTO_SAT_SOLVER}
    if _sat_first(grid, options):
        return [(sat, None)]
    return [(greedy, AUTO_GREEDY_NODES[n]), (sat, None)]


def _sat_may_follow(grid: Grid, options: Options) -> bool:
    """``plan`` has a SAT step: a size it budgets, and a count SAT enumerates."""
    return grid.n in AUTO_GREEDY_NODES and options["max_solutions"] <= MAX_SAT_SOLUTIONS


def _sat_first(grid: Grid, options: Options) -> bool:
    """``plan`` runs SAT first: few cells given on a size it budgets (AUTO_SAT_FIRST_BELOW)."""
    n = grid.n
    return (n != FAST_N and _sat_may_follow(grid, options)
            and int(np.count_nonzero(grid.givens)) < AUTO_SAT_FIRST_BELOW[n] * n * n)


def _solve_auto(grid: Grid, options: Options, node_limit: int | None, watch: Stopwatch,
                stop: StopFlag | None) -> Outcome:
    """Run ``plan``'s steps until one answers; a tree search past the caller's ``node_limit``
    raises BudgetExceeded (a step past its own budget is abandoned for the next)."""
    abandoned: list[dict[str, Any]] = []
    steps = plan(grid, options)
    limit = NO_LIMIT if node_limit is None else node_limit
    for opts, budget in steps:
        mine = NO_LIMIT if budget is None else budget
        try:
            outcome = solve(grid, opts, node_limit=min(mine, limit), stop=stop)
        except BudgetExceeded as exc:
            if mine > limit:
                raise
            abandoned.append({"strategy": opts["strategy"], "nodes": exc.nodes, "elapsed_ms": watch.ms()})
            continue
        if outcome.stats["strategy"] == "fast" and outcome.stats["nodes"] > limit:
            raise BudgetExceeded(outcome.stats["nodes"])
        break
    outcome.stats["abandoned"] = abandoned
    outcome.stats["elapsed_ms"] = watch.ms()
    return outcome


def _solve_fast(grid: Grid, options: Options, watch: Stopwatch, stop: StopFlag | None) -> Outcome:
    """A 9x9 search takes milliseconds at most: the stop flag is looked at once, at the end."""
    solution = np.zeros((1, grid.n * grid.n), np.uint8)
    counters = np.zeros(fastk.COUNTERS, np.int64)
    found = fastk.solve_one(grid.givens.reshape(1, -1), options["max_solutions"], True, solution, counters)
    nodes, leaves, depth, guesses, naked, hidden = counters.tolist()
    stats = fast_stats(nodes, leaves, depth, guesses, naked, hidden, watch.ms())
    check_stop(stop)
    return Outcome(SOLVED if found else NO_SOLUTION, _result(render(solution[0]) if found else None, found,
                                                             options["max_solutions"]), stats)


def sat_encoding(grid: Grid) -> tuple[dict[tuple[int, int], int], list[list[int]]]:
    """The complete (extended) CNF encoding: (variable of each (cell, value - 1), clauses).

    One variable per candidate left after removing the givens' values from their
    peers; each cell and each (unit, value) gets at-least-one and pairwise
    at-most-one clauses.
    """
    n, lay = grid.n, layout(grid.n)
    values = grid.givens.astype(np.int64)
    given_bits = np.where(values > 0, 1 << np.maximum(values - 1, 0), 0)
    taken = np.bitwise_or.reduce(given_bits[lay.peers], axis=1)
    cands = np.where(values > 0, given_bits, lay.full & ~taken).tolist()
    var: dict[tuple[int, int], int] = {}
    for cell, m in enumerate(cands):
        for v in range(n):
            if m >> v & 1:
                var[cell, v] = len(var) + 1
    groups = [[var[cell, v] for v in range(n) if (cell, v) in var] for cell in range(n * n)]
    groups += [[var[cell, v] for cell in unit if (cell, v) in var]
               for unit in lay.units.tolist() for v in range(n)]
    clauses: list[list[int]] = []
    for group in groups:
        clauses.append(group)
        clauses.extend([-a, -b] for i, a in enumerate(group) for b in group[i + 1:])
    return var, clauses


def _solve_sat(grid: Grid, options: Options, watch: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    """Enumerate solutions with the chosen SAT solver on ``sat_encoding``; every solution found
    is blocked before the next call."""
    from pysat.solvers import Solver

    n = grid.n
    var, clauses = sat_encoding(grid)
    decode = sorted(var.items(), key=lambda kv: kv[1])
    first, found = None, 0
    with Solver(name=options["sat_solver"], bootstrap_with=clauses) as sat:
        while found < options["max_solutions"] and _sat_solve(sat, stop):
            model = sat.get_model()
            chosen = [v for v in model[:len(var)] if v > 0]
            if first is None:
                solution = np.zeros(n * n, np.uint8)
                for (cell, v), _ in (decode[x - 1] for x in chosen):
                    solution[cell] = v + 1
                first = render(solution)
            found += 1
            sat.add_clause([-x for x in chosen])
        counts = sat.accum_stats()
    check_stop(stop)
    stats = SudokuStats(elapsed_ms=watch.ms(), nodes=counts["decisions"], guesses=counts["decisions"],
                        leaves=counts["conflicts"] + found, strategy="sat")
    return _outcome(first, found, options, stats)


def _sat_solve(sat: Any, stop: StopFlag | None) -> bool:
    """``sat.solve()`` in runs of SAT_CHECK_CONFLICTS conflicts, raising Stopped between runs once
    ``stop`` is set (and letting a signal handler, such as a time limit, run between them)."""
    while True:
        sat.conf_budget(SAT_CHECK_CONFLICTS)
        answer = sat.solve_limited()
        if answer is not None:
            return bool(answer)
        check_stop(stop)


# -- split and merge: the greedy (or backtrack) tree cut breadth-first


@dataclass
class _Entry:
    """A frontier entry, left to right in the order the depth-first search meets it."""

    depth: int
    cands: Cands | None = None   # an open node, not yet entered
    solution: str | None = None  # a complete grid found while expanding


def tree_options(grid: Grid, options: Options) -> Options | None:
    """The options of the tree that ``split`` cuts and ``solve_part`` searches, or None when the
    puzzle is solved whole: ``sat`` has no tree of ours, ``fast`` needs no splitting, and ``auto``
    (which the worker's node budget does not split, see ``solve``) cuts the greedy tree when it
    is asked for parts, unless it goes to SAT first."""
    if not _has_tree(grid, options):
        return None
    return {**options, "strategy": "greedy"} if options["strategy"] == "auto" else options


def _has_tree(grid: Grid, options: Options) -> bool:
    """``tree_options`` is not None (asked of every puzzle of a chunk, so no options are built)."""
    strategy = options["strategy"]
    return strategy in ("greedy", "backtrack") or (strategy == "auto" and not _sat_first(grid, options))


def split_plan(grid: Grid, options: Options, settings: Settings) -> Plan:
    """A puzzle with a tree to cut (``tree_options``) is split past the node budget or as
    ``split`` asks; the others (sat, fast, auto going to SAT first) run whole."""
    if not _has_tree(grid, options):
        return WHOLE
    return split_past_budget(grid, options, settings)


def split(grid: Grid, options: Options, k: int) -> Split:
    """Expand the tree breadth-first until at least ``k`` open nodes (at most MAX_PARTS).

    Parts keep the depth-first order: the whole search's first solution is the first
    one met reading the head, then the parts, left to right. Solutions found above
    the cut that precede every open node stay in the head; the others become parts
    ``{"solution", "depth"}`` so that they keep their place. Without a tree to cut
    (``tree_options``) the head is the whole outcome and there are no parts.
    """
    watch = Stopwatch()
    tree = tree_options(grid, options)
    if tree is None:
        return Split([], solve(grid, options))
    options = tree
    lay = layout(grid.n)
    greedy = options["strategy"] == "greedy"
    counters = np.zeros(kernels.STATS_LEN, np.int64)
    order = np.empty(grid.n, np.int64)
    frontier = [_Entry(0, cands=kernels.initial_cands(grid.givens, lay.full))]
    wanted = min(max(k, 1), MAX_PARTS)
    n_open = 1
    while 0 < n_open < wanted:
        level = min(e.depth for e in frontier if e.cands is not None)
        expanded = []
        for entry in frontier:
            if entry.cands is None or entry.depth != level or n_open >= wanted:
                expanded.append(entry)
                continue
            n_open -= 1
            c = entry.cands
            status, cell, n_children = kernels.expand(c, greedy, entry.depth, lay.full, lay.peers, lay.units,
                                                lay.cell_units, order, counters)
            if status == kernels.COMPLETE:
                values = np.array([kernels.bit_value(m) for m in c])
                expanded.append(_Entry(entry.depth, solution=render(values)))
            elif status == kernels.BRANCH:
                if n_children > 1:
                    counters[kernels.GUESSES] += n_children
                for b in order[:n_children]:
                    child = c.copy()
                    child[cell] = b
                    expanded.append(_Entry(entry.depth + 1, cands=child))
                n_open += n_children
        frontier = expanded
    return _cut(frontier, options, SudokuStats.from_counters(counters, watch.ms(), options["strategy"]))


def _cut(frontier: list[_Entry], options: Options, stats: SudokuStats) -> Split:
    prefix = 0
    while prefix < len(frontier) and frontier[prefix].solution is not None:
        prefix += 1
    found = min(prefix, options["max_solutions"])
    head = _outcome(frontier[0].solution if found else None, found, options, stats)
    if found == options["max_solutions"]:
        return Split([], head)
    parts = [{"depth": e.depth, "solution": e.solution} if e.solution is not None
             else {"depth": e.depth, "cands": _open(e).tolist()} for e in frontier[prefix:]]
    return Split(parts, head)


def _open(entry: _Entry) -> Cands:
    assert entry.cands is not None, "a frontier entry is an open node or a solution"
    return entry.cands


def solve_part(grid: Grid, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    """Search one part; its max_depth is counted from the whole tree's root."""
    watch = Stopwatch()
    greedy = (tree_options(grid, options) or options)["strategy"] == "greedy"
    depth = part.get("depth")
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"a sudoku part needs a depth >= 0, not {depth!r}")
    if part.get("solution") is not None:
        check_stop(stop)
        stats = SudokuStats(elapsed_ms=watch.ms(), max_depth=depth,
                            strategy="greedy" if greedy else "backtrack")
        return _outcome(part["solution"], 1, options, stats)
    cands = np.array(part.get("cands"), np.int64)
    lay = layout(grid.n)
    # masks in 1..full keep every kernel stack within its proved size
    if cands.shape != (grid.n * grid.n,) or cands.min() < 1 or cands.max() > lay.full:
        raise ValueError("a sudoku part needs 'cands': one candidate mask per cell, each in 1..2^n-1")
    return _search(grid, cands, depth, {**options, "strategy": "greedy" if greedy else "backtrack"}, None,
                   watch, stop)


def merge(grid: Grid, options: Options, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    first = head.result["solution"] if head.result else None
    found = head.result["solutions_found"] if head.result else 0
    stats = SudokuStats(**{**head.stats, "techniques": dict(head.stats["techniques"])})
    for out in outcomes:
        if out.status == SOLVED and out.result is not None:
            first = first or out.result["solution"]
            found += out.result["solutions_found"]
        for name in ("nodes", "leaves", "guesses", "elapsed_ms"):
            setattr(stats, name, getattr(stats, name) + out.stats[name])
        stats.max_depth = max(stats.max_depth, out.stats["max_depth"])
        for name in TECHNIQUES:
            stats.techniques[name] += out.stats["techniques"][name]
    stats.subtasks = len(outcomes)
    stats.elapsed_ms = round(stats.elapsed_ms, 3)
    return _outcome(first, min(found, options["max_solutions"]), options, stats)


# -- cost: seconds for a typical puzzle of this size and strategy (bench/sudoku.py)

_COST = {"auto": {4: 2e-5, 9: 2e-5, 16: 2e-4, 25: 5.0},
         "fast": {9: 2e-5},
         "greedy": {4: 2e-5, 9: 1e-4, 16: 2e-4, 25: 10.0},
         "backtrack": {4: 1e-4, 9: 3e-2},
         "sat": {4: 1e-3, 9: 4e-3, 16: 1.5e-2, 25: 5.0}}


def cost(grid: Grid, options: Options) -> float:
    # Counting many solutions costs about a microsecond per solution on top.
    extra = options["max_solutions"] * 1e-6 if options["max_solutions"] > 2 else 0.0
    return _COST[options["strategy"]][grid.n] + extra


# -- verify: an independent check of a claimed answer


def verify(grid: Grid, options: Options, outcome: Outcome) -> None:
    """Raise WrongAnswer unless the outcome is consistent with the puzzle.

    A solution is checked completely: its length and symbols, the givens kept, and
    every row, column and box a permutation of 1..n; ``unique`` must agree with
    ``solutions_found`` and ``max_solutions``. What needs a search is not redone
    here: that a ``no_solution`` puzzle has none, and the exact count of solutions
    (the tests cross-check those against the ``sat`` strategy and known counts).
    """
    if outcome.status == NO_SOLUTION:
        if outcome.result is not None:
            raise WrongAnswer("a no_solution outcome carries no result")
        return
    if outcome.status != SOLVED:
        raise WrongAnswer(f"unknown status {outcome.status!r}")
    result = outcome.result
    if not isinstance(result, dict) or set(result) != {"solution", "unique", "solutions_found"}:
        raise WrongAnswer(f"a solved sudoku result has solution, unique and solutions_found; got {result!r}")
    found, unique = result["solutions_found"], result["unique"]
    if isinstance(found, bool) or not isinstance(found, int) or not 1 <= found <= options["max_solutions"]:
        raise WrongAnswer(f"solutions_found must be 1..{options['max_solutions']}, not {found!r}")
    if unique is not (found == 1 and options["max_solutions"] > 1):
        raise WrongAnswer(f"unique={unique!r} contradicts solutions_found={found}")
    _check_solution(grid, result["solution"])


def _check_solution(grid: Grid, solution: Any) -> None:
    n = grid.n
    if not isinstance(solution, str) or len(solution) != n * n:
        raise WrongAnswer(f"the solution must be a string of {n * n} symbols")
    try:
        values = _parse_text(solution).givens
    except ParseError as exc:
        raise WrongAnswer(f"the solution is unreadable: {exc}") from None
    fault, at = kernels.check_solution(grid.givens, values, layout(n).units)
    if fault == kernels.BLANK_CELL:
        raise WrongAnswer(f"the solution leaves {where(at, n)} blank")
    if fault == kernels.CHANGED_GIVEN:
        raise WrongAnswer(f"the solution changes the given at {where(at, n)}")
    if fault == kernels.REPEATED_VALUE:
        raise WrongAnswer(f"{('row', 'column', 'box')[at // n]} {at % n + 1} of the solution repeats a value")


# -- prepare_batch: a chunk of wire puzzles, the plain 9x9 strings read and checked in one go


def prepare_batch(puzzles: Sequence[Any], options: Options) -> list[Grid | PuzzleError]:
    """What ``prepare_with`` makes of each wire puzzle: its Grid, or the PuzzleError it raises.

    The plain 9x9 strings (``_read_9x9``) are read into one array and their givens checked by one
    kernel call; the Grid of each one that passes holds a row of that array, read-only (as
    ``parse`` makes a string's givens, a view of its bytes). Every other puzzle, every one found bad,
    and all of them when the options do not suit a 9x9 grid go through ``prepare_with`` itself,
    so that each error is its own.
    """
    try:
        validate(Grid(FAST_N, np.zeros(FAST_N * FAST_N, np.uint8)), options)  # the options, for 9x9
    except PuzzleError:
        return prepare_each(KIND, puzzles, options)
    rows, givens = _read_9x9(puzzles)
    givens.flags.writeable = False
    bad = kernels.conflicting_rows(givens, layout(FAST_N).peers)
    if len(rows) == len(puzzles) and not bad.any():  # the usual chunk
        return [Grid(FAST_N, row) for row in givens]
    out: list[Grid | PuzzleError | None] = [None] * len(puzzles)
    for i, row, conflict in zip(rows, givens, bad.tolist(), strict=True):
        out[i] = None if conflict else Grid(FAST_N, row)
    for i, grid in enumerate(out):
        if grid is None:
            out[i] = prepare_each(KIND, [puzzles[i]], options)[0]
    return out  # type: ignore[return-value]  # every slot is filled above


# -- solve_batch: a chunk of prepared puzzles, the 9x9 ones in one kernel call


def solve_batch(grids: Sequence[Grid], options: Options) -> list[Outcome]:
    """One verified outcome per prepared puzzle (``prepare_batch``, ``prepare_with``).

    With strategy ``auto`` or ``fast`` the givens of the 9x9 grids are stacked into one array, and
    one call of ``sudoku_fast.solve_batch`` solves them and verifies each solution with
    ``verify``'s own check (the result fields are made by the same ``_result`` as ``solve``'s);
    ``elapsed_ms`` is the chunk's time shared equally. Any other grid or strategy is solved and
    verified one by one. The kernel also checks the givens: that it finds a prepared grid's
    contradictory, which ``validate`` let pass, is a bug of one of the two, raised as WrongAnswer
    like a solution that fails the check (never the user's fault: a grid with givens that
    contradict each other is not prepared).
    """
    if options["strategy"] not in ("auto", "fast"):
        return solve_each(KIND, grids, options)
    watch = Stopwatch()
    out: list[Outcome | None] = [None] * len(grids)
    rows = [i for i, grid in enumerate(grids) if grid.n == FAST_N]
    if len(rows) < len(grids):
        others = sorted(set(range(len(grids))) - set(rows))
        for i, outcome in zip(others, solve_each(KIND, [grids[i] for i in others], options), strict=True):
            out[i] = outcome
    batch = len(rows)
    cells = FAST_N * FAST_N
    # concatenate: np.stack costs three times as much on a chunk of rows
    givens = np.concatenate([grids[i].givens for i in rows] or [np.zeros(0, np.uint8)]).reshape(batch, cells)
    solutions = np.zeros((batch, cells), np.uint8)
    found = np.zeros(batch, np.int64)
    counters = np.zeros((batch, fastk.COUNTERS), np.int64)
    faults = np.zeros((batch, 3), np.int64)
    fastk.solve_batch(givens, options["max_solutions"], True, solutions, found, counters, faults)
    faulty = np.flatnonzero(faults[:, 0])
    if faulty.size:
        j = int(faulty[0])
        raise _fault(rows[j], faults[j].tolist())
    texts = render(solutions)
    share = round(watch.ms() / max(batch, 1), 4)
    # The loop below makes a handful of small containers per puzzle and no cycles; with the
    # collector on, its passes over them cost about as much as the search of an easy puzzle.
    collecting = gc.isenabled()
    gc.disable()
    try:
        _fill(out, rows, texts, found, counters, options, share)
    finally:
        if collecting:
            gc.enable()
    return out  # type: ignore[return-value]  # every slot is filled above or in _fill


def _fault(i: int, fault: list[int]) -> WrongAnswer:
    """The batch kernel's fault (kind, cell or check, peer or unit) on puzzle ``i`` of the batch."""
    kind, at, other = fault
    if kind == fastk.CONFLICT:
        return WrongAnswer(f"puzzle {i} of the batch: the kernel finds its givens contradictory "
                           f"({where(at, FAST_N)} against {where(other, FAST_N)}), which validate let pass")
    return WrongAnswer(f"puzzle {i} of the batch: fault {at} at {other} in the solution")


def _fill(out: list[Outcome | None], rows: list[int], texts: str, found: np.ndarray, counters: np.ndarray,
          opts: Options, share: float) -> None:
    """The outcomes of the batch kernel's rows into their puzzles' slots of ``out``: one
    comprehension over all rows (a loop with a test per row costs a noticeable share of an easy
    puzzle)."""
    max_solutions = opts["max_solutions"]
    cells = FAST_N * FAST_N
    outcomes = [Outcome(SOLVED if n_found else NO_SOLUTION,
                        _result(texts[j * cells:(j + 1) * cells], n_found, max_solutions),
                        fast_stats(nodes, leaves, depth, guesses, naked, hidden, share))
                # the counters by column: zip then makes no list per row
                for j, n_found, nodes, leaves, depth, guesses, naked, hidden
                in zip(range(len(rows)), found.tolist(), *counters.T.tolist(), strict=True)]
    if len(rows) == len(out):
        out[:] = outcomes
        return
    for i, outcome in zip(rows, outcomes, strict=True):
        out[i] = outcome


def _read_9x9(puzzles: Sequence[Any]) -> tuple[list[int], np.ndarray]:
    """(indices, uint8[len(indices), 81] givens) of the puzzles that are plain 81-symbol 9x9
    strings; everything else (other sizes, rows, whitespace, bad symbols) is left to ``prepare_with``."""
    cells = FAST_N * FAST_N
    text = ""
    if set(map(type, puzzles)) == {str} and set(map(len, puzzles)) == {cells}:  # the usual chunk
        text = "".join(puzzles)
    if text.isascii() and len(text) == cells * len(puzzles):
        plain = list(range(len(puzzles)))
    else:
        plain = [i for i, p in enumerate(puzzles) if type(p) is str and len(p) == cells and p.isascii()]
        text = "".join([puzzles[i] for i in plain])
    if not plain:
        return [], np.zeros((0, cells), np.uint8)
    codes = np.frombuffer(text.encode("ascii").translate(_SYMBOL_CODES), np.uint8).reshape(len(plain), cells)
    good = codes.max(axis=1) <= FAST_N
    if good.all():
        return plain, codes
    return [i for i, ok in zip(plain, good.tolist(), strict=False) if ok], codes[good]


# -- the record


EXAMPLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"

KIND = Kind(
    name="sudoku",
    summary="Sudoku 4x4, 9x9, 16x16 and 25x25: by default a fast bit-parallel solver (9x9) or the "
            "greedy tree of Kim & Kim (2017) with four human techniques falling back to a SAT solver; "
            "also plain backtracking; counts solutions up to a limit.",
    input_format="a string of n*n cells (n = 4, 9, 16, 25), row by row: 1-9 then A-P for values "
                 "10-25, '.' or '0' blank, whitespace ignored; or a list of n rows of n ints, 0 blank",
    options=(
        Option("strategy", str, "auto",
               "auto = fast for 9x9; greedy for 4x4; for 16x16 and 25x25 greedy under a node budget, then "
               "the SAT solver CaDiCaL where it runs out, or CaDiCaL first when few cells are given "
               "(stats.strategy names the method that answered, stats.abandoned what was given up); "
               "fast = bit-parallel singles and locked candidates, 9x9 only; greedy = the paper's "
               "pre-processing and greedy tree; backtrack = plain recursion in cell order (the paper's "
               "baseline, up to 9x9); sat = a SAT solver on a complete CNF encoding",
               choices=STRATEGIES),
        Option("sat_solver", str, SAT_SOLVERS[0],
               "the python-sat solver of strategy 'sat': minisat22 (MiniSat 2.2) or cadical195 "
               "(CaDiCaL 1.9.5, about twice as fast as MiniSat on the hardest 25x25 puzzles)",
               choices=SAT_SOLVERS),
        Option("max_solutions", int, 2,
               "stop after this many solutions: 2 proves uniqueness, a large value counts them "
               f"(sat: at most {MAX_SAT_SOLUTIONS})", minimum=1, maximum=MAX_SOLUTIONS),
        Option("split", int, None,
               "how many open tree nodes the coordinator may fan out as subtasks (greedy, backtrack and "
               "auto's greedy tree; sat and fast run whole); 0 = never, null = automatic",
               minimum=0, maximum=MAX_PARTS),
    ),
    result_fields={
        "solution": "the first solution found, n*n symbols",
        "unique": "true when the search proved it is the only solution (needs max_solutions >= 2)",
        "solutions_found": "solutions found, at most max_solutions",
    },
    stats_fields={
        "nodes": "search-tree nodes entered (root included)",
        "leaves": "nodes without children: contradictions, dead ends and solutions",
        "max_depth": "depth of the deepest node (root 0; greedy: guesses on the path)",
        "guesses": "children entered at a cell with two or more values",
        "techniques": "cells placed by full_house, naked_single, hidden_single; naked_pair eliminations",
        "subtasks": "parts the puzzle was split into (0 = solved whole)",
        "strategy": "the method that answered: fast, greedy, backtrack or sat",
        "abandoned": "what auto tried first and gave up: [{strategy, nodes, elapsed_ms}]",
        "elapsed_ms": "solver time in milliseconds (summed over parts)",
    },
    parse=parse,
    validate=validate,
    solve=solve,
    verify=verify,
    cost=cost,
    plan=split_plan,
    split=split,
    solve_part=solve_part,
    merge=merge,
    prepare_batch=prepare_batch,
    solve_batch=solve_batch,
    examples=(
        Example(EXAMPLE),
        Example("1.3..4.22..3..2.", {"strategy": "backtrack"}),
        Example([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], {"max_solutions": 1000}),
        Example("." * 16, {"strategy": "greedy", "max_solutions": 1000}),
        Example("1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4.",
                status=NO_SOLUTION),
        Example("8.........95.......76.........426798...571243...893165......916....3.487....1.532",
                {"strategy": "sat", "max_solutions": 10}),
        Example(EXAMPLE, {"strategy": "sat", "sat_solver": "cadical195"}),
    ),
    bad_examples=(
        BadExample("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..7"),
        BadExample("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..7x"),
        BadExample("55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
                   error=InvalidPuzzle),
        BadExample([[1, 2], [3, 4]]),
        BadExample(EXAMPLE, {"max_solutions": 0}, error=InvalidOption),
        BadExample(EXAMPLE, {"sat_solver": "cadical195"}, error=InvalidOption),
    ),
)
