"""Bodies whose HTTP framing is broken, sent byte by byte to the API under gunicorn (as deployed):
each is answered 400 problem+json, never 500, and the API goes on answering."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.db import migrate
from tests.support.devstack import ROOT, free_port

# A real gunicorn process (so not in `make test-fast`), on a SQLite file of its own and a free port:
# it shares nothing, and runs with the parallel tests.
pytestmark = pytest.mark.integration

HEAD = ("POST /api/v1/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    folder = tmp_path_factory.mktemp("framing")
    url = f"sqlite:///{folder / 'api.db'}"
    migrate(url)
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "BROKER_DIR": str(folder / "broker"), "RATE_LIMIT": "",
           "READ_RATE_LIMIT": "", "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    gunicorn = Path(sys.executable).parent / "gunicorn"
    proc = subprocess.Popen([str(gunicorn), "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "4",
                             "service:create_app()"], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 60
        while not answers(port):
            assert proc.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.2)
        yield port
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def answers(port: int) -> bool:
    try:
        request = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        return exchange(port, request)[0] == 200
    except OSError:
        return False


def exchange(port: int, raw: bytes) -> tuple[int, bytes]:
    """Send raw bytes, read the whole answer (the server closes); its status and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


GOOD = json.dumps({"puzzles": [{"kind": "nqueens", "puzzle": {"n": 8}}]}).encode()


@pytest.mark.parametrize("chunks", [
    b"zz\r\n" + GOOD + b"\r\n0\r\n\r\n",                               # a size that is not hexadecimal
    b"-5\r\n" + GOOD + b"\r\n0\r\n\r\n",                               # a negative size
    f"{len(GOOD):x}\r\n".encode() + GOOD + b"XX0\r\n\r\n",             # a chunk without its CRLF
], ids=["size zz", "size -5", "missing CRLF"])
def test_a_malformed_chunked_body_is_400_not_500(api, chunks):
    status, body = exchange(api, HEAD.encode() + chunks)
    assert status == 400, body
    assert b"framing" in body or b"Bad Request" in body
    good = f"{len(GOOD):x}\r\n".encode() + GOOD + b"\r\n0\r\n\r\n"
    assert exchange(api, HEAD.encode() + good)[0] == 200  # and the next request is served


@pytest.mark.parametrize(("raw", "status"), [
    (f"GET /api/v1/jobs/{'a' * 5000} HTTP/1.1\r\nHost: localhost\r\n\r\n", 414),       # over 4094
    ("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "b" * 9000 + "\r\n\r\n", 431),  # over 8190
    ("GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + "X-N: 1\r\n" * 101 + "\r\n", 431),  # over 100
], ids=["request line", "header size", "header count"])
def test_what_gunicorn_refuses_itself_is_a_problem_document(api, raw, status):
    with socket.create_connection(("127.0.0.1", api), timeout=10) as sock:
        sock.sendall(raw.encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    # A problem document, not gunicorn's own text/html page.
    assert int(head.split(b" ", 2)[1]) == status, data[:300]
    assert b"Content-Type: application/problem+json" in head
    assert json.loads(body)["status"] == status
    assert answers(api)  # and the next request is served
