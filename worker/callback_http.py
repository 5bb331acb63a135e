"""One POST of a callback: to an address the operator allows, never redirected, within the timeout.

The URL's host is checked against WEBHOOK_ALLOWED_HOSTS again at send time, then resolved once and
the connection made to that address (the Host header and TLS's server name and certificate check
keep the URL's name), so no second lookup can lead it elsewhere.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit, urlunsplit

import httpx

from store import webhooks
from store.deliveries import Outcome

ERROR_MAX = 500  # characters of an error kept in its attempt's row


def post(url: str, body: bytes, headers: Mapping[str, str], timeout: float,
         allowed: Sequence[str]) -> Outcome:
    """POST ``body`` to ``url``; the status that came back, or why none did (an address not allowed,
    a connection refused, the timeout)."""
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
    sent = {**headers, "Host": parts.netloc.rpartition("@")[2]}
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client, \
                client.stream("POST", pinned, content=body, headers=sent, extensions=extensions) as answer:
            status = answer.status_code
            location = answer.headers.get("location")
    except httpx.HTTPError as exc:
        return ended(None, f"{type(exc).__name__}: {exc}")
    if 300 <= status < 400:
        return ended(status, f"redirect to {location!r} not followed")
    return ended(status, None if 200 <= status < 300 else f"answered {status}")


def _allowed_address(host: str, port: int, allowed: Sequence[str]) -> str | None:
    """The first address ``host`` resolves to that a callback may reach (None: none)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for _family, _type, _proto, _name, sockaddr in found:
        address = str(sockaddr[0])
        if webhooks.address_allowed(host, address, allowed):
            return address
    return None


def _in_url(address: str) -> str:
    return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
