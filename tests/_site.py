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


def site_pages(site: pathlib.Path) -> list[str]:
    """Every HTML page of a built site, as paths relative to it (``intro.html``, ``notebooks/…``)."""
    return sorted(
        str(p.relative_to(site))
        for p in site.rglob("*.html")
        if not any(part.startswith(("_", ".")) for part in p.relative_to(site).parts)
        and 'http-equiv="Refresh"' not in p.read_text(encoding="utf-8")[:2000]
    )  # index.html: a redirect


class LoadedPage:
    """A page opened with every non-local request blocked: ``page`` and what happened while loading."""

    def __init__(self, browser, url: str, width: int = 1280, height: int = 900):
        self.url, self.width = url, width
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.external, self.failed, self.errors = [], [], []
        self.page.route("**/*", self._route)
        self.page.on("requestfailed", lambda req: self.failed.append(req.url))
        self.page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(url, wait_until="networkidle")

    def _route(self, r):
        if r.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            r.continue_()
        else:
            self.external.append(r.request.url)
            r.abort()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.page.close()
