"""The web page's edges in a real browser, on a wide screen and on a phone's 390 px: long values
and nested stats inside their cards, the job list's width, an unknown job, a split puzzle's parts,
a cancelled job's bar (none done when cancelled before anything ran), stats keys broken only when
long, and deleting a job from its page."""

from __future__ import annotations

import random
import re
import secrets
from typing import Any

import pytest
from playwright.sync_api import expect

from client import Client
from client.errors import NotFound

pytestmark = pytest.mark.integration

PHONE = 390
SCREENS = [1280, PHONE]

# The elements of a card that reach past its right edge (none, when everything wraps or scrolls inside).
OUTSIDE = """() => [...document.querySelectorAll('.puzzle')].flatMap(card => {
  const right = card.getBoundingClientRect().right + 0.5;
  return [...card.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > right)
    .map(e => `#${card.dataset.index} ${e.tagName} ${e.getAttribute('class') || ''}`);
})"""


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def shuffled_24_puzzle(seed: int = 5, steps: int = 400) -> str:
    """A 5x5 sliding board a random walk away from the goal: auto gives up proving it (a
    long move string, an abandoned search in its stats) and answers by reduction."""
    board, blank, rng = [*range(1, 25), 0], 24, random.Random(seed)
    for _ in range(steps):
        row, col = divmod(blank, 5)
        near = [(row + dr) * 5 + col + dc for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= row + dr < 5 and 0 <= col + dc < 5]
        step = rng.choice(near)
        board[blank], board[step] = board[step], board[blank]
        blank = step
    return " ".join(map(str, board))


def open_job(offline, web_url: str, job_id: str, width: int):
    page = offline(web_url)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{web_url}/jobs/{job_id}")
    return page


@pytest.fixture(scope="module")
def wide_job(web_url):
    items = [{"kind": "sliding", "puzzle": shuffled_24_puzzle(), "options": {"max_nodes": 20_000}},
             {"kind": "nqueens", "puzzle": {"n": 100}},
             {"kind": "nqueens", "puzzle": {"n": 14}, "options": {"mode": "count", "strategy": "tree"}}]
    with Client(web_url) as c:
        job = c.wait(c.submit(items, label="long values"), poll=1)
        results = list(c.results(job))
    assert job["counts"]["solved"] == len(items)
    return job, results


@pytest.mark.parametrize("width", SCREENS)
def test_long_values_and_nested_stats_stay_in_their_cards(web_url, offline, wide_job, width):
    job, results = wide_job
    page = open_job(offline, web_url, job["id"], width)
    expect(page.locator("#job")).to_have_attribute("data-status", "completed")
    expect(page.locator(".puzzle .board")).to_have_count(3)
    moves = results[0]["result"]["moves"]
    assert len(moves) > 60 and results[0]["result"]["optimal"] is False

    slide = page.locator(".puzzle[data-index='0']")
    expect(slide.locator("table.stats")).to_contain_text(moves[:20])
    (abandoned,) = results[0]["stats"]["abandoned"]
    tried = slide.locator("table.stats ul.nested li")
    expect(tried).to_have_count(1)
    expect(tried).to_contain_text(f"strategy {abandoned['strategy']}")
    expect(tried).to_contain_text(f"nodes {abandoned['nodes']:,}")
    expect(page.locator("#puzzles")).not_to_contain_text("[object Object]")

    # The stepper keeps its four buttons on one line, its text between them, at the last move too.
    slide.locator("button[title=last]").click()
    expect(slide.locator(".step")).to_have_text(f"move {len(moves)} of {len(moves)} ({moves[-1]}), "
                                                 "not proved the fewest")
    titles = ("first", "previous", "next", "last")
    boxes = [slide.locator(f"button[title={t}]").bounding_box() for t in titles]
    assert len({round(b["y"]) for b in boxes}) == 1, boxes
    info = slide.locator(".step").bounding_box()
    assert boxes[1]["x"] < info["x"] < boxes[2]["x"]

    # n = 100 is past a drawable board: its figures are text that wraps in the card.
    figures = page.locator(".puzzle[data-index='1'] .board.figures")
    expect(figures).to_contain_text("100 queens placed (too many to draw)")
    assert figures.evaluate("e => e.scrollWidth <= e.clientWidth")
    expect(page.locator(".puzzle[data-index='2'] .board.figures")).to_contain_text(
        f"{results[2]['result']['solutions']:,} solutions")
    expect(page.locator(".puzzle[data-index='2'] table.stats")).to_contain_text(
        f"{results[2]['stats']['checked_nodes']:,}")

    assert page.evaluate(OUTSIDE) == []
    assert page_width(page) <= width


def test_the_job_list_fits_a_phone(web_url, offline, wide_job):
    job, _ = wide_job
    page = offline(web_url)
    page.set_viewport_size({"width": PHONE, "height": 844})
    page.goto(web_url + "/")
    expect(page.locator(f"#jobs tr[data-job-id='{job['id']}']")).to_contain_text("100.0% of 3")
    assert page_width(page) <= PHONE
    assert page.locator(".scroll").evaluate("e => e.scrollWidth <= e.clientWidth")  # rows wrap, not scroll


@pytest.mark.parametrize("width", SCREENS)
def test_an_unknown_job_is_not_found_and_offers_no_actions(web_url, offline, width):
    page = open_job(offline, web_url, secrets.token_hex(16), width)
    expect(page.locator("#job-missing")).to_contain_text("not found")
    expect(page.locator("#job")).to_have_attribute("data-status", "missing")
    expect(page.locator("main button:visible")).to_have_count(0)
    expect(page.locator("#back-link a")).to_have_attribute("href", "/")
    assert page_width(page) <= width


def test_a_running_puzzle_shows_the_share_of_its_search_its_solver_reports(web_url, offline):
    # The toy reports the share of its sleep as a search reports its share; its row gets it at
    # most every 2 s (worker.limits), so a 6 s sleep shows a share between 0 and 100% at least once.
    with Client(web_url) as c:
        job = c.submit([{"kind": "toy", "puzzle": "42", "options": {"sleep": 6}}])
        page = open_job(offline, web_url, job["id"], PHONE)
        running = page.locator(".puzzle[data-index='0'] .pending")
        expect(running).to_have_text(
            re.compile(r"^being solved: (?!0\.0%)\d{1,2}\.\d% of its search done, as its solver reports$"),
            timeout=30_000)
        c.cancel(job["id"])


def test_a_split_puzzle_shows_its_parts_as_the_job_header_does(web_url, offline):
    # One puzzle in four parts of two seconds each, run one after another by the single worker.
    with Client(web_url) as c:
        job = c.submit([{"kind": "toy", "puzzle": "12345678", "options": {"split": 4, "sleep": 2}}])
    page = open_job(offline, web_url, job["id"], PHONE)
    parts = page.locator(".puzzle[data-index='0'] .pending.parts")
    expect(parts).to_have_text(re.compile(r"^split into 4 parts: [123] done \(\d+\.\d%\)$"), timeout=60_000)
    expect(page.locator("#delete-button")).to_be_hidden()  # a running job is cancelled before deleting
    # The card and the header come from two requests: they agree once both have seen the same part.
    share = re.compile(r"\((\d+\.\d)%\)")
    for _ in range(20):
        on_card = share.search(parts.inner_text())
        header = page.locator("#job-progress").inner_text()
        if on_card and header.startswith(f"{on_card[1]}% of 1 puzzle") and on_card[1] != "0.0":
            break
        page.wait_for_timeout(250)
    else:
        pytest.fail(f"the card says {parts.inner_text()!r}, the header {header!r}")
    assert page_width(page) <= PHONE
    expect(page.locator("#job")).to_have_attribute("data-status", "completed", timeout=120_000)
    expect(page.locator(".puzzle[data-index='0'] pre.result")).to_contain_text('"sum": 36')
    expect(parts).to_have_count(0)


def test_a_cancelled_jobs_bar_shows_what_was_done_before(web_url, offline):
    items: list[dict[str, Any]] = [{"kind": "toy", "puzzle": str(d)} for d in (1, 2)]
    items += [{"kind": "toy", "puzzle": "9", "options": {"sleep": 3}} for _ in range(6)]
    with Client(web_url) as c:
        job = c.submit(items, label="cancelled midway")
        for _ in range(120):  # the two quick ones solved, the slow ones queued or running
            if c.job(job, wait=1)["counts"].get("solved", 0) >= 2:
                break
        c.cancel(job)
        job = c.wait(job, poll=1)
    assert job["status"] == "cancelled"
    ended = job["total"] - job["counts"]["cancelled"]
    assert job["progress"] == pytest.approx(ended / job["total"], abs=1e-6)
    share = f"{100 * job['progress']:.1f}"
    assert share != "100.0"
    page = open_job(offline, web_url, job["id"], 1280)
    expect(page.locator("#job-progress")).to_have_text(f"{share}% of 8 puzzles done before the cancel")
    assert page.locator("#job-bar").evaluate("e => parseFloat(e.style.width)") == float(share)
    cancelled = page.locator(".puzzle[data-status=cancelled] .pending")
    expect(cancelled.first).to_have_text("cancelled before it finished")
    page.goto(web_url + "/")
    expect(page.locator(f"#jobs tr[data-job-id='{job['id']}'] .percent")).to_have_text(f"{share}% of 8")


@pytest.mark.parametrize("width", SCREENS)
def test_a_job_cancelled_before_anything_ran_shows_none_done_of_one_puzzle(web_url, offline, width):
    with Client(web_url) as c:  # queued or running when cancelled, its one puzzle never ends before
        job = c.submit([{"kind": "toy", "puzzle": "5", "options": {"sleep": 5}}], label="cancelled at once")
        c.cancel(job)
        job = c.wait(job, poll=1)
    assert job["counts"]["cancelled"] == 1 and job["progress"] == 0.0
    page = open_job(offline, web_url, job["id"], width)
    expect(page.locator("#job-progress")).to_have_text("0.0% of 1 puzzle done before the cancel")
    assert page.locator("#job-bar").evaluate("e => parseFloat(e.style.width)") == 0.0
    page.goto(web_url + "/")
    expect(page.locator(f"#jobs tr[data-job-id='{job['id']}'] .percent")).to_have_text("0.0% of 1")
    assert page_width(page) <= width


# Each stats key as (name, lines it takes, whether it may break): a short one is never broken.
KEY_LINES = """() => [...document.querySelectorAll('table.stats th')].map(th => {
  const range = document.createRange();
  range.selectNodeContents(th);
  const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
  return [th.textContent, lines, th.querySelector('wbr') !== null];
})"""


@pytest.mark.parametrize("width", SCREENS)
def test_short_stats_keys_stay_whole(web_url, offline, wide_job, width):
    job, _ = wide_job
    page = open_job(offline, web_url, job["id"], width)
    expect(page.locator(".puzzle table.stats th", has_text="elapsed_ms").first).to_be_visible()
    keys = page.evaluate(KEY_LINES)
    short = [(name, lines, breaks) for name, lines, breaks in keys if len(name) <= 16]
    assert any(name == "elapsed_ms" for name, _, _ in short), keys
    assert all(lines == 1 and not breaks for _, lines, breaks in short), short
    assert all(breaks for name, _, breaks in keys if len(name) > 16 and "_" in name), keys
    assert page.evaluate(OUTSIDE) == []


def test_delete_a_job_from_its_page(web_url, offline):
    with Client(web_url) as c:
        kept = c.submit([{"kind": "toy", "puzzle": "4"}], label="to keep")
        job = c.wait(c.submit([{"kind": "toy", "puzzle": "5"}], label="to delete"), poll=1)
    page = open_job(offline, web_url, job["id"], PHONE)
    expect(page.locator("#job")).to_have_attribute("data-status", "completed")
    page.click("#delete-button")
    expect(page.locator("#delete-confirm")).to_be_visible()
    expect(page.locator("#delete-button")).to_be_hidden()
    page.click("#delete-no")  # changing one's mind keeps the job
    expect(page.locator("#delete-confirm")).to_be_hidden()
    with Client(web_url) as c:
        assert c.job(job)["status"] == "completed"
    page.click("#delete-button")
    with page.expect_response(lambda r: r.request.method == "DELETE") as answer:
        page.click("#delete-yes")
    assert answer.value.status == 204
    expect(page.locator("#job-deleted")).to_have_text(
        f"Job {job['id']} is deleted, with its puzzles and results.")
    expect(page.locator("main button:visible")).to_have_count(0)
    page.click("#back-link a")
    expect(page.locator(f"#jobs tr[data-job-id='{kept['id']}']")).to_have_count(1)  # the list is drawn
    expect(page.locator(f"#jobs tr[data-job-id='{job['id']}']")).to_have_count(0)
    with Client(web_url) as c, pytest.raises(NotFound):
        c.job(job)
