"""The interface every puzzle kind implements.

Terms (wire form, puzzle, options, outcome, part, head, plan, split settings, stop flag):
docs/glossary.md. A solver checks its stop flag (:func:`stop_flag`) every few thousand nodes or
every block of probes and raises :class:`Stopped`; the compiled kernels release the GIL, so that
the thread which sets it can run meanwhile. A search that can tell how far it got writes that
into the same array (solvers/progress.py).

Each kind is a package (``solvers/sudoku/`` ...) whose ``kind.py`` fills one :class:`Kind`
record (like each game of Simon Tatham's collection fills one ``struct game``); the registry
in ``solvers/__init__.py`` lists them once.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

JSON = Any
Puzzle = Any
Options = dict[str, Any]
Part = dict[str, Any]

SOLVED = "solved"
NO_SOLUTION = "no_solution"
STATUSES = (SOLVED, NO_SOLUTION)


# -- errors: every one a user can cause is a ValueError with a readable message


class PuzzleError(ValueError):
    """Bad input; the API maps it to 422 and names ``field``."""

    field = "puzzle"


class ParseError(PuzzleError):
    """The puzzle cannot be read at all (wrong type, bad symbol, wrong length)."""


class InvalidPuzzle(PuzzleError):
    """The puzzle reads fine but breaks a rule (contradictory givens, size)."""


class InvalidOption(PuzzleError):
    """An option is unknown, of the wrong type or out of range."""

    field = "options"


class UnknownKind(PuzzleError):
    field = "kind"


class InvalidField(PuzzleError):
    """Bad input in a named field of a request beside its puzzle (a hint's ``placed`` values)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class WrongAnswer(Exception):
    """A solver's outcome failed the independent check: a bug, never the user's fault."""


class NotMade(ValueError):
    """A generator gave up on a puzzle of a request within the request's own limits: the same
    request and index give up the same way, so no retry can make it. Its message is for the user."""


class BudgetExceeded(Exception):
    """``solve`` was given a node budget and the search needs more."""

    def __init__(self, nodes: int):
        super().__init__(f"node budget exceeded after {nodes} nodes")
        self.nodes = nodes


class Stopped(Exception):
    """``solve`` or ``solve_part`` found its stop flag set: the search was abandoned, its outcome
    is unknown."""


# -- stopping a search from another thread

# The flag is also where a long search reports how far it got (solvers/progress.py): one float64
# array that both threads hold, so a compiled kernel reads the one and writes the other in place.
StopFlag = np.ndarray  # float64[3]: [STOP] nonzero = stop; [DONE], [NODES] the search's progress
STOP, DONE, NODES = range(3)


def stop_flag() -> StopFlag:
    """A new, unset flag; ``flag[STOP] = 1`` (from any thread) stops the ``solve`` or ``solve_part``
    it was given to."""
    return np.zeros(3, np.float64)


def check_stop(stop: StopFlag | None) -> None:
    """Raise Stopped if the flag is set: a kernel that saw it returned early with partial counts."""
    if stop is not None and stop[STOP]:
        raise Stopped


# -- outcomes and statistics


@dataclass(slots=True)
class Outcome:
    status: str
    result: dict[str, Any] | None
    stats: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "result": self.result, "stats": self.stats}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(data["status"], data.get("result"), dict(data.get("stats") or {}))


class Outcomes(Sequence[Outcome]):
    """What ``solve_batch`` returns: one outcome per puzzle, in order. This plain form holds
    Outcome objects; a kind that solves in bulk subclasses it to keep its results as arrays and
    make an Outcome only when one is indexed. The worker writes a run through ``statuses``,
    ``nodes`` and ``encoded`` alone, so that such a kind makes no object per puzzle."""

    def __init__(self, outcomes: Sequence[Outcome] = ()):
        self._outcomes = list(outcomes)

    def __len__(self) -> int:
        return len(self._outcomes)

    def __getitem__(self, i: Any) -> Any:  # an int gives an Outcome, a slice a list of them
        return self._outcomes[i]

    def statuses(self) -> list[str]:
        return [o.status for o in self._outcomes]

    def nodes(self) -> list[int | None]:
        """Each outcome's ``stats["nodes"]`` (None where it has none): a budgeted plan reads it."""
        return [_nodes(o.stats) for o in self._outcomes]

    def encoded(self, encode: Callable[[Any], str]) -> list[str]:
        """Each outcome's ``[result, stats]`` as JSON text; ``encode``: the writer's encoder, for
        what a kind does not encode itself."""
        return [encode([o.result, o.stats]) for o in self._outcomes]


def _nodes(stats: Mapping[str, Any]) -> int | None:
    nodes = stats.get("nodes")
    return nodes if isinstance(nodes, int) else None


@dataclass
class Stats:
    """Fields every kind reports; each kind's stats record extends it."""

    elapsed_ms: float = 0.0
    subtasks: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class Stopwatch:
    """Milliseconds since creation; kinds use it for ``stats.elapsed_ms``."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    def ms(self) -> float:
        return round((time.perf_counter() - self._start) * 1000.0, 3)


class Prepared(Sequence[Puzzle]):
    """A kind's own sequence of prepared puzzles held in arrays (solvers.sudoku.Grids), which its
    ``prepare_batch`` returns only when every puzzle prepared: none of it is a PuzzleError."""


def any_failed(prepared: Sequence[Puzzle | PuzzleError]) -> bool:
    """Whether a ``prepare_batch`` result holds a PuzzleError (a ``Prepared`` one holds none)."""
    return not isinstance(prepared, Prepared) and any(isinstance(p, PuzzleError) for p in prepared)


class Estimate(NamedTuple):
    """A puzzle's work predicted before it runs, in CPU seconds of one core.

    The truth is expected within ``seconds / factor`` and ``seconds * factor``; ``basis`` names
    what the prediction rests on (``typical``: the kind's bench figure for puzzles like this one).
    """

    seconds: float
    factor: float = 10.0
    basis: str = "typical"

    @property
    def low(self) -> float:
        return self.seconds / self.factor

    @property
    def high(self) -> float:
        return self.seconds * self.factor


@dataclass
class Split:
    parts: list[Part]
    head: Outcome


# -- plans: how the worker solves a puzzle, decided by its kind


@dataclass(frozen=True)
class Whole:
    """Solve in one go."""


@dataclass(frozen=True)
class Budgeted:
    """Solve whole within ``nodes`` search nodes; past them, split into ``parts``."""

    nodes: int
    parts: int


@dataclass(frozen=True)
class Parts:
    """Cut into ``count`` parts right away."""

    count: int


Plan = Whole | Budgeted | Parts
WHOLE = Whole()

# The service's split settings, read by the kinds' plans: SPLIT_PARTS (parts of a split puzzle)
# and SPLIT_NODE_BUDGET (nodes of a budgeted try) for every kind, and a kind's own thresholds.
Settings = Mapping[str, Any]


def never_split(puzzle: Puzzle, options: Options, settings: Settings) -> Plan:
    return WHOLE


def split_past_budget(puzzle: Puzzle, options: Options, settings: Settings) -> Plan:
    """For trees whose size shows only while searching (Sudoku, spokes): most puzzles finish within
    the node budget, only the hard ones are split. An explicit ``split`` option wins: 0 never splits."""
    asked = options.get("split")
    if asked is not None:
        return Parts(asked) if asked else WHOLE
    return _budgeted(settings["SPLIT_NODE_BUDGET"], settings["SPLIT_PARTS"])


@functools.lru_cache(maxsize=16)
def _budgeted(nodes: int, parts: int) -> Budgeted:
    """One plan object per setting (plans are frozen): a chunk asks for a plan per puzzle."""
    return Budgeted(nodes, parts)


# -- options: declared once per kind, checked here, described by /kinds


@dataclass(frozen=True)
class Option:
    name: str
    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    def check(self, value: Any) -> Any:
        where = f"option '{self.name}'"
        if value is None:
            return self.default
        if self.type is bool:
            if not isinstance(value, bool):
                raise InvalidOption(f"{where} must be true or false, not {value!r}")
        elif self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOption(f"{where} must be an integer, not {value!r}")
        elif self.type is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InvalidOption(f"{where} must be a number, not {value!r}")
            value = float(value)
        elif not isinstance(value, self.type):
            raise InvalidOption(f"{where} must be a {self.type.__name__}, not {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise InvalidOption(f"{where} must be one of {allowed}; got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise InvalidOption(f"{where} must be at least {self.minimum}; got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise InvalidOption(f"{where} must be at most {self.maximum}; got {value!r}")
        return value

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type.__name__, "default": self.default, "doc": self.doc}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@dataclass(frozen=True)
class Request(Option):
    """An option whose value is an object of options of its own (``fields``), read and checked
    like a kind's options: a generate request is one."""

    fields: tuple[Option, ...] = ()

    def check(self, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise InvalidOption(f"option '{self.name}' must be an object, not {value!r}")
        return read_options(self.fields, value, self.name)


def read_options(spec: Sequence[Option], raw: Mapping[str, Any] | None, kind: str) -> Options:
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise InvalidOption(f"options must be an object, not {type(raw).__name__}")
    known = {o.name: o for o in spec}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        names = ", ".join(known) or "none"
        raise InvalidOption(f"unknown option {unknown[0]!r} for {kind}; known options: {names}")
    return {name: opt.check(raw.get(name)) for name, opt in known.items()}


# -- the record each kind fills

PrepareBatch = Callable[[Sequence[JSON], Options], "Sequence[Puzzle | PuzzleError]"]
SolveBatch = Callable[[Sequence[Puzzle], Options], Outcomes]
PlanBatch = Callable[[Sequence[Puzzle], Options, Settings], Sequence[Plan]]
PredictBatch = Callable[[Sequence[Puzzle], Options], Sequence[Estimate]]


@dataclass(frozen=True)
class Example:
    """A puzzle with a known status: documentation for /kinds, and contract-test input."""

    puzzle: JSON
    options: Mapping[str, Any] = field(default_factory=dict)
    status: str = SOLVED
    # The warm-up unit it belongs to (solvers.warm_up_units): "" the kind's main one; a name of its
    # own for examples whose kernels only some requests need and whose compile is long (Sudoku's
    # grader), which then compile beside the other units instead of after them.
    warm_up: str = ""


@dataclass(frozen=True)
class BadExample:
    puzzle: JSON
    options: Mapping[str, Any] = field(default_factory=dict)
    error: type[PuzzleError] = ParseError


class Solve(Protocol):
    """Raises BudgetExceeded past ``node_limit`` (kinds without a budget ignore it), Stopped once
    the stop flag is set."""

    def __call__(self, puzzle: Puzzle, options: Options, /, node_limit: int | None = None,
                 stop: StopFlag | None = None) -> Outcome: ...


class SolvePart(Protocol):
    """One part's outcome; raises Stopped once the stop flag is set."""

    def __call__(self, puzzle: Puzzle, options: Options, part: Part, /,
                 stop: StopFlag | None = None) -> Outcome: ...


class Cut(Protocol):
    """The puzzle cut into about ``wanted`` parts; no parts = not worth splitting (the head is then
    the whole outcome)."""

    def __call__(self, puzzle: Puzzle, options: Options, wanted: int, /) -> Split: ...


class Merge(Protocol):
    """The puzzle's outcome from the head and the outcomes of the parts, in order."""

    def __call__(self, puzzle: Puzzle, options: Options, head: Outcome, outcomes: Sequence[Outcome],
                 /) -> Outcome: ...


class Planner(Protocol):
    def __call__(self, puzzle: Puzzle, options: Options, settings: Settings, /) -> Plan: ...


class Splitting(NamedTuple):
    split: Cut
    solve_part: SolvePart
    merge: Merge


@dataclass(frozen=True)
class Generator:
    """How a kind makes puzzles: puzzle ``index`` of a request (``options``, read by ``options``,
    a request's ``count`` aside) is ``make(options, index)`` and nothing else, so that any split
    of a request makes the same puzzles. ``make`` returns the made puzzle's result: ``puzzle``
    in the kind's wire form, its ``solution``, its ``rating`` and what the rating rests on
    (``result_fields``). ``check`` raises InvalidOption for options that pass one by one but not
    together; ``verify`` raises WrongAnswer unless a result is right (the solution solves the
    puzzle, and is its only one where the kind's puzzles must be unique); ``seconds`` predicts
    one puzzle's CPU seconds (the kind's generation bench)."""

    options: tuple[Option, ...]
    make: Callable[[Options, int], dict[str, Any]]
    check: Callable[[Options], None]
    verify: Callable[[Options, dict[str, Any]], None]
    seconds: Callable[[Options], float]
    result_fields: Mapping[str, str]
    # (options) -> whether ``seconds`` does not model these options (Kind.outside_model)
    outside_model: Callable[[Options], bool] | None = None


class Provision(NamedTuple):
    """Files a kind's fast paths read that a fresh checkout lacks (``solvers.provision`` builds
    them; a worker starts that in a process of its own, only when ``missing`` says so)."""

    # Whether this machine lacks them: cheap, so that a worker checks before starting a build.
    missing: Callable[[], bool]
    # Builds them; safe from many processes at once: returns at once when they are there or
    # being built elsewhere.
    build: Callable[[], object]


@dataclass(frozen=True, kw_only=True)
class Kind:
    """One puzzle kind. A kind that never splits leaves ``plan``, ``split``, ``solve_part`` and
    ``merge`` out; one that does fills all four."""

    name: str
    summary: str
    input_format: str
    options: tuple[Option, ...]
    result_fields: Mapping[str, str]
    stats_fields: Mapping[str, str]
    # wire puzzle -> puzzle; raises ParseError
    parse: Callable[[JSON], Puzzle]
    # raises InvalidPuzzle / InvalidOption; whatever passes must not crash solve
    validate: Callable[[Puzzle, Options], None]
    solve: Solve
    # raises WrongAnswer unless the outcome is right for the puzzle
    verify: Callable[[Puzzle, Options, Outcome], None]
    # The puzzle's work predicted before it runs (:class:`Estimate`): the service groups cheap
    # puzzles into big tasks and sends dear ones to their own lane by it.
    predict: Callable[[Puzzle, Options], Estimate]
    examples: tuple[Example, ...]
    bad_examples: tuple[BadExample, ...]
    plan: Planner = never_split
    split: Cut | None = None
    solve_part: SolvePart | None = None
    merge: Merge | None = None
    # The files the kind's fast paths read and a fresh checkout lacks, built once per machine.
    provision: Provision | None = None
    # How the kind makes puzzles, for kinds that do (generate items, solvers.factory).
    generator: Generator | None = None
    # (options) -> whether ``predict`` does not model these options (its figures rest on no bench
    # of them): the service then prices such a puzzle as dear until puzzles of the same kind and
    # options have been measured (store.pricing). None: every option is modelled.
    outside_model: Callable[[Options], bool] | None = None
    # (options) -> what to change for a cheaper answer, said when a puzzle runs past its time limit
    # with these options; None where nothing cheaper exists
    time_limit_hint: Callable[[Options], str | None] | None = None
    # (wire puzzle, the user's placed values in the same form or None, per-cell candidate lists or
    # None) -> the next step from that position, the placed values that are wrong, or that it is
    # solved (docs/API.md, POST /hint); raises PuzzleError naming the field. None: no hints.
    hint: Callable[[JSON, JSON, JSON], dict[str, Any]] | None = None

    # (wire puzzles of this kind, options already read, shared by all) -> per puzzle what
    # ``prepare_with`` makes of it, or the PuzzleError it raises; the API checks a batch with it
    # (and ``cost``), the worker prepares a run of cheap puzzles with it
    prepare_batch: PrepareBatch = field(default=None)  # type: ignore[assignment]  # set in __post_init__
    # (puzzles from ``prepare_batch``, their options) -> one verified outcome per puzzle; a whole
    # run in a few calls
    solve_batch: SolveBatch = field(default=None)  # type: ignore[assignment]  # set in __post_init__
    # (puzzles from ``prepare_batch``, their options, split settings) -> ``plan`` of each, for a
    # kind whose puzzles of one batch can share a plan (``plans``)
    plan_batch: PlanBatch | None = None
    # (puzzles from ``prepare_batch``, their options) -> ``predict`` of each, for a kind whose
    # puzzles of one batch can share a prediction (``predictions``)
    predict_batch: PredictBatch | None = None

    def __post_init__(self) -> None:
        if self.prepare_batch is None:
            object.__setattr__(self, "prepare_batch", functools.partial(prepare_each, self))
        if self.solve_batch is None:
            object.__setattr__(self, "solve_batch", functools.partial(solve_each, self))
        splitting = (self.split, self.solve_part, self.merge)
        if any(f is None for f in splitting) and (self.plan is not never_split or any(splitting)):
            raise TypeError(f"kind {self.name}: plan, split, solve_part and merge come together")

    def splitting(self) -> Splitting:
        """The functions of a kind that splits; TypeError for one that never does."""
        if self.split is None or self.solve_part is None or self.merge is None:
            raise TypeError(f"kind {self.name} is never split into parts")
        return Splitting(self.split, self.solve_part, self.merge)

    def plans(self, puzzles: Sequence[Puzzle], opts: Options, settings: Settings) -> Sequence[Plan]:
        """``plan`` of each puzzle prepared by ``prepare_batch``: by ``plan_batch`` if the kind has
        one, else one call per puzzle."""
        if self.plan_batch is not None:
            return self.plan_batch(puzzles, opts, settings)
        return [self.plan(puzzle, opts, settings) for puzzle in puzzles]

    def predictions(self, puzzles: Sequence[Puzzle], opts: Options) -> Sequence[Estimate]:
        """``predict`` of each puzzle prepared by ``prepare_batch``: by ``predict_batch`` if the
        kind has one, else one call per puzzle."""
        if self.predict_batch is not None:
            return self.predict_batch(puzzles, opts)
        return [self.predict(puzzle, opts) for puzzle in puzzles]

    def read_options(self, raw: Mapping[str, Any] | None) -> Options:
        return read_options(self.options, raw, self.name)

    def prepare(self, puzzle: JSON, options: Mapping[str, Any] | None = None) -> tuple[Puzzle, Options]:
        """Wire input -> (puzzle, options), fully checked: the API's and the CLI's only entry."""
        opts = self.read_options(options)
        return self.prepare_with(puzzle, opts), opts

    def prepare_with(self, puzzle: JSON, opts: Options) -> Puzzle:
        """``prepare`` for options already read (``read_options``): puzzles sharing their options
        read them once (reading them costs more than parsing a 9x9 Sudoku)."""
        parsed = self.parse(puzzle)
        self.validate(parsed, opts)
        return parsed

    def describe(self) -> dict[str, Any]:
        generate = None if self.generator is None else {
            "options": {o.name: o.describe() for o in self.generator.options},
            "result": dict(self.generator.result_fields)}
        return {
            "kind": self.name,
            "summary": self.summary,
            "input": self.input_format,
            "options": {o.name: o.describe() for o in self.options},
            "result": dict(self.result_fields),
            "stats": dict(self.stats_fields),
            "example": {"kind": self.name, "puzzle": self.examples[0].puzzle,
                        "options": dict(self.examples[0].options)},
            "generate": generate,
            "hints": self.hint is not None,
        }


def prepare_each(kind: Kind, puzzles: Sequence[JSON], opts: Options) -> list[Puzzle | PuzzleError]:
    """The default ``prepare_batch``: ``prepare_with`` one puzzle after another."""
    out: list[Puzzle | PuzzleError] = []
    for wire in puzzles:
        try:
            out.append(kind.prepare_with(wire, opts))
        except PuzzleError as exc:
            out.append(exc)
    return out


def solve_each(kind: Kind, puzzles: Sequence[Puzzle], opts: Options) -> Outcomes:
    """The default ``solve_batch``: solve and verify one prepared puzzle after another."""
    out: list[Outcome] = []
    for puzzle in puzzles:
        outcome = kind.solve(puzzle, opts)
        kind.verify(puzzle, opts, outcome)
        out.append(outcome)
    return Outcomes(out)
