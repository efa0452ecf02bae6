"""Shared fixtures and helpers of the live-explorer tests (issue #25; tests/test_live_*.py).

Test time matters (the whole suite must stay within 240 s), so everything heavy is shared by the
whole session: one Chromium (:func:`live_browser`), one blank *harness* page with the runtime and
every explorer's script (:func:`live_harness`, where ``CCBLive.evaluate`` is compared with Python
on thousands of states in one ``page.evaluate``), one server of the built site
(:func:`live_site_server`) and one page per site page and viewport (:func:`live_site_page`).
The built site is not built here: README command 1 builds it before ``pytest`` (as for
tests/test_site.py); without it the site tests skip (fail under CI).
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import pathlib
import re
import shutil
import sys
import threading

import pytest
from _site import LIVE_READY_JS, listen

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
STATIC = ROOT / "ccb_helpers" / "_static" / "live"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

#: Strips tags and collapses whitespace, the DOM contract's text comparison (Python side).
_TAG = re.compile(r"<[^>]+>")


def text_of(readout_html: str) -> str:
    """The text of a readout: tags stripped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(_TAG.sub(" ", readout_html)).split())


#: The same in the page: innerHTML -> text with tags replaced by spaces (a <br> separates lines).
TEXT_OF_JS = (
    "h => { const d = document.createElement('div'); d.innerHTML = h.replace(/<[^>]+>/g, ' '); "
    "return d.textContent.split(/\\s+/).filter(Boolean).join(' '); }"
)


def require(condition: bool, message: str) -> None:
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(message + " (required under CI)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def live_browser():
    """One headless Chromium for every live test of the session."""
    require(CHROMIUM is not None, "chromium not found: `apt-get install chromium` to run the browser tests")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright not installed: `pip install -r requirements.txt`")
    sys.path.insert(0, str(ROOT / "tools"))
    from browser import launch

    with sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def live_harness(live_browser):
    """A blank page with ``ccb-live.js`` and every explorer script loaded (no site, no network)."""
    page = live_browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_content(
        "<!doctype html><html><head><meta charset='utf-8'></head><body><div id='box' style='width:688px'></div></body></html>"
    )
    from ccb_helpers.live.build import RUNTIME

    for name in RUNTIME:  # as the page loads them
        page.add_script_tag(path=str(STATIC / name))
    for path in sorted(STATIC.glob("*.js")):
        if path.name not in RUNTIME:
            page.add_script_tag(path=str(path))
    page.errors = errors
    yield page
    page.close()


@pytest.fixture(scope="session")
def live_site_server():
    """The built site (``_build/html``) on a local port, for the whole session."""
    require((SITE / "intro.html").exists(), "site not built: run `jupyter-book build . -W -n --keep-going` first")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class SitePage:
    """A page of the built site, opened once, with every non-local request and console error recorded."""

    def _console(self, msg) -> None:
        if msg.type != "error":
            return
        where = (msg.location or {}).get("url", "")
        if where.endswith("/favicon.ico"):  # Chromium asks every site for one; the book has none
            return
        self.errors.append(f"{msg.text} ({where})")

    def __init__(self, pool, url: str, mobile: bool):
        if mobile:
            self.page = pool.borrow(
                {"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2
            )
        else:
            self.page = pool.borrow({"width": 1280, "height": 900})
        self.pool, self.url = pool, url
        self.external, self.failed, self.errors = [], [], []

        # Requests are watched, not intercepted: routing every request through Python made opening
        # a chapter page ten times slower. The machine is offline, so a request that leaves the
        # site fails anyway; it is recorded here and the tests assert there is none.
        def watch(request):
            if not request.url.startswith(("http://127.0.0.1", "data:", "blob:", "about:")):
                self.external.append(request.url)

        listen(self.page, "request", watch)
        listen(self.page, "requestfailed", lambda req: self.failed.append(req.url))
        listen(self.page, "response", lambda r: self.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        listen(self.page, "console", self._console)
        listen(self.page, "pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(url, wait_until="load")
        self.page.wait_for_function("window.CCBLive && CCBLive.instances.length >= 1", timeout=30_000)
        self.page.evaluate(LIVE_READY_JS)  # mounted; not CCBLive.ready itself (its value is huge)


@pytest.fixture(scope="session")
def live_site_page(page_pool, live_site_server):
    """``open(name, mobile=False) -> SitePage``: the site page ``name`` on a desktop or a phone,
    shared by the tests that ask for it in a row (a test file's). One per viewport is kept: the
    next name's page is loaded in the page given back (tests/_site.py: PagePool), which costs
    far less than a new one, and 16 pages held to the end of the session cost memory."""
    pages: dict[bool, SitePage] = {}

    def open_page(name: str, mobile: bool = False) -> SitePage:
        url = f"{live_site_server}/{name}.html"
        kept = pages.get(mobile)
        if kept is not None and kept.url == url:
            return kept
        if kept is not None:
            kept.pool.give_back(kept.page)
        pages[mobile] = SitePage(page_pool, url, mobile)
        return pages[mobile]

    yield open_page
    for site_page in pages.values():
        site_page.pool.give_back(site_page.page)


#: Reads the controls of a live explorer by the DOM contract: data-value if present, else value.
READ_CONTROLS_JS = """root => Object.fromEntries(Array.from(root.querySelectorAll('[data-control]')).map(c => {
  const raw = c.hasAttribute('data-value') ? c.getAttribute('data-value') : c.value;
  return [c.getAttribute('data-control'), raw]; }))"""


def python_value(raw: str, kind_of_default):
    """A control's Python value from its DOM string (``data-value`` / ``value``), typed like the default."""
    if isinstance(kind_of_default, bool):
        return json.loads(raw)
    if isinstance(kind_of_default, int):
        return int(raw)
    if isinstance(kind_of_default, float):
        return float(raw)
    return raw


#: Sets a control as a user does: a range input moves through intermediate values with an
#: ``input`` event each (a drag) and a ``change`` at the end; a select or checkbox gets ``change``.
SET_CONTROL_JS = """([root, name, target]) => {
  const c = root.querySelector(`[data-control="${name}"]`);
  if (c.type === 'checkbox') { if (c.checked !== target) c.click(); return; }
  if (c.tagName === 'SELECT') { c.value = target; c.dispatchEvent(new Event('change', {bubbles: true})); return; }
  const from = +c.value, to = +target, steps = 4;
  for (let i = 1; i <= steps; i++) {
    c.value = String(i === steps ? to : from + (to - from) * i / steps);
    c.dispatchEvent(new Event('input', {bubbles: true}));
  }
  c.dispatchEvent(new Event('change', {bubbles: true}));
}"""


# -- drawings of graphs: every node at its own place (issue #43: the hypercube hid nodes) ----------

#: The discs of every graph panel of explorer ``name`` in ``states``, drawn by ccb-live.js at each
#: of ``widths`` px: ``[[[cx, cy, r], ...] per graph panel] per (state, width)`` (node discs only,
#: not the ring around the root). ``body``: the live element's JSON (:func:`live_body`).
GRAPH_DISCS_JS = """async ([name, body, states, widths]) => {
  const exported = await CCBLive.inflate(body);
  const box = document.createElement('div'); document.body.appendChild(box);
  const out = [];
  for (const state of states) for (const width of widths) {
    const figure = CCBLive.evaluate(name, exported.data, state).figure;
    const svg = CCBLive.render(box, figure, width);
    out.push(Array.from(svg.querySelectorAll('g.ccb-live-panel')).map(g =>
      Array.from(g.querySelectorAll('circle')).filter(c => c.getAttribute('fill') !== 'none')
        .map(c => [+c.getAttribute('cx'), +c.getAttribute('cy'), +c.getAttribute('r')]))
      .filter(discs => discs.length));
  }
  box.remove();
  return out; }"""


def live_body(name: str, exported: dict) -> dict:
    """The JSON the live element of ``name`` carries (what the page's runtime inflates)."""
    from ccb_helpers.live.build import live_html

    return json.loads(live_html(name, [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0])


def disc_overlaps(discs) -> list[tuple]:
    """Pairs of discs ``(x, y, r)`` whose centres are closer than their radii's sum: one covers the other."""
    return [
        (a, b)
        for i, a in enumerate(discs)
        for b in discs[i + 1 :]
        if ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 < a[2] + b[2] - 0.5
    ]


def png_discs(figure, count: int) -> list[tuple]:
    """The node discs ``(x, y, r)`` in device pixels of the matplotlib ``figure`` (drawn): the
    offsets of the scatter with ``count`` points, their radius from the marker area (points²)."""
    figure.canvas.draw()
    for ax in figure.axes:
        for collection in ax.collections:
            offsets = collection.get_offsets()
            if len(offsets) == count and len(collection.get_sizes()):
                xy = collection.get_offset_transform().transform(offsets)
                r = (collection.get_sizes()[0] ** 0.5) / 2 * figure.dpi / 72
                return [(float(x), float(y), float(r)) for x, y in xy]
    raise AssertionError(f"no scatter of {count} nodes in the figure")
