"""The OpenAPI document, completed with what the request models cannot say by themselves.

spectree derives the document from the pydantic models; this adds each registered kind's
puzzle and options (read from the registry, so a new kind is documented by registering it),
the errors as ``application/problem+json``, the ``Location``, ``Retry-After`` and
``WWW-Authenticate`` headers, and the media types of the export.

Each app serves the document of its own configuration: with tokens set (API_TOKENS for the job
endpoints, either API_TOKENS or ADMIN_TOKENS for the fleet view's), the bearer scheme and a 401
answer on exactly the operations that require a token; without, neither, since the service then
asks nobody for one.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any, cast

from flask import current_app, has_app_context
from spectree import SpecTree

import solvers
from solvers.base import Kind

PROBLEM = "application/problem+json"
TYPES = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "list": "array"}
LOCATION = {"description": "the job's address: poll it for status and progress", "schema": {"type": "string"}}
RETRY_AFTER = {"description": "seconds to wait before asking again", "schema": {"type": "integer"}}
AUTHENTICATE = {"description": 'Bearer realm="puzzle-queue": a bearer token is required',
                "schema": {"type": "string"}}
# Answers that point at the job to poll (docs/API.md): the submit and the cancel.
POLLED = {("/api/v1/jobs", "post"), ("/api/v1/jobs/{job_id}/cancel", "post")}
EXPORT = ("/api/v1/jobs/{job_id}/results", "get")
EXPORT_TYPES = {"application/jsonl": "one JSON object per puzzle: index, kind, status, result, stats, error",
                "text/csv": "a header, then one row per puzzle: index, kind, status, answer, error, "
                            "the stats"}


def option_schema(spec: dict[str, Any]) -> dict[str, Any]:
    """An option's schema; null, as leaving it out, stands for the default (solvers.base.Option.check)."""
    schema: dict[str, Any] = {"description": spec["doc"], "default": spec["default"]}
    schema["type"] = [TYPES.get(spec["type"], "string"), "null"]
    if "choices" in spec:
        schema["enum"] = [*spec["choices"], None]
    for bound in ("minimum", "maximum"):
        if bound in spec:
            schema[bound] = spec[bound]
    return schema


def item_schema(kind: Kind) -> dict[str, Any]:
    """One batch item of this kind: its puzzle's input form and its options."""
    described = kind.describe()
    return {
        "title": f"{kind.name} item",
        "description": kind.summary,
        "type": "object",
        "required": ["kind", "puzzle"],
        "additionalProperties": False,
        "properties": {
            "kind": {"type": "string", "enum": [kind.name]},
            "puzzle": {"description": kind.input_format, "examples": [described["example"]["puzzle"]]},
            "options": {"type": ["object", "null"], "additionalProperties": False,
                        "properties": {name: option_schema(o) for name, o in described["options"].items()}},
        },
        "examples": [described["example"]],
    }


def _model(schemas: dict[str, Any], name: str) -> dict[str, Any]:
    """spectree names a model ``Name.<hash>``; its nested models get a further ``.Nested``."""
    return next(v for k, v in schemas.items() if k.split(".")[0] == name and k.count(".") == 1)


def complete(document: dict[str, Any]) -> dict[str, Any]:
    schemas = document["components"]["schemas"]
    refs = []
    for kind in solvers.KINDS.values():
        schemas[f"Item.{kind.name}"] = item_schema(kind)
        refs.append({"$ref": f"#/components/schemas/Item.{kind.name}"})
    _model(schemas, "JobSubmit")["properties"]["puzzles"]["items"] = {
        "oneOf": refs, "discriminator": {"propertyName": "kind"}}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if not operation["parameters"] and "requestBody" not in operation:
                operation["responses"].pop("422", None)  # spectree's, for a request with nothing to check
            for status, response in operation.get("responses", {}).items():
                _complete_response((path, method), int(status), response)
    # A retry's body is optional: without one, every failed and cancelled puzzle runs again as it was.
    retry = document["paths"].get("/api/v1/jobs/{job_id}/retry", {}).get("post", {})
    if "requestBody" in retry:
        retry["requestBody"]["required"] = False
    return document


def _complete_response(operation: tuple[str, str], status: int, response: dict[str, Any]) -> None:
    headers = response.setdefault("headers", {})
    if status >= 400 and "application/json" in response.get("content", {}):
        response["content"] = {PROBLEM: response["content"]["application/json"]}
    if status in (429, 503):
        headers["Retry-After"] = RETRY_AFTER
    if status == 401:
        headers["WWW-Authenticate"] = AUTHENTICATE
    if operation in POLLED and status in (200, 202):
        headers.update({"Location": LOCATION, "Retry-After": RETRY_AFTER})
    if operation == EXPORT and status == 200:
        response["content"] = {media: {"schema": {"type": "string", "description": text}}
                               for media, text in EXPORT_TYPES.items()}
    if not headers:
        del response["headers"]


def secured(document: dict[str, Any], protected: set[tuple[str, str]], tokens: bool) -> dict[str, Any]:
    """The document with bearer security on the ``protected`` (path, method) operations when
    ``tokens`` are on; every other operation, and every one when they are off, without it and
    without a 401 answer."""
    out = copy.deepcopy(document)
    out.pop("security", None)
    if not tokens:
        out["components"].pop("securitySchemes", None)
    for path, operations in out["paths"].items():
        for method, operation in operations.items():
            if tokens and (path, method) in protected:
                operation["security"] = [{name: []} for name in out["components"]["securitySchemes"]]
            else:
                operation["responses"].pop("401", None)
    return out


def openapi_path(rule: str) -> str:
    """A Flask rule as an OpenAPI path: ``/jobs/<int(signed=True):index>`` -> ``/jobs/{index}``."""
    return re.sub(r"<(?:[^<>:]*:)?([^<>]+)>", r"{\1}", rule)


class DocumentedSpecTree(SpecTree):
    """spectree, its generated document completed by :func:`complete` with the kinds registered
    when an app first serves it, and served as :func:`secured` for that app. ``needs_token(endpoint)``
    tells which endpoints require a token in the current app (none when its tokens are off)."""

    def __init__(self, *args: Any, needs_token: Callable[[str], bool], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.needs_token = needs_token

    @property
    def spec(self) -> dict[str, Any]:
        if not has_app_context():
            return complete(copy.deepcopy(super().spec))
        if "openapi" not in current_app.extensions:
            document = complete(copy.deepcopy(super().spec))
            protected = {(openapi_path(rule.rule), method.lower())
                         for rule in current_app.url_map.iter_rules() if self.needs_token(rule.endpoint)
                         for method in rule.methods or ()}
            current_app.extensions["openapi"] = secured(document, protected, bool(protected))
        return cast(dict[str, Any], current_app.extensions["openapi"])
