"""The built site: self-contained (no external requests), math typeset, figures and boxes present, Chinese search.

Needs the site built first (README command 1) and, for the browser test, Debian's chromium and the
``playwright`` package. Under CI (``CI`` set) a missing build or browser fails the test; elsewhere
it is skipped with a message saying how to enable it.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import pathlib
import shutil
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHAPTERS = [
    "notebooks/01_information_propagation",
    "notebooks/02_topology_diameter",
    "notebooks/03_bandwidth",
    "notebooks/04_combined_bounds",
    "notebooks/05_bisection",
]
PAGES = ["intro", "bibliography"] + CHAPTERS


def _require(condition: bool, message: str) -> None:
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(message + " (required under CI)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def site():
    _require((SITE / "intro.html").exists(), "site not built: run `jupyter-book build . -W -n --keep-going` first")
    return SITE


@pytest.fixture(scope="module")
def server(site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest's output clean
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    _require(CHROMIUM is not None, "chromium not found: `apt-get install chromium` to run the browser test")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _require(False, "playwright not installed: `pip install -r requirements.txt` to run the browser test")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


def _load(browser, url: str):
    """Open ``url`` with every non-local request blocked; return (page, external, failed, errors)."""
    page = browser.new_page()
    external, failed, errors = [], [], []

    def route(r):
        if r.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            r.continue_()
        else:
            external.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("requestfailed", lambda req: failed.append(req.url))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url, wait_until="networkidle")
    return page, external, failed, errors


@pytest.mark.parametrize("name", PAGES)
def test_page_is_self_contained_and_renders(browser, server, name):
    page, external, failed, errors = _load(browser, f"{server}/{name}.html")
    try:
        assert external == [], f"external requests: {external[:5]}"
        assert failed == [], f"failed requests: {failed[:5]}"
        assert errors == [], f"console errors: {errors[:5]}"
        broken = page.evaluate("Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        assert broken == [], f"images that did not load: {broken[:5]}"
        if name != "bibliography":
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000)
            page.evaluate("MathJax.startup.promise")
            assert page.locator("mjx-container").count() > 0, "no typeset math"
            text = page.inner_text("article")
            assert "$$" not in text and "\\[" not in text and "\\begin{equation" not in text, "raw TeX left on the page"
        if name in CHAPTERS:
            assert page.locator("article img").count() >= 2, "chapter without figures"
            assert page.locator("div.admonition.important").count() >= 1, "no takeaway box"
            assert page.locator(".exercise").count() >= 4, "fewer than four exercises"
            if name != CHAPTERS[0]:
                errata = page.locator("div.admonition.warning")
                assert errata.count() >= 1 and "勘误" in errata.first.inner_text(), "no errata box"
    finally:
        page.close()


def test_no_page_references_external_assets(site):
    # Links to other sites are fine; scripts, stylesheets, fonts and icons must be served locally.
    import re

    asset = re.compile(r'<(script|link)\b[^>]*?\b(?:src|href)="((?:https?:)?//[^"]+)"')
    external = [(str(path.relative_to(site)), url) for path in site.rglob("*.html")
                for _tag, url in asset.findall(path.read_text(encoding="utf-8"))]
    assert external == [], f"pages load external assets: {external[:5]}"


def _search_index(site):
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


@pytest.mark.parametrize(
    "term, page",
    [("带宽", "notebooks/03_bandwidth"), ("直径", "notebooks/02_topology_diameter"), ("拓扑", "notebooks/02_topology_diameter"),
     ("传播", "notebooks/01_information_propagation"), ("选型", "notebooks/04_combined_bounds"), ("bisect", "notebooks/05_bisection")],
)
def test_chinese_search_finds_the_chapter(site, term, page):
    index = _search_index(site)
    hits = set()
    for key in ("terms", "titleterms"):
        value = index[key].get(term)
        if value is not None:
            hits |= set(value if isinstance(value, list) else [value])
    assert page in {index["docnames"][i] for i in hits}
