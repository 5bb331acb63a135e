"""`puzzle-queue generate` against a live embedded service: the made puzzles written one per line
(ready to submit again), or with their ratings as JSON Lines and CSV; a bad option refused."""

from __future__ import annotations

import csv
import io
import json

import pytest

from solvers.sudoku import grade
from tests.client.commands import cli

pytestmark = pytest.mark.integration


def test_generate_writes_the_puzzles_one_per_line_and_they_solve_back(service_url, tmp_path):
    out = tmp_path / "hard.txt"
    r = cli(service_url, "generate", "sudoku", "--count", "4", "--difficulty", "hard", "--seed", "7",
            "--symmetry", "rotational", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "4/4" in r.stderr and "4 results written" in r.stderr
    puzzles = out.read_text().splitlines()
    assert len(puzzles) == 4 and all(len(p) == 81 for p in puzzles)
    low, high = grade.BANDS["hard"]
    assert all(low <= grade.grade(p).rating < high for p in puzzles)
    back = cli(service_url, "submit", "--kind", "sudoku", "--wait", str(out))
    assert back.returncode == 0, back.stderr
    assert [json.loads(line)["result"]["unique"] for line in back.stdout.splitlines()] == [True] * 4
    again = cli(service_url, "generate", "sudoku", "--count", "2", "--difficulty", "hard", "--seed", "7",
                "--symmetry", "rotational")
    assert again.stdout.splitlines() == puzzles[:2]


def test_generate_as_json_lines_and_csv_carries_the_ratings(service_url):
    lines = cli(service_url, "generate", "sudoku", "--count", "3", "--difficulty", "easy", "--seed", "2",
                "--format", "jsonl")
    assert lines.returncode == 0, lines.stderr
    rows = [json.loads(line) for line in lines.stdout.splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2]
    assert all(r["result"]["band"] == "easy" and r["result"]["rating"] < 2.0 for r in rows)
    table = cli(service_url, "generate", "sudoku", "--count", "3", "--difficulty", "easy", "--seed", "2",
                "--format", "csv")
    assert table.returncode == 0, table.stderr
    got = list(csv.DictReader(io.StringIO(table.stdout)))
    assert [t["puzzle"] for t in got] == [r["result"]["puzzle"] for r in rows]
    assert [float(t["rating"]) for t in got] == [r["result"]["rating"] for r in rows]
    assert all(t["hardest"] for t in got)


def test_a_bad_generate_option_is_refused_by_name(service_url, tmp_path):
    r = cli(service_url, "generate", "sudoku", "--count", "3", "--difficulty", "fiendish")
    assert r.returncode == 2 and "generate" in r.stderr and "difficulty" in r.stderr, r.stderr
    r = cli(service_url, "generate", "sudoku", "--count", "3", "--option", "colour=red")
    assert r.returncode == 2 and "colour" in r.stderr, r.stderr
