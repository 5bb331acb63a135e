"""The `puzzle-queue` command's messages where a live service cannot set the scene: a Ctrl-C
between the parts of a file, a job list of several pages, an address nothing listens on. The
command runs in this process against a stub service (httpx's mock transport)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from client import cli, shell
from client.api import Client
from tests.embedded import ROOT
from tests.services import free_port

Handler = Callable[[httpx.Request], httpx.Response]


def job(job_id: str, total: int = 2, created: datetime | None = None) -> dict:
    made = (created or datetime(2026, 12, 5, 9, 30, tzinfo=UTC)).isoformat().replace("+00:00", "Z")
    return {"id": job_id, "status": "queued", "label": None, "created_at": made, "started_at": None,
            "finished_at": None, "total": total, "progress": 0.0,
            "counts": {"queued": total, "running": 0, "solved": 0, "no_solution": 0, "failed": 0,
                       "cancelled": 0}}


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """Run the command against a stub: ``run_cli(handler, *args)`` -> (exit status, stdout, stderr)."""

    def run(handler: Handler, *args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(shell, "Client", lambda url, token: Client(url, token,
                                                                     transport=httpx.MockTransport(handler)))
        with pytest.raises(SystemExit) as ended:
            cli.run(list(args))
        out = capsys.readouterr()
        return int(ended.value.code or 0), out.out, out.err

    return run


def test_ctrl_c_between_parts_names_the_jobs_made(run_cli, tmp_path):
    puzzles = tmp_path / "toy.txt"
    puzzles.write_text("".join(f"{n}\n" for n in range(1, 7)))
    posts: list[int] = []

    def service(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.read() or b"{}")
        if request.url.path.endswith("/validate"):
            return httpx.Response(200, json={})
        size = len(body["puzzles"])
        if size > 2:
            return httpx.Response(413, json={"title": "Content Too Large", "status": 413, "max_batch": 2})
        posts.append(size)
        if len(posts) == 3:  # Ctrl-C while the third part is on its way
            raise KeyboardInterrupt
        return httpx.Response(202, json=job(f"job-{len(posts)}"))

    status, out, err = run_cli(service, "--url", "http://stub.test:9", "submit", "--kind", "toy", "--wait",
                               str(puzzles))
    assert status == 130 and out == ""
    assert "4 puzzles of 6 went as jobs job-1 job-2, which run; the other 2 puzzles were not stored" in err
    follow = err.split("follow:")[1].split("\n")[0].strip()
    cancel = err.split("cancel:")[1].split("\n")[0].strip()
    assert shlex.split(follow)[-5:] == ["--url", "http://stub.test:9", "wait", "job-1", "job-2"]
    assert shlex.split(cancel)[-6:] == ["--url", "http://stub.test:9", "cancel", "--yes", "job-1", "job-2"]


def test_jobs_pages_past_the_first_with_all_or_since(run_cli):
    start = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    stored = [job(f"job-{i}", created=start - timedelta(hours=i)) for i in range(130)]  # newest first
    pages: list[dict] = []

    def service(request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        pages.append(params)
        first = int(params.get("cursor", "0"))
        end = first + int(params["limit"])
        return httpx.Response(200, json={"items": stored[first:end],
                                         "next_cursor": str(end) if end < len(stored) else None})

    status, out, err = run_cli(service, "jobs")
    assert status == 0 and len(out.splitlines()) == 50
    assert out.splitlines()[0].startswith("job-0  2026-12-05 12:00:00  queued")
    assert "the newest 50 jobs shown; more with --all" in err

    status, out, err = run_cli(service, "jobs", "--all")
    assert status == 0 and [line.split()[0] for line in out.splitlines()] == [j["id"] for j in stored]
    assert err == ""

    pages.clear()
    status, out, _ = run_cli(service, "jobs", "--since", "2026-12-02T12:00")
    assert [line.split()[0] for line in out.splitlines()] == [f"job-{i}" for i in range(73)]
    assert len(pages) == 1  # newest first: the first older job ends the listing

    status, _, err = run_cli(service, "jobs", "--since", "last week")
    assert status == 2 and "an age (90m, 12h, 7d, 2w)" in err


def test_one_puzzle_is_said_in_the_singular(run_cli, tmp_path):
    puzzles = tmp_path / "one.txt"
    puzzles.write_text("12\n")

    def service(request: httpx.Request) -> httpx.Response:
        return httpx.Response(202, json=job("job-1", total=1))

    status, out, err = run_cli(service, "submit", "--kind", "toy", str(puzzles))
    assert status == 0 and "1 puzzle " in out and "1 puzzles" not in out
    assert "follow with:" in err and err.rstrip().endswith("wait job-1")


def test_an_address_nothing_listens_on_is_named_without_a_traceback():
    url = f"http://127.0.0.1:{free_port()}"
    for args, env, whence in ((["--url", url], {}, ""),
                              ([], {"PUZZLE_QUEUE_URL": url}, " (from $PUZZLE_QUEUE_URL)")):
        r = subprocess.run([sys.executable, "-m", "client", *args, "jobs"], cwd=ROOT, capture_output=True,
                           text=True, timeout=60, check=False,
                           env={**os.environ, "PYTHONPATH": str(ROOT), **env})
        assert r.returncode == 2 and r.stdout == ""
        assert f"cannot reach the service at {url}{whence}" in r.stderr
        assert "--url URL" in r.stderr and "$PUZZLE_QUEUE_URL" in r.stderr
        assert "Traceback" not in r.stderr


def test_the_hint_repeats_the_command_as_started():
    """Started by a path, the hints give that path (or the bare name when the PATH finds the same
    file); started as a module, `python -m client`."""
    script = Path(sys.executable).parent / "puzzle-queue"
    code = "import sys; from client.messages import invocation; sys.argv[0] = sys.argv[1]; " \
           "print(invocation())"
    bare = "/usr/bin:/bin"
    module = str(ROOT / "client" / "__main__.py")
    for started, path, expected in ((str(script), bare, str(script)),
                                    (str(script), f"{script.parent}:{bare}", "puzzle-queue"),
                                    (module, bare, f"{sys.executable} -m client")):
        r = subprocess.run([sys.executable, "-c", code, started], cwd=ROOT, capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": path})
        assert r.stdout.strip() == expected


def test_a_service_that_stops_answering_or_a_full_disk_is_said_plainly(run_cli):
    finished = {**job("job-1", total=1), "status": "completed", "progress": 1.0,
                "counts": {**job("job-1")["counts"], "queued": 0, "solved": 1}}

    def silent(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    status, _, err = run_cli(silent, "--url", "http://stub.test:9", "status", "job-1")
    assert status == 2 and err.startswith("puzzle-queue: no answer from the service at http://stub.test:9: ")

    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/results"):
            return httpx.Response(200, text='{"index":0,"kind":"toy","status":"solved","result":{"sum":3}}\n')
        return httpx.Response(200, json=finished)

    status, _, err = run_cli(service, "results", "-o", "/dev/full", "job-1")
    assert status == 2 and "cannot write the results to /dev/full: No space left on device" in err
