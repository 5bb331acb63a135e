"""The job page's history in a real browser, on a wide screen and on a phone's 390 px: the job's
events oldest first, a finished puzzle's predicted against actual seconds, one puzzle's events
(also when a link names the puzzle), the list read again when a retry changes the job, and no
history for a job that is not there."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from client import Client

pytestmark = pytest.mark.integration

PHONE = 390


@pytest.fixture(scope="module")
def finished_job(web_url):
    """Three toy puzzles solved, one failed (it crashes)."""
    items: list[dict[str, Any]] = [{"kind": "toy", "puzzle": str(i + 1)} for i in range(3)]
    items.append({"kind": "toy", "puzzle": "9", "options": {"crash": True}})
    with Client(web_url) as c:
        job = c.wait(c.submit(items, label="history"), poll=1)
        assert job["counts"]["solved"] == 3 and job["counts"]["failed"] == 1
    return job


def open_job(offline, web_url, job_id, width):
    page = offline(web_url)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{web_url}/jobs/{job_id}")
    return page


@pytest.mark.parametrize("width", [1280, PHONE])
def test_the_history_lists_the_jobs_events_inside_the_screen(web_url, offline, finished_job, width):
    page = open_job(offline, web_url, finished_job["id"], width)
    expect(page.locator("#job")).to_have_attribute("data-status", "completed")
    events = page.locator("#timeline li.event")
    expect(events.first).to_have_attribute("data-type", "submitted")
    expect(events.first.locator(".said")).to_have_text("4 puzzles")
    expect(events.last).to_have_attribute("data-type", "ended")
    expect(events.last.locator(".said")).to_have_text("completed")
    finished = page.locator("#timeline li.event.finished")
    expect(finished.first).to_contain_text("predicted")
    expect(finished.first).to_contain_text("took")
    crashed = page.locator("#timeline li.event.finished", has_text="toy solver crashed on purpose")
    expect(crashed).to_have_count(1)
    expect(page.locator("#timeline li.event.claimed").first.locator(".worker")).to_contain_text("attempt 1")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    right = page.locator("#history-panel").evaluate("e => e.getBoundingClientRect().right")
    outside = page.locator("#timeline").evaluate(
        "(list, right) => [...list.querySelectorAll('*')]"
        ".filter(e => e.getBoundingClientRect().right > right + 0.5).map(e => e.className)", right)
    assert outside == []


@pytest.mark.parametrize("width", [1280, PHONE])
def test_one_puzzles_events_and_back_to_every_puzzle(web_url, offline, finished_job, width):
    page = open_job(offline, web_url, finished_job["id"], width)
    events = page.locator("#timeline li.event")
    expect(events.last).to_have_attribute("data-type", "ended")
    every = events.count()
    page.fill("#history-index", "3")
    page.click("#history-show")
    wheres = page.locator("#timeline li.event .where")
    expect(wheres.filter(has_text="#0")).to_have_count(0)
    expect(wheres.filter(has_text="#3")).not_to_have_count(0)
    assert set(wheres.all_inner_texts()) == {"job", "#3"}  # the crashing puzzle is a row of its own
    page.click("#history-all")
    expect(events).to_have_count(every)


@pytest.mark.parametrize("width", [1280, PHONE])
def test_a_link_to_one_puzzle_shows_its_events(web_url, offline, finished_job, width):
    page = offline(web_url)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{web_url}/jobs/{finished_job['id']}#puzzle-3")  # the failure's link on /ops
    expect(page.locator("#history-index")).to_have_value("3")
    events = page.locator("#timeline li.event")
    expect(events.filter(has_text="crashed on purpose")).to_have_count(1)
    assert set(page.locator("#timeline li.event .where").all_inner_texts()) == {"job", "#3"}
    page.click("#history-all")
    expect(page.locator("#timeline li.event .where").filter(has_text="#0")).not_to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_retry_shows_in_the_history(web_url, offline):
    with Client(web_url) as c:
        job = c.wait(c.submit([{"kind": "toy", "puzzle": "5", "options": {"crash": True}}]), poll=1)
    page = open_job(offline, web_url, job["id"], PHONE)
    expect(page.locator("#job")).to_have_attribute("data-status", "completed")
    expect(page.locator("#timeline li.event.retried")).to_have_count(0)
    page.click("#retry-button")
    retried = page.locator("#timeline li.event.retried")
    expect(retried).to_have_count(1, timeout=60_000)
    expect(retried.locator(".said")).to_contain_text("was failed: ")
    expect(page.locator("#job")).to_have_attribute("data-status", "completed", timeout=120_000)
    expect(page.locator("#timeline li.event.finished")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE


@pytest.mark.parametrize("width", [1280, PHONE])
def test_no_history_for_a_job_that_is_not_there(web_url, offline, width):
    page = open_job(offline, web_url, "0" * 32, width)
    expect(page.locator("#job")).to_have_attribute("data-status", "missing")
    expect(page.locator("#history-panel")).to_be_hidden()
