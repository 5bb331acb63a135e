"""The items of a checked batch whose options their kind does not model (``Kind.outside_model``),
signed with their kind's and options' signature, so that store.pricing prices them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import solvers
from store.pricing import signature
from store.submit import CheckedItem


def signed(items: Sequence[CheckedItem]) -> list[CheckedItem]:
    """The items, each one of options outside its kind's model with its signature. The items of a
    group share one options object (service.batches), so each group asks its kind once."""
    known: dict[tuple[str, int], str | None] = {}
    out = []
    for item in items:
        key = (item.kind, id(item.options))  # the items hold their options: no id is reused meanwhile
        if key not in known:
            outside = solvers.kind_for(item.kind, item.options).outside_model
            known[key] = (signature(item.kind, item.options)
                          if outside is not None and outside(item.options) else None)
        sig = known[key]
        out.append(item if sig is None else dataclasses.replace(item, signature=sig))
    return out
