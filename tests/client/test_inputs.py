"""Puzzle files as the command reads them (client.inputs) and the messages naming their faults
(client.messages): no service is needed, as nothing is sent."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from client.inputs import BadLines, Line, parse_options, read_files
from client.messages import count, grouped
from tests.embedded import ROOT


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes("\ufeff".encode() + b'{"kind": "toy", "puzzle": "12"}\n{"kind": "toy", "puzzle": "3"}\n')
    lines, items = read_files([str(path)], None, {})
    assert items == [{"kind": "toy", "puzzle": "12"}, {"kind": "toy", "puzzle": "3"}]
    assert lines == [Line(str(path), 1), Line(str(path), 2)]
    sudoku = tmp_path / "sudoku.txt"
    sudoku.write_text("\ufeff53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n",
                      encoding="utf-8")
    _, items = read_files([str(sudoku)], "sudoku", {})
    assert items[0]["puzzle"].startswith("53..7")


def test_a_line_that_is_not_utf8_is_named_and_the_rest_still_read(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"12\n# caf\xe9\n3\xe94\n5\n\xff\n")
    with pytest.raises(BadLines) as bad:
        read_files([str(path)], "toy", {})
    assert [str(b) for b in bad.value.bad] == [
        f"{path}:2: not UTF-8 text (byte 0xe9 at column 6); save the file as UTF-8",
        f"{path}:3: not UTF-8 text (byte 0xe9 at column 2); save the file as UTF-8",
        f"{path}:5: not UTF-8 text (byte 0xff at column 1); save the file as UTF-8"]


def test_json_lines_name_every_bad_line(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text('{"kind": "toy", "puzzle": "1"}\n{oops\n[1, 2]\n')
    second.write_text('{"kind": "toy", "puzzle": "2"}\n\n{"kind": \n')
    with pytest.raises(BadLines) as bad:
        read_files([str(first), str(second)], None, {})
    assert [b.where for b in bad.value.bad] == [Line(str(first), 2), Line(str(first), 3),
                                                Line(str(second), 3)]
    assert "not a JSON item" in bad.value.bad[0].message
    assert bad.value.bad[1].message == 'a JSON item is an object {"kind", "puzzle", "options"}'


def test_the_command_lists_every_bad_line_and_sends_nothing(tmp_path):
    path = tmp_path / "items.jsonl"
    good = json.dumps({"kind": "toy", "puzzle": "1"})
    path.write_text("\n".join([good, "{oops", good, "{oops", "[]", good]) + "\n")
    unreachable = "http://127.0.0.1:9"  # nothing may be sent: no request would get an answer
    r = subprocess.run([sys.executable, "-m", "client", "--url", unreachable, "submit", str(path)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 2 and "cannot reach" not in r.stderr
    assert r.stderr.splitlines() == [
        f"puzzle-queue: 3 bad lines in {path}; nothing was sent",
        f"2 lines ({path}:2, 4): not a JSON item (Expecting property name enclosed in double quotes); "
        "use --kind for one puzzle per line",
        f'{path}:5: a JSON item is an object {{"kind", "puzzle", "options"}}']


def test_a_fault_on_many_lines_is_said_once_with_its_count():
    lines = [Line("a.txt", n) for n in range(2, 102)] + [Line("b.txt", 1)]
    faults = [(line, "options: strategy: 'fastest' is not one of auto, fast") for line in lines]
    faults.insert(3, (Line("a.txt", 4), "puzzle: bad symbol 'x'"))
    faults.append((None, "label: too long"))
    assert grouped(faults) == [
        "101 lines (a.txt:2, 3, 4, 5, 6 and 96 more): options: strategy: 'fastest' is not one of auto, fast",
        "a.txt:4: puzzle: bad symbol 'x'",
        "label: too long"]
    assert grouped([(Line("a.txt", 1), "x"), (Line("b.txt", 7), "x")]) == ["2 lines (a.txt:1, b.txt:7): x"]


@pytest.mark.parametrize(("n", "said"), [(0, "0 puzzles"), (1, "1 puzzle"), (2, "2 puzzles"),
                                         (1234, "1,234 puzzles")])
def test_counts_agree_with_their_noun(n, said):
    assert count(n, "puzzle") == said


def test_dotted_options_set_fields_of_nested_objects_and_merge_in_order():
    given = ["generate.max_attempts=200", "generate.level=hard", "split=4", 'generate={"seed": 3}',
             "deep.a.b=null", "mode=count"]
    assert parse_options(given) == {"generate": {"max_attempts": 200, "level": "hard", "seed": 3},
                                    "split": 4, "deep": {"a": {"b": None}}, "mode": "count"}
    assert parse_options(["a=1", "a.b=2"]) == {"a": {"b": 2}}  # not an object: replaced
    for bad in ("generate.=1", ".x=1", "a..b=1", "=3", "x"):
        with pytest.raises(ValueError, match="--option wants NAME=VALUE"):
            parse_options([bad])


def test_options_for_every_line_merge_into_a_lines_own_at_every_depth(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"kind": "spokes", "generate": {"count": 1}, "options": {"generate": {"seed": 9}}}\n'
                    '{"kind": "toy", "puzzle": "1"}\n')
    _, items = read_files([str(path)], None, parse_options(["generate.seed=1", "generate.level=hard"]))
    assert items[0]["options"] == {"generate": {"seed": 9, "level": "hard"}}  # the line's own wins
    assert items[1]["options"] == {"generate": {"seed": 1, "level": "hard"}}
