"""Helpers for the tests of the built site (both editions): skip or fail, serve a folder, launch chromium, load a page.

The built sites themselves are session fixtures in ``conftest.py`` (``reader_site``, ``student_site``),
so the student edition is built once per test run however many test files look at it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import pathlib
import shutil
import sys
import threading
import urllib.parse

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def require(condition: bool, message: str) -> None:
    """Skip with ``message`` unless ``condition``; under CI (``CI`` set) fail instead."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(message + " (required under CI)")
    pytest.skip(message)


@contextlib.contextmanager
def serve(folder: pathlib.Path):
    """Serve ``folder`` over HTTP on a free local port; yield its base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest's output clean
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


@contextlib.contextmanager
def chromium():
    """One headless chromium (Debian's, with the book's CJK font) for a test module; skips without it."""
    require(CHROMIUM is not None, "chromium not found: `apt-get install chromium` to run the browser test")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright not installed: `pip install -r requirements.txt` to run the browser test")
    sys.path.insert(0, str(ROOT / "tools"))
    from browser import launch  # chromium with the book's CJK font, so Chinese text breaks as for readers

    with sync_playwright() as p:
        browser = launch(p)
        try:
            yield browser
        finally:
            browser.close()


def listen(page, event: str, handler) -> None:
    """``page.on(event, handler)``, recorded so that :meth:`PagePool.give_back` removes it: a page
    lent again must not report into the last test's lists."""
    page.on(event, handler)
    if hasattr(page, "ccb_listeners"):
        page.ccb_listeners.append((event, handler))


class PagePool:
    """Pages of one Chromium lent to the tests and taken back clean, by their context's options.

    A page in a new context has a new renderer process with cold caches: loading a book page in it
    cost 1.9 CPU-s (the home page) to 2.75 (chapter 4), navigating a page that had shown the site
    before 0.39 and 0.87 (2026-12-05, issue #30); ~45 pages a run were opened fresh. So a page
    given back is reset and kept, and the next test that wants a page with the same options (mobile,
    touch, device scale; the viewport size is set on each loan) gets it. What a test can change
    and a reader's fresh tab would not have is undone on return (:meth:`give_back`): its listeners
    and routes, the animation speed it borrowed the page with, the storage and cookies of the site it showed, emulated media, the document (back
    on ``about:blank``). A page that showed more than one origin, or that failed to reset, is
    closed instead. The HTTP and compiled-script caches stay warm, as they are for a reader who
    goes from one page of the book to the next."""

    def __init__(self, browser):
        self.browser = browser
        self.idle: dict[tuple, list] = {}

    def borrow(self, viewport: dict, *, animation_rate: float = 1, **options):
        """A page on ``about:blank`` with ``viewport`` and the context ``options``
        (``is_mobile``, ``has_touch``, ``device_scale_factor``); give it back with :meth:`give_back`.

        ``animation_rate``: the page's animations and CSS transitions play that many times faster
        for this loan (Chromium's Animation domain: the same transitions, to the same end)."""
        key = tuple(sorted(options.items()))
        pages = self.idle.get(key)
        if pages:
            page = pages.pop()
            page.set_viewport_size(viewport)
        else:
            page = self.browser.new_context(viewport=viewport, **options).new_page()
            page.ccb_key = key
            page.ccb_origins = set()
            # The pool's own listener (never removed): which sites the page showed while lent.
            page.on(
                "framenavigated",
                lambda frame, page=page: frame == page.main_frame and page.ccb_origins.add(_origin(frame.url)),
            )
        page.ccb_listeners = []
        page.ccb_origins.clear()
        page.ccb_animations = None
        if animation_rate != 1:
            # Kept attached for the loan: detaching the session puts the rate back to 1 (measured).
            page.ccb_animations = page.context.new_cdp_session(page)
            page.ccb_animations.send("Animation.enable")
            page.ccb_animations.send("Animation.setPlaybackRate", {"playbackRate": animation_rate})
        page.ccb_lent = True
        return page

    def give_back(self, page) -> None:
        """Reset ``page`` (:class:`PagePool`) and keep it for the next loan; close it if it cannot be reset."""
        if not getattr(page, "ccb_lent", False):  # given back twice: lending it twice would share it
            return
        page.ccb_lent = False
        try:
            for event, handler in page.ccb_listeners:
                page.remove_listener(event, handler)
            if page.ccb_animations is not None:
                page.ccb_animations.detach()  # the animations at their own speed again
                page.ccb_animations = None
            origins = page.ccb_origins - {None}
            if page.is_closed() or len(origins) > 1:
                raise RuntimeError("not reusable")
            page.unroute_all(behavior="ignoreErrors")
            if _origin(page.url) is not None:
                # The tab's sessionStorage can only be cleared from the site, and the theme writes
                # it while the page is left (its sidebar's scroll, on beforeunload): cleared last.
                page.evaluate(_FORGET_ON_LEAVING_JS)
            page.goto("about:blank")
            cdp = page.context.new_cdp_session(page)
            try:
                for origin in origins:  # localStorage, IndexedDB, caches, cookies
                    cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            finally:
                cdp.detach()
            page.context.clear_cookies()
            page.emulate_media(media="null", color_scheme="null", reduced_motion="null", forced_colors="null")
        except Exception:
            with contextlib.suppress(Exception):
                page.context.close()
            return
        self.idle.setdefault(page.ccb_key, []).append(page)

    def close(self) -> None:
        for pages in self.idle.values():
            for page in pages:
                with contextlib.suppress(Exception):
                    page.context.close()
        self.idle.clear()


_FORGET_ON_LEAVING_JS = (
    """() => addEventListener('pagehide', () => { sessionStorage.clear(); localStorage.clear(); })"""
)


def _origin(url: str) -> str | None:
    """``http://127.0.0.1:8000`` of an http(s) URL; None for ``about:blank``, ``data:`` and the like."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None


def block_external(page, images: bool = True) -> list[str]:
    """Abort every request that leaves 127.0.0.1 (and, with ``images=False``, every image: layout
    tests do not need their pixels, and decoding them is most of a chapter's load time); return the
    (growing) list of blocked external URLs."""
    external: list[str] = []

    def route(r):
        if not r.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            external.append(r.request.url)
            r.abort()
        elif not images and r.request.resource_type == "image":
            r.abort()
        else:
            r.continue_()

    page.route("**/*", route)
    return external


LOCAL = ("http://127.0.0.1", "data:", "blob:", "about:")


def watch_requests(page) -> tuple[list[str], list[str]]:
    """Record what ``page`` requests: the URLs that leave 127.0.0.1 (``external``) and the requests
    that failed or were answered with an error status (``failed``); return both (growing) lists.

    Watched, not intercepted: routing every request through Python (:func:`block_external`) made
    loading four chapter pages 1.6x slower (8.2 s vs 4.9 s, benchmarks/README.md). Nothing is
    blocked that a reader would get; a request that leaves the site is recorded and the tests
    assert there is none (the test machine is offline, so it also fails)."""
    external: list[str] = []
    failed: list[str] = []
    listen(page, "request", lambda r: external.append(r.url) if not r.url.startswith(LOCAL) else None)
    listen(page, "requestfailed", lambda r: failed.append(r.url))
    listen(page, "response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return external, failed


# Resolves when the page is ready to be measured: MathJax has typeset (formulas change line widths;
# ccb.js re-measures the tables when it has), the fonts have loaded, and two frames have been laid
# out (ResizeObserver callbacks, ccb.js's among them, run before the next frame). Waiting for these
# events replaces fixed waits (networkidle's 500 ms, 300 ms after MathJax).
SETTLE_JS = r"""async () => {
  const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
  if (document.querySelector('script[src*=mathjax]')) {
    const start = performance.now();
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
      if (performance.now() - start > 30000) throw new Error('MathJax did not start within 30 s');
      await frame();
    }
    await MathJax.startup.promise;
  }
  await document.fonts.ready;
  await frame();
  await frame();
}"""


def settle(page) -> None:
    """Wait until ``page`` (loaded) is typeset, its fonts are in and its layout is done (:data:`SETTLE_JS`)."""
    page.evaluate(SETTLE_JS)


# Resolves when every live explorer of the page is mounted, to nothing. ``CCBLive.ready`` itself
# resolves to the explorer instances (their data and DOM): evaluated as is, Playwright serialised
# all of it to Python -- 15-19 s and 8.5 CPU-s (Python + Chromium) for chapter 1's page, 1.2 CPU-s
# for chapter 8's, on every load (measured 2026-12-05), and the value was thrown away.
LIVE_READY_JS = "async () => { await CCBLive.ready; }"


# Resolves when what a click started has run its course: one frame for transitions to start, then
# every finite transition/animation in the page has finished (at most 3 s), then one more frame.
TRANSITIONS_JS = r"""async () => {
  const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
  await frame();
  const running = document.getAnimations().filter(a => a.effect && isFinite(a.effect.getComputedTiming().endTime));
  await Promise.race([Promise.all(running.map(a => a.finished.catch(() => null))),
                      new Promise(resolve => setTimeout(resolve, 3000))]);
  await frame();
}"""


def after_transitions(page) -> None:
    """Wait until the transitions a click started have ended (:data:`TRANSITIONS_JS`), instead of a fixed time."""
    page.evaluate(TRANSITIONS_JS)


def site_pages(site: pathlib.Path) -> list[str]:
    """Every HTML page of a built site, as paths relative to it (``intro.html``, ``notebooks/…``)."""
    return sorted(
        str(p.relative_to(site))
        for p in site.rglob("*.html")
        if not any(part.startswith(("_", ".")) for part in p.relative_to(site).parts)
        and 'http-equiv="Refresh"' not in p.read_text(encoding="utf-8")[:2000]
    )  # index.html: a redirect


#: A reader's phone: the context options of every page read at 390 px (the site's, the live
#: explorers' and the phone checks' share one load per page, #44).
PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
PHONE_VIEWPORT = {"width": 390, "height": 844}


class LoadedPage:
    """A page borrowed from ``pool`` (:class:`PagePool`) and loaded with its requests watched
    (:func:`watch_requests`): ``page`` and what happened while loading (``external``, ``failed``,
    ``errors``). Settled (:func:`settle`) when it returns; :meth:`close` gives the page back.
    ``options``: the context's (``PHONE`` for a phone) and ``animation_rate``."""

    def __init__(self, pool: PagePool, url: str, width: int = 1280, height: int = 900, **options):
        self.url, self.width, self.pool = url, width, pool
        self.page = pool.borrow({"width": width, "height": height}, **options)
        self.external, self.failed = watch_requests(self.page)
        self.errors = []
        listen(self.page, "console", self._console)
        listen(self.page, "pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(url, wait_until="load")
        settle(self.page)

    def _console(self, msg) -> None:
        # Every console error counts, a 404 for /favicon.ico too (the book has its icon since #43).
        if msg.type == "error":
            self.errors.append(f"{msg.text} ({(msg.location or {}).get('url', '')})")

    def close(self) -> None:
        self.pool.give_back(self.page)
