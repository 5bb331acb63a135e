"""Every registered kind honours the same contract (the Kind record in solvers.base)."""

import json
import threading
import time

import pytest

import solvers
from solvers.base import (
    SOLVED,
    STATUSES,
    WHOLE,
    Budgeted,
    InvalidOption,
    Kind,
    Outcome,
    Parts,
    PuzzleError,
    Stopped,
    Whole,
    WrongAnswer,
    never_split,
    stop_flag,
)
from solvers.spokes.generate import generate

KINDS = list(solvers.KINDS.values())
EXAMPLES = [(k, e) for k in KINDS for e in k.examples]
# Kinds that split fill plan, split, solve_part and merge; the others leave them out.
SPLITTING = [(k, e) for k, e in EXAMPLES if k.split is not None]
SETTINGS = {"SPLIT_PARTS": 8, "SPLIT_NODE_BUDGET": 1000, "SPLIT_QUEENS_N": 12, "SPLIT_PROBES": 1000}
BAD = [(k, b) for k in KINDS for b in k.bad_examples]


def ids(pairs):
    return [f"{k.name}-{i}" for i, (k, _) in enumerate(pairs)]


def test_registry_lists_every_kind():
    assert set(solvers.KINDS) == {"sudoku", "nqueens", "sliding", "spokes"}


def test_the_warm_up_units_solve_every_example_once_each_kinds_main_unit_first():
    units = solvers.warm_up_units()
    assert sorted(id(e) for u in units for e in u.examples) == sorted(id(e) for _, e in EXAMPLES)
    assert [u.name for u in units[:len(KINDS)]] == list(solvers.KINDS)
    assert "sudoku.grader" in [u.name for u in units[len(KINDS):]]
    assert all({e.warm_up for e in u.examples} == {u.name.partition(".")[2]} for u in units)


def test_registry_entries_are_consistent():
    for name, kind in solvers.KINDS.items():
        assert kind.name == name
        assert kind.examples and kind.bad_examples, f"{name} needs examples and bad examples"


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_describe_is_json(kind):
    described = json.loads(json.dumps(kind.describe()))
    assert described["kind"] == kind.name
    assert set(described["options"]) == {o.name for o in kind.options}
    assert "elapsed_ms" in described["stats"]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_unknown_option_is_rejected(kind):
    with pytest.raises(InvalidOption, match="no_such_option"):
        kind.prepare(kind.examples[0].puzzle, {"no_such_option": 1})


@pytest.mark.parametrize(("kind", "example"), EXAMPLES, ids=ids(EXAMPLES))
def test_example_solves_and_verifies(kind, example):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    outcome = kind.solve(puzzle, options)
    assert outcome.status == example.status
    assert outcome.status in STATUSES
    kind.verify(puzzle, options, outcome)
    wire = json.loads(json.dumps(outcome.to_json()))
    assert Outcome.from_json(wire) == outcome
    assert set(kind.stats_fields) <= set(outcome.stats), "stats must carry every declared field"
    if outcome.status == SOLVED:
        assert set(outcome.result) <= set(kind.result_fields)


@pytest.mark.parametrize(("kind", "example"), EXAMPLES, ids=ids(EXAMPLES))
def test_the_batch_calls_agree_with_prepare_solve_and_verify(kind, example):
    # the example twice among the bad examples' puzzles, all read with the example's options
    options = kind.read_options(example.options)
    wires = [example.puzzle, *(b.puzzle for b in kind.bad_examples), example.puzzle]
    prepared = kind.prepare_batch(wires, options)
    assert len(prepared) == len(wires)
    for wire, got in zip(wires, prepared, strict=True):
        if isinstance(got, PuzzleError):
            with pytest.raises(type(got)) as raised:
                kind.prepare_with(wire, options)
            assert type(raised.value) is type(got) and str(raised.value) == str(got)
        else:
            kind.prepare_with(wire, options)  # raises nothing either
    ready = [p for p in prepared if not isinstance(p, PuzzleError)]
    outcomes = kind.solve_batch(ready, options)
    assert outcomes[0].status == outcomes[-1].status == example.status
    for puzzle, outcome in zip(ready, outcomes, strict=True):
        kind.verify(puzzle, options, outcome)
        alone = kind.solve(puzzle, options)
        assert (outcome.status, outcome.result) == (alone.status, alone.result)
    # The columns the worker writes say what the outcomes say.
    listed = list(outcomes)
    assert outcomes.statuses() == [o.status for o in listed]
    assert outcomes.nodes() == [o.stats.get("nodes") for o in listed]
    encoded = outcomes.encoded(json.dumps)
    assert [json.loads(text) for text in encoded] == [[o.result, o.stats] for o in listed]


@pytest.mark.parametrize(("kind", "example"), EXAMPLES, ids=ids(EXAMPLES))
def test_prediction_is_a_positive_number_of_seconds(kind, example):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    predicted = kind.predict(puzzle, options)
    assert 0 < predicted.low <= predicted.seconds <= predicted.high < 1e7


@pytest.mark.parametrize(("kind", "cheap", "dear"), [
    ("sudoku", ("." * 16, {}), ("." * 625, {"strategy": "sat"})),
    ("sudoku", ("." * 81, {}), ("." * 81, {"max_solutions": 10**6})),
    ("nqueens", (12, {"mode": "count"}), (14, {"mode": "count"})),
    ("nqueens", (1000, {"mode": "solve"}), (8, {"mode": "estimate", "probes": 10**6})),
    ("sliding", ("1 2 3 4 5 6 7 0 8", {}), ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", {})),
    ("spokes", (generate(5, 5, seed=1).text(), {}), (generate(10, 10, seed=1).text(), {})),
])
def test_prediction_grows_with_the_work(kind, cheap, dear):
    k = solvers.get(kind)
    assert k.predict(*k.prepare(*cheap)).seconds < k.predict(*k.prepare(*dear)).seconds


@pytest.mark.parametrize(("kind", "example"), EXAMPLES, ids=ids(EXAMPLES))
def test_verify_rejects_an_empty_answer(kind, example):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    with pytest.raises(WrongAnswer):
        kind.verify(puzzle, options, Outcome(SOLVED, {}, {}))


@pytest.mark.parametrize(("kind", "example"), EXAMPLES, ids=ids(EXAMPLES))
def test_every_plan_is_whole_budgeted_or_parts(kind, example):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    plan = kind.plan(puzzle, options, SETTINGS)
    assert isinstance(plan, (Whole, Budgeted, Parts))
    if kind.split is None:
        assert plan == WHOLE and kind.plan is never_split
    if isinstance(plan, Budgeted):
        assert (plan.nodes, plan.parts) == (1000, 8)


def test_a_kind_record_fills_all_of_splitting_or_none_of_it():
    sliding = solvers.get("sliding")
    with pytest.raises(TypeError, match="come together"):
        Kind(**{**vars(sliding), "split": solvers.get("sudoku").split})
    with pytest.raises(TypeError, match="never split"):
        sliding.splitting()


@pytest.mark.parametrize(("kind", "example"), SPLITTING, ids=ids(SPLITTING))
@pytest.mark.parametrize("parts", [1, 4, 32])
def test_split_then_merge_equals_whole(kind, example, parts):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    whole = kind.solve(puzzle, options)
    split = kind.split(puzzle, options, parts)
    outcomes = [kind.solve_part(puzzle, options, json.loads(json.dumps(p))) for p in split.parts]
    merged = kind.merge(puzzle, options, split.head, outcomes)
    assert merged.status == whole.status
    assert merged.result == whole.result
    kind.verify(puzzle, options, merged)


@pytest.mark.parametrize(("kind", "example"), SPLITTING, ids=ids(SPLITTING))
def test_a_set_stop_flag_stops_every_part_and_an_unset_one_changes_nothing(kind, example):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    for part in kind.split(puzzle, options, 4).parts:
        plain = kind.solve_part(puzzle, options, part)
        unset = kind.solve_part(puzzle, options, part, stop_flag())
        assert (unset.status, unset.result) == (plain.status, plain.result)
        flag = stop_flag()
        flag[0] = 1
        with pytest.raises(Stopped):
            kind.solve_part(puzzle, options, part, flag)


@pytest.mark.parametrize(("kind", "example"), EXAMPLES, ids=ids(EXAMPLES))
def test_a_set_stop_flag_stops_every_solve_and_an_unset_one_changes_nothing(kind, example):
    puzzle, options = kind.prepare(example.puzzle, example.options)
    plain = kind.solve(puzzle, options)
    unset = kind.solve(puzzle, options, stop=stop_flag())
    assert (unset.status, unset.result) == (plain.status, plain.result)
    flag = stop_flag()
    flag[0] = 1
    with pytest.raises(Stopped):
        kind.solve(puzzle, options, stop=flag)


def stops_when_flagged(run) -> None:
    """``run(flag)`` is stopped by a flag set 0.2 s after it starts, from another thread."""
    flag = stop_flag()
    ended = []

    def body():
        try:
            ended.append(run(flag))
        except Stopped as exc:
            ended.append(exc)

    worker = threading.Thread(target=body)
    worker.start()
    time.sleep(0.2)
    flag[0] = 1
    worker.join(timeout=60)
    assert not worker.is_alive(), "it did not stop"
    assert len(ended) == 1 and isinstance(ended[0], Stopped), ended


# Whole solves that run for seconds or more: Korf's first 15-puzzle (blank-last goal) by IDA* with
# the Manhattan distance alone, held to the proof (without ``optimal`` auto gives up on the proof
# after 20 million nodes, which the kernel now spends in about 0.15 s, and answers by the
# reduction before the flag is set), and an n=17 count.
LONG_SOLVES = [
    ("sliding", "13 6 8 12 15 14 0 10 11 7 4 5 9 1 3 2", {"heuristic": "manhattan", "optimal": True}),
    ("nqueens", 17, {"mode": "count"}),
]


@pytest.mark.parametrize(("name", "puzzle", "options"), LONG_SOLVES, ids=[p[0] for p in LONG_SOLVES])
def test_a_flag_set_while_a_whole_solve_runs_stops_it(name, puzzle, options):
    kind = solvers.get(name)
    puzzle, options = kind.prepare(puzzle, options)
    stops_when_flagged(lambda flag: kind.solve(puzzle, options, stop=flag))


# Parts that run for seconds (an n=17 count in halves, 15 million probes of n=63, a subtree of
# 77 million nodes without a solution), stopped a moment after they start.
LONG_PARTS = [
    ("nqueens", 17, {"mode": "count"}, 2, 0),
    ("nqueens", 63, {"mode": "estimate", "probes": 30_000_000, "seed": 1}, 2, 0),
    ("sudoku", "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
     {"strategy": "backtrack", "max_solutions": 1}, 4, 2),
]


@pytest.mark.parametrize(("name", "puzzle", "options", "wanted", "index"), LONG_PARTS,
                         ids=[f"{p[0]}-{p[2].get('mode', p[2].get('strategy'))}" for p in LONG_PARTS])
def test_a_flag_set_while_a_part_runs_stops_it(name, puzzle, options, wanted, index):
    """The kernels see a flag set by another thread (their loads are not hoisted out of the
    loop), and they release the GIL, or the setting thread could not run until they end."""
    kind = solvers.get(name)
    puzzle, options = kind.prepare(puzzle, options)
    part = kind.split(puzzle, options, wanted).parts[index]
    stops_when_flagged(lambda flag: kind.solve_part(puzzle, options, part, flag))


@pytest.mark.parametrize(("kind", "bad"), BAD, ids=ids(BAD))
def test_bad_example_raises_its_error(kind, bad):
    with pytest.raises(bad.error) as caught:
        kind.prepare(bad.puzzle, bad.options)
    assert isinstance(caught.value, PuzzleError)
    assert len(str(caught.value)) > 10, "the message must tell the user what is wrong"
