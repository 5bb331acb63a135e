"""The sliding kind's predictions (solvers/sliding/predict.py) against work measured as node
counts, and what a search past 4x4 that must prove its answer is predicted at."""

import random

import pytest

import solvers
from solvers.sliding import pdb
from solvers.sliding import predict as sliding_predict
from solvers.sliding.board import random_board

KORF_GOAL = " ".join(map(str, range(16)))
# Nodes the IDA* kernel generates with the 6-6-3 database on some of Korf's 100, the same with
# either goal (bench/korf.py --boards): the two slowest (82, 60), two whose bound foretold them
# worst (3, 56: their optimal length lies far past the heuristic), two typical (1, 50).
PDB_NODES = {82: 16_773_959, 60: 16_875_945, 3: 7_445_618, 56: 2_668_848, 1: 557_987, 50: 1_047_907}
# The kernel's nodes per CPU second with that database, the slowest and the fastest seen on the
# machine the table was calibrated on (bench/korf.py, docs/benchmarks.md).
RATES = (2.0e7, 4.2e7)
DAY = 86_400.0  # the service's default cap on a puzzle's predicted seconds (MAX_PUZZLE_CPU_SECONDS)


@pytest.fixture
def database_here(monkeypatch):
    """The 6-6-3 as if built in the cache folder (and the 7-8 not): the prediction names the
    search that will run but reads no table."""
    monkeypatch.setattr(pdb, "load", lambda name=pdb.DEFAULT: object() if name == "663" else None)


def korf(data_dir, number, goal):
    """Board ``number`` of Korf's 100, prepared with the blank first (Korf's goal) or last."""
    name = "korf100.txt" if goal == "first" else "korf100_blank_last.txt"
    line = (data_dir / "sliding" / name).read_text().splitlines()[number - 1]
    options = {"optimal": True, **({"goal": KORF_GOAL} if goal == "first" else {})}
    return solvers.get("sliding").prepare(" ".join(line.split()[:16]), options)


@pytest.mark.parametrize("goal", ["first", "last"])
@pytest.mark.parametrize("number", sorted(PDB_NODES))
def test_korf_boards_with_the_database_take_seconds_within_their_range(data_dir, database_here, number, goal):
    puzzle, options = korf(data_dir, number, goal)
    predicted = solvers.get("sliding").predict(puzzle, options)
    assert predicted.basis == "bound" and predicted.factor >= sliding_predict.GAP_FACTOR
    for rate in RATES:
        seconds = PDB_NODES[number] / rate
        assert predicted.low <= seconds <= predicted.high, (number, rate)
        assert seconds <= 10 * predicted.seconds, (number, rate)  # the slowest stay within 10x


def test_the_database_prediction_is_the_curve_raised_to_the_mean_of_its_long_tail(data_dir, database_here):
    puzzle, options = korf(data_dir, 82, "last")
    curve = sliding_predict.cost.Curve.of(sliding_predict._entries()["idastar/4/pdb"])
    expected = curve.seconds(sliding_predict.bound(puzzle, options)) * sliding_predict.GAP_MEAN
    assert solvers.get("sliding").predict(puzzle, options).seconds == pytest.approx(expected)


@pytest.mark.parametrize("algorithm", ["auto", "idastar"])
def test_a_shuffled_5x5_proof_is_predicted_past_a_day_and_a_near_one_in_milliseconds(algorithm):
    kind = solvers.get("sliding")
    shuffled = " ".join(map(str, random_board(5, random.Random(3))))
    puzzle, options = kind.prepare(shuffled, {"algorithm": algorithm, "optimal": True})
    assert sliding_predict.bound(puzzle, options) >= 60  # a shuffled board's, far from the goal
    far = kind.predict(puzzle, options)
    assert far.seconds > DAY and far.basis == "bound" and far.factor >= sliding_predict.BIG_FACTOR
    near = kind.predict(*kind.prepare(" ".join(map(str, [*range(1, 24), 0, 24])), options))
    assert near.seconds < 1e-2 and near.high < 1.0


@pytest.mark.parametrize("k", [6, 7, 8])
def test_larger_shuffled_proofs_are_predicted_at_the_most_and_without_one_at_the_reduction(k):
    kind = solvers.get("sliding")
    board = " ".join(map(str, random_board(k, random.Random(k))))
    proof = kind.predict(*kind.prepare(board, {"optimal": True}))
    assert proof.seconds == sliding_predict.MOST_SECONDS
    reduction = kind.predict(*kind.prepare(board))
    assert reduction.seconds < 10.0 and reduction.basis == "table"
