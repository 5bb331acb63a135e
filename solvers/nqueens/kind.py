"""n-Queens: one placement, exact counts of the backtracking tree, Knuth's estimates of it. The
kind's record, its options, validation, and the dispatch to its three modes: ``solve``
(construct.py), ``count`` and ``estimate`` (count.py and estimate.py: the source's backtracking
tree and its Monte Carlo estimate). A count's ``strategy`` is ``tree`` (the source's tree, with its
node counts) or ``constellations`` (constellations.py: faster, from the border queens inward).

  n          the board side; rows and columns are numbered 0..n-1.
  queens     a placement: ``queens[r]`` is the column of the queen in row r (the wire result).
  tree       the row-by-row backtracking tree: a node at depth k is a placement of k
             mutually non-attacking queens in rows 0..k-1, its children are the safe
             squares of row k; the root is the empty board. ``nodes`` counts all of
             them, root included (tree_nodes.csv); its leaves at depth n are the solutions.
  checked    the seed's count of checked nodes: the root plus the n squares tried
             below every node above the last row, 1 + n * (nodes - solutions).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from solvers.base import (
    NO_SOLUTION,
    WHOLE,
    BadExample,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    Options,
    Outcome,
    ParseError,
    Part,
    Parts,
    Plan,
    Settings,
    Split,
    StopFlag,
    Stopwatch,
    check_stop,
)
from solvers.nqueens import construct, count, estimate
from solvers.nqueens.count import AUTO_CONSTELLATIONS_N, MAX_COUNT_N, MAX_TREE_N
from solvers.nqueens.estimate import MAX_ESTIMATE_N, MAX_PROBES, PROBE_BUDGET
from solvers.nqueens.outcome import N
from solvers.nqueens.predict import predict

MAX_SOLVE_N = 1_000_000
PART_SECONDS = 30.0                # a count of big n is cut into parts of about this much work


# -- wire form


def parse(value: Any) -> N:
    """``{"n": 8}``, a bare int, a digit string or a JSON object in a string -> n."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ParseError(f"puzzle is not valid JSON: {exc}") from None
        elif re.fullmatch(r"[+-]?[0-9]{1,18}", text):
            return int(text)
        else:
            raise ParseError(f'puzzle must be {{"n": <int>}} or a board size such as "8"; got {value[:40]!r}')
    if isinstance(value, dict):
        if set(value) != {"n"}:
            raise ParseError(f'puzzle must be an object with the single field "n"; '
                             f"got fields {sorted(value)}")
        value = value["n"]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(f"n must be an integer (the board side), not {value!r}")
    return value


def validate(n: N, options: Options) -> None:
    mode = options["mode"]
    if n < 1:
        raise InvalidPuzzle(f"n must be at least 1 (the board side); got {n}")
    if mode == "solve" and n > MAX_SOLVE_N:
        raise InvalidPuzzle(f"solve handles n up to {MAX_SOLVE_N:,} (the answer lists one column per row); "
                            f"got {n:,}")
    if options["strategy"] != "auto" and mode != "count":
        raise InvalidOption(f"option 'strategy' applies to mode 'count', not {mode!r}")
    if mode == "count" and options["strategy"] == "tree" and n > MAX_TREE_N:
        raise InvalidPuzzle(
            f"strategy 'tree' counts n up to {MAX_TREE_N}: the tree grows about 7-fold per row, so "
            f"n={MAX_TREE_N} takes minutes of computing and n=19 most of an hour; got n={n}. Strategy "
            f"'constellations' counts up to n={MAX_COUNT_N}, mode 'estimate' gives the tree size of "
            f"larger boards")
    if mode == "count" and n > MAX_COUNT_N:
        raise InvalidPuzzle(
            f"count handles n up to {MAX_COUNT_N}: the work grows about 7-fold per row, so n={MAX_COUNT_N} "
            f"takes some hours of computing, shared out among the workers; got n={n}. "
            f"Mode 'estimate' gives the tree size of larger boards")
    if mode == "estimate":
        if n > MAX_ESTIMATE_N:
            raise InvalidPuzzle(f"estimate handles n up to {MAX_ESTIMATE_N} "
                                f"(a row must fit in one 64-bit word); got {n}")
        work = options["probes"] * n
        if work > PROBE_BUDGET:
            raise InvalidOption(f"probes x n must be at most {PROBE_BUDGET:,} (tens of seconds of "
                                f"computing); {options['probes']:,} probes on n={n} is {work:,}")


# -- the Kind interface: each mode's own


def solve(n: N, options: Options, node_limit: int | None = None, stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    if options["mode"] == "count":
        return count.solve(n, count.strategy_of(n, options["strategy"]), clock, stop)
    if options["mode"] == "estimate":
        return estimate.solve(n, options, clock, stop)
    outcome = construct.solve(n, clock)  # O(n): not worth a check inside
    check_stop(stop)
    return outcome


def plan(n: N, options: Options, settings: Settings) -> Plan:
    """The work is known in advance (the board size, the probes): big counts and estimates are cut
    into parts right away, everything else is solved whole. A count of hours is cut into more than
    SPLIT_PARTS parts, so that each part stays some PART_SECONDS of one core."""
    if options["mode"] == "count" and n >= settings["SPLIT_QUEENS_N"]:
        return Parts(max(settings["SPLIT_PARTS"], math.ceil(predict(n, options).seconds / PART_SECONDS)))
    if options["mode"] == "estimate" and options["probes"] >= settings["SPLIT_PROBES"]:
        return Parts(settings["SPLIT_PARTS"])
    return WHOLE


def split(n: N, options: Options, wanted: int) -> Split:
    clock = Stopwatch()
    if options["mode"] == "count":
        return count.split(n, count.strategy_of(n, options["strategy"]), wanted, clock)
    if options["mode"] == "estimate":
        return estimate.split(n, options, wanted, clock)
    return Split([], construct.solve(n, clock))  # a construction is O(n): nothing to share out


def solve_part(n: N, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    if options["mode"] == "count":
        return count.solve_part(n, count.strategy_of(n, options["strategy"]), part, stop)
    if options["mode"] == "estimate":
        return estimate.solve_part(n, options, part, stop)
    raise ValueError("solve mode is never split into parts")


def merge(n: N, options: Options, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    if not outcomes:
        return head  # nothing was split off: the head is the whole answer
    if options["mode"] == "count":
        return count.merge(n, count.strategy_of(n, options["strategy"]), head, outcomes)
    return estimate.merge(head, outcomes, options)


def verify(n: N, options: Options, outcome: Outcome) -> None:
    """Independent checks, never a re-run of the solver."""
    if options["mode"] == "count":
        count.verify(n, count.strategy_of(n, options["strategy"]), outcome)
    elif options["mode"] == "estimate":
        estimate.verify(n, options, outcome)
    else:
        construct.verify(n, outcome)


KIND = Kind(
    name="nqueens",
    summary="Place n queens so that none attacks another: one placement, exact counts, Knuth's estimates.",
    input_format='{"n": <int>} (a bare int or a digit string also works): the board side',
    options=(
        Option("mode", str, "solve", "solve: one placement; count: every solution (and with strategy tree "
               "the exact tree size); estimate: Knuth's Monte Carlo estimate of the tree",
               choices=("solve", "count", "estimate")),
        Option("strategy", str, "auto",
               f"count: tree (the source's row-by-row tree and its node counts, n <= {MAX_TREE_N}), "
               f"constellations (the border queens first, one symmetry class at a time; n <= {MAX_COUNT_N}), "
               f"auto (constellations from n = {AUTO_CONSTELLATIONS_N}, the tree below); stats.strategy "
               f"names the one that counted", choices=("auto", "tree", "constellations")),
        Option("probes", int, 10_000, "estimate: number of random probes", minimum=2, maximum=MAX_PROBES),
        Option("seed", int, None, "estimate: random seed (default: a fresh one, reported in stats.seed)",
               minimum=0, maximum=2**63 - 1),
    ),
    result_fields={
        "queens": "solve: column (0-based) of the queen in each row",
        "solutions": "count: number of solutions",
        "fundamental": "count: solutions distinct under rotations and reflections",
        "half_turn_symmetric": "count: solutions unchanged by a half turn",
        "quarter_turn_symmetric": "count: solutions unchanged by a quarter turn",
        "estimated_nodes": "estimate: mean of the seed's numnodes, estimating 1 + n*(nodes - solutions)",
        "std_error": "estimate: standard error of estimated_nodes",
        "ci95": "estimate: 95% confidence interval of estimated_nodes",
        "estimated_tree_nodes": "estimate: Knuth's estimate of the tree size, root included",
        "tree_std_error": "estimate: standard error of estimated_tree_nodes",
        "estimated_solutions": "estimate: Knuth's estimate of the number of solutions",
        "solutions_std_error": "estimate: standard error of estimated_solutions",
        "probes": "estimate: number of probes made",
    },
    stats_fields={
        "nodes": "count: tree nodes, root included (strategy tree), or the constellations and the "
                 "placements searched around them (strategy constellations); estimate: nodes on the probes' "
                 "paths; solve: nodes searched (0 for the construction)",
        "checked_nodes": "count, strategy tree: the seed's checked nodes, 1 + n * (nodes - solutions)",
        "strategy": "count: the strategy that counted, tree or constellations",
        "seed": "estimate: the random seed used",
        "subtasks": "parts the puzzle was split into",
        "elapsed_ms": "wall time (summed over parts)",
    },
    parse=parse,
    validate=validate,
    solve=solve,
    verify=verify,
    predict=predict,
    plan=plan,
    split=split,
    solve_part=solve_part,
    merge=merge,
    examples=(
        Example({"n": 8}),
        Example({"n": 3}, status=NO_SOLUTION),
        Example(1000),
        Example({"n": 10}, {"mode": "count"}),
        Example({"n": 10}, {"mode": "count", "strategy": "constellations"}),
        Example({"n": 12}, {"mode": "estimate", "probes": 20_000, "seed": 7}),
    ),
    bad_examples=(
        BadExample({"n": -1}, error=InvalidPuzzle),
        BadExample({"n": "eight"}),
        BadExample({"size": 8}),
        BadExample({"n": 10**9}, error=InvalidPuzzle),
        BadExample({"n": 22}, {"mode": "count"}, error=InvalidPuzzle),
        BadExample({"n": 22}, {"mode": "count", "strategy": "tree"}, error=InvalidPuzzle),
        BadExample({"n": 8}, {"strategy": "tree"}, error=InvalidOption),
        BadExample({"n": 64}, {"mode": "estimate"}, error=InvalidPuzzle),
        BadExample({"n": 16}, {"mode": "estimate", "probes": 0}, error=InvalidOption),
        BadExample({"n": 40}, {"mode": "estimate", "probes": MAX_PROBES}, error=InvalidOption),
    ),
)
