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
