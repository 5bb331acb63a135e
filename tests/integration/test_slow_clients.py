"""Slow clients: 200 sockets that each send a POST's head, then one body byte a second.
Behind deploy/nginx.conf, gunicorn as docker-compose.yml runs it still answers GET /api/v1/kinds in
well under 100 ms, and nginx cuts clients that stall; gunicorn alone, published directly,
gives every thread to the slow sockets and answers nothing."""

from __future__ import annotations

import contextlib
import getpass
import http.client
import json
import os
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from store.db import migrate
from tests.support.devstack import ROOT, free_port

pytestmark = pytest.mark.integration

API = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["api"]
NGINX_CONF = (ROOT / "deploy" / "nginx.conf").read_text()
SLOW = 200
BOUND = 0.1  # the issue's: seconds for GET /api/v1/kinds while the slow sockets hang on
TIMEOUT = 10  # client_header_timeout and client_body_timeout in deploy/nginx.conf
BODY_HEAD = (b"POST /api/v1/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
             b"Content-Length: 100000\r\n\r\n")
HEADER_HEAD = b"POST /api/v1/validate HTTP/1.1\r\nHost: localhost\r\nX-Slow: "


def nginx_binary() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if found is None:
        message = "nginx is not installed (apt-get install nginx)"
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail(f"{message}; REQUIRE_SERVICES=1 says it must be there", pytrace=False)
        pytest.skip(message)
    return found


def wait_until_answering(port: int, proc: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + 120
    while answer_time(port, "/healthz") == float("inf"):
        started = proc.poll() is None and time.monotonic() < deadline
        assert started, f"{what} did not start:\n{log.read_text()[-3000:]}"
        time.sleep(0.2)


def stop(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    proc.send_signal(sig)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def api_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The API's database and its log, gunicorn.log."""
    return tmp_path_factory.mktemp("slow-api")


@pytest.fixture(scope="module")
def gunicorn(api_folder: Path) -> Iterator[int]:
    """The compose file's API command, bound to a free port on loopback."""
    folder = api_folder
    url = f"sqlite:///{folder / 'api.db'}"
    migrate(url)
    port = free_port()
    command = list(API["command"])
    assert command[0] == "gunicorn"
    command[0] = str(Path(sys.executable).parent / "gunicorn")
    command[command.index("--bind") + 1] = f"127.0.0.1:{port}"
    env = {**os.environ, "DATABASE_URL": url, "BROKER_DIR": str(folder / "broker"), "RATE_LIMIT": "",
           "READ_RATE_LIMIT": "", "PYTHONPATH": str(ROOT),
           "TRUSTED_PROXIES": str(API["environment"]["TRUSTED_PROXIES"])}
    env.pop("REDIS_URL", None)
    log = folder / "gunicorn.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_answering(port, proc, "gunicorn", log)
        yield port
    finally:
        stop(proc, signal.SIGTERM)


def nginx_config(folder: Path, listen: int, upstream: int) -> str:
    """deploy/nginx.conf with only where it listens, what it proxies to and its files moved."""
    temp_paths = "".join(f"    {name}_temp_path {folder / name};\n"
                         for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = NGINX_CONF
    for old, new in {"user www-data;": f"user {getpass.getuser()};",  # ignored unless root
                     "pid /run/nginx.pid;": f"pid {folder / 'nginx.pid'};",
                     "server api:8000;": f"server 127.0.0.1:{upstream};",
                     "listen 8000;": f"listen 127.0.0.1:{listen};",
                     "http {\n": "http {\n" + temp_paths}.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def proxy(gunicorn: int, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """deploy/nginx.conf in front of ``gunicorn``."""
    binary = nginx_binary()
    folder = tmp_path_factory.mktemp("slow-proxy")
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(nginx_config(folder, port, gunicorn))
    log = folder / "nginx.log"
    with open(log, "wb") as out:
        command = [binary, "-p", str(folder), "-c", str(conf), "-e", "stderr", "-g", "daemon off;"]
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_answering(port, proc, "nginx", log)
        yield port
    finally:
        stop(proc, signal.SIGQUIT)


def answer_time(port: int, path: str = "/api/v1/kinds", timeout: float = 1) -> float:
    """Seconds to a whole 200 answer on a new connection; infinity for none within ``timeout``."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return time.perf_counter() - started if response.status == 200 else float("inf")
    except OSError:
        return float("inf")
    finally:
        connection.close()


class Trickle:
    """``count`` sockets that each send ``head``, then one byte a second (from one thread) until
    ``stop_dripping``; records when the server closes each, in seconds from the start."""

    def __init__(self, port: int, count: int, head: bytes):
        self.started = time.monotonic()
        self.socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
        for sock in self.socks:
            sock.sendall(head)
            sock.setblocking(False)
        self.closed: dict[socket.socket, float] = {}
        self.dripping, self.done = True, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with selectors.DefaultSelector() as selector:
            for sock in self.socks:
                selector.register(sock, selectors.EVENT_READ)
            next_drip = time.monotonic() + 1
            while not self.done.is_set():
                for key, _ in selector.select(timeout=max(0.0, next_drip - time.monotonic())):
                    try:
                        data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                    except OSError:
                        data = b""
                    if not data:  # a 408 may come first; the close is what counts
                        self.closed[key.fileobj] = time.monotonic() - self.started  # type: ignore[index]
                        selector.unregister(key.fileobj)
                if time.monotonic() >= next_drip:
                    next_drip += 1
                    for sock in self.socks:
                        if self.dripping and sock not in self.closed:
                            with contextlib.suppress(OSError):  # closed: the selector records it
                                sock.send(b"a")

    def stop_dripping(self) -> float:
        self.dripping = False
        return time.monotonic() - self.started

    def wait_closed(self, within: float) -> list[float]:
        """When each socket was closed, once all are or ``within`` seconds have passed."""
        deadline = time.monotonic() + within
        while len(self.closed) < len(self.socks) and time.monotonic() < deadline:
            time.sleep(0.2)
        return sorted(self.closed.values())

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        for sock in self.socks:
            sock.close()


def answer_times(port: int, n: int = 20) -> list[float]:
    """``n`` answer times, each on a new connection. gunicorn's processes take the slow sockets
    unevenly (92, 53, 50 and 5 of 200 seen), so one may have a free thread: enough tries that
    some land on the others."""
    times = []
    for _ in range(n):
        times.append(answer_time(port))
        time.sleep(0.1)
    return times


def test_the_proxy_cuts_clients_that_stall_and_headers_that_never_end(proxy: int) -> None:
    bodies, heads = Trickle(proxy, SLOW, BODY_HEAD), Trickle(proxy, 20, HEADER_HEAD)
    try:
        # A head trickling in is cut client_header_timeout after it began, trickle as it may.
        cut = heads.wait_closed(TIMEOUT + 5)
        assert len(cut) == 20 and cut[0] >= TIMEOUT - 1 and cut[-1] <= TIMEOUT + 3, cut
        # A body that keeps coming is not cut (it costs nginx a connection, gunicorn nothing) ...
        assert not bodies.closed
        assert statistics.median(answer_times(proxy)) < BOUND
        # ... one that stops is, client_body_timeout after its last byte.
        stopped = bodies.stop_dripping()
        cut = bodies.wait_closed(TIMEOUT + 5)
        assert len(cut) == SLOW, f"{SLOW - len(cut)} slow sockets still open"
        after = [t - stopped for t in cut]
        assert after[0] >= TIMEOUT - 2 and after[-1] <= TIMEOUT + 3, (after[0], after[-1])
    finally:
        bodies.close()
        heads.close()


def exchange(port: int, raw: bytes) -> bytes:
    """Send raw bytes, read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


def test_the_proxy_refuses_a_body_over_the_apis_limit_with_its_problem_document(proxy: int) -> None:
    head = BODY_HEAD.replace(b"100000", b"%d" % (8 * 2**20 + 1))
    head = head.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
    answer = exchange(proxy, head)
    assert answer.startswith(b"HTTP/1.1 413 ") and b"application/problem+json" in answer, answer
    assert b'"detail":"the body is larger than 8388608 bytes"' in answer


SECURITY_HEADERS = (b"X-Content-Type-Options: nosniff", b"X-Frame-Options: DENY",
                    b"Referrer-Policy: no-referrer",
                    b"Content-Security-Policy: default-src 'none'; frame-ancestors 'none'")


@pytest.mark.parametrize(("raw", "status"), [
    (b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431),
    (b"GET /healthz HTTP/1.1\r\n\r\n", 400),  # HTTP/1.1 without Host
], ids=["header over 8 KB", "no Host"])
def test_what_the_proxy_refuses_itself_is_a_problem_document_with_the_apis_headers(
        proxy: int, raw: bytes, status: int) -> None:
    answer = exchange(proxy, raw)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), answer[:300]
    assert b"Content-Type: application/problem+json" in head
    assert all(header in head for header in SECURITY_HEADERS), head
    problem = json.loads(body)
    assert problem["status"] == status and problem["title"] and problem["detail"]


def test_the_proxys_414_page_carries_the_apis_headers(proxy: int) -> None:
    # A request line over 8 KB: nginx's own page (no URI to hand @refused), with the headers.
    answer = exchange(proxy, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    head = answer.partition(b"\r\n\r\n")[0]
    assert head.startswith(b"HTTP/1.1 414 "), answer[:300]
    assert all(header in head for header in SECURITY_HEADERS), head


def test_the_apis_answers_through_the_proxy_carry_each_security_header_once(proxy: int) -> None:
    answer = exchange(proxy, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    head = answer.partition(b"\r\n\r\n")[0]
    assert head.startswith(b"HTTP/1.1 200 "), answer[:300]
    lines = head.split(b"\r\n")
    for header in (b"X-Content-Type-Options", b"X-Frame-Options", b"Referrer-Policy"):
        assert sum(line.startswith(header + b":") for line in lines) == 1, head


@pytest.mark.parametrize("size", [b"f" * 20, b"1" + b"0" * 19, b"800001"],
                         ids=["20 f", "20 digits", "over 8 MB"])
def test_the_proxy_refuses_a_huge_chunk_size_at_once_where_gunicorn_would_wait_for_it(
        proxy: int, size: bytes) -> None:
    # gunicorn alone reads the size and waits for that many bytes (a slow client's thread, no
    # more); nginx refuses a size past an off_t (400) or past client_max_body_size (413) itself.
    head = (b"POST /api/v1/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", proxy), timeout=5) as sock:
        sock.sendall(head + size + b"\r\n{")  # and the connection stays open
        answer = sock.recv(65536)
    assert time.monotonic() - started < 2
    assert answer.startswith((b"HTTP/1.1 400 ", b"HTTP/1.1 413 ")), answer[:200]
    assert b"application/problem+json" in answer


def test_the_api_logs_the_address_the_proxy_saw(proxy: int, api_folder: Path) -> None:
    """Not the X-Forwarded-For the client wrote."""
    answer = exchange(proxy, b"GET /api/v1/kinds HTTP/1.1\r\nHost: localhost\r\n"
                             b"X-Forwarded-For: 203.0.113.9\r\nX-Request-ID: forwarded-check\r\n"
                             b"Connection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ")
    log = api_folder / "gunicorn.log"
    deadline = time.monotonic() + 5
    while not (lines := [line for line in log.read_text().splitlines() if "forwarded-check" in line]):
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)
    assert lines[0].endswith("from 127.0.0.1"), lines


@pytest.mark.parametrize("through", [
    "proxy",
    pytest.param("gunicorn", marks=pytest.mark.xfail(
        strict=True, reason="gunicorn's gthread workers give each slow body a thread until all are taken")),
])
def test_200_slow_bodies_leave_the_api_answering_within_100_ms(through: str,
                                                               request: pytest.FixtureRequest) -> None:
    port = request.getfixturevalue(through)
    slow = Trickle(port, SLOW, BODY_HEAD)
    try:
        time.sleep(2)  # every slow socket has its head in and has dripped a byte or two
        times = answer_times(port)
    finally:
        slow.close()
    shown = ", ".join(f"{t * 1000:.0f}" for t in times)
    print(f"\nGET /api/v1/kinds through {through} with {SLOW} slow sockets, ms: {shown}")
    assert statistics.median(times) < BOUND and max(times) < 1, f"ms: {shown}"
