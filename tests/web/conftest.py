"""A real browser on the page: Playwright driving Debian's Chromium (Playwright's own browser
download cannot work here), with every request that leaves the service refused and recorded,
so that a page needing the internet fails its test; so does anything its Content Security Policy
refuses."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.embedded import embedded_service

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        message = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def web_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with embedded_service(tmp_path_factory.mktemp("web")) as service:
        yield service.url


class Offline:
    """A browser page that may reach only the service: other requests are aborted and listed."""

    def __init__(self, browser: Any, base: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        # What the page's Content Security Policy refused (service/headers.py): the page must need none.
        self.page.on("console", lambda m: self.errors.append(m.text) if "Content Security Policy" in m.text
                     else None)

        def route(r: Any) -> None:
            if r.request.url.startswith(base) or r.request.url.startswith(("data:", "blob:")):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()

        self.page.route("**/*", route)


@pytest.fixture
def offline(browser: Any) -> Iterator[Any]:
    made: list[Offline] = []

    def make(base: str) -> Any:
        made.append(Offline(browser, base))
        return made[-1].page

    yield make
    for o in made:
        o.context.close()
        assert o.outside == [], f"the page asked the internet for {o.outside}"
        assert o.errors == [], f"JavaScript errors: {o.errors}"
