"""The spokes factory: levels judged again by the Pruning Algorithm, uniqueness proved again by
SAT, every answer checked by the kind's verify, puzzles reproducible from (seed, index)."""

import pytest

from solvers.base import InvalidOption, read_options
from solvers.spokes.generate import GENERATE_OPTIONS, make
from solvers.spokes.kind import KIND


def request(**raw):
    return read_options(GENERATE_OPTIONS, raw, "spokes")


def solved(puzzle, strategy):
    """The kind's outcome of ``puzzle`` by ``strategy`` (two solutions asked), checked by verify."""
    grid, opts = KIND.prepare(puzzle, {"strategy": strategy, "max_solutions": 2})
    outcome = KIND.solve(grid, opts)
    KIND.verify(grid, opts, outcome)
    return outcome


@pytest.mark.parametrize(("width", "height", "level"), [(4, 4, "easy"), (4, 4, "hard"), (7, 5, "easy"),
                                                        (6, 9, "hard"), (12, 12, "easy")])
def test_levels_are_met_and_puzzles_are_unique(width, height, level):
    for index in range(3):
        made = make(request(width=width, height=height, level=level, seed=4), index)
        assert made["level"] == level and made["unique"] is True
        grid, _ = KIND.prepare(made["puzzle"])
        assert (grid.width, grid.height) == (width, height)
        by_sat = solved(made["puzzle"], "sat")
        assert by_sat.result["solutions_found"] == 1
        assert by_sat.result["spokes"] == made["solution"]
        assert solved(made["puzzle"], "search").result["spokes"] == made["solution"]
        assert solved(made["puzzle"], "pruning").stats["pa_complete"] is (level == "easy")


def test_seed_and_index_alone_decide_the_puzzle():
    options = request(width=6, height=6, level="hard", seed=11)
    made = [make(options, i) for i in range(4)]
    assert [make(options, i) for i in reversed(range(4))] == made[::-1]
    assert len({m["puzzle"] for m in made}) == 4
    assert make(request(width=6, height=6, level="hard", seed=12), 0) != made[0]


@pytest.mark.parametrize(("raw", "message"), [
    ({"width": 3}, "at least 4"), ({"height": 31}, "at most 30"), ({"level": "medium"}, "one of easy, hard"),
    ({"seed": -1}, "at least 0"), ({"count": 5}, "unknown option 'count'"),
    ({"max_attempts": 0}, "at least 1"),
])
def test_bad_options_raise_invalid_option(raw, message):
    with pytest.raises(InvalidOption, match=message):
        request(**raw)


def test_exhausted_attempts_name_the_option():
    # a 4x4 drawing thin enough for search is not always had at the first try: some seed shows it
    messages = []
    for seed in range(30):
        try:
            make(request(level="hard", width=4, height=4, seed=seed, max_attempts=1), 0)
        except ValueError as exc:
            messages.append(str(exc))
    assert messages
    assert all("after 1 attempts (max_attempts)" in m for m in messages)
