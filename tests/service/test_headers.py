"""Every answer carries a Content Security Policy for what it is, no framing, no type sniffing and no
referrer; the page and the documentation pages still work under it (the
browser tests, tests/web)."""

from __future__ import annotations

import pytest

from service import headers


@pytest.mark.parametrize(("path", "policy"), [
    ("/", headers.PAGE),
    ("/jobs/none/print", headers.PAGE),
    ("/static/api.js", headers.PAGE),
    ("/api/v1/docs/swagger/", headers.DOCS),
    ("/api/v1/kinds", headers.DATA),
    ("/api/v1/jobs/none", headers.DATA),
    ("/healthz", headers.DATA),
    ("/metrics", headers.DATA),
])
def test_every_answer_carries_the_headers(client, path, policy):
    r = client.get(path)
    assert r.headers["Content-Security-Policy"] == policy, (path, r.status_code)
    assert "frame-ancestors 'none'" in policy
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize("path", ["/", "/jobs/none", "/jobs/none/print", "/jobs/none/print?solutions=1"])
def test_the_pages_have_no_inline_script_or_style(client, path):
    page = client.get(path).get_data(as_text=True)
    assert "<script>" not in page and "style=" not in page and "<style" not in page
