"""The OpenAPI document describes each kind, the problem+json errors and the polling headers,
and the Swagger page needs nothing from the internet (its assets come with spectree[offline])."""

from __future__ import annotations

import re

import solvers


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
                assert options[option.name]["enum"] == list(option.choices)


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
