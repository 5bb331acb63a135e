"""The job list in a real browser: filtered by status and by a label search, and one action
(cancel, then delete) on every job the filter matches, asked first."""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import expect

from client import Client

pytestmark = pytest.mark.integration


def test_the_list_filters_by_label_and_acts_on_every_match(web_url, offline):
    tag = f"list-{secrets.token_hex(4)}"
    with Client(web_url) as c:  # the service is shared with the other browser tests
        slow = [c.submit([{"kind": "toy", "puzzle": "3", "options": {"sleep": 30}}], label=f"{tag} {i}")
                for i in range(2)]
        other = c.submit([{"kind": "toy", "puzzle": "4", "options": {"sleep": 30}}], label="elsewhere")
    page = offline(web_url)
    page.goto(web_url + "/")
    rows = page.locator("#jobs tbody tr")
    page.fill("#filter-label", tag.upper())
    expect(rows).to_have_count(2)
    for job in slow:
        expect(page.locator(f'tr[data-job-id="{job["id"]}"]')).to_be_visible()

    page.select_option("#bulk-action", "cancel")
    page.click("#bulk-button")
    expect(page.locator("#bulk-question")).to_contain_text(f'cancel every job labelled "…{tag.upper()}…"')
    page.click("#bulk-no")  # asked first: a no changes nothing
    expect(page.locator("#bulk-confirm")).to_be_hidden()
    page.click("#bulk-button")
    page.click("#bulk-yes")
    expect(page.locator("#bulk-result")).to_have_text("2 job(s) cancelled")
    expect(page.locator('#jobs tbody tr[data-status="cancelled"]')).to_have_count(2)
    with Client(web_url) as c:
        assert c.job(other)["status"] in ("queued", "running")

    page.select_option("#filter-status", "cancelled")
    page.select_option("#bulk-action", "delete")
    page.click("#bulk-button")
    page.click("#bulk-yes")
    expect(page.locator("#bulk-result")).to_have_text("2 job(s) deleted")
    expect(rows).to_have_count(0)
    with Client(web_url) as c:
        listed = {j["id"] for j in c.jobs()}
        assert not {j["id"] for j in slow} & listed and other["id"] in listed
        c.cancel(other)
