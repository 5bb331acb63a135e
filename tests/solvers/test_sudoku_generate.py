"""The Sudoku generator: uniqueness proved by other solvers (SAT, the greedy tree), minimality by
removing each given, bands met (extreme ones near very hard seeds), seeds reproducible and
independent of how a request is split; 4x4 and 16x16 unrated; the factory's record (making.py)
over them."""

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from solvers.base import InvalidOption, read_options
from solvers.sudoku import gradek, kernels, making, vicinity
from solvers.sudoku.generate import ORBITS, SINGLES_BOUNDS, Options, generate
from solvers.sudoku.grade import BANDS, GUESS_MAX, grade
from solvers.sudoku.grid import layout
from solvers.sudoku.kind import KIND
from tests.solvers.test_sudoku import python_env


def solutions(puzzle, strategy):
    """(count up to 2, first solution) by ``strategy``, its answer checked by the kind's verify."""
    grid, opts = KIND.prepare(puzzle, {"strategy": strategy, "max_solutions": 2})
    outcome = KIND.solve(grid, opts)
    KIND.verify(grid, opts, outcome)
    result = outcome.result or {"solutions_found": 0, "solution": None}
    return result["solutions_found"], result["solution"]


def test_puzzles_are_unique_and_minimal_by_other_solvers():
    for made in generate(Options(seed=3), 0, 3):
        assert solutions(made.puzzle, "sat") == (1, made.solution)
        for cell, ch in enumerate(made.puzzle):
            if ch != ".":
                fewer = made.puzzle[:cell] + "." + made.puzzle[cell + 1:]
                assert solutions(fewer, "greedy")[0] == 2, (made.puzzle, cell)


@pytest.mark.parametrize("band", ["easy", "medium", "hard", "expert", "master", "extreme"])
def test_requested_band_is_met(band):
    for made in generate(Options(seed=1, band=band), 0, 2):
        graded = grade(made.puzzle)
        assert graded.band == band == made.band
        assert (graded.rating, graded.hardest) == (made.rating, made.hardest)
        assert solutions(made.puzzle, "sat") == (1, made.solution)


def is_minimal(puzzle):
    """Whether every given is needed: without any one of them the puzzle has two solutions."""
    return all(solutions(puzzle[:cell] + "." + puzzle[cell + 1:], "sat")[0] == 2
               for cell, ch in enumerate(puzzle) if ch != ".")


def test_extreme_puzzles_are_unique_minimal_and_rated_nine_or_more():
    made = generate(Options(seed=11, band="extreme"), 0, 2)
    for m in made:
        assert solutions(m.puzzle, "sat") == (1, m.solution)
        assert is_minimal(m.puzzle)
        assert grade(m.puzzle).rating == m.rating >= 9.0 and m.band == "extreme"
    assert generate(Options(seed=11, band="extreme"), 1, 2) == made[1:]  # reproducible by (seed, index)
    assert make(made_by(difficulty="extreme", seed=11), 0)["puzzle"] == made[0].puzzle  # verify passes
    loose = generate(Options(seed=11, band="extreme", minimal=False), 0, 1)[0]
    assert solutions(loose.puzzle, "sat") == (1, loose.solution)
    assert not is_minimal(loose.puzzle) and grade(loose.puzzle).rating >= 9.0
    ranged = generate(Options(seed=3, rating_min=9.0, rating_max=9.5), 0, 1)[0]
    assert 9.0 <= grade(ranged.puzzle).rating < 9.5


def test_isomorphs_keep_grids_valid_and_ratings():
    rng = np.random.default_rng(4)
    seed = vicinity.seeds()[0]
    solution = kernels_solution(seed)
    units = layout(9).units
    for _ in range(20):
        change = vicinity.isomorph(rng)
        puzzle, solved = change.apply(seed), change.apply(solution)
        assert not kernels.check_solution(puzzle, solved, units)[0]  # a valid grid, holding the givens
        assert solutions(render(puzzle), "sat") == (1, render(solved))
    assert sorted(change.cells.tolist()) == list(range(81))
    assert sorted(change.digits.tolist()) == list(range(10))
    assert grade(render(puzzle)).rating == grade(render(seed)).rating


def test_seeds_are_very_hard_and_moves_keep_uniqueness():
    rng = np.random.default_rng(5)
    bank = vicinity.seeds()
    assert len(bank) >= 50 and all(vicinity.unique(p) for p in bank)
    seed = bank[1]
    solution = kernels_solution(seed)
    near = vicinity.move(rng, seed, solution)
    assert near is not None and vicinity.unique(near)
    changed = np.flatnonzero(near != seed)
    assert len(changed) == 2 and sorted(bool(near[c]) for c in changed) == [False, True]
    assert (near[near > 0] == solution[near > 0]).all()


def kernels_solution(puzzle):
    """The one solution of ``puzzle`` (uint8[81]), by the SAT strategy."""
    count, solution = solutions(render(puzzle), "sat")
    assert count == 1
    return np.frombuffer(solution.encode(), np.uint8) - ord("0")


def render(grid):
    return "".join(str(v) if v else "." for v in grid.tolist())


def test_symmetric_extreme_is_refused():
    with pytest.raises(ValueError, match=r"symmetry 'rotational' is not offered for ratings of 9\.0"):
        generate(Options(band="extreme", symmetry="rotational"), 0, 1)
    with pytest.raises(InvalidOption, match="symmetry 'mirror' is not offered"):
        made_by(rating_min=9.5, symmetry="mirror")
    made_by(difficulty="master", symmetry="mirror")  # below 9.0 symmetry stays


def test_a_rating_range_is_met():
    for made in generate(Options(seed=2, rating_min=2.5, rating_max=3.5), 0, 3):
        assert 2.5 <= grade(made.puzzle).rating < 3.5


def test_seeds_reproduce_and_splits_agree():
    options = Options(seed=42, band="medium")
    whole = generate(options, 0, 5)
    assert generate(options, 0, 5) == whole
    assert generate(options, 0, 2) + generate(options, 2, 3) + generate(options, 3, 5) == whole
    assert [m.index for m in whole] == [0, 1, 2, 3, 4]
    assert len({m.puzzle for m in whole}) == 5
    assert generate(Options(seed=43, band="medium"), 0, 5) != whole


@pytest.mark.parametrize("symmetry", ["rotational", "diagonal", "mirror"])
def test_symmetric_givens(symmetry):
    image = {"rotational": lambda r, c: (8 - r, 8 - c), "diagonal": lambda r, c: (c, r),
             "mirror": lambda r, c: (r, 8 - c)}[symmetry]
    for made in generate(Options(seed=5, symmetry=symmetry), 0, 2):
        given = {divmod(cell, 9) for cell, ch in enumerate(made.puzzle) if ch != "."}
        assert {image(r, c) for r, c in given} == given
        assert solutions(made.puzzle, "sat")[0] == 1
        for orbit in ORBITS[symmetry]:  # no orbit of givens can go
            cells = [int(c) for c in orbit if c >= 0]
            if made.puzzle[cells[0]] != ".":
                fewer = "".join("." if i in cells else ch for i, ch in enumerate(made.puzzle))
                assert solutions(fewer, "greedy")[0] == 2


def test_not_minimal_keeps_uniqueness_and_adds_givens():
    loose = generate(Options(seed=9, minimal=False), 0, 3)
    tight = generate(Options(seed=9), 0, 3)
    for made, minimal in zip(loose, tight, strict=True):
        assert solutions(made.puzzle, "sat") == (1, made.solution)
        assert made.puzzle.count(".") < minimal.puzzle.count(".")


def test_singles_bounds_hold():
    # the generator's early rejection trusts these bounds: check them on its own puzzles
    for made in generate(Options(seed=4), 0, 12):
        low, high = SINGLES_BOUNDS[gradek.singles_level(np.frombuffer(
            made.puzzle.replace(".", "0").encode(), np.uint8) - ord("0"))]
        assert low <= made.rating <= high


@pytest.mark.parametrize(("options", "message"), [
    (Options(band="insane"), "band 'insane' is not one of easy"),
    (Options(band="easy", rating_min=2.0), "either 'band' or 'rating_min'"),
    (Options(rating_min=5.0, rating_max=4.0), "rating_min \\(5.0\\) must be below"),
    (Options(symmetry="spiral"), "symmetry 'spiral'"),
    (Options(seed=-1), "seed must be an integer >= 0"),
    (Options(max_attempts=0), "max_attempts must be at least 1"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        generate(options, 0, 1)


def test_bad_range_and_exhausted_attempts():
    with pytest.raises(ValueError, match="start=3, stop=1"):
        generate(Options(), 3, 1)
    with pytest.raises(ValueError, match="after 1 attempts"):
        generate(Options(seed=0, rating_min=GUESS_MAX + 0.05, max_attempts=1), 0, 1)
    with pytest.raises(ValueError, match="after 1 attempts \\(max_attempts\\)"):
        generate(Options(seed=0, rating_min=BANDS["master"][0] + 1.4, rating_max=9.0, max_attempts=1), 0, 1)


NO_JIT_PROBE = """
import dataclasses, json
from solvers.sudoku.generate import Options, generate
from solvers.sudoku.grade import grade
made = generate(Options(seed=3), 0, 1)[0]
print(json.dumps([dataclasses.asdict(made), dataclasses.asdict(grade(made.puzzle))]))
"""


def test_kernels_agree_without_the_jit():
    # the generator's and the grader's kernels are the numba subset that also runs as Python
    made = generate(Options(seed=3), 0, 1)[0]
    expected = [dataclasses.asdict(made), dataclasses.asdict(grade(made.puzzle))]
    done = subprocess.run([sys.executable, "-c", NO_JIT_PROBE], check=False, capture_output=True, text=True,
                          env=python_env(NUMBA_DISABLE_JIT="1"), timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(json.dumps(expected))


def made_by(**raw):
    """A request through the factory's options, checked as the service checks it."""
    options = read_options(making.OPTIONS, raw, "sudoku")
    making.check(options)
    return options


def make(options, index):
    """making.make's puzzle, checked again by making.verify."""
    made = making.make(options, index)
    making.verify(options, made)
    return made


@pytest.mark.parametrize("size", [4, 16])
def test_other_sizes_are_unique_minimal_and_unrated(size):
    for index in range(2):
        made = make(made_by(size=size, seed=6), index)
        assert len(made["puzzle"]) == size * size
        assert (made["rating"], made["band"], made["hardest"]) == (None, None, None)
        assert solutions(made["puzzle"], "sat") == (1, made["solution"])
        if size == 4:  # every given needed
            for cell, ch in enumerate(made["puzzle"]):
                if ch != ".":
                    fewer = made["puzzle"][:cell] + "." + made["puzzle"][cell + 1:]
                    assert solutions(fewer, "sat")[0] == 2


def test_sixteen_symmetric_and_not_minimal():
    made = make(made_by(size=16, symmetry="rotational", seed=2), 0)
    given = {cell for cell, ch in enumerate(made["puzzle"]) if ch != "."}
    assert {255 - cell for cell in given} == given
    assert solutions(made["puzzle"], "sat") == (1, made["solution"])
    loose = make(made_by(size=4, minimal=False, seed=2), 0)
    tight = make(made_by(size=4, seed=2), 0)
    assert loose["solution"] == tight["solution"]
    assert sum(ch != "." for ch in loose["puzzle"]) > sum(ch != "." for ch in tight["puzzle"])
    assert solutions(loose["puzzle"], "sat") == (1, loose["solution"])


def test_making_wraps_generate_by_seed_and_index():
    options = made_by(difficulty="medium", seed=42)
    assert make(options, 3)["puzzle"] == generate(Options(seed=42, band="medium"), 3, 4)[0].puzzle
    made = make(options, 1)
    assert made["band"] == grade(made["puzzle"]).band == "medium"
    ranged = make(made_by(rating_min=2.5, rating_max=3.5, seed=1), 0)
    assert 2.5 <= ranged["rating"] < 3.5
    for size in (4, 16):
        assert make(made_by(size=size, seed=8), 2) == make(made_by(size=size, seed=8), 2)
        assert make(made_by(size=size, seed=8), 2) != make(made_by(size=size, seed=8), 3)


@pytest.mark.parametrize(("raw", "message"), [
    ({"size": 4, "difficulty": "easy"}, "9x9 puzzles only"),
    ({"size": 16, "rating_min": 2.0}, "9x9 puzzles only"),
    ({"size": 25}, "one of 4, 9, 16"), ({"difficulty": "easy", "rating_max": 3.0}, "not both"),
    ({"rating_min": 5.0, "rating_max": 4.0}, "must be below"), ({"difficulty": "brutal"}, "one of easy"),
    ({"count": 3}, "unknown option 'count'"),
])
def test_bad_factory_options_raise_invalid_option(raw, message):
    with pytest.raises(InvalidOption, match=message):
        made_by(**raw)


def test_a_request_of_any_rating_is_predicted_as_its_first_attempt_not_as_the_dearest_band():
    # Any rating takes the first attempt: priced as extreme's, a batch of them looked 130 times dearer.
    def predicted(**given):
        return making.seconds(read_options(making.OPTIONS, given, "sudoku"))

    assert predicted() == making.SECONDS[None] < predicted(difficulty="hard")
    assert predicted(rating_min=9.0) == making.SECONDS["extreme"]
    assert predicted(rating_max=2.5) == making.SECONDS["medium"]
