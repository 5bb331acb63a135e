"""The Sudoku kind's generator record (``Generator``): generate.py's puzzles as generate-request
results, each checked again on its own (solution, uniqueness, rating range, symmetry)."""

from __future__ import annotations

from typing import Any

from solvers.base import SOLVED, Generator, InvalidOption, Option, Options, WrongAnswer
from solvers.sudoku import generate, grade, kernels, sat, solve
from solvers.sudoku.grid import layout, parse_text

OPTIONS = (
    Option("size", int, generate.GRADED_SIZE, "the grid's side; only 9x9 puzzles are rated (the "
           "grader's scale is defined on 9x9)", choices=generate.SIZES),
    Option("difficulty", str, None, "a band of the grader's rating (docs/solvers.md gives their ranges); "
           "or give rating_min and/or rating_max", choices=tuple(grade.BANDS)),
    Option("rating_min", float, None, "the least rating, on Sudoku Explainer's scale (1.0-11.9)",
           minimum=1.0, maximum=12.0),
    Option("rating_max", float, None, "the rating stays below this", minimum=1.0, maximum=12.0),
    Option("symmetry", str, "none", "the givens' symmetry; none for ratings of 9.0 and up (extreme)",
           choices=generate.SYMMETRIES),
    Option("minimal", bool, True, "no given can be removed without losing uniqueness"),
    Option("seed", int, 0, "puzzle i comes from (seed, i) alone: the same seed gives the same puzzles",
           minimum=0, maximum=2**63 - 1),
)

RESULT_FIELDS = {
    "puzzle": "the made puzzle, n*n symbols ('.' blank): the kind's wire form",
    "solution": "its only solution, n*n symbols",
    "rating": "the grader's rating on Sudoku Explainer's scale; null (with hardest, band and steps) "
              "off 9x9",
    "hardest": "the technique of the hardest step, which the rating rests on",
    "band": "the band of the rating: easy, medium, hard, expert, master or extreme",
    "steps": "the number of steps of the grader's solve",
    "attempts": "the attempts the generator made before this one was in range",
}

# CPU seconds per puzzle of each band, minimal (python -m bench.making, docs/benchmarks.md); None:
# any rating, where the first attempt is taken whatever its rating.
SECONDS = {"easy": 1.2e-3, "medium": 1.6e-3, "hard": 3.3e-3, "expert": 9.8e-3, "master": 0.1, "extreme": 0.2,
           None: 1.5e-3}
# CPU seconds per minimal puzzle of the unrated sizes (bench/factory.py --others)
SIZE_SECONDS = {4: 1e-3, 16: 0.42}


def _request(options: Options) -> generate.Options:
    return generate.Options(seed=options["seed"], band=options["difficulty"],
                            rating_min=options["rating_min"], rating_max=options["rating_max"],
                            symmetry=options["symmetry"], minimal=options["minimal"], size=options["size"])


def check(options: Options) -> None:
    try:
        _request(options).check()
    except ValueError as exc:
        raise InvalidOption(str(exc).replace("band", "difficulty")) from None


def make(options: Options, index: int) -> dict[str, Any]:
    made = generate.generate(_request(options), index, index + 1)[0]
    return {"puzzle": made.puzzle, "solution": made.solution, "rating": made.rating, "hardest": made.hardest,
            "band": made.band, "steps": made.steps, "attempts": made.attempts}


def verify(options: Options, result: dict[str, Any]) -> None:
    """The solution solves the puzzle and the solver, stopped at two, finds no other; the rating is
    in the requested range and of the band given; the givens have the requested symmetry."""
    if set(result) != set(RESULT_FIELDS):
        raise WrongAnswer(f"a made sudoku has {', '.join(RESULT_FIELDS)}; got {sorted(result)}")
    grid = parse_text(result["puzzle"])
    claimed = parse_text(result["solution"]).givens
    if grid.n != options["size"] or kernels.check_solution(grid.givens, claimed, layout(grid.n).units)[0]:
        raise WrongAnswer("the made puzzle's solution does not solve it")
    found = solve.solve(grid, {"strategy": "auto", "sat_solver": sat.SOLVERS[0], "max_solutions": 2,
                                   "split": 0})
    if found.status != SOLVED or found.result is None or not found.result["unique"] \
            or found.result["solution"] != result["solution"]:
        raise WrongAnswer("the made puzzle does not have exactly the one solution given")
    if grid.n != generate.GRADED_SIZE:
        if (result["rating"], result["hardest"], result["band"], result["steps"]) != (None, None, None, None):
            raise WrongAnswer(f"a {grid.n}x{grid.n} puzzle is not rated; got rating {result['rating']!r}")
    else:
        _check_rating(options, result)
    given = grid.givens.astype(bool)
    for orbit in generate.orbits_of(options["symmetry"], grid.n):
        cells = orbit[orbit >= 0]
        if given[cells].any() != given[cells].all():
            raise WrongAnswer(f"the givens break the {options['symmetry']} symmetry at {cells.tolist()}")


def _check_rating(options: Options, result: dict[str, Any]) -> None:
    low, high = _request(options).rating_range()
    if not low <= result["rating"] < high or result["band"] != grade.band_of(result["rating"]):
        raise WrongAnswer(f"rating {result['rating']} ({result['band']}) is not in [{low}, {high})")


def seconds(options: Options) -> float:
    if options["size"] != generate.GRADED_SIZE:
        return SIZE_SECONDS[options["size"]]
    if options["difficulty"] is not None:
        return SECONDS[options["difficulty"]]
    if options["rating_min"] is None and options["rating_max"] is None:
        return SECONDS[None]
    low, high = _request(options).rating_range()
    return max((SECONDS[band] for band, (a, b) in grade.BANDS.items() if a < high and low < b),
               default=SECONDS[None])


# The rating scale's band edges: SECONDS was measured over whole bands.
EDGES = frozenset(edge for band in grade.BANDS.values() for edge in band)


def outside_model(options: Options) -> bool:
    """A rating range that cuts a band is outside ``seconds``' model: its figures are of whole
    bands, and a narrow slice of one (rating_min 11.5, where few made puzzles land) may cost any
    multiple of its band's figure."""
    if options["size"] != generate.GRADED_SIZE or options["difficulty"] is not None:
        return False
    low, high = _request(options).rating_range()
    return low not in EDGES or high not in EDGES


GENERATOR = Generator(options=OPTIONS, make=make, check=check, verify=verify, seconds=seconds,
                      result_fields=RESULT_FIELDS, outside_model=outside_model)
