"""The command's guards against a live embedded service: `make run`'s banner gives a client line
that reaches it, an output file that cannot be written and a fault on every line are refused
before anything is stored, and cancel and delete ask first on a terminal."""

from __future__ import annotations

import os
import pty
import shlex
import subprocess
import sys

import pytest

from client import Client, NotFound
from client.api import DEFAULT_URL
from deploy.run_local import banner, client_line
from tests.client.commands import cli, my_job_ids, toy_file
from tests.embedded import ROOT

pytestmark = pytest.mark.integration


def test_the_banner_gives_the_address_only_when_it_is_not_the_default():
    assert "--url" not in client_line(8000, "127.0.0.1")
    assert "--url" not in client_line(8000, "0.0.0.0")
    assert " --url http://127.0.0.1:8031 submit " in client_line(8031, "127.0.0.1")
    assert " --url http://10.1.2.3:8000 submit " in client_line(8000, "10.1.2.3")


def test_with_tokens_every_banner_command_carries_one():
    """API_TOKENS set: each curl line sends the client's token, and the banner says where it comes from."""
    curls = [line for line in banner(8000, "127.0.0.1", tokens=True).splitlines() if "curl " in line]
    assert len(curls) == 2
    assert all('-H "Authorization: Bearer $PUZZLE_QUEUE_TOKEN"' in line for line in curls), curls
    assert "export PUZZLE_QUEUE_TOKEN=" in banner(8000, "127.0.0.1", tokens=True)
    plain = banner(8000, "127.0.0.1")
    assert "Authorization" not in plain and "PUZZLE_QUEUE_TOKEN" not in plain


def test_the_banners_client_line_reaches_the_service(service):
    assert service.url != DEFAULT_URL
    line = next(t for t in service.log.read_text().splitlines() if t.strip().startswith("client:"))
    words = shlex.split(line.split("client:", 1)[1])
    assert words[0] == ".venv/bin/puzzle-queue"
    env = {k: v for k, v in os.environ.items() if k != "PUZZLE_QUEUE_URL"}
    r = subprocess.run([sys.executable, "-m", "client", *words[1:]], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, check=False, env={**env, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 5


def test_an_output_that_cannot_be_written_is_refused_before_sending(service_url, tmp_path):
    puzzles = toy_file(tmp_path, ["12", "34"])
    a_file = toy_file(tmp_path, ["1"], name="plain.txt")
    before = my_job_ids(service_url)
    for output in (tmp_path / "no-such-folder" / "out.jsonl", a_file / "out.jsonl"):
        r = cli(service_url, "submit", "--kind", "toy", "--wait", "-o", str(output), str(puzzles))
        assert r.returncode == 2 and f"cannot write the results to {output}: " in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
    assert my_job_ids(service_url) == before
    with Client(service_url) as c:
        done = c.wait(c.submit([{"kind": "toy", "puzzle": "5"}]), poll=1.0)
    r = cli(service_url, "results", "-o", str(tmp_path / "no-such-folder" / "out.csv"), done["id"])
    assert r.returncode == 2 and "cannot write the results to" in r.stderr
    kept = tmp_path / "kept.jsonl"
    kept.write_text("earlier results\n")
    r = cli(service_url, "results", "-o", str(kept), done["id"])
    assert r.returncode == 0 and "1 result written to" in r.stderr
    assert '"sum":5' in kept.read_text()


def test_a_fault_on_every_line_is_said_once(service_url, examples):
    before = my_job_ids(service_url)
    sudoku = examples / "sudoku.txt"
    r = cli(service_url, "submit", "--kind", "sudoku", "--option", "strategy=fastest", str(sudoku))
    assert r.returncode == 2
    faults = r.stderr.splitlines()[1:]
    assert len(faults) == 1 and faults[0].startswith(f"5 lines ({sudoku}:"), r.stderr
    assert "fastest" in faults[0]
    r = cli(service_url, "submit", "--kind", "sudok", str(sudoku))
    assert r.returncode == 2
    faults = r.stderr.splitlines()[1:]
    assert len(faults) == 1 and faults[0].startswith("5 lines (") and "sudok" in faults[0], r.stderr
    assert my_job_ids(service_url) == before


def on_terminal(url: str, answer: str, *args: str) -> subprocess.CompletedProcess:
    """The command with a terminal for standard input, where ``answer`` is typed."""
    controller, terminal = pty.openpty()
    try:
        os.write(controller, answer.encode())
        return subprocess.run([sys.executable, "-m", "client", "--url", url, *args], cwd=ROOT, stdin=terminal,
                              capture_output=True, text=True, timeout=60, check=False,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(terminal)
        os.close(controller)


def test_cancel_and_delete_ask_on_a_terminal(service_url):
    with Client(service_url) as c:
        slow = c.submit([{"kind": "toy", "puzzle": "3", "options": {"sleep": 20}}])["id"]
        r = on_terminal(service_url, "n\n", "cancel", slow)
        assert r.returncode == 1 and f"cancel the unfinished puzzles of job {slow}?" in r.stderr
        assert "nothing changed" in r.stderr and c.job(slow)["status"] in ("queued", "running")
        r = on_terminal(service_url, "n\n", "delete", "--cancel", slow)
        assert r.returncode == 1 and f"cancel and delete job {slow} with their results?" in r.stderr
        assert c.job(slow)["status"] in ("queued", "running")
        r = on_terminal(service_url, "y\n", "cancel", slow)
        assert r.returncode == 0 and "cancelled" in r.stdout and c.job(slow)["status"] == "cancelled"
        r = on_terminal(service_url, "", "delete", "--yes", slow)  # nothing typed: no question asked
        assert r.returncode == 0 and f"{slow}  deleted" in r.stdout and "?" not in r.stderr
        with pytest.raises(NotFound):
            c.job(slow)
