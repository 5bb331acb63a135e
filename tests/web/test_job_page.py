"""The job page's puzzle list in a real browser: the status filter, the jump to a page, and the
"Retry failed" button against a live embedded service."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from client import Client

pytestmark = pytest.mark.integration

PAGE = 12  # puzzles per page on the job page (service/static/job.js)


def test_filter_jump_and_retry_failed(web_url, offline):
    # 14 puzzles: two pages; the last one crashes, after a sleep that keeps it visibly running.
    items: list[dict[str, Any]] = [{"kind": "toy", "puzzle": str(i % 9 + 1)} for i in range(13)]
    items.append({"kind": "toy", "puzzle": "77", "options": {"crash": True, "sleep": 3}})
    with Client(web_url) as c:
        job = c.wait(c.submit(items, label="one crashes"), poll=1)
        assert job["counts"]["failed"] == 1 and job["counts"]["solved"] == 13
        (before,) = c.puzzles(job, status="failed")
    assert before["index"] == 13

    page = offline(web_url)
    page.goto(f"{web_url}/jobs/{job['id']}")
    expect(page.locator("#job")).to_have_attribute("data-status", "completed")
    puzzles = page.locator("#puzzles .puzzle")
    expect(puzzles).to_have_count(PAGE)
    expect(page.locator("#page-info")).to_have_text("page 1 of 2 · puzzles #0\u2013#11")
    expect(page.locator("#retry-button")).to_be_visible()

    # The jump: page 2 holds the last two puzzles; Previous goes back to page 1.
    page.fill("#goto-page", "2")
    page.click("#goto-button")
    expect(puzzles).to_have_count(2)
    expect(page.locator("#page-info")).to_have_text("page 2 of 2 · puzzles #12\u2013#13")
    expect(page.locator("#next-page")).to_be_disabled()
    page.click("#prev-page")
    expect(puzzles).to_have_count(PAGE)
    page.fill("#goto-page", "99")  # past the end: the last page
    page.click("#goto-button")
    expect(puzzles).to_have_count(2)
    expect(page.locator("#goto-page")).to_have_value("2")

    # The filter: only the failed puzzle, and no jump under it.
    page.select_option("#status-filter", "failed")
    expect(puzzles).to_have_count(1)
    expect(page.locator("#puzzles .puzzle[data-index='13'][data-status=failed]")).to_have_count(1)
    expect(page.locator("#puzzles .puzzle .error")).to_contain_text("toy solver crashed on purpose")
    expect(page.locator("#goto-page")).to_be_disabled()
    expect(page.locator("#goto-hint")).to_be_visible()
    page.select_option("#status-filter", "solved")
    expect(puzzles).to_have_count(PAGE)
    expect(page.locator("#puzzles .puzzle[data-status=solved]")).to_have_count(PAGE)
    page.select_option("#status-filter", "failed")
    expect(puzzles).to_have_count(1)

    # Retry: the page POSTs it, the puzzle leaves the failed list while it runs again, and comes
    # back failed (the crash option is kept) with its new attempt shown.
    with page.expect_response(lambda r: r.request.method == "POST"
                              and r.url.endswith(f"/api/v1/jobs/{job['id']}/retry")) as answer:
        page.click("#retry-button")
    assert answer.value.status == 202
    expect(page.locator("#job")).to_have_attribute("data-status", re.compile("queued|running"))
    expect(puzzles).to_have_count(0)
    expect(page.locator("#page-info")).to_have_text("no failed puzzles here")
    expect(page.locator("#job")).to_have_attribute("data-status", "completed", timeout=120_000)
    expect(puzzles).to_have_count(1)
    with Client(web_url) as c:
        (after,) = c.puzzles(job, status="failed")
        assert c.job(job)["counts"] == {**job["counts"], "failed": 1}
    assert after["attempts"] > before["attempts"]
    expect(page.locator("#puzzles .puzzle[data-index='13'] .attempts")).to_have_text(
        f" · attempt {after['attempts']}")
    expect(page.locator("#retry-button")).to_be_visible()


@pytest.mark.parametrize("width", [1280, 390])
def test_retry_failed_with_options_changed(web_url, offline, width):
    """The field beside "Retry failed" sends the options to change with the retry (a failed
    puzzle that crashed on purpose runs again without the crash); what is not a JSON object is
    refused on the page, and nothing is sent."""
    items = [{"kind": "toy", "puzzle": "5"}, {"kind": "toy", "puzzle": "77", "options": {"crash": True}}]
    with Client(web_url) as c:
        job = c.wait(c.submit(items, label="retried with options"), poll=1)
    assert job["counts"]["failed"] == 1

    page = offline(web_url)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{web_url}/jobs/{job['id']}")
    expect(page.locator("#retry-options")).to_be_visible()
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    page.fill("#retry-options", "[1]")
    page.click("#retry-button")
    expect(page.locator("#action-error")).to_contain_text("must be a JSON object")
    assert sent == []

    page.fill("#retry-options", '{"crash": false}')
    with page.expect_response(lambda r: r.request.method == "POST"
                              and r.url.endswith(f"/api/v1/jobs/{job['id']}/retry")) as answer:
        page.click("#retry-button")
    assert answer.value.status == 202
    assert json.loads(answer.value.request.post_data or "") == {"options": {"crash": False}}
    expect(page.locator("#job")).to_have_attribute("data-status", "completed", timeout=120_000)
    with Client(web_url) as c:
        assert c.job(job)["counts"]["solved"] == 2
        (retried,) = [p for p in c.puzzles(job) if p["index"] == 1]
    assert retried["options"]["crash"] is False
    expect(page.locator("#retry-options")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
