"""Making puzzles through the solving path: a generate item becomes one stored puzzle per index.

A generate item ``{"kind", "generate": {"count", ...}}`` is read by :func:`read_request` (for the
registry's ``read_generate_item``) into its count and its request (the kind's generate options,
checked, defaults filled in). Puzzle ``i`` of it is stored as any puzzle is: the wire puzzle
``i`` with the options ``{"generate": request}``. :func:`making` is the record that solves such
a puzzle: its ``solve`` makes puzzle ``i`` (``Generator.make``), its ``verify`` checks what was
made (``Generator.verify``), its ``predict`` is ``Generator.seconds``. The registry hands it out
for stored options with a ``generate`` field (``solvers.kind_for``), so that the worker makes a
puzzle by the path by which it solves one.

Terms (generate item, making, making record): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solvers.base import (
    SOLVED,
    Estimate,
    Generator,
    InvalidOption,
    Kind,
    Option,
    Options,
    Outcome,
    ParseError,
    Request,
    StopFlag,
    Stopwatch,
    WrongAnswer,
)

GENERATE = "generate"
COUNT = "count"


class InvalidRequest(InvalidOption):
    """A generate item's ``generate`` object is bad: the API names that field."""

    field = GENERATE


def generator_of(kind: Kind) -> Generator:
    if kind.generator is None:
        raise InvalidOption(f"kind {kind.name} does not generate puzzles")
    return kind.generator


def read_request(kind: Kind, raw: Any, most: int) -> tuple[int, Options]:
    """A generate item's ``generate`` object -> (count, request): the count 1..``most``, the
    request's options checked alone and together (InvalidRequest naming the one at fault)."""
    try:
        generator = generator_of(kind)
        if not isinstance(raw, Mapping):
            raise InvalidOption(f"'generate' must be an object, not {type(raw).__name__}")
        count = Option(COUNT, int, None, "puzzles to make", minimum=1, maximum=most).check(raw.get(COUNT))
        if count is None:
            raise InvalidOption("'generate' needs 'count', the number of puzzles to make")
        request = making(kind).read_options({GENERATE: {k: v for k, v in raw.items() if k != COUNT}})
        generator.check(request[GENERATE])
    except InvalidOption as exc:
        raise InvalidRequest(str(exc)) from None
    return count, request


def is_made(options: Any) -> bool:
    """Whether stored options are a generate request's (the puzzle is then an index)."""
    return isinstance(options, Mapping) and GENERATE in options


def _parse_index(wire: Any) -> int:
    if isinstance(wire, bool) or not isinstance(wire, int) or wire < 0:
        raise ParseError(f"a generated puzzle is its index in the request, an integer >= 0; not {wire!r}")
    return wire


_MAKING: dict[str, Kind] = {}


def making(kind: Kind) -> Kind:
    """The record that makes ``kind``'s puzzle ``index`` of a request (module doc), made once."""
    if kind.name not in _MAKING:
        _MAKING[kind.name] = _making(kind, generator_of(kind))
    return _MAKING[kind.name]


def _making(kind: Kind, generator: Generator) -> Kind:

    def validate(index: int, options: Options) -> None:
        generator.check(options[GENERATE])

    def solve(index: int, options: Options, /, node_limit: int | None = None,
              stop: StopFlag | None = None) -> Outcome:
        watch = Stopwatch()
        made = generator.make(options[GENERATE], index)
        return Outcome(SOLVED, made, {"elapsed_ms": watch.ms(), "subtasks": 0})

    def verify(index: int, options: Options, outcome: Outcome) -> None:
        if outcome.status != SOLVED or not isinstance(outcome.result, dict):
            raise WrongAnswer(f"a made puzzle is solved with a result; got {outcome.status!r}")
        generator.verify(options[GENERATE], outcome.result)

    def predict(index: int, options: Options) -> Estimate:
        return Estimate(generator.seconds(options[GENERATE]))

    outside = generator.outside_model

    def outside_model(options: Options) -> bool:
        return outside is not None and outside(options[GENERATE])

    return Kind(
        name=kind.name,
        summary=f"puzzle i of a {kind.name} generate request",
        input_format="the puzzle's index in its generate request, an integer >= 0",
        options=(Request(GENERATE, dict, None, "the generate request, count aside",
                         fields=generator.options),),
        result_fields=generator.result_fields,
        stats_fields={"elapsed_ms": "time to make and grade the puzzle", "subtasks": "always 0"},
        parse=_parse_index, validate=validate, solve=solve, verify=verify, predict=predict,
        outside_model=outside_model,
        examples=(), bad_examples=(),
    )
