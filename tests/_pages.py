"""Helpers of the browser tests (shared through the fixtures in ``tests/conftest.py``).

``LoadedPage`` opens a page with every non-local request blocked and records what went wrong
while it loaded; ``serve`` is a local HTTP server for a built site; ``require`` skips a test that
lacks a browser or a built site, and fails it under CI.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import pathlib
import threading

import pytest


def require(condition: bool, message: str) -> None:
    """Skip with ``message`` when ``condition`` is false; under CI (``CI`` set) fail instead."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(message + " (required under CI)")
    pytest.skip(message)


@contextlib.contextmanager
def serve(folder: pathlib.Path):
    """A local HTTP server for ``folder``; yields its base URL (``http://127.0.0.1:PORT``)."""

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
        httpd.server_close()


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
