"""Spokes (x-sheep's puzzle): join the hubs of a grid with non-crossing spokes. The kind's record
and its options; checks.py validates a puzzle and checks an answer, puzzle.py reads the grid,
solve.py runs the strategies, generate.py makes random instances.

Strategies:
  auto     the default: the search for a few nodes on small grids, where it is
           fastest, else (and on bigger grids at once) sat; ``stats.strategy``
           names the method that answered, ``stats.abandoned`` what was given up.
  sat      CaDiCaL on the degrees and crossings, connectivity added lazily
           (sat.py): complete, and immune to early wrong decisions.
  search   every sound deduction (full/saturated hubs, crossing diagonals, a
           closed group that is not everything, bridges of the open graph are
           drawn, failed-literal probing) and the most constrained hub's edge
           as branch, depth first (search.py).
  pruning  the source's method, the paper's Pruning Algorithm (Lee 2024; pruning.py):
           only its own deductions and its deletion priorities #1-#4 as the branch,
           until its first contradiction or stall hands the rest of the tree to the
           search, which also proves uniqueness after the first solution.
"""

from __future__ import annotations

from solvers.base import (
    NO_SOLUTION,
    BadExample,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    ParseError,
)
from solvers.spokes.checks import validate, verify
from solvers.spokes.making import GENERATOR
from solvers.spokes.predict import predict
from solvers.spokes.puzzle import parse
from solvers.spokes.solve import merge, plan, solve, solve_part, split

# -- the record

EXAMPLE = "1 1 3 3\n1 3 2 4\n1 7 3 3\n1 1 1 1"

KIND = Kind(
    name="spokes",
    summary="Spokes: join every hub to its neighbours with as many non-crossing spokes as its number, "
            "all hubs in one connected group",
    input_format="rows of hub numbers 0-8 separated by spaces, one row per line ('.' or 0 = no hub); "
                 "or x-sheep's game id 'WxH:DIGITS'; '#' lines are comments, an optional first line "
                 "'spokes WxH' gives the size",
    options=(
        Option("strategy", str, "auto", "auto: the search for a few nodes on grids up to 10x10, else "
               "(and on bigger grids at once) sat; search: propagation and branching; pruning: the paper's "
               "Pruning Algorithm, with the search as its fallback; sat: CaDiCaL on degrees and crossings, "
               "connectivity added cut by cut", choices=("auto", "search", "pruning", "sat")),
        Option("max_solutions", int, 2, "stop after this many solutions (2 proves uniqueness)",
               minimum=1, maximum=100),
    ),
    result_fields={"spokes": "[[r1, c1, r2, c2], ...]: the spokes, 0-based, in canonical order",
                   "solutions_found": "solutions met, at most max_solutions",
                   "unique": "true when proved unique, false when not, null when max_solutions is 1"},
    stats_fields={
        "guesses": "branching decisions", "backtracks": "decisions that met a contradiction (sat: conflicts)",
        "pruned": "edges deleted by deduction",
        "probed": "search: edges decided because the other value failed at once",
        "nodes": "search nodes (sat: the solver's decisions)", "elapsed_ms": "wall time",
        "sat_calls": "sat: solver calls (one per connectivity round and per solution)",
        "cuts": "sat: connectivity clauses added (one per separate group of a disconnected model)",
        "strategy": "the method that answered: search, pruning or sat",
        "abandoned": "what auto tried first and gave up: [{strategy, nodes, elapsed_ms}]",
        "pa_complete": "pruning: the Pruning Algorithm alone reached the first solution "
                       "(no contradiction, no stall); null for search",
        "pa_deletions": "pruning: edges deleted by the paper's priorities",
        "trial_and_error": "decisions undone before the first solution (the paper's trial and error)",
        "stalls": "pruning: times no priority applied, so the search took over",
        "subtasks": "parts the solve was split into",
    },
    parse=parse,
    validate=validate,
    solve=solve,
    verify=verify,
    predict=predict,
    generator=GENERATOR,
    plan=plan,
    split=split,
    solve_part=solve_part,
    merge=merge,
    examples=(
        Example(EXAMPLE),
        Example(EXAMPLE, {"strategy": "pruning"}),
        Example(EXAMPLE, {"strategy": "sat"}),
        Example("6x6:113143213353154621453162122245115111"),
        Example("1 1\n1 1", status=NO_SOLUTION),
    ),
    bad_examples=(
        BadExample("3 . 2\n2 4 3\n1 3 2", error=InvalidPuzzle),
        BadExample("1 2\n1", error=ParseError),
        BadExample("1 a\n1 1", error=ParseError),
        BadExample("1 1\n1 2", error=InvalidPuzzle),
        BadExample(EXAMPLE, {"strategy": "guess"}, error=InvalidOption),
        BadExample(["1 1", "1 1"], error=ParseError),
    ),
)
