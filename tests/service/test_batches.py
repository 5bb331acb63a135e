"""The bulk check of a batch (service.batches) accepts exactly what the item-by-item model accepts."""

from typing import Any

import pytest
from pydantic import ValidationError

from service import batches
from service.schemas import JobSubmit, Limits

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
CONFLICT = "55" + EASY[2:]
LIMITS = Limits(max_puzzle_bytes={"default": 20000, "sliding": 40},
                option_limits={"sudoku.max_solutions": 10})

BODIES: list[dict[str, Any]] = [
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY}] * 3},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY, "options": {"max_solutions": 5}},
                 {"kind": "nqueens", "puzzle": {"n": 8}},
                 {"kind": "sudoku", "puzzle": EASY, "options": {"strategy": "greedy"}},
                 {"kind": "sudoku", "puzzle": "1.3..4.22..3..2.", "options": None}], "label": "mixed"},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY}, {"kind": "sudoku", "puzzle": CONFLICT}]},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY, "options": {"max_solutions": 2.0}}]},
    # over the service's caps: an option, a puzzle's size
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY, "options": {"max_solutions": 11}}]},
    {"puzzles": [{"kind": "sliding", "puzzle": "1 2 3 4 5 6 7 8 0"}]},
    {"puzzles": [{"kind": "sliding", "puzzle": "1 2 3 4 5 6 7 8 0" + " " * 40}]},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY, "extra": 1}]},
    {"puzzles": [{"kind": "sudoku"}]},
    {"puzzles": [{"kind": "chess", "puzzle": EASY}]},
    {"puzzles": [{"kind": 3, "puzzle": EASY}]},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY, "options": [1]}]},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY, "options": {"nope": 1}}]},
    {"puzzles": ["sudoku"]},
    {"puzzles": []},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY}], "label": "a\x00b"},
    {"puzzles": [{"kind": "sudoku", "puzzle": EASY}], "other": 1},
]


def item_by_item(body):
    try:
        submit = JobSubmit.model_validate(body, context={"limits": LIMITS})
    except ValidationError:
        return None
    items = [batches.CheckedItem(p.kind, puzzle, options, estimate, item=i)
             for i, p in enumerate(submit.puzzles) for puzzle, options, estimate in p.stored()]
    return batches.CheckedBatch(submit.label, items)


@pytest.mark.parametrize("body", BODIES)
def test_bulk_accepts_only_what_the_model_accepts_and_checks_it_the_same(body):
    bulk, model = batches.check_in_bulk(body, LIMITS), item_by_item(body)
    if model is None:
        assert bulk is None
        with pytest.raises(ValidationError):
            batches.check(body, LIMITS)
    else:
        assert batches.check(body, LIMITS) == model
        assert bulk is None or bulk == model


def test_plain_batches_are_checked_in_bulk():
    for body in [*BODIES[:2], BODIES[5]]:
        assert batches.check_in_bulk(body, LIMITS) == item_by_item(body) is not None


def test_items_of_one_kind_and_options_share_their_checked_options():
    checked = batches.check_in_bulk(BODIES[0], LIMITS)
    assert checked is not None
    first, *rest = checked.items
    assert all(item.options is first.options for item in rest)
