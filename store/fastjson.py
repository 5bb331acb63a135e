"""JSON through orjson where it can, the standard library where it cannot.

The workers encode and decode JSON for every puzzle they solve (its stored input and options,
its result and stats); for a 9x9 Sudoku the standard library's encoder alone costs about as much
as the solve. orjson refuses a few things the standard library takes (integers past 64 bits,
NaN): those few values go the slow way instead of failing.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any) -> str:
    """Compact JSON text."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError: an integer past 64 bits, a non-str key, ...
        return json.dumps(value, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except ValueError:  # orjson.JSONDecodeError: an integer past 64 bits, NaN, ...
        return json.loads(text)


def canonical(value: Any) -> str:
    """Compact JSON text with sorted keys, the same for equal values: what request hashes, cursors
    and the grouping of equal options compare."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
