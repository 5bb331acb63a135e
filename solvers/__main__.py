"""Command line: solve puzzles locally, without the service.

    python -m solvers solve --kind sudoku [--option max_solutions=1] [FILE|-]
    python -m solvers solve --jsonl items.jsonl      # each line {"kind", "puzzle", "options"}
    python -m solvers hint requests.jsonl            # each line {"kind", "puzzle", "placed", "candidates"}
    python -m solvers hint --kind sudoku [FILE|-]    # each line PUZZLE [PLACED], text forms
    python -m solvers kinds                          # what /api/v1/kinds describes
    python -m solvers provision                      # build what the kinds read (once per machine)

One JSON object per input line on stdout (a hint: the answer of ``POST /api/v1/hint``); an
invalid line prints ``{"status": "invalid", "error": ...}`` (a hint's also names the ``field``)
and the run goes on (exit status 1).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

import solvers
from solvers.base import PuzzleError


def _option_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text  # a bare word such as strategy=greedy


def _parse_option(pair: str) -> tuple[str, Any]:
    key, sep, value = pair.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--option wants key=value, got {pair!r}")
    return key, _option_value(value)


def _items(lines: Iterable[str], kind: str | None, options: dict[str, Any], jsonl: bool) -> Iterator[Any]:
    for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if not jsonl:
            yield {"kind": kind, "puzzle": text, "options": options}
            continue
        try:
            yield json.loads(text)
        except json.JSONDecodeError as exc:
            yield ValueError(f"line is not JSON: {exc}")


def solve_lines(lines: Iterable[str], out: TextIO, kind: str | None, options: dict[str, Any],
                jsonl: bool) -> bool:
    """Solve each line, print one JSON object per line; False if any line was invalid."""
    all_valid = True
    warmed: set[str] = set()
    for item in _items(lines, kind, options, jsonl):
        try:
            if isinstance(item, ValueError):
                raise item
            found, puzzle, opts = solvers.prepare_item(item)
        except (PuzzleError, ValueError) as exc:
            all_valid = False
            print(json.dumps({"status": "invalid", "error": str(exc)}), file=out, flush=True)
            continue
        if found.name not in warmed:
            # numba loads each kind's kernels on first use (compiles them on the very first run):
            # seconds that would otherwise count in the first puzzle's elapsed_ms.
            solvers.warm_up([found])
            warmed.add(found.name)
        outcome = found.solve(puzzle, opts)
        found.verify(puzzle, opts, outcome)
        print(json.dumps(outcome.to_json()), file=out, flush=True)
    return all_valid


def _hint_requests(lines: Iterable[str], kind: str | None) -> Iterator[Any]:
    """Each line's hint request: JSON, or with ``kind`` the puzzle and the placed values as text."""
    for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if kind is not None:
            puzzle, *placed = text.split(None, 1)
            yield {"kind": kind, "puzzle": puzzle, **({"placed": placed[0]} if placed else {})}
            continue
        try:
            yield json.loads(text)
        except json.JSONDecodeError as exc:
            yield ValueError(f"line is not JSON: {exc}")


def hint_lines(lines: Iterable[str], out: TextIO, kind: str | None) -> bool:
    """Answer each line's hint request, one JSON object per line; False if any line was invalid."""
    all_valid = True
    for request in _hint_requests(lines, kind):
        try:
            if isinstance(request, ValueError):
                raise request
            answer = solvers.hint_item(request)
        except (PuzzleError, ValueError) as exc:
            all_valid = False
            answer = {"status": "invalid", "field": getattr(exc, "field", "line"), "error": str(exc)}
        print(json.dumps(answer), file=out, flush=True)
    return all_valid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solvers", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    solve = sub.add_parser("solve", help="solve one puzzle per input line")
    solve.add_argument("--kind", choices=sorted(solvers.KINDS), help="kind of every line (not with --jsonl)")
    solve.add_argument("--option", action="append", type=_parse_option, default=[], metavar="KEY=VALUE")
    solve.add_argument("--jsonl", action="store_true", help="each line is an API item")
    solve.add_argument("file", nargs="?", default="-", help="input file, '-' for stdin")
    hint = sub.add_parser("hint", help="the next step from a position part-way through, per input line")
    hint.add_argument("--kind", choices=sorted(n for n, k in solvers.KINDS.items() if k.hint is not None),
                      help="each line is PUZZLE [PLACED] in the kind's text form (default: JSON lines)")
    hint.add_argument("file", nargs="?", default="-", help="input file, '-' for stdin")
    sub.add_parser("kinds", help="describe every kind as JSON")
    sub.add_parser("provision", help="build the files the kinds' fast paths read, where missing")
    args = parser.parse_args(argv)

    if args.command == "provision":
        solvers.provision()
        return 0

    if args.command == "kinds":
        json.dump([k.describe() for k in solvers.KINDS.values()], sys.stdout, indent=2)
        print()
        return 0
    if args.command == "hint":
        with contextlib.ExitStack() as files:
            stream = sys.stdin if args.file == "-" else files.enter_context(open(args.file, encoding="utf-8"))
            return 0 if hint_lines(stream, sys.stdout, args.kind) else 1
    if not args.jsonl and not args.kind:
        parser.error("solve needs --kind (or --jsonl)")
    with contextlib.ExitStack() as files:
        stream = sys.stdin if args.file == "-" else files.enter_context(open(args.file, encoding="utf-8"))
        ok = solve_lines(stream, sys.stdout, args.kind, dict(args.option), args.jsonl)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
