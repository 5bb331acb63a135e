"""Request bodies: read once, JSON only, bounded in size and in nesting before anything parses them.

Terms of this module (shared terms: docs/glossary.md)
  JSON type   ``application/json`` or an ``application/*+json`` type, in UTF-8. Anything else is
              415: besides saying what the API takes, it keeps other web pages from submitting
              work to a service without tokens, since a browser sends a cross-site JSON POST
              only after a CORS preflight this service never grants (a text/plain or form
              POST goes without one).
  size        at most MAX_BODY_BYTES (413), counted while reading, so a chunked body without a
              Content-Length is refused as soon as it passes the limit, not read whole.
  depth       how deeply arrays and objects nest; over MAX_JSON_DEPTH is 400. Measured on the
              text before ``json.loads``, whose recursion (and that of everything after it
              that walks the value) must never meet a depth it cannot take.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

from service import settings
from service.problems import Problem

# A JSON string, escapes included; an unterminated one runs to the end of the text, so that every
# quote starts a match and the scan stays linear (a failed match at each of many quotes would not).
STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKETS = np.frombuffer(b"[]{}", dtype=np.uint8)
READ_SIZE = 64 * 1024


def read_json() -> Any:
    """The request's JSON body, or a Problem: 415, 413 or 400."""
    _require_json_type()
    raw = _read_bounded(settings().limits.max_body_bytes)
    text = _decode(raw)
    limit = settings().limits.max_json_depth
    if nesting_depth(raw) > limit:
        raise Problem(400, "Bad Request", f"the body nests arrays and objects deeper than {limit} levels")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise Problem(400, "Bad Request", f"the body must be a JSON object; it is not valid JSON: {exc}") \
            from None


def _require_json_type() -> None:
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if not request.is_json or charset not in ("utf-8", "utf8"):
        given = request.headers.get("Content-Type") or "none"
        raise Problem(415, "Unsupported Media Type",
                      f"the body must be JSON sent as Content-Type: application/json (UTF-8); got {given}")


def _read_bounded(limit: int) -> bytes:
    """At most ``limit`` bytes of the body, or 413; werkzeug has already refused a larger
    Content-Length, and stops a chunked body at its own limit (the same one) as well."""
    if request.content_length is not None and request.content_length > limit:
        raise _too_large(limit)
    parts, size = [], 0
    try:
        while chunk := request.stream.read(READ_SIZE):
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            parts.append(chunk)
    except RequestEntityTooLarge:
        raise _too_large(limit) from None
    except Problem:
        raise
    except Exception:  # the server could not read the framing: a bad chunk size, a chunk without its CRLF
        raise Problem(400, "Bad Request", "the body could not be read: its chunked framing is malformed") \
            from None
    return b"".join(parts)


def _too_large(limit: int) -> Problem:
    return Problem(413, "Content Too Large", f"the body is larger than {limit} bytes")


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Problem(400, "Bad Request", f"the body is not UTF-8 ({exc.reason} at byte {exc.start})") \
            from None


def nesting_depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in this JSON text: the most brackets open at once
    outside strings, which is also how deep ``json.loads`` recurses (on valid JSON and on
    brackets never closed alike). The scan runs in numpy, the regex engine and
    ``bytes.translate``, never a Python loop over the characters, which a body at the size limit
    would make slow.
    A text without a backslash has no escaped quote, so every quote opens or closes a string
    and the strings are where an odd number of quotes precede: numpy alone finds them, in a
    fifth of the regex's time on a batch of puzzle strings."""
    if b"\\" in raw:
        brackets = np.frombuffer(STRING.sub(b"", raw).translate(None, NOT_BRACKETS), dtype=np.uint8)
    else:
        text = np.frombuffer(raw, dtype=np.uint8)
        outside = (np.cumsum(text == ord('"'), dtype=np.int64) & 1) == 0
        brackets = text[outside & np.isin(text, _BRACKETS)]
    if not brackets.size:
        return 0
    steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON (Python's parser takes them; PostgreSQL's json would not)."""
    raise ValueError(f"{name} is not a JSON value")
