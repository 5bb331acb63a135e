"""Sudoku, n x n for n in {4, 9, 16, 25}: the kind's record, its options, validation, the
independent check of an answer, and cost. The grid is grid.py's; the strategies are
solve.py's (the source's method, the greedy tree of Kim & Kim (2017), is tree.py's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    BadExample,
    Estimate,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    Options,
    Outcome,
    Outcomes,
    ParseError,
    Plan,
    PuzzleError,
    Settings,
    StopFlag,
    WrongAnswer,
    prepare_each,
    solve_each,
)
from solvers.sudoku import batch, checks, explain, hint, kernels, making, sat, solve, tree
from solvers.sudoku.grid import SYMBOLS, Grid, layout, parse, parse_text, where
from solvers.sudoku.predict import predict, shared_prediction
from solvers.sudoku.solve import BACKTRACK_MAX_N, FAST_N, STRATEGIES

MAX_SOLUTIONS = 10_000_000


def validate(grid: Grid, options: Options) -> None:
    chosen = options["strategy"]
    if chosen == "backtrack" and grid.n > BACKTRACK_MAX_N:
        raise InvalidOption(f"strategy 'backtrack' (plain recursion, the paper's baseline) is offered up to "
                            f"9x9; a {grid.n}x{grid.n} grid needs 'greedy' or 'sat'")
    if chosen == "fast" and grid.n != FAST_N:
        raise InvalidOption(f"strategy 'fast' is for 9x9 grids; a {grid.n}x{grid.n} grid needs 'auto', "
                            f"'greedy' or 'sat'")
    if chosen != "sat" and options["sat_solver"] != sat.SOLVERS[0]:
        raise InvalidOption(f"option 'sat_solver' applies to strategy 'sat' only, not {chosen!r}")
    explain.validate(grid, options)
    if chosen == "sat" and options["max_solutions"] > sat.MAX_SOLUTIONS:
        raise InvalidOption(f"strategy 'sat' adds one clause per solution it finds, so max_solutions must be "
                            f"at most {sat.MAX_SOLUTIONS} with it; use 'greedy' to count more")
    lay = layout(grid.n)
    cell, other = checks.first_conflict(grid.givens, lay.peers)
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
    fields = ("solution", "unique", "solutions_found", *([explain.FIELD] if options["explain"] else []))
    if not isinstance(result, dict) or set(result) != set(fields):
        named = f"{', '.join(fields[:-1])} and {fields[-1]}"
        raise WrongAnswer(f"a solved sudoku result has {named}; got {result!r}")
    found, unique = result["solutions_found"], result["unique"]
    if isinstance(found, bool) or not isinstance(found, int) or not 1 <= found <= options["max_solutions"]:
        raise WrongAnswer(f"solutions_found must be 1..{options['max_solutions']}, not {found!r}")
    if unique is not (found == 1 and options["max_solutions"] > 1):
        raise WrongAnswer(f"unique={unique!r} contradicts solutions_found={found}")
    _check_solution(grid, result["solution"])
    if options["explain"]:
        explain.check(grid, options, result)


def _check_solution(grid: Grid, solution: Any) -> None:
    n = grid.n
    if not isinstance(solution, str) or len(solution) != n * n:
        raise WrongAnswer(f"the solution must be a string of {n * n} symbols")
    try:
        values = parse_text(solution).givens
    except ParseError as exc:
        raise WrongAnswer(f"the solution is unreadable: {exc}") from None
    fault, at = kernels.check_solution(grid.givens, values, layout(n).units)
    if fault == kernels.BLANK_CELL:
        raise WrongAnswer(f"the solution leaves {where(at, n)} blank")
    if fault == kernels.CHANGED_GIVEN:
        raise WrongAnswer(f"the solution changes the given at {where(at, n)}")
    if fault == kernels.REPEATED_VALUE:
        raise WrongAnswer(f"{('row', 'column', 'box')[at // n]} {at % n + 1} of the solution repeats a value")


# -- the record


def prepare_batch(puzzles: Sequence[Any], options: Options) -> Sequence[Grid | PuzzleError]:
    # a position's placed values are checked against each puzzle's givens, one by one
    if options["placed"] is not None or options["candidates"] is not None:
        return prepare_each(KIND, puzzles, options)
    return batch.prepare_batch(KIND, puzzles, options)


def solve_batch(grids: Sequence[Grid], options: Options) -> Outcomes:
    # An explanation is the grader's, one puzzle at a time.
    if options["explain"]:
        return solve_each(KIND, grids, options)
    return batch.solve_batch(KIND, grids, options)


def plan_batch(grids: Sequence[Grid], options: Options, settings: Settings) -> Sequence[Plan]:
    # The grids of one array are all 9x9, and a 9x9 grid's plan does not depend on its givens (it
    # never goes to SAT first, solve.split_plan): one plan stands for them all.
    if isinstance(grids, batch.Grids) and len(grids):
        return [solve.split_plan(grids[0], options, settings)] * len(grids)
    return [solve.split_plan(grid, options, settings) for grid in grids]


def predict_batch(grids: Sequence[Grid], options: Options) -> Sequence[Estimate]:
    # The grids of one array are all 9x9, where the fast path's prediction is one figure.
    one = shared_prediction(FAST_N, options) if isinstance(grids, batch.Grids) else None
    return [predict(grid, options) for grid in grids] if one is None else [one] * len(grids)


def outside_model(options: Options) -> bool:
    """Plain backtracking is outside the predictor's model: its tree's size ranges over orders of
    magnitude between puzzles (seconds to minutes on hard 9x9s), its table figure is the bench's
    typical one, and that figure is below where the probes that would size the tree run."""
    return bool(options["strategy"] == "backtrack")


def solve_explained(grid: Grid, options: Options, node_limit: int | None = None,
                    stop: StopFlag | None = None) -> Outcome:
    return explain.add(grid, options, solve.solve(grid, options, node_limit, stop))


def merge_explained(grid: Grid, options: Options, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    return explain.add(grid, options, tree.merge(grid, options, head, outcomes))


def hint_for(puzzle: Any, placed: Any, candidates: Any) -> dict[str, Any]:
    """The kind's hint (hint.py), its givens read and checked as a puzzle to solve is."""
    return hint.hint(KIND.prepare(puzzle)[0], placed, candidates)


# The warm-up unit of the explained examples: the grader's compile is the longest of all
# (docs/benchmarks.md), and only an explained solve needs it.
GRADER = "grader"
EXAMPLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
# Rated 8.9 by Sudoku Explainer: its grading tries every technique up to dynamic forcing chains,
# so an explained solve of it (the workers' warm-up) compiles every kernel of the grader.
EXPLAINED = "7.....6...18..3..7..2.8......94....6.4..9..2.1....87......4.9..8..5..13...4.....8"
# EXAMPLE's first three rows placed: a position part-way through, graded from there
PLACED = "534678912672195348198342567" + "." * 54
# hidden singles fill it: an explained 16x16 (the size-generic grader's)
EASY16 = ("2.8B7G.1E9F3.C5AF5..C.E...G..213.A..FB2485..G.97C74GD359A612.B...CB.1E8..F7DA.45EF......G8B9..62.4"
          "...9B5...1.8G....1...3.....DCE.GF...D7.C.E1.2.B..DG23.F1A..47.93....1.7..4...B.2......3D56..FG.9G.2"
          "4.E.3.5..BCAB.C3DFG.467.58.5678B.9C.AEF2G.4....56.89....FAD")


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
               "fast = bit-parallel singles, locked candidates and triads, 9x9 only; greedy = the paper's "
               "pre-processing and greedy tree; backtrack = plain recursion in cell order (the paper's "
               "baseline, up to 9x9); sat = a SAT solver on a complete CNF encoding",
               choices=STRATEGIES),
        Option("sat_solver", str, sat.SOLVERS[0],
               "the python-sat solver of strategy 'sat': minisat22 (MiniSat 2.2) or cadical195 "
               "(CaDiCaL 1.9.5, faster than MiniSat on the hardest 25x25 puzzles)",
               choices=sat.SOLVERS),
        Option("max_solutions", int, 2,
               "stop after this many solutions: 2 proves uniqueness, a large value counts them "
               f"(sat: at most {sat.MAX_SOLUTIONS})", minimum=1, maximum=MAX_SOLUTIONS),
        Option("split", int, None,
               "how many open tree nodes the coordinator may fan out as subtasks (greedy, backtrack and "
               "auto's greedy tree; sat and fast run whole); 0 = never, null = automatic",
               minimum=0, maximum=tree.MAX_PARTS),
        Option("explain", bool, False,
               "4x4, 9x9, 16x16: add the grader's solve as a person would do it (result.explanation): "
               "its steps, rating on Sudoku Explainer's scale, hardest technique, band, and where it "
               "had to guess"),
        Option("placed", str, None,
               "with explain: the values placed so far, a grid of n*n symbols as the puzzle's ('.' open, "
               "givens blank or repeated); the explanation grades that position from where it stands "
               "and lists the placed values that are wrong"),
        Option("candidates", list, None,
               "with explain: the candidates kept in each cell, n*n lists of digits (cell r*n + c; a "
               "filled cell's list is ignored); the grading starts from them"),
    ),
    result_fields={
        "solution": "the first solution found, n*n symbols",
        "unique": "true when the search proved it is the only solution (needs max_solutions >= 2)",
        "solutions_found": "solutions found, at most max_solutions",
        "explanation": "with explain: {rating, hardest, band, steps: [{technique, rating, cells, placements "
                       "[[cell, value]], eliminations [[cell, value]], for a guess guesses, depth, for a "
                       "chain of one path links [[cell, value, on]]}], "
                       "guesses: [{step, cell, guesses, depth}]}; with placed or candidates also wrong: "
                       "[{cell, row, column, field, value?, message}], the placed values against the "
                       "solution (rating, hardest and band null and no steps when there are any, or "
                       "when the position is full); null when the puzzle is not unique",
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
    solve=solve_explained,
    verify=verify,
    predict=predict,
    plan=solve.split_plan,
    split=solve.split,
    solve_part=solve.solve_part,
    merge=merge_explained,
    prepare_batch=prepare_batch,
    solve_batch=solve_batch,
    plan_batch=plan_batch,
    predict_batch=predict_batch,
    outside_model=outside_model,
    generator=making.GENERATOR,
    hint=hint_for,
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
        Example(EXAMPLE, {"explain": True}, warm_up=GRADER),
        Example(EXPLAINED, {"explain": True}, warm_up=GRADER),
        Example(EXAMPLE, {"explain": True, "placed": PLACED}, warm_up=GRADER),
        Example(EASY16, {"explain": True}, warm_up=GRADER),
    ),
    bad_examples=(
        BadExample("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..7"),
        BadExample("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..7x"),
        BadExample("55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
                   error=InvalidPuzzle),
        BadExample([[1, 2], [3, 4]]),
        BadExample(EXAMPLE, {"max_solutions": 0}, error=InvalidOption),
        BadExample(EXAMPLE, {"sat_solver": "cadical195"}, error=InvalidOption),
        BadExample("." * 625, {"explain": True}, error=InvalidOption),
        BadExample(EXAMPLE, {"placed": EXAMPLE}, error=InvalidOption),
        BadExample(EXAMPLE, {"explain": True, "placed": "6" + EXAMPLE[1:]}, error=InvalidOption),
    ),
)
