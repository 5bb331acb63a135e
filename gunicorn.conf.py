"""gunicorn settings read by every way the API is served here (gunicorn loads ./gunicorn.conf.py
from its working directory: the image's /app, `make run`, the benchmarks)."""

import gc
import json

from gunicorn import util


def post_worker_init(worker: object) -> None:
    """Everything the app holds once loaded (Flask, SQLAlchemy, pydantic, numba: about 200,000
    objects) is moved out of the collector's sight. A full collection otherwise walks them all,
    and a 1,000-puzzle POST, which makes thousands of objects, set one off every few requests:
    0.1-0.4 s each, measured in process, the tail of every POST that met one."""
    gc.freeze()


def write_problem(sock: object, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own answers to a request it refuses before the app sees it (414 for a request
    line over limit_request_line, 431 for headers over their limits, 400 for a malformed request)
    as the problem documents the app answers with (service.problems), not gunicorn's HTML page."""
    body = {"type": "about:blank", "title": reason, "status": status_int}
    if mesg:
        body["detail"] = mesg
    text = json.dumps(body).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/problem+json\r\nContent-Length: {len(text)}\r\n"
            "X-Content-Type-Options: nosniff\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin1") + text)


# The workers' error path calls util.write_error by name at each refusal.
util.write_error = write_problem
