"""Puzzle files -> API items, each remembering the file and line it came from.

With a kind, each line that is not empty and not a ``#`` comment is one puzzle in the kind's
text form: sudoku the cell string, sliding the tiles separated by spaces, spokes ``WxH:DIGITS``
or rows separated by ``/``, nqueens n. Without one, a line is a JSON item
``{"kind", "puzzle", "options"}`` (JSON Lines).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO


@dataclass(frozen=True)
class Line:
    """Where an item came from, for messages: ``puzzles.txt:3``."""

    file: str
    number: int

    def __str__(self) -> str:
        return f"{self.file}:{self.number}"


class BadLine(ValueError):
    def __init__(self, where: Line, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


def _spokes_rows(text: str) -> str:
    """``1 1 3/1 3 2`` (or ``113/132``) -> rows, one per line, as the service reads them."""
    if "/" not in text:
        return text  # WxH:DIGITS, or a single row
    rows = [row.strip() for row in text.split("/")]
    return "\n".join(row if " " in row else " ".join(row) for row in rows)


def _nqueens(text: str) -> Any:
    return {"n": int(text)} if text.isdigit() else text


# How a line of text becomes the puzzle of each kind; any other kind takes the line as it is.
LINE_FORMS: dict[str, Callable[[str], Any]] = {"spokes": _spokes_rows, "nqueens": _nqueens}


def parse_option(pair: str) -> tuple[str, Any]:
    """``NAME=VALUE``; the value is JSON when it reads as JSON (``3``, ``true``), else a string."""
    name, sep, value = pair.partition("=")
    if not sep or not name:
        raise ValueError(f"--option wants NAME=VALUE, got {pair!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def _open(name: str) -> TextIO:
    return sys.stdin if name == "-" else Path(name).open(encoding="utf-8")


def read_lines(stream: Iterable[str], file: str, kind: str | None,
               options: dict[str, Any]) -> Iterator[tuple[Line, dict[str, Any]]]:
    for number, raw in enumerate(stream, 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        where = Line(file, number)
        if kind is not None:
            item: dict[str, Any] = {"kind": kind, "puzzle": LINE_FORMS.get(kind, str)(text)}
        else:
            try:
                item = json.loads(text)
            except json.JSONDecodeError as exc:
                raise BadLine(where, f"not a JSON item ({exc.msg}); use --kind for one puzzle per line") \
                    from None
            if not isinstance(item, dict):
                raise BadLine(where, 'a JSON item is an object {"kind", "puzzle", "options"}')
        if options:
            item["options"] = {**options, **(item.get("options") or {})}
        yield where, item


def read_files(names: Iterable[str], kind: str | None,
               options: dict[str, Any]) -> tuple[list[Line], list[dict[str, Any]]]:
    """Every item of every file in order, with where each came from. Raises BadLine."""
    lines: list[Line] = []
    items: list[dict[str, Any]] = []
    for name in names:
        stream = _open(name)
        try:
            for where, item in read_lines(stream, "<stdin>" if name == "-" else name, kind, options):
                lines.append(where)
                items.append(item)
        finally:
            if stream is not sys.stdin:
                stream.close()
    return lines, items
