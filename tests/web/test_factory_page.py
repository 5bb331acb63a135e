"""The generate form and the printable sheet in a real browser against a live embedded service:
the form's controls come from a kind's generate options and make a job, a bad option shows the
service's message; the sheet holds six boards to a printed page, solutions only when asked."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from client import Client

pytestmark = pytest.mark.integration

SUDOKU = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def test_the_generate_form_makes_a_job_of_made_puzzles(web_url, offline):
    page = offline(web_url)
    page.goto(web_url + "/")
    page.wait_for_selector("#generate-kind option[value=sudoku]", state="attached")
    kinds = page.locator("#generate-kind option")
    with Client(web_url) as c:
        makers = [k["kind"] for k in c.kinds() if k["generate"]]
    expect(kinds).to_have_count(len(makers))  # only the kinds that make puzzles
    page.select_option("#generate-kind", "sudoku")
    expect(page.locator("#generate-minimal")).to_be_checked()  # a boolean: a checkbox at its default
    expect(page.locator("#generate-rating_min")).to_have_attribute("max", "12")
    # an option without a fixed default (any difficulty) reads as automatic, not as JSON's null
    expect(page.locator("#generate-difficulty option").first).to_have_text("default (automatic)")
    page.select_option("#generate-size", "4")
    page.select_option("#generate-symmetry", '"rotational"')
    page.uncheck("#generate-minimal")
    page.fill("#generate-seed", "3")
    page.fill("#generate-count", "5")
    page.fill("#generate-label", "made here")
    page.click("#generate-button")

    expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f-]+$"))
    job_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#job")).to_have_attribute("data-status", "completed", timeout=120_000)
    expect(page.locator("#puzzles .puzzle")).to_have_count(5)
    with Client(web_url) as c:
        job = c.job(job_id)
        stored = list(c.puzzles(job_id))
    assert job["label"] == "made here" and job["counts"]["solved"] == 5
    made = stored[0]["options"]["generate"]
    assert (made["size"], made["symmetry"], made["minimal"], made["seed"]) == (4, "rotational", False, 3)
    givens = sum(c != "." for c in stored[0]["result"]["puzzle"])
    expect(page.locator(".puzzle[data-index='0'] svg.board text.given")).to_have_count(givens)
    expect(page.locator("#print-link")).to_have_attribute("href", f"/jobs/{job_id}/print")


def test_a_bad_generate_option_shows_the_services_message(web_url, offline):
    with Client(web_url) as c:
        before = [job["id"] for job in c.jobs()]
    page = offline(web_url)
    page.goto(web_url + "/")
    page.wait_for_selector("#generate-kind option[value=sliding]", state="attached")
    page.select_option("#generate-kind", "sliding")
    page.fill("#generate-size", "3")
    page.fill("#generate-moves", "40")  # within the input's bounds, past a 3x3 board's farthest
    page.click("#generate-button")
    expect(page.locator("#generate-error-title")).to_contain_text("Refused (422)")
    expect(page.locator("#generate-messages li")).to_have_text(
        ["generate: option 'moves' is at most 31 on a 3x3 board (an exact optimal distance); got 40"])
    expect(page).to_have_url(web_url + "/")
    with Client(web_url) as c:
        assert [job["id"] for job in c.jobs()] == before


def test_the_sheet_prints_six_boards_a_page_and_solutions_when_asked(web_url, offline):
    with Client(web_url) as c:
        item = {"kind": "sliding", "generate": {"count": 13, "size": 3, "moves": 9, "seed": 2}}
        made = c.wait(c.submit([item], label="to print"), poll=1)
        moves = [r["result"]["solution"] for r in c.results(made)]
        posted = c.wait(c.submit([{"kind": "sudoku", "puzzle": SUDOKU}]), poll=1)
    assert made["counts"]["solved"] == 13 and posted["counts"]["solved"] == 1

    page = offline(web_url)
    # The job page draws the position made (not the stored index), stepping through its solution.
    page.goto(f"{web_url}/jobs/{made['id']}")
    first = page.locator(".puzzle[data-index='0']")
    expect(first.locator("svg.board[data-kind=sliding] rect.tile")).to_have_count(8)
    expect(first.locator(".step")).to_have_text(f"move 0 of {len(moves[0])}")
    page.click("#print-link")
    expect(page).to_have_url(f"{web_url}/jobs/{made['id']}/print")
    expect(page.locator("#print")).to_have_attribute("data-status", "ready")
    sheets = page.locator(".sheet")
    expect(sheets).to_have_count(3)  # 13 puzzles: 6, 6 and 1
    for i, n in enumerate((6, 6, 1)):
        expect(sheets.nth(i).locator("figure.printed")).to_have_count(n)
        expect(sheets.nth(i).locator("figure.printed svg.board[data-kind=sliding]")).to_have_count(n)
    expect(sheets.nth(1).locator("figcaption")).to_have_text([f"#{i}" for i in range(6, 12)])
    expect(page.locator(".sheet[data-part=solutions], .solution-line")).to_have_count(0)
    expect(page.locator("#print-more")).to_be_hidden()
    # Printed: each sheet ends its A4 page but the last, and the page's controls are left off.
    page.emulate_media(media="print")
    expect(sheets.nth(0)).to_have_css("break-after", "page")
    expect(sheets.nth(2)).to_have_css("break-after", "auto")
    expect(page.locator("header")).to_be_hidden()
    expect(page.locator("#print-head")).to_be_hidden()
    page.emulate_media(media="screen")
    pdf = page.pdf(format="A4", prefer_css_page_size=True)  # Chromium's own printing of the sheet
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 3

    page.click("#solutions-link")
    expect(page).to_have_url(re.compile(r"/print\?solutions=1$"))
    expect(page.locator("#print")).to_have_attribute("data-status", "ready")
    expect(sheets).to_have_count(6)  # the puzzles' three, then the solutions' three
    parts = [sheets.nth(i).get_attribute("data-part") for i in range(6)]
    assert parts == ["puzzles"] * 3 + ["solutions"] * 3
    expect(page.locator(".sheet[data-part=puzzles] .solution-line")).to_have_count(0)
    expect(page.locator(".sheet[data-part=solutions] .solution-line")).to_have_text(moves)

    # A solve job's sheet draws the puzzle posted; its solution fills the blanks.
    page.goto(f"{web_url}/jobs/{posted['id']}/print?solutions=1")
    expect(page.locator("#print")).to_have_attribute("data-status", "ready")
    puzzle = page.locator(".sheet[data-part=puzzles] svg.board[data-kind=sudoku]")
    solved = page.locator(".sheet[data-part=solutions] svg.board[data-kind=sudoku]")
    givens = sum(c != "." for c in SUDOKU)
    expect(puzzle.locator("text.given")).to_have_count(givens)
    expect(puzzle.locator("text.found")).to_have_count(0)
    expect(solved.locator("text.found")).to_have_count(81 - givens)


def test_the_sheet_carries_each_made_sudokus_rating_and_band(web_url, offline):
    with Client(web_url) as c:
        item = {"kind": "sudoku", "generate": {"count": 3, "difficulty": "hard", "seed": 4}}
        job = c.wait(c.submit([item]), poll=1)
        made = [r["result"] for r in c.results(job)]
    assert job["counts"]["solved"] == 3
    page = offline(web_url)
    page.goto(f"{web_url}/jobs/{job['id']}/print?solutions=1")
    expect(page.locator("#print")).to_have_attribute("data-status", "ready")
    expected = [f"#{i} · rating {m['rating']:.1f} · {m['band']}" for i, m in enumerate(made)]
    assert all(m["band"] == "hard" for m in made)
    expect(page.locator(".sheet[data-part=puzzles] figcaption")).to_have_text(expected)
    expect(page.locator(".sheet[data-part=solutions] figcaption")).to_have_text(expected)


def test_the_sheet_says_when_it_holds_only_the_first_puzzles(web_url, offline):
    with Client(web_url) as c:
        job = c.submit([{"kind": "sliding", "generate": {"count": 601, "size": 2, "moves": 2}}])
    page = offline(web_url)
    page.goto(f"{web_url}/jobs/{job['id']}/print")
    expect(page.locator("#print")).to_have_attribute("data-status", "ready")
    expect(page.locator("figure.printed")).to_have_count(600)
    expect(page.locator(".sheet")).to_have_count(100)
    expect(page.locator("#print-more")).to_have_text("The first 600 of the job's 601 puzzles.")
    with Client(web_url) as c:  # the service is shared with the other browser tests
        c.delete_job(job, cancel=True)
