"""The OpenAPI document describes each kind, the problem+json errors and the polling headers,
and the Swagger page needs nothing from the internet (its assets come with spectree[offline])."""

from __future__ import annotations

import re

import solvers
from tests.toykind import TOY


def test_each_kind_has_its_puzzle_and_options(client):
    doc = client.get("/api/v1/openapi.json").json
    schemas = doc["components"]["schemas"]
    submit = next(v for k, v in schemas.items() if k.startswith("JobSubmit.") and k.count(".") == 1)
    items = submit["properties"]["puzzles"]["items"]
    assert items["discriminator"] == {"propertyName": "kind"}
    assert {ref["$ref"].rsplit(".", 1)[1] for ref in items["oneOf"]} == set(solvers.KINDS)
    for kind in solvers.KINDS.values():
        item = schemas[f"Item.{kind.name}"]
        assert item["properties"]["kind"]["enum"] == [kind.name]
        assert item["properties"]["puzzle"]["description"] == kind.input_format
        options = item["properties"]["options"]["properties"]
        assert set(options) == {o.name for o in kind.options}
        for option in kind.options:
            assert options[option.name]["default"] == option.default
            if option.choices:
                assert options[option.name]["enum"] == [*option.choices, None]  # null: the default


def test_errors_are_problem_json_and_headers_are_documented(client):
    paths = client.get("/api/v1/openapi.json").json["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400 and "content" in response:
                    assert list(response["content"]) == ["application/problem+json"], (path, method, status)
                if status in ("429", "503"):
                    assert "Retry-After" in response["headers"], (path, method, status)
    polled = (("/api/v1/jobs", "202"), ("/api/v1/jobs", "200"), ("/api/v1/jobs/{job_id}/cancel", "202"))
    for path, status in polled:
        assert {"Location", "Retry-After"} <= set(paths[path]["post"]["responses"][status]["headers"])
    export = paths["/api/v1/jobs/{job_id}/results"]["get"]["responses"]["200"]["content"]
    assert set(export) == {"application/jsonl", "text/csv"}
    wait = [p for p in paths["/api/v1/jobs/{job_id}"]["get"]["parameters"] if p["name"] == "wait"]
    assert wait and wait[0]["schema"]["maximum"] == 60


def test_swagger_page_loads_nothing_from_outside(client):
    page = client.get("/api/v1/docs/swagger/").get_data(as_text=True)
    assert "SwaggerUIBundle" in page
    assert not re.findall(r"""(?:src|href)=["']https?://""", page)


PUBLIC_OPERATIONS = {("/healthz", "get"), ("/readyz", "get"), ("/api/v1/kinds", "get")}


def operations(doc):
    return {(path, method): op for path, ops in doc["paths"].items() for method, op in ops.items()}


def test_bearer_security_only_where_tokens_are_required(make_app, toy):
    """Issue 12, item 14: no global security; with tokens, on every job endpoint and no public
    one; without tokens, nowhere (and no 401 is promised)."""
    closed = make_app(API_TOKENS="alice:secret").test_client().get("/api/v1/openapi.json").json
    open_ = make_app().test_client().get("/api/v1/openapi.json").json
    assert "security" not in closed and "security" not in open_
    assert closed["components"]["securitySchemes"] == {"bearer": {"type": "http", "scheme": "bearer"}}
    assert "securitySchemes" not in open_["components"]
    for key, op in operations(closed).items():
        if key in PUBLIC_OPERATIONS:
            assert "security" not in op and "401" not in op["responses"], key
        else:
            assert op["security"] == [{"bearer": []}] and "401" in op["responses"], key
    assert set(operations(closed)) > PUBLIC_OPERATIONS  # and the job endpoints were all checked above
    for key, op in operations(open_).items():
        assert "security" not in op and "401" not in op["responses"], key


def test_health_answers_and_body_errors_are_documented(client):
    ops = operations(client.get("/api/v1/openapi.json").json)
    assert set(ops[("/healthz", "get")]["responses"]) == {"200"}
    ready = ops[("/readyz", "get")]["responses"]
    assert set(ready) == {"200", "503"} and "Retry-After" in ready["503"]["headers"]
    assert list(ready["503"]["content"]) == ["application/problem+json"]
    for key in (("/api/v1/jobs", "post"), ("/api/v1/validate", "post")):
        assert {"400", "413", "415", "422"} <= set(ops[key]["responses"]), key
    assert "415" not in ops[("/api/v1/jobs", "get")]["responses"]


def test_each_app_documents_the_kinds_registered_when_it_first_serves_the_document(make_app, monkeypatch):
    with monkeypatch.context() as patched:
        patched.setitem(solvers.KINDS, "toy", TOY)
        with_toy = make_app().test_client().get("/api/v1/openapi.json").json["components"]["schemas"]
    without = make_app().test_client().get("/api/v1/openapi.json").json["components"]["schemas"]
    assert "Item.toy" in with_toy and "Item.toy" not in without
