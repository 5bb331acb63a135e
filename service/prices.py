"""The signatures of a checked batch's items whose options their kind does not model
(``Kind.outside_model``), by which store.pricing prices them."""

from __future__ import annotations

from collections.abc import Sequence

import solvers
from store.pricing import signature
from store.submit import CheckedItem


def signatures(items: Sequence[CheckedItem]) -> list[str | None]:
    """Each item's signature where its kind does not model its options, else None. The items of a
    group share one options object (service.batches), so each group asks its kind once."""
    known: dict[tuple[str, int], str | None] = {}
    out = []
    for item in items:
        key = (item.kind, id(item.options))  # the items hold their options: no id is reused meanwhile
        if key not in known:
            outside = solvers.kind_for(item.kind, item.options).outside_model
            known[key] = (signature(item.kind, item.options)
                          if outside is not None and outside(item.options) else None)
        out.append(known[key])
    return out
