"""A tiny kind for testing the service mechanics, registered by fixtures only (never in solvers.KINDS).

Puzzle: a string of digits; result: their sum. Options make it slow, crash or lie,
so the worker's handling of time limits, errors and wrong answers can be tested.
With ``split`` = k the worker cuts it into k parts (digits dealt round-robin, each part
summing its own and sleeping, crashing or ignoring signals like a whole solve would),
which tests the subtask machinery without a real solver's run times.
"""

from __future__ import annotations

import signal
import time

from solvers.base import (
    DONE,
    NO_SOLUTION,
    SOLVED,
    BadExample,
    Estimate,
    Example,
    InvalidPuzzle,
    Kind,
    Option,
    Outcome,
    ParseError,
    Split,
    WrongAnswer,
    split_past_budget,
)


def parse(wire):
    if not isinstance(wire, str):
        raise ParseError(f"a toy puzzle is a string of digits, not {type(wire).__name__}")
    bad = [c for c in wire if not c.isdigit()]
    if bad:
        raise ParseError(f"bad symbol {bad[0]!r}: a toy puzzle has only digits")
    return [int(c) for c in wire]


def validate(puzzle, options):
    if not 1 <= len(puzzle) <= 20:
        raise InvalidPuzzle(f"a toy puzzle has 1 to 20 digits, this one has {len(puzzle)}")


def _work(options, stop=None):
    spin(options["spin"])
    if options["stubborn"]:
        sleep_deaf(options["sleep"])
    elif options["sleep"] and stop is not None:
        sleep_reporting(options["sleep"], stop)
    elif options["sleep"]:
        time.sleep(options["sleep"])
    if options["crash"]:
        raise RuntimeError("toy solver crashed on purpose")


def _outcome(total, subtasks=0, nodes=0):
    stats = {"elapsed_ms": 0.0, "subtasks": subtasks, "nodes": nodes}
    if total == 0:
        return Outcome(NO_SOLUTION, None, stats)
    return Outcome(SOLVED, {"sum": total}, stats)


def solve(puzzle, options, node_limit=None, stop=None):
    """Reads each digit once (``nodes``); a node limit is not enforced (the toy is never too big).
    Given a stop flag, it reports the share of its sleep done in it, as a long search does."""
    _work(options, stop)
    return _outcome(sum(puzzle) + (1 if options["lie"] else 0), nodes=len(puzzle))


def spin(seconds):
    """Keep the processor busy for this many of the process's CPU seconds: what a limit counted in
    CPU time sees (sleeping costs none)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def sleep_reporting(seconds, stop):
    """Sleep, writing the share slept into the stop flag (its ``DONE``) every 50 ms."""
    start = time.monotonic()
    while (slept := time.monotonic() - start) < seconds:
        stop[DONE] = slept / seconds
        time.sleep(min(0.05, seconds - slept))
    stop[DONE] = 1.0


def sleep_deaf(seconds):
    """Sleep with the time-limit signals blocked: what a compiled kernel looks like to Python."""
    deaf = {signal.SIGALRM, signal.SIGUSR1, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, deaf)
    try:
        time.sleep(seconds)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, deaf)


def verify(puzzle, options, outcome):
    expected = sum(puzzle)
    if (outcome.status == NO_SOLUTION) != (expected == 0):
        raise WrongAnswer(f"status {outcome.status} is wrong for digit sum {expected}")
    if outcome.status == SOLVED and (outcome.result or {}).get("sum") != expected:
        got = (outcome.result or {}).get("sum")
        raise WrongAnswer(f"sum {got} is wrong; the digits add up to {expected}")


def split(puzzle, options, parts):
    k = min(parts, len(puzzle))
    if k < 2:
        return Split([], solve(puzzle, options))
    return Split([{"digits": puzzle[i::k]} for i in range(k)], _outcome(0))


def solve_part(puzzle, options, part, stop=None):
    _work(options)  # deaf to the stop flag: a part that runs to its end whatever happens
    return _outcome(sum(part["digits"]))


def predict(puzzle, options):
    return Estimate(options["sleep"] + options["spin"] + 1e-6)


def merge(puzzle, options, head, outcomes):
    total = sum((o.result or {}).get("sum", 0) for o in outcomes) + (1 if options["lie"] else 0)
    return _outcome(total, len(outcomes))


TOY = Kind(
    name="toy",
    summary="sum of digits (tests only)",
    input_format="a string of 1 to 20 digits",
    options=(
        Option("sleep", float, 0.0, "seconds to sleep before answering", minimum=0, maximum=30),
        Option("spin", float, 0.0, "CPU seconds to spend before answering", minimum=0, maximum=30),
        Option("crash", bool, False, "raise instead of answering"),
        Option("lie", bool, False, "answer one too many"),
        Option("stubborn", bool, False, "ignore time-limit signals while sleeping"),
        Option("split", int, 0, "parts the worker cuts it into (0 = whole)", minimum=0, maximum=20),
    ),
    result_fields={"sum": "the digit sum"},
    stats_fields={"elapsed_ms": "time", "nodes": "digits read"},
    parse=parse,
    validate=validate,
    solve=solve,
    verify=verify,
    predict=predict,
    plan=split_past_budget,
    split=split,
    solve_part=solve_part,
    merge=merge,
    examples=(Example("123"),),
    bad_examples=(BadExample("12x"),),
)
