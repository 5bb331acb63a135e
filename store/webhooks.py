"""Job callbacks without I/O: each client's signing secret, the signature of a body, the hosts a
callback may reach and the wait before each retry.

Glossary
  client secret  HMAC-SHA256 of the client's name (the job's owner) under WEBHOOK_SECRET, as hex: what
                 GET /api/v1/webhook-secret tells the client, and the key its deliveries are signed with.
  signature      ``sha256=`` and the hex HMAC-SHA256 of the exact body under the client secret, sent
                 as the X-Signature header.
  timestamped    ``v1=`` and the hex HMAC-SHA256 of ``<timestamp>.<delivery id>.<body>`` under the
  signature      client secret, sent as X-Puzzle-Queue-Signature beside the timestamp (Unix seconds
                 when the attempt was sent) and the delivery id it signs: a receiver that checks it
                 and the timestamp's age refuses a replay of an old request, and a body moved to
                 another delivery. X-Signature stays, for receivers that check only the body.
  allowed        a host named in WEBHOOK_ALLOWED_HOSTS, or an address inside an address or network
                 named there, at the entry's port if it names one (``host:port``, ``[IPv6]:port``),
                 else at any port; a name is allowed as itself (never by what it resolves to), an
                 address only by the addresses and networks.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

SIGNATURE_HEADER = "X-Signature"
TIMESTAMP_HEADER = "X-Puzzle-Queue-Timestamp"
DELIVERY_HEADER = "X-Puzzle-Queue-Delivery"
SIGNED_HEADER = "X-Puzzle-Queue-Signature"
USER_AGENT = "puzzle-queue-callback"
URL_MAX = 2000
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def client_secret(server_secret: str, owner: str) -> str:
    """The client's own signing secret (see the glossary)."""
    return hmac.new(server_secret.encode(), owner.encode(), hashlib.sha256).hexdigest()


def signature(secret: str, body: bytes) -> str:
    """The X-Signature header's value for ``body`` signed with a client secret."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def timestamped_signature(secret: str, timestamp: int, delivery_id: int, body: bytes) -> str:
    """The X-Puzzle-Queue-Signature header's value (see the glossary)."""
    signed = f"{timestamp}.{delivery_id}.".encode() + body
    return "v1=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signed_headers(secret: str, timestamp: int, delivery_id: int, body: bytes) -> dict[str, str]:
    """The headers that sign a delivery's attempt: the body alone, and with its timestamp and id."""
    return {SIGNATURE_HEADER: signature(secret, body), TIMESTAMP_HEADER: str(timestamp),
            DELIVERY_HEADER: str(delivery_id),
            SIGNED_HEADER: timestamped_signature(secret, timestamp, delivery_id, body)}


def delivery_headers(secret: str, timestamp: int, delivery_id: int, attempt: int,
                     body: bytes) -> dict[str, str]:
    """Every header of a delivery's attempt: the content type, the user agent, the signatures and
    the delivery's id and attempt number (a test delivery has its own, store.sample_delivery)."""
    return {"Content-Type": "application/json", "User-Agent": USER_AGENT,
            **signed_headers(secret, timestamp, delivery_id, body),
            "X-Delivery-Id": str(delivery_id), "X-Delivery-Attempt": str(attempt)}


def parse_allowed(entries: Iterable[str]) -> tuple[frozenset[tuple[str, int | None]],
                                                  tuple[tuple[Network, int | None], ...]]:
    """WEBHOOK_ALLOWED_HOSTS as the names and the networks it allows, each with its port (None: any
    port); ValueError naming a bad entry."""
    names: set[tuple[str, int | None]] = set()
    networks: list[tuple[Network, int | None]] = []
    for entry in entries:
        host, port = _split_port(entry)
        if _is_address_like(host):
            try:
                networks.append((ipaddress.ip_network(host.strip("[]"), strict=False), port))
            except ValueError:
                raise ValueError(f"{entry!r} is neither a host name nor an address or network") from None
        else:
            names.add((host.lower().rstrip("."), port))
    return frozenset(names), tuple(networks)


def _split_port(entry: str) -> tuple[str, int | None]:
    """An entry's host and its port: ``name:port``, ``address:port``, ``[IPv6]:port``; a bare IPv6
    address has no port (its last group would read as one)."""
    if entry.startswith("["):
        host, _, rest = entry.partition("]")
        if not rest:
            return host + "]", None
        if not rest.startswith(":"):
            raise ValueError(f"{entry!r}: only a :port may follow ']'")
        return host + "]", _port(entry, rest[1:])
    if entry.count(":") != 1:
        return entry, None
    host, _, port = entry.partition(":")
    return host, _port(entry, port)


def _port(entry: str, text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"{entry!r}: a port is 1 to 65535")
    return int(text)


def _is_address_like(entry: str) -> bool:
    return ":" in entry or "/" in entry or entry.replace(".", "").isdigit()


def host_allowed(host: str, port: int, entries: Iterable[str]) -> bool:
    """Whether ``host`` (a URL's host: a name or an address) at ``port`` is allowed (see the glossary)."""
    names, networks = parse_allowed(entries)
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        name = host.lower().rstrip(".")
        return (name, None) in names or (name, port) in names
    return any(address in network and scope in (None, port) for network, scope in networks)


def address_allowed(host: str, address: str, port: int, entries: Iterable[str]) -> bool:
    """Whether a connection to ``address`` at ``port``, which ``host`` resolved to, is allowed: a
    named host's addresses are its own, an address host's must be inside an allowed network."""
    names, _ = parse_allowed(entries)
    name = host.lower().rstrip(".")
    if (name, None) in names or (name, port) in names:
        return True
    return host_allowed(address, port, entries)


def url_problem(url: str, entries: Iterable[str]) -> str | None:
    """Why ``url`` cannot be a callback here (None: it can)."""
    allowed = tuple(entries)
    if not allowed:
        return "callbacks are off on this service (WEBHOOK_ALLOWED_HOSTS is empty)"
    if len(url) > URL_MAX:
        return f"a callback_url has at most {URL_MAX} characters"
    try:
        parts = urlsplit(url)
        if parts.port == 0:  # reading the port also refuses one out of range
            return "a callback_url's port is 1 to 65535"
    except ValueError as exc:
        return f"not a URL: {exc}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "a callback_url is an http or https URL with a host"
    if parts.username is not None or parts.password is not None:
        return "a callback_url carries no user name or password"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if not host_allowed(parts.hostname, port, allowed):
        at = "" if parts.port is None else f" at port {port}"
        return f"host {parts.hostname!r}{at} is not among this service's allowed callback hosts"
    return None


def retry_delay(attempts: int, first: float, most: float) -> float:
    """Seconds to wait after ``attempts`` failed attempts: ``first``, then twice as long each time,
    at most ``most``."""
    return min(most, first * 2.0 ** min(max(attempts - 1, 0), 60))
