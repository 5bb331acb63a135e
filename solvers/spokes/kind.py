"""Spokes (x-sheep's puzzle): join the hubs of a grid with non-crossing spokes. The kind's record,
its options, validation, the answer check and cost; puzzle.py reads the grid, solve.py runs the
strategies, generate.py makes random instances.

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
    SOLVED,
    BadExample,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    Options,
    Outcome,
    ParseError,
    WrongAnswer,
)
from solvers.spokes.making import GENERATOR
from solvers.spokes.predict import predict
from solvers.spokes.puzzle import MAX_SIDE, Spokes, Wire, graph, parse
from solvers.spokes.solve import merge, plan, solve, solve_part, split


def validate(puzzle: Spokes, options: Options) -> None:
    if not (1 <= puzzle.width <= MAX_SIDE and 1 <= puzzle.height <= MAX_SIDE):
        raise InvalidPuzzle(f"a spokes grid is at most {MAX_SIDE}x{MAX_SIDE}; "
                            f"got {puzzle.width}x{puzzle.height}")
    g = graph(puzzle)
    if not g.hubs:
        raise InvalidPuzzle("the puzzle has no hubs (every point is 0 or '.')")
    for p in g.hubs:
        capacity = len(g.incident[p])
        if puzzle.clues[p] > capacity:
            r, c = puzzle.rc(p)
            raise InvalidPuzzle(f"row {r + 1}, column {c + 1}: clue {puzzle.clues[p]} but that hub has only "
                                f"{capacity} neighbouring hub(s) to join")
    total = sum(puzzle.clues)
    if total % 2:
        raise InvalidPuzzle(f"the clues sum to {total}, an odd number; every spoke counts at both its hubs")


# -- checking an answer from the puzzle alone


def verify(puzzle: Spokes, options: Options, outcome: Outcome) -> None:
    """Check a solved outcome against the five rules, from the puzzle alone.

    A no_solution outcome carries nothing to check beyond its shape: proving
    that no answer exists is the search's own job.
    """
    if outcome.status == NO_SOLUTION:
        if outcome.result is not None:
            raise WrongAnswer("a no_solution outcome must not carry a result")
        return
    if outcome.status != SOLVED or not isinstance(outcome.result, dict):
        raise WrongAnswer(f"unexpected outcome {outcome.status!r} without a result")
    spokes = outcome.result.get("spokes")
    if not isinstance(spokes, list):
        raise WrongAnswer("the result has no list of spokes")
    check_spokes(puzzle, spokes)


def check_spokes(puzzle: Spokes, spokes: Wire) -> None:
    w, h, clues = puzzle.width, puzzle.height, puzzle.clues
    seen: set[tuple[int, int]] = set()
    degree = [0] * (w * h)
    diagonals: set[tuple[int, int, str]] = set()  # (row, column) of the square's top left, which diagonal
    for spoke in spokes:
        if not (isinstance(spoke, list) and len(spoke) == 4 and all(type(x) is int for x in spoke)):
            raise WrongAnswer(f"spoke {spoke!r} is not [r1, c1, r2, c2]")
        r1, c1, r2, c2 = spoke
        if not (0 <= r1 < h and 0 <= r2 < h and 0 <= c1 < w and 0 <= c2 < w):
            raise WrongAnswer(f"spoke {spoke} leaves the {w}x{h} grid")
        p, q = r1 * w + c1, r2 * w + c2
        if not (clues[p] and clues[q]):
            raise WrongAnswer(f"spoke {spoke} touches an empty point")
        if max(abs(r1 - r2), abs(c1 - c2)) != 1:
            raise WrongAnswer(f"spoke {spoke} does not join neighbouring points")
        if (min(p, q), max(p, q)) in seen:
            raise WrongAnswer(f"spoke {spoke} is drawn twice")
        seen.add((min(p, q), max(p, q)))
        degree[p] += 1
        degree[q] += 1
        if r1 != r2 and c1 != c2:
            square = (min(r1, r2), min(c1, c2))
            slope = "\\" if (r2 - r1) == (c2 - c1) else "/"
            if (*square, "/" if slope == "\\" else "\\") in diagonals:
                raise WrongAnswer(f"spoke {spoke} crosses the other diagonal of its square")
            diagonals.add((*square, slope))
    for p in range(w * h):
        if degree[p] != clues[p]:
            raise WrongAnswer(f"hub at row {p // w}, column {p % w} has {degree[p]} spokes, clue {clues[p]}")
    links: dict[int, list[int]] = {}
    for p, q in seen:
        links.setdefault(p, []).append(q)
        links.setdefault(q, []).append(p)
    hubs = [p for p in range(w * h) if clues[p]]
    reached, todo = {hubs[0]}, [hubs[0]]
    while todo:
        for q in links.get(todo.pop(), ()):
            if q not in reached:
                reached.add(q)
                todo.append(q)
    if len(reached) != len(hubs):
        raise WrongAnswer(f"the spokes leave {len(hubs) - len(reached)} hub(s) cut off from the rest")


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
