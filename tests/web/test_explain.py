"""The explained solve on the job page in a real browser: the stepper walks the grader's steps on
the board (candidates shown, each step's cells marked, what it places and removes), and a
generated puzzle is drawn from the puzzle made."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from client import Client

pytestmark = pytest.mark.integration

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
HARD = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."


def candidates(puzzle: str) -> int:
    """How many candidates the blank cells of ``puzzle`` hold before any step."""
    values = [0 if c == "." else int(c) for c in puzzle]

    def peers(a: int, b: int) -> bool:
        same_box = a // 27 == b // 27 and a % 9 // 3 == b % 9 // 3
        return a != b and (a // 9 == b // 9 or a % 9 == b % 9 or same_box)

    return sum(len(set(range(1, 10)) - {values[j] for j in range(81) if peers(i, j)})
               for i in range(81) if not values[i])


def test_the_stepper_walks_the_graders_steps_on_the_board(web_url, offline):
    items = [{"kind": "sudoku", "puzzle": p, "options": {"explain": True}} for p in (EASY, HARD)]
    items.append({"kind": "sudoku", "generate": {"count": 1, "difficulty": "medium", "seed": 4}})
    with Client(web_url) as c:
        job = c.wait(c.submit(items, label="explained"), poll=1)
        results = [r["result"] for r in c.results(job)]
    assert job["counts"]["solved"] == 3
    steps = results[0]["explanation"]["steps"]

    page = offline(web_url)
    page.goto(f"{web_url}/jobs/{job['id']}")
    easy = page.locator(".puzzle[data-index='0']")
    info = easy.locator(".step")
    expect(info).to_have_text(f"step 0 of {len(steps)}")
    expect(easy.locator("text.given")).to_have_count(sum(c != "." for c in EASY))
    expect(easy.locator("text.cand")).to_have_count(candidates(EASY))
    expect(easy.locator("rect.marked")).to_have_count(0)
    facts = easy.locator("table.stats")  # the explanation's summary, its steps left to the board
    expect(facts).to_contain_text(results[0]["explanation"]["hardest"])
    expect(facts).not_to_contain_text("placements")

    easy.locator("button[title=next]").click()
    first = steps[0]
    total = len(steps)
    expect(info).to_have_text(f"step 1 of {total}: {first['technique']} ({first['rating']:.1f})")
    marked = easy.locator("rect.marked")
    expect(marked).to_have_count(len(first["cells"]))
    cells = [int(marked.nth(i).get_attribute("data-cell")) for i in range(marked.count())]
    assert sorted(cells) == sorted(first["cells"])
    [(cell, value)] = first["placements"]
    expect(easy.locator("text.placed")).to_have_text([str(value)])
    expect(easy.locator(f"text.placed[data-cell='{cell}']")).to_have_count(1)

    easy.locator("button[title=last]").click()
    last = steps[-1]
    expect(info).to_have_text(f"step {total} of {total}: {last['technique']} ({last['rating']:.1f})")
    expect(easy.locator("text.cell")).to_have_count(81)  # the last placement among them, as placed
    easy.locator("button[title=first]").click()
    expect(info).to_have_text(f"step 0 of {len(steps)}")

    hard = page.locator(".puzzle[data-index='1']")
    hard_steps = results[1]["explanation"]["steps"]
    hard.locator("button[title=next]").click()
    guess = hard_steps[0]
    assert guess["technique"] == "guess"  # nothing simpler moves this puzzle at its start
    expect(hard.locator(".step")).to_have_text(
        f"step 1 of {len(hard_steps)}: guess ({guess['rating']:.1f}, {guess['guesses']} guesses, "
        f"depth {guess['depth']})")

    made = page.locator(".puzzle[data-index='2'] svg.board[data-kind=sudoku]")
    expect(made.locator("text.given")).to_have_count(sum(c != "." for c in results[2]["puzzle"]))
    expect(made.locator("text.found")).to_have_count(sum(c == "." for c in results[2]["puzzle"]))


# A puzzle of the Sudoku Exchange diabolical set whose solve takes forcing chains (SE 7.2)
CHAINED = ".83.2..9....8..1...293....8....987...7.....6...674....3....698...2..5....1..3.54."


def test_the_stepper_draws_a_chains_links(web_url, offline):
    """At a chain's step the board shows its links: a ring on each node's candidate, shaded when
    the node is true, and a line into each next node, solid into a true one, dashed into a false."""
    with Client(web_url) as c:
        job = c.wait(c.submit([{"kind": "sudoku", "puzzle": CHAINED, "options": {"explain": True}}]), poll=1)
        steps = next(c.results(job))["result"]["explanation"]["steps"]
    k, step = next((i + 1, s) for i, s in enumerate(steps) if "links" in s)
    links = step["links"]
    page = offline(web_url)
    page.goto(f"{web_url}/jobs/{job['id']}")
    card = page.locator(".puzzle[data-index='0']")
    expect(card.locator("circle.link-node")).to_have_count(0)
    for _ in range(k):
        card.locator("button[title=next]").click()
    expect(card.locator(".step")).to_contain_text(f"step {k} of {len(steps)}: {step['technique']}")
    nodes = card.locator("circle.link-node")
    expect(nodes).to_have_count(len(links))
    drawn = [int(nodes.nth(i).get_attribute("data-cell")) for i in range(len(links))]
    assert drawn == [c for c, _, _ in links]
    expect(card.locator("circle.link-node.on")).to_have_count(sum(on for _, _, on in links))
    expect(card.locator("line.link.strong")).to_have_count(sum(on for _, _, on in links[1:]))
    expect(card.locator("line.link.weak")).to_have_count(sum(not on for _, _, on in links[1:]))
    card.locator("button[title=next]").click()
    if "links" not in steps[k]:
        expect(card.locator("circle.link-node")).to_have_count(0)
