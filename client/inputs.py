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
from typing import Any, BinaryIO


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
        self.message = message


class BadLines(ValueError):
    """Every bad line of the files, in order (a file is read to its end, not to its first fault)."""

    def __init__(self, bad: list[BadLine]) -> None:
        super().__init__("\n".join(map(str, bad)))
        self.bad = bad


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


def parse_options(pairs: Iterable[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs -> options. A dotted name sets a field of a nested object
    (``generate.max_attempts=200`` is ``{"generate": {"max_attempts": 200}}``); the pairs merge in
    order, as the service merges a retry's options (:func:`merged`)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, value = parse_option(pair)
        path = name.split(".")
        if not all(path):
            raise ValueError(f"--option wants NAME=VALUE or NAME.FIELD=VALUE, got {pair!r}")
        for field in reversed(path[1:]):
            value = {field: value}
        options = merged(options, {path[0]: value})
    return options


def merged(base: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``new`` merged in key by key at every depth: an object into an object, any
    other value in place of the one there."""
    out = dict(base)
    for key, value in new.items():
        old = out.get(key)
        out[key] = merged(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return out


def _open(name: str) -> BinaryIO:
    return sys.stdin.buffer if name == "-" else Path(name).open("rb")


def _decoded(raw: Iterable[bytes], file: str) -> Iterator[tuple[Line, str | BadLine]]:
    """Each line as text, UTF-8 with or without a byte order mark; a line that is not UTF-8 is
    a BadLine naming its line and column, and the lines after it are still read."""
    for number, data in enumerate(raw, 1):
        where = Line(file, number)
        try:
            yield where, data.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            yield where, BadLine(where, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column "
                                        f"{exc.start + 1}); save the file as UTF-8")


def _item(where: Line, text: str, kind: str | None) -> dict[str, Any]:
    """The API item of one line: the kind's text form with ``kind``, else a JSON item."""
    if kind is not None:
        return {"kind": kind, "puzzle": LINE_FORMS.get(kind, str)(text)}
    try:
        item = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadLine(where, f"not a JSON item ({exc.msg}); use --kind for one puzzle per line") from None
    if not isinstance(item, dict):
        raise BadLine(where, 'a JSON item is an object {"kind", "puzzle", "options"}')
    return item


def read_lines(raw: Iterable[bytes], file: str, kind: str | None,
               options: dict[str, Any]) -> Iterator[tuple[Line, dict[str, Any] | BadLine]]:
    """Each puzzle line's item, or the BadLine that says why it is none."""
    for where, text in _decoded(raw, file):
        if isinstance(text, BadLine):
            yield where, text
            continue
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        try:
            item = _item(where, text, kind)
        except BadLine as bad:
            yield where, bad
            continue
        if options:
            own = item.get("options") or {}
            item["options"] = merged(options, own) if isinstance(own, dict) else own  # the service names it
        yield where, item


def read_files(names: Iterable[str], kind: str | None,
               options: dict[str, Any]) -> tuple[list[Line], list[dict[str, Any]]]:
    """Every item of every file in order, with where each came from. Raises BadLines naming
    every bad line."""
    lines: list[Line] = []
    items: list[dict[str, Any]] = []
    bad: list[BadLine] = []
    for name in names:
        stream = _open(name)
        try:
            for where, item in read_lines(stream, "<stdin>" if name == "-" else name, kind, options):
                if isinstance(item, BadLine):
                    bad.append(item)
                else:
                    lines.append(where)
                    items.append(item)
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    if bad:
        raise BadLines(bad)
    return lines, items
