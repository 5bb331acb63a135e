"""The Spokes generator's prediction of one puzzle's seconds (solvers/spokes/making.py)."""

import pytest

from solvers.base import read_options
from solvers.spokes.generate import GENERATE_OPTIONS, LEVELS
from solvers.spokes.making import FIXED_SECONDS, SECONDS_7X7, seconds

SIDES = (4, 5, 7, 10, 15, 20, 30)


def predicted(side, level):
    return seconds(read_options(GENERATE_OPTIONS, {"width": side, "height": side, "level": level}, "spokes"))


@pytest.mark.parametrize("level", LEVELS)
def test_a_prediction_grows_with_the_points_from_a_fixed_cost(level):
    figures = [predicted(side, level) for side in SIDES]
    assert figures == sorted(figures) and len(set(figures)) == len(figures)
    assert all(f > FIXED_SECONDS for f in figures)
    assert predicted(7, level) == pytest.approx(FIXED_SECONDS + SECONDS_7X7[level])
    assert figures[-1] > 100 * figures[2]  # 30x30 against 7x7: 18 times the points


@pytest.mark.parametrize("side", SIDES)
def test_hard_puzzles_are_predicted_dearer_than_easy_ones_of_their_size(side):
    assert predicted(side, "hard") > 2 * predicted(side, "easy")


def test_a_grid_of_the_same_points_is_predicted_the_same_either_way_round():
    tall = seconds(read_options(GENERATE_OPTIONS, {"width": 5, "height": 12, "level": "hard"}, "spokes"))
    wide = seconds(read_options(GENERATE_OPTIONS, {"width": 12, "height": 5, "level": "hard"}, "spokes"))
    assert tall == wide > predicted(7, "hard")
