"""`--format csv` carries every field of each kind's result, its columns taken from the results
(client.output), against a live embedded service with the real kinds."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.client.commands import cli

pytestmark = pytest.mark.integration

SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
ITEMS = [
    {"kind": "sliding", "puzzle": "1 2 3 4 5 6 0 7 8"},
    {"kind": "sudoku", "puzzle": SUDOKU},
    {"kind": "nqueens", "puzzle": {"n": 6}, "options": {"mode": "count"}},
    {"kind": "nqueens", "puzzle": {"n": 12}, "options": {"mode": "estimate", "probes": 200, "seed": 7}},
    {"kind": "nqueens", "puzzle": {"n": 8}},
    {"kind": "toy", "puzzle": "123"},
]


def test_csv_has_a_column_for_every_result_field(service_url, tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    r = cli(service_url, "submit", "--wait", "--format", "csv", str(path))
    assert r.returncode == 0, r.stderr
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    header = next(csv.reader(io.StringIO(r.stdout)))
    assert header[:4] == ["index", "kind", "status", "answer"]
    assert {"length", "optimal", "unique", "solutions_found", "fundamental", "std_error", "ci95",
            "error", "elapsed_ms"} <= set(header)
    assert header.index("length") < header.index("error") < header.index("elapsed_ms")
    assert header[-1] == "cpu_seconds"  # measured of a puzzle solved on its own, else empty
    assert all(row["cpu_seconds"] == "" or float(row["cpu_seconds"]) >= 0 for row in table)
    sliding, sudoku, count, estimate, placed, toy = table
    assert sliding["answer"] == "RR" and sliding["length"] == "2"
    assert sliding["optimal"] in ("true", "false")
    assert len(sudoku["answer"]) == 81 and sudoku["unique"] == "true" and sudoku["solutions_found"] == "1"
    assert count["answer"] == "4" and count["fundamental"] == "1"
    assert float(estimate["std_error"]) >= 0 and json.loads(estimate["ci95"])[0] <= float(estimate["answer"])
    assert len(placed["answer"].split()) == 8 and placed["fundamental"] == ""
    assert toy["answer"] == "6"
    assert "solution" not in header and "sum" not in header  # the answer is not written twice
