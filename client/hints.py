"""A hint's answer for people: `puzzle-queue hint` without --json.

Cells are named rRcC (row R, column C, from 1), the grid's side read from the puzzle as sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def side(puzzle: Any) -> int:
    """The grid's side: its rows, or the square root of its symbols (whitespace aside)."""
    if isinstance(puzzle, list):
        return len(puzzle)
    return round(len("".join(str(puzzle).split())) ** 0.5)


def cell_name(cell: int, n: int) -> str:
    return f"r{cell // n + 1}c{cell % n + 1}"


def _by_value(pairs: list[list[int]], n: int) -> str:
    """``[[cell, value], ...]`` as ``5 from r1c2, r1c3; 6 from r2c2``."""
    cells: dict[int, list[str]] = {}
    for cell, value in pairs:
        cells.setdefault(value, []).append(cell_name(cell, n))
    return "; ".join(f"{value} from {', '.join(names)}" for value, names in cells.items())


def describe(answer: dict[str, Any], n: int) -> str:
    """The answer as lines of text (module doc)."""
    if answer["status"] == "solved":
        return "solved: every cell is filled, and rightly"
    if answer["status"] == "wrong":
        return "\n".join(f"wrong: {w['message']}" for w in answer["wrong"])
    step = answer["step"]
    lines = [f"{step['technique']}, rating {step['rating']} ({answer['band']})",
             f"  cells: {', '.join(cell_name(c, n) for c in step['cells'])}"]
    lines += [f"  place {value} in {cell_name(cell, n)}" for cell, value in step["placements"]]
    if step["eliminations"]:
        lines.append(f"  remove {_by_value(step['eliminations'], n)}")
    return "\n".join(lines)


def read_candidates(path: str, stdin: Any) -> Any:
    """The candidates file's JSON ('-': standard input); ValueError saying what is wrong with it."""
    try:
        text = stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        return json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"--candidates {path}: {exc}") from None
