"""Who may call the API: clients and their tokens, the token of /metrics, the operators of the
fleet view, and the public views.

Terms (client, digest, operator): docs/glossary.md. A token is never stored, logged or quoted in
an error; the settings may hold digests instead of tokens.

The forms of API_TOKENS, METRICS_TOKEN and ADMIN_TOKENS, and ``python -m service.tokens``, are in
docs/operations.md; a bad entry stops the start, named by its position, never its text.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from typing import cast

from flask import Flask, current_app, g, request
from sqlalchemy import String

from service.marks import ViewMark
from service.problems import Problem
from store.models import Job
from store.settings import Access

log = logging.getLogger(__name__)

# The column the name is stored in: a longer name would make every POST of that client fail.
NAME_LENGTH = cast(String, Job.__table__.c.owner.type).length or 64
NAME = re.compile(r"[A-Za-z0-9._@+-]+")
DIGEST_PREFIX = "sha256:"
HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")
ANONYMOUS = "anonymous"  # the owner of a job posted with auth off, before its address

class TokenSettingError(ValueError):
    """API_TOKENS, METRICS_TOKEN or ADMIN_TOKENS cannot be used as written (the message quotes no token)."""


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _secret(text: str, where: str) -> bytes:
    """The digest of ``text``: a token, or ``sha256:<hex>`` written out."""
    if text.startswith(DIGEST_PREFIX):
        hex_digits = text[len(DIGEST_PREFIX):]
        if not HEX_DIGEST.fullmatch(hex_digits):
            raise TokenSettingError(f"{where}: after 'sha256:' come the 64 hex digits of a SHA-256 "
                                    f"digest (python -m service.tokens hash); there are {len(hex_digits)} "
                                    "characters")
        return bytes.fromhex(hex_digits)
    if not text:
        raise TokenSettingError(f"{where}: the token is empty")
    return digest(text)


def check_name(name: str, where: str) -> None:
    # The name is not quoted either: an entry written token-first would show the token.
    if not 1 <= len(name) <= NAME_LENGTH:
        raise TokenSettingError(f"{where}: a client name has 1 to {NAME_LENGTH} characters; "
                                f"this one has {len(name)}")
    if not NAME.fullmatch(name):
        raise TokenSettingError(f"{where}: a client name holds only letters, digits and . _ @ + -")


@dataclass(frozen=True)
class Clients:
    """The clients of API_TOKENS, as (digest, name) pairs; empty: auth is off."""

    entries: tuple[tuple[bytes, str], ...] = ()

    @property
    def enabled(self) -> bool:
        return bool(self.entries)

    def identify(self, token: str) -> str | None:
        """The client holding ``token``, or None. Every entry is compared, in constant time and
        without stopping at a match, so the time taken tells nothing about the tokens."""
        given = digest(token)
        found = None
        for entry, name in self.entries:
            if hmac.compare_digest(given, entry):
                found = name
        return found


def parse_clients(text: str) -> Clients:
    entries: list[tuple[bytes, str]] = []
    for n, entry in enumerate(filter(None, (e.strip() for e in text.split(","))), 1):
        where = f"API_TOKENS entry {n}"
        name, sep, secret = entry.partition(":")
        if not sep:
            raise TokenSettingError(f"{where} has no client name: write name:token or "
                                    "name:sha256:<hex> (python -m service.tokens hash)")
        name = name.strip()
        check_name(name, where)
        value = _secret(secret.strip(), where)
        if any(hmac.compare_digest(value, other) for other, _ in entries):
            raise TokenSettingError(f"{where} has the same token as an earlier entry")
        entries.append((value, name))
    return Clients(tuple(entries))


def parse_operators(text: str) -> tuple[bytes, ...]:
    """The digests of ADMIN_TOKENS: tokens, or their ``sha256:<hex>`` forms, comma-separated."""
    entries = [e.strip() for e in text.split(",")]
    return tuple(_secret(e, f"ADMIN_TOKENS entry {n}") for n, e in enumerate(filter(None, entries), 1))


def parse_metrics_token(text: str) -> bytes | None:
    text = text.strip()
    return _secret(text, "METRICS_TOKEN") if text else None


@dataclass(frozen=True)
class Auth:
    clients: Clients
    metrics: bytes | None  # METRICS_TOKEN's digest
    operators: tuple[bytes, ...] = ()  # ADMIN_TOKENS's digests

    @property
    def metrics_closed(self) -> bool:
        return self.metrics is None and self.clients.enabled

    @property
    def fleet_guarded(self) -> bool:
        """Whether the fleet view needs an operator token: whenever any client or operator token is
        set (with none at all the service is an open one, for development)."""
        return bool(self.operators) or self.clients.enabled

    def is_operator(self, token: str) -> bool:
        """Constant time over every entry, as ``Clients.identify``."""
        given = digest(token)
        found = False
        for entry in self.operators:
            found |= hmac.compare_digest(given, entry)
        return found


def init_app(app: Flask, access: Access) -> None:
    """Check the settings (a bad one stops the app here, at start) and keep only digests."""
    auth = Auth(parse_clients(access.api_tokens), parse_metrics_token(access.metrics_token),
                parse_operators(access.admin_tokens))
    if auth.metrics_closed:
        log.warning("API_TOKENS is set and METRICS_TOKEN is not: /metrics answers 401 to everyone")
    if auth.fleet_guarded and not auth.operators:
        log.warning("API_TOKENS is set and ADMIN_TOKENS is not: the fleet view (/ops) is closed to everyone")
    app.extensions["auth"] = auth


def _auth() -> Auth:
    return cast(Auth, current_app.extensions["auth"])


def auth_enabled() -> bool:
    return _auth().clients.enabled


def fleet_guarded() -> bool:
    return _auth().fleet_guarded


# Views that need no token, even when auth is on.
public = ViewMark()


# -- the request's credentials


def _bearer() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def client_name() -> str | None:
    """The client the request's bearer token names; None without a token, with an unknown
    one, or with auth off. Worked out once per request (the rate limiter asks too)."""
    if "client" not in g:
        token = _bearer()
        clients = cast(Auth, current_app.extensions["auth"]).clients
        g.client = clients.identify(token) if token is not None and clients.enabled else None
    return cast("str | None", g.client)


def _unauthorized(detail: str) -> Problem:
    return Problem(401, "Unauthorized", detail, headers={"WWW-Authenticate": 'Bearer realm="puzzle-queue"'})


def require_client() -> str | None:
    """The owner whose jobs the request may see: its client, "" on a public view, or None (every
    job: the service is open) with auth off; 401 when auth is on and no valid token came."""
    if not auth_enabled():
        return None
    if public.on_request():
        return ""
    name = client_name()
    if name is None:
        raise _unauthorized("a valid bearer token is required")
    return name


def submitter(owner: str | None) -> str:
    """The owner of the jobs the request stores: its client (``owner``, from require_client), or
    with auth off ``anonymous:<address>``, so that quotas and fair share count each address
    apart (behind a reverse proxy the address is the one the proxy passes on, see ProxyFix)."""
    if owner is not None:
        return owner
    return f"{ANONYMOUS}:{request.remote_addr or ''}"[:NAME_LENGTH]


def require_metrics_token() -> None:
    """401 unless the request carries METRICS_TOKEN (when one is needed: see the module's text)."""
    auth = cast(Auth, current_app.extensions["auth"])
    if auth.metrics_closed:
        raise _unauthorized("/metrics needs METRICS_TOKEN, which this service does not set")
    if auth.metrics is None:
        return
    token = _bearer()
    if token is None or not hmac.compare_digest(digest(token), auth.metrics):
        raise _unauthorized("/metrics needs the metrics token as a bearer token")


def require_operator() -> None:
    """Nothing with no token set at all (an open service); otherwise 401 without a valid token, 403
    with a client's token that is not one of ADMIN_TOKENS."""
    auth = _auth()
    if not auth.fleet_guarded:
        return
    token = _bearer()
    if token is None:
        raise _unauthorized("the fleet view needs an operator token (ADMIN_TOKENS) as a bearer token")
    if auth.is_operator(token):
        return
    if client_name() is None:
        raise _unauthorized("the bearer token is not valid")
    raise Problem(403, "Forbidden", "the fleet view needs an operator token (ADMIN_TOKENS); a client's "
                                    "token is not one" + ("" if auth.operators else ", and this service "
                                                          "sets no ADMIN_TOKENS"))
