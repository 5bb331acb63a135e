import subprocess
import sys

import pytest

import solvers
from solvers.base import WHOLE, Budgeted, InvalidOption, Option, Parts, read_options, split_past_budget


def test_solvers_imports_no_framework():
    code = (
        "import sys, solvers, solvers.__main__\n"
        "bad = [m for m in ('flask', 'celery', 'sqlalchemy', 'kombu', 'redis', 'psycopg')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


SPEC = (
    Option("count", int, 2, "how many", minimum=1, maximum=10),
    Option("mode", str, "a", "which", choices=("a", "b")),
    Option("flag", bool, False, "on or off"),
    Option("ratio", float, 0.5, "a number"),
)


def test_defaults_fill_in():
    assert read_options(SPEC, None, "k") == {"count": 2, "mode": "a", "flag": False, "ratio": 0.5}
    assert read_options(SPEC, {"count": 3, "ratio": 1}, "k")["ratio"] == 1.0


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"count": "3"}, "must be an integer"),
        ({"count": True}, "must be an integer"),
        ({"count": 0}, "at least 1"),
        ({"count": 11}, "at most 10"),
        ({"mode": "c"}, "one of a, b"),
        ({"flag": 1}, "true or false"),
        ({"ratio": float("nan")}, "must be a number"),
        ({"colour": 1}, "unknown option 'colour'"),
        ([1, 2], "must be an object"),
    ],
)
def test_bad_options_say_what_is_wrong(raw, message):
    with pytest.raises(InvalidOption, match=message):
        read_options(SPEC, raw, "k")


@pytest.mark.parametrize(
    ("item", "error", "message"),
    [
        ([], solvers.InvalidItem, "must be an object"),
        ({"kind": "chess", "puzzle": "x"}, solvers.UnknownKind, "unknown kind 'chess'"),
        ({"kind": 3, "puzzle": "x"}, solvers.UnknownKind, "unknown kind 3"),
        ({"kind": "sudoku"}, solvers.ParseError, "missing field 'puzzle'"),
        ({"kind": "sudoku", "puzzle": "x", "colour": 1}, solvers.InvalidItem, "unknown field 'colour'"),
    ],
)
def test_bad_items(item, error, message):
    with pytest.raises(error, match=message):
        solvers.prepare_item(item)


@pytest.mark.parametrize(("options", "plan"), [
    ({}, Budgeted(nodes=500, parts=8)),
    ({"split": None}, Budgeted(nodes=500, parts=8)),
    ({"split": 0}, WHOLE),
    ({"split": 3}, Parts(3)),
])
def test_split_past_budget_tries_whole_first_unless_a_split_is_asked_for(options, plan):
    settings = {"SPLIT_PARTS": 8, "SPLIT_NODE_BUDGET": 500}
    assert split_past_budget(None, options, settings) == plan
