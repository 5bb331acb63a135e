"""One POST of a callback: to an address the operator allows, never redirected, within one total
deadline (WEBHOOK_TIMEOUT) for the whole attempt.

The URL's host is checked against WEBHOOK_ALLOWED_HOSTS again at send time, then resolved once and
the connection made to that address (the Host header and TLS's server name and certificate check
keep the URL's name), so no second lookup can lead it elsewhere.

The deadline bounds the sum of every step (connecting, TLS, sending, reading the status line and
headers), not each step alone: each read and write on the connection waits at most what is left of
it, so a receiver that answers a byte at a time is cut off when the deadline passes.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpcore

from store import webhooks
from store.deliveries import Outcome

ERROR_MAX = 500  # characters of an error kept in its attempt's row


class _Deadline:
    """What is left of an attempt's seconds, as the timeout of its next step."""

    def __init__(self, seconds: float):
        self.seconds, self.ends = seconds, time.monotonic() + seconds

    @property
    def passed(self) -> str | None:
        """Why the attempt ended once its time is up (None: some is left)."""
        if time.monotonic() < self.ends:
            return None
        return f"no whole answer within the attempt's {self.seconds:g} s (WEBHOOK_TIMEOUT)"

    def left(self, timeout: float | None, error: type[httpcore.TimeoutException]) -> float:
        """The step's timeout cut to the time left; ``error`` once none is."""
        left = self.ends - time.monotonic()
        if left <= 0:
            raise error(self.passed)
        return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    """A connection whose reads and writes wait at most until the deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline):
        self.inner, self.deadline = inner, deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, self.deadline.left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, self.deadline.left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        tls = self.inner.start_tls(ssl_context, server_hostname,
                                   self.deadline.left(timeout, httpcore.ConnectTimeout))
        return _Stream(tls, self.deadline)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's own sockets, each step bounded by the deadline."""

    def __init__(self, deadline: _Deadline):
        self.inner, self.deadline = httpcore.SyncBackend(), deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        stream = self.inner.connect_tcp(host, port, self.deadline.left(timeout, httpcore.ConnectTimeout),
                                        local_address, socket_options)
        return _Stream(stream, self.deadline)

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


def post(url: str, body: bytes, headers: Mapping[str, str], timeout: float,
         allowed: Sequence[str]) -> Outcome:
    """POST ``body`` to ``url``, all of it within ``timeout`` seconds; the status that came back, or
    why none did (an address not allowed, a connection refused, the deadline)."""
    start = time.monotonic()

    def ended(status: int | None, error: str | None) -> Outcome:
        clipped = None if error is None else error[:ERROR_MAX]
        return Outcome(status, clipped, (time.monotonic() - start) * 1000.0)

    problem = webhooks.url_problem(url, allowed)
    if problem is not None:
        return ended(None, problem)
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = _allowed_address(host, port, allowed)
    except OSError as exc:
        return ended(None, f"cannot resolve {host!r}: {exc}")
    if address is None:
        return ended(None, f"{host!r} resolves to no address this service allows")
    pinned = urlunsplit(parts._replace(netloc=f"{_in_url(address)}:{port}"))
    sent = [("Host", parts.netloc.rpartition("@")[2]), *headers.items()]
    extensions: dict[str, Any] = {"timeout": dict.fromkeys(("connect", "read", "write", "pool"), timeout)}
    if parts.scheme == "https":
        extensions["sni_hostname"] = host
    deadline = _Deadline(timeout)
    try:
        with httpcore.ConnectionPool(network_backend=_Backend(deadline), retries=0) as pool, \
                pool.stream("POST", pinned, headers=sent, content=body, extensions=extensions) as answer:
            status = answer.status
            location = next((v for k, v in answer.headers if k.lower() == b"location"), None)
    except httpcore.TimeoutException as exc:
        return ended(None, f"{type(exc).__name__}: {deadline.passed or exc}")
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as exc:
        return ended(None, f"{type(exc).__name__}: {exc}")
    if 300 <= status < 400:
        shown = None if location is None else location.decode("latin-1")
        return ended(status, f"redirect to {shown!r} not followed")
    return ended(status, None if 200 <= status < 300 else f"answered {status}")


def _allowed_address(host: str, port: int, allowed: Sequence[str]) -> str | None:
    """The first address ``host`` resolves to that a callback may reach (None: none)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for _family, _type, _proto, _name, sockaddr in found:
        address = str(sockaddr[0])
        if webhooks.address_allowed(host, address, port, allowed):
            return address
    return None


def _in_url(address: str) -> str:
    return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
