"""A signed puzzle's price (store.pricing.price): dear until LEARN_AFTER of its signature are
measured, then their mean, never below its kind's own prediction; the signature of equal options."""

from solvers.base import Estimate
from store import pricing


def test_unmeasured_options_are_priced_at_the_dear_figure_until_enough_are_measured():
    own = Estimate(0.004, 5.0, "table")
    assert pricing.price(own, None, 120.0) == Estimate(120.0, 10.0, "unmeasured")
    few = (pricing.LEARN_AFTER - 1, 50.0, 60.0)
    assert pricing.price(own, few, 120.0).basis == "unmeasured"
    assert pricing.price(Estimate(500.0), None, 120.0).seconds == 500.0  # never below its own


def test_measured_options_are_priced_at_their_mean_within_a_factor_that_covers_the_dearest():
    own = Estimate(0.004, 5.0, "table")
    learned = (pricing.LEARN_AFTER, 10.0, 50.0)
    assert pricing.price(own, learned, 120.0) == Estimate(10.0, 5.0, "measured")
    assert pricing.price(own, (8, 10.0, 10.5), 120.0).factor == 1.5  # the least spread of a measurement
    assert pricing.price(Estimate(20.0), learned, 120.0) == Estimate(20.0, 2.5, "measured")


def test_dear_seconds_are_the_time_limit_within_the_cap():
    assert pricing.dear_seconds(120.0, 0.0) == 120.0
    assert pricing.dear_seconds(120.0, 60.0) == 60.0
    assert pricing.dear_seconds(120.0, 86400.0) == 120.0


def test_a_signature_is_the_same_for_equal_options_and_apart_for_other_kinds():
    assert pricing.signature("sudoku", {"a": 1, "b": 2}) == pricing.signature("sudoku", {"b": 2, "a": 1})
    assert pricing.signature("sudoku", {"a": 1}) != pricing.signature("spokes", {"a": 1})
    assert len(pricing.signature("sudoku", {})) == 64
