"""Pure puzzle-solving library: one package per kind, found through one registry.

Nothing here imports a web framework, a task queue or a database driver; the
service and the workers reach every kind only through :func:`get`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import solvers.jitcache  # noqa: F401  numba's cache locator, before any kernel module is imported
from solvers import factory, nqueens, sliding, spokes, sudoku
from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    BudgetExceeded,
    Estimate,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    NotMade,
    Options,
    Outcome,
    ParseError,
    Puzzle,
    PuzzleError,
    Split,
    Stopped,
    UnknownKind,
    WrongAnswer,
    any_failed,
)

# The registry: each kind's package is listed here once and nowhere else.
_KIND_MODULES: tuple[Any, ...] = (sudoku, nqueens, sliding, spokes)

KINDS: dict[str, Kind] = {m.KIND.name: m.KIND for m in _KIND_MODULES}

ITEM_KEYS = ("kind", "puzzle", "options")


class InvalidItem(PuzzleError):
    field = "item"


def get(name: Any) -> Kind:
    if not isinstance(name, str) or name not in KINDS:
        known = ", ".join(sorted(KINDS))
        raise UnknownKind(f"unknown kind {name!r}; known kinds: {known}")
    return KINDS[name]


def kind_for(name: Any, options: Any) -> Kind:
    """The record that solves a stored puzzle: the kind's, or for a puzzle of a generate request
    (options with a ``generate`` field) the kind's making record (solvers.factory)."""
    kind = get(name)
    return factory.making(kind) if factory.is_made(options) else kind


def prepare_item(item: Any) -> tuple[Kind, Puzzle, Options]:
    """One wire item ``{"kind", "puzzle", "options"}`` -> checked (kind, puzzle, options); the
    kind is the record that solves it (``kind_for``)."""
    if not isinstance(item, Mapping):
        raise InvalidItem(f"each puzzle item must be an object, not {type(item).__name__}")
    extra = sorted(set(item) - set(ITEM_KEYS))
    if extra:
        raise InvalidItem(f"unknown field {extra[0]!r}; an item has kind, puzzle and options "
                          f"(or kind and generate)")
    if "puzzle" not in item:
        raise ParseError("missing field 'puzzle'")
    kind = kind_for(item.get("kind"), item.get("options"))
    puzzle, options = kind.prepare(item["puzzle"], item.get("options"))
    return kind, puzzle, options


HINT_KEYS = ("kind", "puzzle", "placed", "candidates")


def hint_item(item: Any) -> dict[str, Any]:
    """A hint request ``{"kind", "puzzle", "placed", "candidates"}`` -> its kind's answer
    (``Kind.hint``); PuzzleError naming the field when the request is bad or the kind gives no
    hints."""
    if not isinstance(item, Mapping):
        raise InvalidItem(f"a hint request must be an object, not {type(item).__name__}")
    extra = sorted(set(item) - set(HINT_KEYS))
    if extra:
        raise InvalidItem(f"unknown field {extra[0]!r}; a hint request has {', '.join(HINT_KEYS)}")
    kind = get(item.get("kind"))
    if kind.hint is None:
        with_hints = ", ".join(sorted(k.name for k in KINDS.values() if k.hint is not None))
        raise UnknownKind(f"kind {kind.name!r} gives no hints; kinds that do: {with_hints}")
    if "puzzle" not in item:
        raise ParseError("missing field 'puzzle'")
    return kind.hint(item["puzzle"], item.get("placed"), item.get("candidates"))


def read_generate_item(item: Mapping[str, Any], most: int) -> tuple[Kind, int, Options]:
    """A generate item ``{"kind", "generate": {"count", ...}}`` -> (the making record, count, the
    stored options of each of its puzzles); ``most``: the largest count allowed."""
    extra = sorted(set(item) - {"kind", factory.GENERATE})
    if extra:
        raise InvalidItem(f"unknown field {extra[0]!r}; a generate item has kind and generate")
    kind = get(item.get("kind"))
    count, options = factory.read_request(kind, item[factory.GENERATE], most)
    return factory.making(kind), count, options


def warm_up(kinds: Iterable[Kind] | None = None) -> None:
    """Solve every kind's examples once (or these kinds'), one by one and as a batch, so that
    compiled kernels are loaded before real work (loading one costs more than many solves)."""
    for kind in KINDS.values() if kinds is None else kinds:
        _solve_examples(kind, kind.examples)


@dataclass(frozen=True)
class WarmUpUnit:
    """Examples of one kind whose kernels compile together: what one process of several warming
    up at once takes (worker.warmup). ``name`` is the kind's, with the examples' ``warm_up``."""

    name: str
    kind: Kind
    examples: tuple[Example, ...]

    def warm(self) -> None:
        """Compile its kernels into numba's cache, or load them from there."""
        _solve_examples(self.kind, self.examples)


def warm_up_units() -> list[WarmUpUnit]:
    """``warm_up``'s work cut into units: each kind's main unit, in the registry's order (the
    README's first request's), then the named ones (Example.warm_up), which only some requests
    need; together they solve every example once."""
    main: list[WarmUpUnit] = []
    named: list[WarmUpUnit] = []
    for kind in KINDS.values():
        for unit in dict.fromkeys(example.warm_up for example in kind.examples):
            examples = tuple(e for e in kind.examples if e.warm_up == unit)
            (named if unit else main).append(
                WarmUpUnit(f"{kind.name}.{unit}" if unit else kind.name, kind, examples))
    return main + named


def _solve_examples(kind: Kind, examples: Iterable[Example]) -> None:
    for example in examples:
        puzzle, options = kind.prepare(example.puzzle, example.options)
        kind.solve(puzzle, options)
        kind.solve_batch(kind.prepare_batch([example.puzzle], options), options)


def provision() -> None:
    """Build what each kind's fast paths read and this machine lacks (see ``Kind.provision``)."""
    for kind in KINDS.values():
        if kind.provision is not None:
            kind.provision.build()


def provision_missing() -> bool:
    """Whether any kind lacks files that ``provision`` builds."""
    return any(kind.provision is not None and kind.provision.missing() for kind in KINDS.values())


__all__ = [
    "KINDS", "NO_SOLUTION", "SOLVED", "BudgetExceeded", "Estimate", "InvalidItem", "InvalidOption",
    "InvalidPuzzle", "Kind", "NotMade", "Outcome", "ParseError", "PuzzleError", "Split", "Stopped",
    "UnknownKind", "WarmUpUnit", "WrongAnswer", "any_failed", "get", "hint_item", "kind_for",
    "prepare_item", "provision", "provision_missing", "read_generate_item", "warm_up", "warm_up_units",
]


def answer_without_compiling() -> None:
    """This process (the API) never waits for a compile while it checks a request: the kernels its
    kinds' checks use are compiled (or loaded from numba's cache) in a thread, and until then their
    plain numpy forms answer alike (solvers.sudoku.checks)."""
    from solvers.sudoku import checks

    checks.warm_in_background()
