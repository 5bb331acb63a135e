"""The command's subcommands against the API in this process: `validate` (a cost preview that
stores nothing), `--accept-cost` and the refusal that names it, `retry` with a dotted option
that merges into a generate request, the service's reason for a refused retry, and `hint`."""

from __future__ import annotations

import json
import sys

import solvers
from client import sending
from solvers.sudoku.grade import band_of
from solvers.sudoku.kind import EXPLAINED
from tests.client.commands import toy_file
from tests.solvers.test_sudoku_hint import EXAMPLE, SOLUTION, path


def test_validate_shows_each_lines_cost_and_stores_nothing(run_command, api_client, tmp_path):
    puzzles = toy_file(tmp_path, ["12", "345"])
    status, out, err = run_command("validate", "--kind", "toy", "--option", "sleep=2", str(puzzles))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"{puzzles}:2  2 CPU seconds  (range ") and lines[0].endswith("typical")
    assert lines[1].startswith(f"{puzzles}:3  2 CPU seconds")
    assert lines[2].startswith("2 puzzles: 4 CPU seconds in all (range ")
    status, out, err = run_command("validate", "--kind", "toy", "--json", str(puzzles))
    assert status == 0 and json.loads(out)["puzzles"] == 2
    assert list(api_client.jobs()) == []


def test_a_puzzle_over_the_cap_is_refused_naming_accept_cost(run_command, api_client, tmp_path):
    puzzles = tmp_path / "dear.jsonl"
    puzzles.write_text('{"kind": "toy", "puzzle": "1"}\n'
                       '{"kind": "toy", "puzzle": "2", "options": {"sleep": 20}}\n')
    for command in ("validate", "submit"):
        status, out, err = run_command(command, str(puzzles))
        assert status == 2
        assert (f"{puzzles}:2: puzzle: predicted at 20 CPU seconds, above the service's cap of 5 CPU seconds"
                in err), err
        assert "--accept-cost accepts puzzles predicted above the cap" in err
        assert "accept_cost: true" not in err
    assert list(api_client.jobs()) == []
    status, out, err = run_command("validate", "--accept-cost", str(puzzles))
    assert status == 0 and "2 puzzles: 20 CPU seconds in all" in out
    status, out, err = run_command("submit", "--accept-cost", "--json", str(puzzles))
    assert status == 0, err
    [job] = json.loads(out)
    assert job["total"] == 2 and [j["id"] for j in api_client.jobs()] == [job["id"]]


def test_generate_accepts_the_cost_when_told(run_command, api_client, monkeypatch):
    big = ["spokes", "--count", "1", "--option", "width=30", "--option", "height=30",
           "--option", "level=hard"]
    status, _out, err = run_command("generate", *big)  # predicted near a CPU minute; the cap is 5 s
    assert status == 2 and "--accept-cost accepts puzzles predicted above the cap" in err, err
    assert list(api_client.jobs()) == []
    monkeypatch.setattr(sending, "_wait_and_write", lambda *args: sys.exit(0))  # no worker runs here
    status, _out, err = run_command("generate", "--accept-cost", *big)
    assert status == 0, err
    assert [j["total"] for j in api_client.jobs()] == [1]


def test_retry_with_a_dotted_option_keeps_the_rest_of_the_request(run_command, api_client):
    request = {"count": 2, "width": 4, "height": 4, "level": "hard", "seed": 1}
    job = api_client.submit([{"kind": "spokes", "generate": request}])
    api_client.cancel(job)
    status, out, err = run_command("retry", "--option", "generate.max_attempts=150", "--json", job["id"])
    assert status == 0, err
    assert json.loads(out)["counts"]["queued"] == 2
    kept = {k: v for k, v in request.items() if k != "count"}
    for puzzle in api_client.puzzles(job):
        made = puzzle["options"]["generate"]
        assert made["max_attempts"] == 150 and {k: made[k] for k in kept} == kept


def test_a_refused_retry_shows_the_services_reason(run_command, api_client):
    job = api_client.submit([{"kind": "toy", "puzzle": "1"}, {"kind": "toy", "puzzle": "2"}])
    api_client.cancel(job)
    status, out, err = run_command("retry", "--option", "crash=maybe", job["id"])
    assert status == 2 and out == ""
    assert "the service refused the retry" in err
    assert "puzzle 0: options: option 'crash' must be true or false, not 'maybe'" in err, err
    assert api_client.job(job)["status"] == "cancelled"  # nothing changed


def test_hint_shows_the_next_step_in_rows_and_columns(run_command, api_client):
    placed = "534" + EXAMPLE[3:]
    status, out, err = run_command("hint", "--kind", "sudoku", EXAMPLE, placed)
    assert status == 0, err
    step = solvers.hint_item({"kind": "sudoku", "puzzle": EXAMPLE, "placed": placed})["step"]
    (cell, value), = step["placements"]
    name = f"r{cell // 9 + 1}c{cell % 9 + 1}"
    assert out.splitlines() == [f"{step['technique']}, rating {step['rating']} (easy)", f"  cells: {name}",
                                f"  place {value} in {name}"]
    status, out, err = run_command("hint", "--kind", "sudoku", "--json", EXAMPLE, placed)
    assert status == 0 and json.loads(out)["step"] == step
    assert list(api_client.jobs()) == []


def test_hint_with_candidates_names_what_a_step_removes(run_command, tmp_path):
    values, cands, move = max(path(EXPLAINED), key=lambda s: s[2]["rating"])
    marks = tmp_path / "marks.json"
    marks.write_text(json.dumps(cands))
    placed = "".join(map(str, values))
    status, out, err = run_command("hint", "--kind", "sudoku", "--candidates", str(marks), EXPLAINED, placed)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == f"{move['technique']}, rating {move['rating']} ({band_of(move['rating'])})"
    cell, value = move["eliminations"][0]
    assert lines[-1].startswith(f"  remove {value} from r{cell // 9 + 1}c{cell % 9 + 1}")


def test_hint_says_a_wrong_value_or_a_solved_grid_and_names_a_refused_field(run_command, tmp_path):
    status, out, err = run_command("hint", "--kind", "sudoku", EXAMPLE, "..1" + EXAMPLE[3:])
    assert status == 1 and out == "wrong: row 1, column 3: 1 is not this cell's value in the solution\n"
    status, out, _ = run_command("hint", "--kind", "sudoku", EXAMPLE, SOLUTION)
    assert status == 0 and out == "solved: every cell is filled, and rightly\n"
    status, _, err = run_command("hint", "--kind", "sudoku", EXAMPLE, "9" + EXAMPLE[1:])
    assert status == 2 and "refused the hint: placed: row 1, column 1 holds the given 5" in err, err
    status, _, err = run_command("hint", "--kind", "toy", "12")
    assert status == 2 and "kind: kind 'toy' gives no hints" in err
    broken = tmp_path / "marks.json"
    broken.write_text("[[1, 2]")
    status, _, err = run_command("hint", "--kind", "sudoku", "--candidates", str(broken), EXAMPLE)
    assert status == 2 and f"--candidates {broken}: " in err
