"""The kinds' predictions of their work (solvers/cost.py, solvers/*/predict.py): the calibration
table, the fits, and predictions that move with the work, checked without timing anything."""

import math

import numpy as np
import pytest

import solvers
from solvers import cost
from solvers.base import Estimate
from solvers.sliding import predict as sliding_predict
from solvers.spokes.generate import generate
from solvers.sudoku import kernels
from solvers.sudoku import predict as sudoku_predict
from solvers.sudoku.grid import layout, parse

KINDS = list(solvers.KINDS.values())
EXAMPLES = [(k, e) for k in KINDS for e in k.examples]


@pytest.mark.parametrize(("kind", "example"), EXAMPLES,
                         ids=[f"{k.name}-{i}" for i, (k, _) in enumerate(EXAMPLES)])
def test_every_prediction_is_a_finite_positive_estimate_with_a_real_factor(kind, example):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    predicted = kind.predict(puzzle, options)
    assert isinstance(predicted, Estimate)
    assert math.isfinite(predicted.seconds) and predicted.seconds > 0
    assert math.isfinite(predicted.factor) and predicted.factor >= 1
    assert predicted.basis in ("table", "probes", "bound", "linear", "typical")


def test_the_calibration_table_loads_with_every_kind_and_sound_entries():
    kinds = cost.table()["kinds"]
    assert set(kinds) == set(solvers.KINDS)
    for name, entries in kinds.items():
        assert entries, name
        for key, entry in entries.items():
            assert entry["fit"] in cost.FITS, (name, key)
            assert entry["factor"] >= 1, (name, key)
            seconds = entry["seconds"] if isinstance(entry["seconds"], list) else [entry["seconds"]]
            assert all(s >= 0 and math.isfinite(s) for s in seconds), (name, key)


def test_the_fits_recover_the_law_the_times_follow():
    xs = [4, 5, 6, 7, 8, 9, 10]
    points = cost.fit(cost.POINTS, xs, [1e-6 * 3.0**x for x in xs], growth=lambda x: 3.0**x)
    assert points["factor"] == cost.MIN_FACTOR
    assert cost.Curve.of(points).seconds(7.5) == pytest.approx(1e-6 * 3.0**7.5, rel=1e-6)
    noisy = cost.fit(cost.POINTS, xs, [1e-6 * 3.0**x for x in xs], growth=lambda x: 2.0**x)
    assert noisy["factor"] == pytest.approx(2.25)
    sizes = [10, 100, 1000, 10_000]
    trend = cost.fit(cost.TREND_LOG, sizes, [2e-4 * x**1.5 for x in sizes])
    assert cost.Curve.of(trend).seconds(300) == pytest.approx(2e-4 * 300**1.5, rel=1e-6)
    linear = cost.fit(cost.LINEAR, [1, 2, 1000, 4000], [0.5, 0.5, 0.5 + 2.0, 0.5 + 8.0])
    assert (linear["seconds"], linear["per"]) == (pytest.approx(0.5), pytest.approx(0.002))
    rate = cost.fit(cost.RATE, [10, 100, 1000], [1.0, 12.0, 50.0])
    assert rate["per"] == pytest.approx(0.1) and rate["factor"] == pytest.approx(2.0)


def test_the_spread_is_the_95th_percentile_ratio_either_way_and_at_least_the_machines_noise():
    assert cost.spread([1.0] * 19 + [0.2]) == pytest.approx(5.0)
    assert cost.spread([1.0] * 99 + [50.0]) == cost.MIN_FACTOR


def test_a_curve_is_flat_below_its_smallest_x_and_grows_past_its_largest():
    curve = cost.Curve([10, 20], [1.0, 4.0], 2.0)
    assert curve.seconds(0) == pytest.approx(1.0)
    assert curve.seconds(15) == pytest.approx(2.0)
    assert curve.seconds(30) == pytest.approx(16.0)


@pytest.mark.parametrize("strategy", ["tree", "constellations"])
def test_a_count_prediction_grows_with_n(strategy):
    kind = solvers.get("nqueens")
    seconds = [kind.predict(n, kind.read_options({"mode": "count", "strategy": strategy})).seconds
               for n in range(8, 19)]
    assert seconds == sorted(seconds) and seconds[-1] > 100 * seconds[0]


def test_an_estimate_prediction_is_linear_in_probes_times_n():
    kind = solvers.get("nqueens")
    small, big = (kind.predict(20, kind.read_options({"mode": "estimate", "probes": p})).seconds
                  for p in (10**6, 10**7))
    assert big / small == pytest.approx(10, rel=0.05)


def test_a_sliding_prediction_grows_with_the_bound():
    kind = solvers.get("sliding")
    near = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"
    far = "13 6 8 12 15 14 0 10 11 7 4 5 9 1 3 2"  # Korf's first, optimum 57 with the blank last
    boards = [kind.prepare(b) for b in (near, far)]
    near_bound, far_bound = (sliding_predict.bound(*b) for b in boards)
    assert near_bound == 1 and 30 < far_bound <= 57  # a lower bound of the optimum
    assert kind.predict(*boards[0]).seconds * 10 < kind.predict(*boards[1]).seconds
    assert kind.predict(*boards[1]).basis == "bound"


@pytest.mark.parametrize("options", [{"algorithm": "astar"},
                                     {"algorithm": "idastar", "heuristic": "linear_conflict"},
                                     {"algorithm": "idastar", "heuristic": "pdb78"}])
def test_every_4x4_search_is_predicted_from_its_bound_not_a_typical_figure(options):
    kind = solvers.get("sliding")  # pdb78 where the 7-8 database is missing: the 6-6-3 or linear_conflict
    near, far = (kind.prepare(b, options) for b in ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15",
                                                    "13 6 8 12 15 14 0 10 11 7 4 5 9 1 3 2"))
    assert kind.predict(*near).basis == kind.predict(*far).basis == "bound"
    assert kind.predict(*near).seconds * 10 < kind.predict(*far).seconds


def test_a_spokes_prediction_grows_with_the_points():
    kind = solvers.get("spokes")
    seconds = [kind.predict(*kind.prepare(generate(s, s, seed=1).text())).seconds for s in (5, 10, 20, 30)]
    assert seconds == sorted(seconds) and seconds[-1] > 10 * seconds[0]


def _exact_tree(grid, greedy):
    lay = layout(grid.n)
    stats = np.zeros(kernels.STATS_LEN, np.int64)
    found = kernels.search(kernels.initial_cands(grid.givens, lay.full), 0, greedy, 10**9, 2**62, lay.full,
                           lay.peers, lay.units, lay.cell_units, np.zeros(grid.n * grid.n, np.uint8), stats,
                           np.zeros(1, np.int8))
    return int(stats[kernels.NODES]), found


@pytest.mark.parametrize("greedy", [False, True])
def test_knuths_probes_estimate_a_known_tree_within_a_small_factor(greedy):
    grid = parse("." * 16)
    nodes, solutions = _exact_tree(grid, greedy)
    assert solutions == 288
    estimated, estimated_solutions, entered = sudoku_predict.tree_size(grid, greedy, probes=2000, seed=7)
    assert nodes / 1.3 < estimated < nodes * 1.3
    assert 288 / 1.3 < estimated_solutions < 288 * 1.3
    assert entered > 2000


def test_counting_predicts_more_work_for_more_solutions_and_probes_only_where_dear():
    kind = solvers.get("sudoku")
    few = "1.3..4.22..3..2."
    cheap = kind.predict(*kind.prepare("." * 81))
    assert cheap.basis == "table"
    small = kind.predict(*kind.prepare(few, {"strategy": "greedy", "max_solutions": 1000}))
    large = kind.predict(*kind.prepare("." * 81, {"strategy": "greedy", "max_solutions": 100_000}))
    assert large.basis == "probes"
    assert small.seconds * 10 < large.seconds
