"""The client and the `puzzle-queue` command against a live embedded service (`make run`'s mode:
gunicorn, SQLite, the filesystem broker and a real celery worker), over real HTTP."""

from __future__ import annotations

import csv
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time

import pytest

from client import Client, Conflict, InvalidRequest, NotFound
from tests.client.commands import cli, my_job_ids, toy_file
from tests.embedded import ROOT, embedded_service

pytestmark = pytest.mark.integration


def test_python_api_submit_wait_results(service_url):
    with Client(service_url) as c:
        assert {"toy", "sudoku", "nqueens", "sliding", "spokes"} <= {k["kind"] for k in c.kinds()}
        job = c.submit([{"kind": "toy", "puzzle": str(n)} for n in (12, 345, 0, 9999)], label="api")
        seen: list[dict] = []
        done = c.wait(job, on_progress=seen.append, poll=1.0)
        assert done["status"] == "completed" and seen[-1] == done
        rows = list(c.results(done))
        assert [r["index"] for r in rows] == [0, 1, 2, 3]
        assert [r["status"] for r in rows] == ["solved", "solved", "no_solution", "solved"]
        assert [r["result"] and r["result"]["sum"] for r in rows] == [3, 12, None, 36]
        with pytest.raises(NotFound) as missing:
            c.job("no-such-job")
        assert missing.value.problem["status"] == 404
        with pytest.raises(InvalidRequest) as bad:
            c.submit([{"kind": "toy", "puzzle": "12"}, {"kind": "toy", "puzzle": "x"}])
        assert [e["index"] for e in bad.value.errors] == [1]


def test_submit_wait_writes_every_result_in_both_formats(service_url, tmp_path):
    puzzles = toy_file(tmp_path, ["12", "", "345", "# a comment", "0", "777"])
    out = tmp_path / "results.jsonl"
    r = cli(service_url, "submit", "--kind", "toy", "--wait", "--output", str(out), str(puzzles))
    assert r.returncode == 0, r.stderr
    assert "4/4" in r.stderr and "solved 3" in r.stderr and "no_solution 1" in r.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["index"], r["status"], r["result"]) for r in rows] == [
        (0, "solved", {"sum": 3}), (1, "solved", {"sum": 12}), (2, "no_solution", None),
        (3, "solved", {"sum": 21})]
    assert set(rows[0]) == {"index", "kind", "status", "result", "stats", "error", "cpu_seconds"}
    job_id = r.stderr.split("as job ")[1].split()[0]
    as_csv = cli(service_url, "results", "--format", "csv", job_id)
    assert as_csv.returncode == 0, as_csv.stderr
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [(t["index"], t["status"], t["answer"]) for t in table] == [
        ("0", "solved", "3"), ("1", "solved", "12"), ("2", "no_solution", ""), ("3", "solved", "21")]
    assert "elapsed_ms" in table[0]


def test_a_bad_line_is_named_and_nothing_is_stored(service_url, tmp_path):
    puzzles = toy_file(tmp_path, ["12", "1x3", "45", "123456789012345678901234"], name="puzzles.txt")
    before = my_job_ids(service_url)
    r = cli(service_url, "submit", "--kind", "toy", str(puzzles))
    assert r.returncode == 2
    assert f"{puzzles}:3: puzzle: bad symbol 'x'" in r.stderr
    assert f"{puzzles}:5: puzzle: a toy puzzle has 1 to 20 digits" in r.stderr
    assert f"{puzzles}:2:" not in r.stderr and f"{puzzles}:4:" not in r.stderr
    assert my_job_ids(service_url) == before


def test_json_lines_from_standard_input_with_options(service_url):
    items = "\n".join(json.dumps({"kind": "toy", "puzzle": p}) for p in ("11", "22")) + "\n{not json\n"
    r = cli(service_url, "submit", "-", stdin=items)
    assert r.returncode == 2 and "<stdin>:3: not a JSON item" in r.stderr
    r = cli(service_url, "submit", "--option", "lie=false", "--json", "-", stdin=items.rsplit("{", 1)[0])
    assert r.returncode == 0, r.stderr
    job = json.loads(r.stdout)[0]
    assert job["total"] == 2 and f"-m client --url {service_url} wait {job['id']}" in r.stderr
    with Client(service_url) as c:
        assert [p["options"]["lie"] for p in c.puzzles(job)] == [False, False]


def test_a_file_past_the_batch_limit_goes_as_several_jobs_in_order(tmp_path_factory, tmp_path):
    with embedded_service(tmp_path_factory.mktemp("small-batches"), MAX_BATCH="40") as service:
        url = service.url
        digits = [str(n) for n in range(1, 101)]
        puzzles = toy_file(tmp_path, digits)
        bad = toy_file(tmp_path, [*digits[:90], "9z", *digits[90:]], name="bad.txt")
        r = cli(url, "submit", "--kind", "toy", str(bad))
        assert r.returncode == 2 and f"{bad}:92: puzzle: bad symbol 'z'" in r.stderr
        assert my_job_ids(url) == set()  # the parts before the bad line were not stored either
        r = cli(url, "submit", "--kind", "toy", "--wait", "--format", "csv", str(puzzles))
        assert r.returncode == 0, r.stderr
        assert len(my_job_ids(url)) == 3
        table = list(csv.DictReader(io.StringIO(r.stdout)))
        assert [int(t["index"]) for t in table] == list(range(100))
        assert [t["answer"] for t in table] == [str(sum(map(int, d))) for d in digits]


def test_cancel_then_results_exit_1(service_url, tmp_path):
    puzzles = toy_file(tmp_path, ["1", "2", "3"])
    r = cli(service_url, "submit", "--kind", "toy", "--option", "sleep=20", "--json", str(puzzles))
    job_id = json.loads(r.stdout)[0]["id"]
    r = cli(service_url, "cancel", job_id)
    assert r.returncode == 0 and job_id in r.stdout and "cancelled" in r.stdout
    status = cli(service_url, "status", "--json", job_id)
    assert json.loads(status.stdout)["status"] == "cancelled"
    r = cli(service_url, "results", job_id)
    assert r.returncode == 1
    assert {json.loads(line)["status"] for line in r.stdout.splitlines()} <= {"cancelled", "solved"}
    listed = cli(service_url, "jobs", "--status", "cancelled")
    made = json.loads(status.stdout)["created_at"]  # RFC 3339 UTC, shown to the second
    assert f"{job_id}  {made[:10]} {made[11:19]}  cancelled" in listed.stdout


def test_delete_a_finished_job_and_an_unfinished_one_after_cancelling(service_url, tmp_path):
    with Client(service_url) as c:
        done = c.wait(c.submit([{"kind": "toy", "puzzle": "12"}]), poll=1.0)
        slow = c.submit([{"kind": "toy", "puzzle": "3", "options": {"sleep": 20}}])
        with pytest.raises(Conflict) as refused:
            c.delete_job(slow)
        assert "cancel it first" in refused.value.problem["detail"]
        assert c.job(slow)["status"] in ("queued", "running")
        c.delete_job(done)
        with pytest.raises(NotFound):
            c.job(done)
        with pytest.raises(NotFound):
            c.delete_job(done)
    r = cli(service_url, "delete", slow["id"])
    assert r.returncode == 2 and "cancel it first" in r.stderr
    r = cli(service_url, "delete", "--cancel", slow["id"])
    assert r.returncode == 0 and f"{slow['id']}  deleted" in r.stdout
    assert slow["id"] not in my_job_ids(service_url)
    r = cli(service_url, "delete", slow["id"])
    assert r.returncode == 2 and "404" in r.stderr


def test_interrupt_stops_waiting_and_wait_resumes(service_url, tmp_path):
    puzzles = toy_file(tmp_path, ["11", "22"])
    log = tmp_path / "stderr.txt"
    with open(log, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "client", "--url", service_url, "submit", "--kind",
                                 "toy", "--option", "sleep=4", "--wait", str(puzzles)], cwd=ROOT, text=True,
                                stdout=subprocess.PIPE, stderr=stderr,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    while "[" not in log.read_text():  # submitted, and the progress bar is up
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    err = log.read_text()
    assert proc.returncode == 130, err
    assert "the job keeps running" in err and out == ""
    resume = shlex.split(err.split("Resume with:")[1].strip().splitlines()[0])
    assert resume[:3] == [sys.executable, "-m", "client"] and resume[3:6] == ["--url", service_url, "wait"]
    r = subprocess.run(resume, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})  # the hint, as printed
    assert r.returncode == 0, r.stderr
    assert [json.loads(line)["result"] for line in r.stdout.splitlines()] == [{"sum": 2}, {"sum": 4}]


def test_failed_puzzles_found_and_retried_with_other_options(service_url, tmp_path):
    items = [{"kind": "toy", "puzzle": str(n), "options": {"crash": n == 2}} for n in (1, 2, 3)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    r = cli(service_url, "submit", "--wait", str(path))
    assert r.returncode == 1
    job_id = r.stderr.split("as job ")[1].split()[0]
    r = cli(service_url, "results", "--status", "failed", job_id)
    found = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(row["index"], row["status"]) for row in found] == [(1, "failed")]
    with Client(service_url) as c:
        assert [p["index"] for p in c.puzzles(job_id, status=["failed", "cancelled"])] == [1]
        with pytest.raises(Conflict):
            c.retry(job_id, indexes=[0])
        with pytest.raises(InvalidRequest) as bad:
            c.retry(job_id, options={"crash": "maybe"})
        assert bad.value.errors[0]["index"] == 1
    r = cli(service_url, "retry", "--option", "crash=false", "--json", job_id)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] in ("running", "completed")
    r = cli(service_url, "wait", job_id)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(row["status"], row["result"]["sum"]) for row in rows] == [("solved", n) for n in (1, 2, 3)]


def test_bulk_cancels_and_deletes_the_jobs_a_label_search_finds(service_url, tmp_path):
    tag = f"bulk-{os.getpid()}-{time.monotonic_ns()}"
    with Client(service_url) as c:
        slow = [c.submit([{"kind": "toy", "puzzle": "3", "options": {"sleep": 20}}], label=f"{tag} {i}")
                for i in range(2)]
        other = c.submit([{"kind": "toy", "puzzle": "4", "options": {"sleep": 20}}], label="another")
        listed = cli(service_url, "jobs", "--label", tag.upper(), "--json")
        assert {j["id"] for j in json.loads(listed.stdout)} == {j["id"] for j in slow}
        r = cli(service_url, "bulk", "cancel", "--label", tag)
        assert r.returncode == 0, r.stderr
        assert all(f"{j['id']}  cancelled" in r.stdout for j in slow)
        assert "2 jobs cancelled, 0 jobs left" in r.stderr
        assert c.job(other)["status"] in ("queued", "running")
        r = cli(service_url, "bulk", "delete", "--label", tag, "--json")
        assert sorted(json.loads(r.stdout)["done"]) == sorted(j["id"] for j in slow)
        assert not {j["id"] for j in slow} & my_job_ids(service_url)
        c.cancel(other)
