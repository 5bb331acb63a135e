"""The sliding factory: exact optimal distances proved again by other searches (BFS on the
8-puzzle, IDA* on the 15-puzzle), routes checked by the kind's verify, random walks marked,
puzzles reproducible from (seed, index)."""

import pytest

from solvers.base import SOLVED, InvalidOption, Outcome, read_options
from solvers.sliding.generate import GENERATE_OPTIONS, make
from solvers.sliding.kind import KIND


def request(**raw):
    return read_options(GENERATE_OPTIONS, raw, "sliding")


def solved(puzzle, **options):
    board, opts = KIND.prepare(puzzle, options)
    outcome = KIND.solve(board, opts)
    KIND.verify(board, opts, outcome)
    return outcome.result


def check_route(puzzle, route):
    board, opts = KIND.prepare(puzzle, {})
    KIND.verify(board, opts, Outcome(SOLVED, {"moves": route, "length": len(route), "optimal": True}, {}))


@pytest.mark.parametrize("moves", [0, 1, 2, 6])
def test_two_by_two_distances_by_bfs(moves):
    made = make(request(size=2, moves=moves, seed=1), 0)
    assert solved(made["puzzle"], algorithm="bfs")["length"] == moves == len(made["solution"])
    check_route(made["puzzle"], made["solution"])


@pytest.mark.parametrize("moves", [0, 5, 14, 25, 31])
def test_eight_puzzle_distances_by_bfs(moves):
    for index in range(2):
        made = make(request(size=3, moves=moves, seed=2), index)
        assert made["optimal"] is True and made["random_walk"] is False
        assert solved(made["puzzle"], algorithm="bfs")["length"] == moves == len(made["solution"])
        check_route(made["puzzle"], made["solution"])


@pytest.mark.parametrize("moves", [0, 1, 12, 24])
def test_fifteen_puzzle_distances_by_ida(moves):
    for index in range(2):
        made = make(request(size=4, moves=moves, seed=3), index)
        found = solved(made["puzzle"], algorithm="idastar", heuristic="manhattan")
        assert found["optimal"] and found["length"] == moves == len(made["solution"])
        check_route(made["puzzle"], made["solution"])


def test_large_boards_come_from_random_walks():
    made = make(request(size=6, moves=80, seed=4), 0)
    assert made["random_walk"] is True and made["optimal"] is False
    assert len(made["solution"]) == 80
    check_route(made["puzzle"], made["solution"])
    assert solved(made["puzzle"])["length"] > 0


def test_seed_and_index_alone_decide_the_puzzle():
    for size, moves in ((3, 20), (4, 16), (5, 40)):
        options = request(size=size, moves=moves, seed=9)
        made = [make(options, i) for i in range(3)]
        assert [make(options, i) for i in (2, 1, 0)] == made[::-1]
        assert len({m["puzzle"] for m in made}) == 3
        assert make(request(size=size, moves=moves, seed=10), 0)["puzzle"] != made[0]["puzzle"]


@pytest.mark.parametrize(("raw", "message"), [
    ({"size": 3, "moves": 32}, "at most 31 on a 3x3"), ({"size": 2, "moves": 7}, "at most 6 on a 2x2"),
    ({"size": 4, "moves": 61}, "at most 60 on a 4x4"), ({"size": 9}, "at most 8"),
    ({"moves": -1}, "at least 0"),
    ({"shuffle": 3}, "unknown option 'shuffle'"),
])
def test_bad_options_raise_invalid_option(raw, message):
    with pytest.raises(InvalidOption, match=message):
        make(request(**raw), 0)
