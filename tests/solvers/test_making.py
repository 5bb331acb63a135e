"""Spokes and sliding positions made through the generator records, as the worker makes them:
each made result passes its kind's ``verify``, a tampered one fails it, bad requests name
the generate field."""

import pytest

import solvers
from solvers import factory
from solvers.base import WrongAnswer

REQUESTS = [
    ("spokes", {"count": 2, "width": 5, "height": 6, "level": "easy", "seed": 3}),
    ("spokes", {"count": 1, "width": 6, "height": 6, "level": "hard", "seed": 3}),
    ("sliding", {"count": 2, "size": 3, "moves": 20, "seed": 1}),
    ("sliding", {"count": 1, "size": 4, "moves": 12, "seed": 1}),
    ("sliding", {"count": 1, "size": 6, "moves": 100, "seed": 1}),
]


def made(name, raw):
    kind = solvers.get(name)
    count, request = factory.read_request(kind, raw, 100)
    maker = factory.making(kind)
    for index in range(count):
        puzzle, options = maker.prepare(index, request)
        yield maker, puzzle, options, maker.solve(puzzle, options)


@pytest.mark.parametrize(("name", "raw"), REQUESTS)
def test_each_made_puzzle_passes_its_kinds_check_and_solves_as_a_puzzle(name, raw):
    kind = solvers.get(name)
    for maker, puzzle, options, outcome in made(name, raw):
        maker.verify(puzzle, options, outcome)
        assert maker.predict(puzzle, options).seconds > 0
        wire, checked = kind.prepare(outcome.result["puzzle"], {})
        answer = kind.solve(wire, checked)
        kind.verify(wire, checked, answer)
        assert answer.status == "solved"


@pytest.mark.parametrize(("name", "raw", "field", "value"), [
    ("spokes", REQUESTS[0][1], "level", "hard"),         # the Pruning Algorithm solves it alone
    ("sliding", REQUESTS[2][1], "moves", 19),            # not the distance asked
    ("sliding", REQUESTS[2][1], "optimal", False),       # an exact distance claimed as a walk
])
def test_a_made_result_that_lies_fails_the_check(name, raw, field, value):
    maker, puzzle, options, outcome = next(made(name, raw))
    outcome.result[field] = value
    with pytest.raises(WrongAnswer):
        maker.verify(puzzle, options, outcome)


def test_a_route_that_misses_the_goal_fails_the_check():
    maker, puzzle, options, outcome = next(made("sliding", REQUESTS[2][1]))
    route = outcome.result["solution"]
    outcome.result["solution"] = route[:-2] + route[-1] * 2 if route[-1] != route[-2] else route[::-1]
    with pytest.raises(WrongAnswer):
        maker.verify(puzzle, options, outcome)


@pytest.mark.parametrize(("name", "raw", "words"), [
    ("sliding", {"count": 1, "size": 3, "moves": 40}, "at most 31"),
    ("spokes", {"count": 1, "width": 3}, "width"),
    ("spokes", {"count": 1, "level": "medium"}, "level"),
])
def test_bad_requests_name_the_generate_field(name, raw, words):
    with pytest.raises(factory.InvalidRequest, match=words) as caught:
        factory.read_request(solvers.get(name), raw, 100)
    assert caught.value.field == "generate"


def test_a_rating_range_that_cuts_a_band_is_outside_the_generators_model():
    outside = factory.making(solvers.get("sudoku")).outside_model
    read = factory.making(solvers.get("sudoku")).read_options
    assert outside is not None
    assert outside(read({"generate": {"rating_min": 11.5}}))
    assert outside(read({"generate": {"rating_max": 5.0}}))
    assert not outside(read({"generate": {"rating_min": 9.0}}))
    assert not outside(read({"generate": {"rating_min": 4.5, "rating_max": 9.0}}))
    assert not outside(read({"generate": {"difficulty": "extreme"}}))
    assert not outside(read({"generate": {}}))
