"""A local HTTP server standing in for a client's callback endpoint: it records every request and
answers each with the next of its planned answers (200 once they run out)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class CallbackServer:
    answers: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    delay: float = 0.0  # seconds before each answer
    trickle: float = 0.0  # seconds between the bytes of each answer (0: all at once)
    received: list[Received] = field(default_factory=list)

    def __enter__(self) -> CallbackServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.received.append(Received(self.path, dict(self.headers.items()), body))
                time.sleep(server.delay)
                if server.trickle:
                    self._trickle()
                    return
                status, headers = server.answers.pop(0) if server.answers else (200, {})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _trickle(self) -> None:
                """A 200 sent a byte at a time until the client goes away."""
                try:
                    for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n":
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(server.trickle)
                except OSError:
                    pass
                self.close_connection = True

            do_GET = do_POST  # noqa: N815  a followed redirect would be recorded too

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.httpd.server_address[1]}{path}"
