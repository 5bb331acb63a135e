"""The web page in a real browser against a live embedded service: the submit form and its 422
errors, a job watched until it completes, every kind's board, the token prompt, Swagger offline."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

import solvers
from client import Client
from service import create_app
from store.models import Base
from store.settings import Settings
from tests.embedded import embedded_service
from tests.liveserver import serving
from tests.toykind import TOY

pytestmark = pytest.mark.integration

# `make screenshots` names where the finished job's picture goes (docs/web-job.png); a plain test
# run writes it to its own temporary folder, so the tree stays as it was.
SCREENSHOT = os.environ.get("SCREENSHOT")
SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SUDOKU_SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
SPOKES = "1 1 3 3\n1 3 2 4\n1 7 3 3\n1 1 1 1"


def wait_final(page) -> str:
    page.wait_for_selector("#job[data-status=completed], #job[data-status=cancelled]", timeout=240_000)
    return page.get_attribute("#job", "data-status")


def test_the_form_names_bad_lines_and_stores_nothing(web_url, offline):
    with Client(web_url) as c:  # the service is shared with the other browser tests
        before = [job["id"] for job in c.jobs()]
    page = offline(web_url)
    page.goto(web_url + "/")
    page.wait_for_selector("#kind option[value=sudoku]", state="attached")
    page.select_option("#kind", "sudoku")
    page.fill("#puzzles", f"{SUDOKU}\n# a comment\n12345\n\n{SUDOKU[:-1]}x\n")
    page.click("#submit-button")
    page.wait_for_selector("#submit-errors:not([hidden])")
    errors = {li.get_attribute("data-line"): li.inner_text() for li in page.query_selector_all(".line-error")}
    assert set(errors) == {"3", "5"}
    assert errors["3"].startswith("line 3: puzzle: a sudoku string has") and "this one has 5" in errors["3"]
    assert "line 5: puzzle:" in errors["5"]
    assert page.url == web_url + "/"
    with Client(web_url) as c:
        assert [job["id"] for job in c.jobs()] == before


def test_submit_through_the_form_and_watch_it_complete(web_url, offline):
    page = offline(web_url)
    page.goto(web_url + "/")
    page.wait_for_selector("#kind option[value=toy]", state="attached")
    page.select_option("#kind", "toy")
    page.fill("#option-sleep", "1")
    page.fill("#label", "slow toys")
    page.fill("#puzzles", "12\n34\n56\n")
    page.click("#submit-button")
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f]{32}$"))
    page.wait_for_selector("#job[data-status]")
    first = page.get_attribute("#job", "data-status")
    assert first in ("queued", "running")  # three puzzles of a second each: not done yet
    assert wait_final(page) == "completed"
    assert page.inner_text("#job-progress").startswith("100.0% of 3")
    assert "solved 3" in page.inner_text("#job-counts")
    expect(page.locator(".puzzle[data-status=solved]")).to_have_count(3)
    assert '"sum": 3' in page.inner_text(".puzzle[data-index='0'] pre.result")
    page.click("a.brand")
    row = page.wait_for_selector("#jobs tbody tr[data-status=completed]")
    assert "slow toys" in row.inner_text() and "100.0% of 3" in row.inner_text()


def test_every_kind_is_drawn_with_its_stats(web_url, offline, tmp_path):
    items: list[dict[str, Any]] = [
        {"kind": "sudoku", "puzzle": SUDOKU},
        {"kind": "nqueens", "puzzle": {"n": 8}},
        {"kind": "nqueens", "puzzle": {"n": 10}, "options": {"mode": "count"}},
        {"kind": "nqueens", "puzzle": {"n": 16}, "options": {"mode": "estimate", "probes": 2000, "seed": 3}},
        {"kind": "sliding", "puzzle": "1 2 3 4 5 6 0 7 8"},
        {"kind": "spokes", "puzzle": SPOKES}]
    with Client(web_url) as c:
        job = c.wait(c.submit(items, label="one of each"), poll=5)
        results = list(c.results(job))
    assert job["counts"]["solved"] == len(items)
    page = offline(web_url)
    page.goto(f"{web_url}/jobs/{job['id']}")
    assert wait_final(page) == "completed"
    expect(page.locator(".board")).to_have_count(len(items))

    sudoku = page.query_selector(".puzzle[data-index='0'] svg.board[data-kind=sudoku]")
    givens = sudoku.query_selector_all("text.given")
    found = sudoku.query_selector_all("text.found")
    assert len(givens) == sum(ch != "." for ch in SUDOKU) and len(givens) + len(found) == 81
    grid = {(int(t.get_attribute("data-row")), int(t.get_attribute("data-col"))): t.text_content()
            for t in givens + found}
    assert "".join(grid[divmod(i, 9)] for i in range(81)) == SUDOKU_SOLVED
    assert "nodes" in page.inner_text(".puzzle[data-index='0'] table.stats")

    queens = page.query_selector_all(".puzzle[data-index='1'] svg.board circle.queen")
    placed = sorted((int(q.get_attribute("data-row")), int(q.get_attribute("data-col"))) for q in queens)
    assert [col for _, col in placed] == results[1]["result"]["queens"] and len(placed) == 8
    assert "724 solutions" in page.text_content(".puzzle[data-index='2'] .board.figures")
    assert "tree ≈" in page.text_content(".puzzle[data-index='3'] .board.figures")

    slide = ".puzzle[data-index='4']"
    assert page.inner_text(f"{slide} .step") == "move 0 of 2"
    def positions() -> list[tuple[float, float]]:
        return [(float(t.get_attribute("x")), float(t.get_attribute("y")))
                for t in page.query_selector_all(f"{slide} text.tile-number")]

    tiles = [t.text_content() for t in page.query_selector_all(f"{slide} text.tile-number")]
    assert tiles == list("12345678")  # drawn row by row, the blank left out
    start = positions()
    page.click(f"{slide} button[title=next]")
    assert page.inner_text(f"{slide} .step") == "move 1 of 2 (R)"
    assert positions() != start
    page.click(f"{slide} button[title=last]")
    assert page.inner_text(f"{slide} .step") == "move 2 of 2 (R)"
    assert positions() == [(i % 3 * 50 + 25.0, i // 3 * 50 + 25.0) for i in range(8)]  # the goal: blank last

    spokes = page.query_selector(".puzzle[data-index='5'] svg.board[data-kind=spokes]")
    assert [t.text_content() for t in spokes.query_selector_all("text.clue")] == SPOKES.split()
    assert len(spokes.query_selector_all("line.spoke")) == len(results[5]["result"]["spokes"])
    assert "guesses" in page.inner_text(".puzzle[data-index='5'] table.stats")

    picture = Path(SCREENSHOT) if SCREENSHOT else tmp_path / "web-job.png"
    page.screenshot(path=str(picture), full_page=True)
    assert picture.stat().st_size > 10_000


def test_the_page_asks_for_the_token_and_keeps_it(tmp_path, offline):
    with embedded_service(tmp_path, API_TOKENS="alice:s3cret,bob:b0b") as service:
        url = service.url
        with Client(url, token="b0b") as bob:
            bobs = bob.submit([{"kind": "toy", "puzzle": "9"}], label="bob's")
        page = offline(url)
        page.goto(url + "/")
        page.wait_for_selector("#token-form:not([hidden])")
        # The kinds are public: their menus are filled before any token is given.
        expect(page.locator("#kind option[value='sudoku']")).to_have_count(1)
        expect(page.locator("#generate-kind option[value='sudoku']")).to_have_count(1)
        page.fill("#token", "wrong")
        page.click("#token-form button[type=submit]")
        page.wait_for_selector("#token-error:not([hidden])")
        assert "not accepted" in page.inner_text("#token-error")
        page.fill("#token", "s3cret")
        page.click("#token-form button[type=submit]")
        page.wait_for_selector("#no-jobs:not([hidden])")  # alice sees none of bob's jobs
        page.select_option("#kind", "toy")
        page.fill("#puzzles", "123\n")
        page.click("#submit-button")
        page.wait_for_url(re.compile(r"/jobs/[0-9a-f]{32}$"))
        assert wait_final(page) == "completed"  # the token was kept across pages
        assert page.is_hidden("#token-form")
        page.goto(f"{url}/jobs/{bobs['id']}")
        page.wait_for_selector("#job-missing:not([hidden])")
        assert "not found" in page.inner_text("#job-missing")


def test_swagger_page_renders_offline(web_url, offline):
    page = offline(web_url)
    page.goto(web_url + "/api/v1/docs/swagger/")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "puzzle-queue" in page.inner_text(".swagger-ui .info .title")
    export = ".opblock-summary-path[data-path='/api/v1/jobs/{job_id}/results']"
    page.wait_for_selector(export, state="attached")
    document = json.loads(page.evaluate("fetch('/api/v1/openapi.json').then(r => r.text())"))
    assert "Item.sudoku" in document["components"]["schemas"]


@pytest.fixture
def capped(tmp_path, monkeypatch):
    """The page on a service with a cap of 0.05 predicted CPU seconds a puzzle and no worker (a toy
    puzzle is predicted at its sleep, a 9x9 extreme Sudoku made at 0.2 s)."""
    monkeypatch.setitem(solvers.KINDS, "toy", TOY)
    app = create_app(Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'capped.db'}", REDIS_URL=None,
                                       BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="", READ_RATE_LIMIT="",
                                       MAX_PUZZLE_CPU_SECONDS=0.05))
    Base.metadata.create_all(app.extensions["engine"])
    with serving(app) as url:
        yield url
    app.extensions["engine"].dispose()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_forms_and_the_retry_accept_the_cost_past_the_cap(capped, offline, width):
    page = offline(capped)
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(capped + "/")
    page.select_option("#kind", "toy")
    page.fill("#puzzles", "12\n")
    page.fill("#option-sleep", "1")
    page.click("#submit-button")
    expect(page.locator("#submit-error-title")).to_contain_text('Tick "Accept the cost"')
    expect(page.locator("#line-errors li")).to_contain_text("line 1: puzzle: predicted at 1 CPU seconds")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.check("#accept-cost")
    page.click("#submit-button")
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f]{32}$"))

    # Its retry is checked against the cap again: refused until the retry accepts the cost too.
    page.click("#cancel-button")
    expect(page.locator("#job")).to_have_attribute("data-status", "cancelled")
    page.click("#retry-button")
    expect(page.locator("#action-error")).to_contain_text('Tick "Accept the cost" to retry them anyway')
    expect(page.locator("#job")).to_have_attribute("data-status", "cancelled")
    page.check("#retry-accept-cost")
    page.click("#retry-button")
    expect(page.locator("#job")).to_have_attribute("data-status", "queued")
    expect(page.locator("#action-error")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    page.goto(capped + "/")
    page.select_option("#generate-kind", "sudoku")
    page.fill("#generate-count", "1")
    page.select_option("#generate-difficulty", label="extreme")
    page.click("#generate-button")
    expect(page.locator("#generate-error-title")).to_contain_text('Tick "Accept the cost"')
    page.check("#generate-accept-cost")
    page.click("#generate-button")
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f]{32}$"))
    expect(page.locator("#job-progress")).to_contain_text("of 1 puzzle")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
