"""The command line: one JSON object per input line, invalid lines reported, the run goes on."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "solvers", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_sudoku_lines_with_an_invalid_one(data_dir):
    lines = (data_dir / "sudoku" / "norvig_top95.txt").read_text().splitlines()[:2]
    lines.insert(1, "55" + lines[0][2:])  # two 5s in row 1
    done = cli("solve", "--kind", "sudoku", "--option", "max_solutions=2", stdin="\n".join(lines) + "\n")
    assert done.returncode == 1, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["status"] for o in out] == ["solved", "invalid", "solved"]
    assert "row 1, column 2: '5' already appears in row 1 (column 1)" in out[1]["error"]
    assert all(o["result"]["unique"] for o in (out[0], out[2]))


def test_sudoku_options_and_all_valid_lines_exit_zero():
    done = cli("solve", "--kind", "sudoku", "--option", "strategy=backtrack",
               "--option", "max_solutions=1000", stdin="." * 16 + "\n")
    assert done.returncode == 0, done.stderr
    (out,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert out["result"]["solutions_found"] == 288 and out["stats"]["max_depth"] == 16


def test_sudoku_jsonl_item():
    item = {"kind": "sudoku", "puzzle": [[0] * 4] * 4, "options": {"strategy": "sat", "max_solutions": 5}}
    done = cli("solve", "--jsonl", stdin=json.dumps(item) + "\n")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["solutions_found"] == 5
