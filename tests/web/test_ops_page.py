"""The fleet view (/ops) in a real browser: the shared embedded service's own workers with their
lanes and live heartbeats, a job's work shown held by a worker while it runs and counted once
done; and, on a service with tokens, the operator's token asked for and kept apart from a
client's."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from client import Client
from service import create_app
from store import workers
from store.models import Base
from store.settings import Settings
from tests.liveserver import serving

pytestmark = pytest.mark.integration


def test_the_fleet_view_shows_the_workers_and_follows_a_job(web_url, offline):
    page = offline(web_url)
    page.goto(web_url + "/ops")
    for name, lane in (("puzzles", "cheap"), ("puzzles.dear", "dear")):
        expect(page.locator(f"#queues tr[data-queue='{name}'] td").nth(1)).to_have_text(lane)
    # `make run`'s two workers: one of both lanes, one kept for cheap work.
    expect(page.locator("#workers tr[data-alive=true][data-lane=both]").first).to_be_visible()
    expect(page.locator("#workers tr[data-alive=true][data-lane=cheap]").first).to_be_visible()
    # Named as Celery names them (deploy/run_local.py's -n worker-PORT@host, cheap-PORT@host).
    port = web_url.rsplit(":", 1)[1]
    expect(page.locator("#workers tr[data-alive=true][data-lane=both] td").first).to_contain_text(
        re.compile(rf"^worker-{port}@\S+ pid \d+$"))
    expect(page.locator("#workers tr[data-alive=true][data-lane=cheap] td").first).to_contain_text(
        re.compile(rf"^cheap-{port}@\S+ pid \d+$"))
    expect(page.locator("#flow")).to_contain_text("in the last 60 s")
    updated = page.locator("#updated").inner_text()
    expect(page.locator("#updated")).not_to_have_text(updated, timeout=10_000)  # it refreshes itself

    with Client(web_url) as c:  # a puzzle that sleeps long enough to be seen held
        job = c.submit([{"kind": "toy", "puzzle": "5", "options": {"sleep": 8}}], label="held")
        holder = page.locator("#workers tr", has=page.locator(f"a[href='/jobs/{job['id']}']"))
        expect(holder).to_have_count(1, timeout=30_000)
        expect(holder.locator(".holding")).to_contain_text("1 puzzle")
        name = holder.get_attribute("data-worker")
        assert c.wait(job, poll=1)["counts"]["solved"] == 1
    row = page.locator(f"#workers tr[data-worker='{name}']")
    expect(row.locator(f"a[href='/jobs/{job['id']}']")).to_have_count(0, timeout=15_000)
    expect(row.locator(".done")).not_to_have_text("0")


def test_the_fleet_view_lists_failures_and_filters_them(web_url, offline):
    with Client(web_url) as c:
        job = c.wait(c.submit([{"kind": "toy", "puzzle": "7", "options": {"crash": True}}], label="crashes"),
                     poll=0.5)
    page = offline(web_url)
    page.goto(web_url + "/ops")
    row = page.locator(f"#failures tr[data-job-id='{job['id']}']")
    expect(row).to_have_count(1, timeout=15_000)
    expect(row.locator("td.error")).to_contain_text("toy solver crashed on purpose")
    expect(row.locator(f"a[href='/jobs/{job['id']}#puzzle-0']")).to_have_count(1)
    # The last hour's charts, from SQL: a bar for the minute the failure ended, its failed part red.
    expect(page.locator("#throughput-chart rect.failed").first).to_be_attached()
    expect(page.locator("#latency-chart polyline.p50")).to_have_attribute("points", re.compile(r"\d"))
    summary = re.compile(r"[1-9][\d,]* failed in the last 60 minutes")
    expect(page.locator("#activity-summary")).to_contain_text(summary)
    page.fill("#failure-error", "no error reads like this")
    page.click("#failure-filter button[type=submit]")
    expect(row).to_have_count(0)
    expect(page.locator("#no-failures")).to_be_visible()


def test_the_fleet_view_asks_for_an_operators_token(tmp_path, offline):
    settings = Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'ops.db'}", REDIS_URL=None,
                                 BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="",
                                 API_TOKENS="alice:al1ce-token", ADMIN_TOKENS="0perator-token")
    app = create_app(settings)
    Base.metadata.create_all(app.extensions["engine"])
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "host-a:42:cafe", None, ["puzzles"])
    with serving(app) as url:
        page = offline(url)
        page.goto(url + "/ops")
        page.wait_for_selector("#token-form:not([hidden])")
        expect(page.locator("#token-form label")).to_contain_text("ADMIN_TOKENS")
        page.fill("#token", "al1ce-token")  # a client's: refused with 403, named on the page
        page.click("#token-form button[type=submit]")
        expect(page.locator("#ops-error")).to_contain_text("operator token")
        page.click("#forget-token")
        page.wait_for_selector("#token-form:not([hidden])")
        page.fill("#token", "0perator-token")
        page.click("#token-form button[type=submit]")
        row = page.locator("#workers tr[data-worker='host-a:42:cafe']")
        expect(row).to_have_attribute("data-lane", "cheap")
        expect(page.locator("#ops-error")).to_be_hidden()
        # Kept for this tab, apart from a client's token: the jobs page asks for its own.
        page.reload()
        expect(row).to_have_attribute("data-lane", "cheap")
        expect(page.locator("#token-form")).to_be_hidden()
        page.goto(url + "/")
        page.wait_for_selector("#token-form:not([hidden])")
        expect(page.locator("#token-form label")).to_contain_text(re.compile("API_TOKENS"))
    app.extensions["engine"].dispose()


PHONE = 390


def test_at_a_phones_width_the_token_form_and_the_fleet_tables_fit(tmp_path, offline):
    """At 390 px the token form wraps within the page, and both tables keep their column labels,
    scrolling inside their panels rather than widening the page."""
    settings = Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'ops.db'}", REDIS_URL=None,
                                 BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="",
                                 API_TOKENS="alice:al1ce-token", ADMIN_TOKENS="0perator-token")
    app = create_app(settings)
    Base.metadata.create_all(app.extensions["engine"])
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "a-rather-long-host-name.example.internal:4242:cafe", None, ["puzzles"])
    width = "document.documentElement.scrollWidth"
    with serving(app) as url:
        page = offline(url)
        page.set_viewport_size({"width": PHONE, "height": 844})
        page.goto(url + "/ops")
        page.wait_for_selector("#token-form:not([hidden])")
        assert page.evaluate(width) <= PHONE
        page.fill("#token", "0perator-token")
        page.click("#token-form button[type=submit]")
        expect(page.locator("#workers tr[data-alive=true]")).to_have_count(1)
        for table in ("#queues", "#workers"):
            labels = page.locator(f"{table} thead th")
            expect(labels.first).to_be_visible()
            expect(labels.last).to_be_attached()
        assert page.locator("#workers thead th").all_inner_texts()[:2] == ["Worker", "Lane"]
        assert page.evaluate(width) <= PHONE
    app.extensions["engine"].dispose()


@pytest.mark.parametrize("width", [1280, PHONE])
def test_a_worker_is_drained_and_taken_back_from_the_fleet_view(tmp_path, offline, width):
    """The Drain button marks every process of the worker's `celery worker` draining (shown on each
    row), and Take work again undoes it; the page stays within a phone's width."""
    settings = Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'ops.db'}", REDIS_URL=None,
                                 BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="",
                                 ADMIN_TOKENS="0perator-token")
    app = create_app(settings)
    Base.metadata.create_all(app.extensions["engine"])
    with app.extensions["sessions"]() as s, s.begin():
        for name in ("w-1@host-a:42:cafe", "w-1@host-a:43:cafe", "w-2@host-b:7:beef"):
            workers.beat(s, name, None, ["puzzles"])
    with serving(app) as url:
        page = offline(url)
        page.set_viewport_size({"width": width, "height": 844})
        page.goto(url + "/ops")
        page.wait_for_selector("#token-form:not([hidden])")
        page.fill("#token", "0perator-token")
        page.click("#token-form button[type=submit]")
        first = page.locator("#workers tr[data-worker='w-1@host-a:42:cafe']")
        expect(first).to_have_attribute("data-draining", "false")
        first.locator("button.drain").click()
        for name in ("w-1@host-a:42:cafe", "w-1@host-a:43:cafe"):
            row = page.locator(f"#workers tr[data-worker='{name}']")
            expect(row).to_have_attribute("data-draining", "true")
            expect(row.locator(".draining")).to_have_text("draining")
            expect(row.locator("button.drain")).to_have_text("Take work again")
        expect(page.locator("#workers tr[data-worker='w-2@host-b:7:beef']")).to_have_attribute(
            "data-draining", "false")
        expect(page.locator("#ops-error")).to_be_hidden()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.locator("#workers tr[data-worker='w-1@host-a:43:cafe'] button.drain").click()
        expect(page.locator("#workers tr[data-draining=true]")).to_have_count(0)
        with Client(url, token="0perator-token") as c:
            assert not any(w["draining"] for w in c.workers()["items"])
    app.extensions["engine"].dispose()


@pytest.mark.parametrize("width", [1280, PHONE])
def test_a_failure_is_one_click_from_its_puzzle(web_url, offline, width):
    """A failure's link opens its job's page at the page that holds the puzzle, marked and in view."""
    items = [{"kind": "toy", "puzzle": str(i), "options": {"crash": i == 17}} for i in range(20)]
    with Client(web_url) as c:
        job = c.wait(c.submit(items, label="one fails late"), poll=0.5)
    assert job["counts"]["failed"] == 1
    page = offline(web_url)
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(web_url + "/ops")
    link = page.locator(f"#failures tr[data-job-id='{job['id']}'] a")
    expect(link).to_have_attribute("href", f"/jobs/{job['id']}#puzzle-17", timeout=15_000)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    link.click()
    page.wait_for_url(re.compile(rf"/jobs/{job['id']}#puzzle-17$"))
    failed = page.locator("#puzzles .puzzle.target")
    expect(failed).to_have_attribute("data-index", "17")  # on the second page of twelve
    expect(failed).to_have_attribute("data-status", "failed")
    expect(failed).to_be_in_viewport()
    expect(page.locator("#page-info")).to_contain_text("page 2 of 2")
    expect(page.locator("#puzzles .puzzle.target")).to_have_count(1)
    page.click("#prev-page")  # the pager goes on from there
    expect(page.locator("#page-info")).to_contain_text("page 1 of 2")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# Where a failure's error cell lies on the screen, and what names its column there.
ERROR_CELL = """e => { const box = e.getBoundingClientRect();
  return [box.left, box.right, getComputedStyle(e, '::before').content]; }"""


@pytest.mark.parametrize("width", [1280, PHONE])
def test_a_failures_error_reads_within_the_screen(web_url, offline, width):
    """A failure's error is within the screen at either width: a column under its label on a wide
    screen; on a phone, a line of its own across the row, each cell named by its column."""
    with Client(web_url) as c:
        job = c.wait(c.submit([{"kind": "toy", "puzzle": "8", "options": {"crash": True}}], label="reads"),
                     poll=0.5)
    page = offline(web_url)
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(web_url + "/ops")
    error = page.locator(f"#failures tr[data-job-id='{job['id']}'] td.error")
    expect(error).to_contain_text("toy solver crashed on purpose", timeout=15_000)
    left, right, label = error.evaluate(ERROR_CELL)
    assert left >= 0 and right <= width, (left, right)
    if width == PHONE:
        expect(page.locator("#failures thead")).to_be_hidden()
        assert "Error" in label and right - left > 0.7 * width, (label, left, right)
        box = page.locator("#failures").locator("xpath=..")
        assert box.evaluate("e => e.scrollWidth <= e.clientWidth")  # nothing to scroll to
    else:
        expect(page.locator("#failures thead th").last).to_have_text("Error")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [1280, PHONE])
def test_the_fleet_view_names_the_kinds_still_being_prepared(tmp_path, offline, width):
    """The kinds the living workers' hosts are still preparing, named under the workers (each row
    keeps its own); the line goes once none is left, and the page stays within the width."""
    settings = Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'ops.db'}", REDIS_URL=None,
                                 BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="")
    app = create_app(settings)
    Base.metadata.create_all(app.extensions["engine"])
    with app.extensions["sessions"]() as s, s.begin():
        workers.beat(s, "w-1@host-a:42:cafe", None, ["puzzles"], ["sliding", "spokes"])
    with serving(app) as url:
        page = offline(url)
        page.set_viewport_size({"width": width, "height": 844})
        page.goto(url + "/ops")
        expect(page.locator("#preparing")).to_be_visible()
        expect(page.locator("#preparing-kinds")).to_have_text("sliding, spokes")
        expect(page.locator("#workers tr[data-worker='w-1@host-a:42:cafe']")).to_have_attribute(
            "data-preparing", "sliding spokes")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        with app.extensions["sessions"]() as s, s.begin():
            workers.beat(s, "w-1@host-a:42:cafe", None, ["puzzles"])  # every kind prepared
        expect(page.locator("#preparing")).to_be_hidden(timeout=10_000)
    app.extensions["engine"].dispose()
