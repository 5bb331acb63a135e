"""The app served over real HTTP on loopback, in a thread: what the test client cannot show
(a chunked body, a client's own HTTP stack, schemathesis' requests) goes through a socket.

werkzeug's threaded server: each request in its own thread, chunked request bodies decoded
(it sets ``wsgi.input_terminated``, as gunicorn does).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask
from werkzeug.serving import make_server


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """The app on 127.0.0.1 at a free port; its base URL. Stopped afterwards."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
