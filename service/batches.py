"""A submitted batch, checked: in bulk when its items are plain, item by item otherwise.

Terms (plain item, group): docs/glossary.md. Options are equal as JSON text, so 2 and 2.0 stay
apart; a group's puzzles are checked by one call of the kind's ``prepare_batch`` (one kernel
call for 9x9 Sudoku strings).

The item-by-item check is the pydantic model (service.schemas.JobSubmit): it runs whenever the
bulk check does not accept the whole batch, so every 422 is written by it alone, listing every
bad item, exactly as before; the bulk check only ever accepts what that model accepts, with the
same options and costs (tests/service/test_batches.py compares the two). The bulk check spares
a large batch a model per item, most of the item-by-item check's time.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import ValidationError

import solvers
from service.schemas import Envelope, JobSubmit, Limits
from store.fastjson import canonical
from store.submit import CheckedBatch, CheckedItem

ITEM_KEYS = frozenset(solvers.ITEM_KEYS)


def check(body: dict[str, Any], limits: Limits) -> CheckedBatch:
    """The batch, checked; pydantic's ValidationError (every bad item) if any item is bad."""
    checked = check_in_bulk(body, limits)
    if checked is not None:
        return checked
    submit = JobSubmit.model_validate(body, context={"limits": limits})
    return CheckedBatch(submit.label, [CheckedItem(p.kind, puzzle, options, estimate, item=i)
                                       for i, p in enumerate(submit.puzzles)
                                       for puzzle, options, estimate in p.stored()],
                        submit.callback_url, submit.accept_cost)


def check_in_bulk(body: dict[str, Any], limits: Limits) -> CheckedBatch | None:
    """The batch if every item is plain and passes; None otherwise (the item-by-item check decides)."""
    try:
        envelope = Envelope.model_validate(body)
    except ValidationError:
        return None
    groups = _groups(envelope.puzzles)
    if groups is None:
        return None
    items: list[CheckedItem | None] = [None] * len(envelope.puzzles)
    for (name, _), indices in groups.items():
        options = envelope.puzzles[indices[0]].get("options")
        checked = _check_group(solvers.KINDS[name], [envelope.puzzles[i]["puzzle"] for i in indices],
                               options, limits)
        if checked is None:
            return None
        opts, estimates = checked
        for i, estimate in zip(indices, estimates, strict=True):
            items[i] = CheckedItem(name, envelope.puzzles[i]["puzzle"], opts, estimate, item=i)
    return CheckedBatch(envelope.label, items, envelope.callback_url,  # type: ignore[arg-type]  # all filled
                        envelope.accept_cost)


def _groups(items: list[Any]) -> dict[tuple[str, str | None], list[int]] | None:
    """The indices of the items by (kind, options as JSON text); None if an item is not plain."""
    groups: dict[tuple[str, str | None], list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        if type(item) is not dict or "puzzle" not in item or not item.keys() <= ITEM_KEYS:
            return None
        kind, options = item.get("kind"), item.get("options")
        if type(kind) is not str or kind not in solvers.KINDS:
            return None
        if options is not None and type(options) is not dict:
            return None
        groups[kind, None if options is None else canonical(options)].append(i)
    return groups


def _check_group(kind: solvers.Kind, puzzles: list[Any], options: dict[str, Any] | None,
                 limits: Limits) -> tuple[dict[str, Any], list[solvers.Estimate]] | None:
    """(the checked options, each puzzle's prediction) if every puzzle of the group passes; else None."""
    try:
        opts = kind.read_options(options)
        limits.check_options(kind.name, opts)
        for puzzle in puzzles:
            limits.check_size(kind.name, puzzle)
    except solvers.PuzzleError:
        return None
    prepared = kind.prepare_batch(puzzles, opts)
    if solvers.any_failed(prepared):
        return None
    return opts, list(kind.predictions(prepared, opts))
