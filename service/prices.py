"""The signatures of a checked batch's items whose options their kind does not model
(``Kind.outside_model``), by which store.pricing prices them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import solvers
from solvers.base import Kind
from store.pricing import signature
from store.submit import CheckedItem


def signature_of(kind: Kind, name: str, options: Any) -> str | None:
    """The item's signature where ``kind`` does not model its checked ``options``, else None."""
    outside = kind.outside_model
    return signature(name, options) if outside is not None and outside(options) else None


def signatures(items: Sequence[CheckedItem]) -> list[str | None]:
    """Each item's signature where its kind does not model its options, else None. The items of a
    group share one options object (service.batches), so each group asks its kind once."""
    known: dict[tuple[str, int], str | None] = {}
    out = []
    for item in items:
        key = (item.kind, id(item.options))  # the items hold their options: no id is reused meanwhile
        if key not in known:
            known[key] = signature_of(solvers.kind_for(item.kind, item.options), item.kind, item.options)
        out.append(known[key])
    return out
