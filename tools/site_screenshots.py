"""Screenshots of every page of the built site at phone (390 px) and desktop (1280 px) width.

Usage: python tools/site_screenshots.py [OUT]   (default: screenshots/site/; build the site first)

Serves ``_build/html`` on 127.0.0.1, opens each page in headless Chromium (tools/browser.py: with the
book's CJK font, every non-local request blocked), waits for MathJax, and saves a full-page PNG per
page and width, plus the opened chapter menu and page TOC on a phone and a search result page.
"""

from __future__ import annotations

import functools
import http.server
import pathlib
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from browser import launch  # noqa: E402

PAGES = ["intro", "bibliography"] + sorted(
    p.relative_to(ROOT / "_build" / "html").with_suffix("").as_posix()
    for p in (ROOT / "_build" / "html" / "notebooks").glob("*.html")
)


def main(argv: list[str]) -> int:
    out = pathlib.Path(argv[0]) if argv else ROOT / "screenshots" / "site"
    out.mkdir(parents=True, exist_ok=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(ROOT / "_build" / "html"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        for width in (390, 1280):
            for name in PAGES + ["search.html?q=带宽"]:
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
                page.goto(f"{base}/{name}" + ("" if "?" in name else ".html"), wait_until="networkidle")
                if page.locator("script[src*=mathjax]").count():
                    page.wait_for_function(
                        "window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000
                    )
                    page.evaluate("MathJax.startup.promise")
                page.wait_for_timeout(1500 if "search" in name else 300)
                stem = name.split("?")[0].replace(".html", "").replace("/", "_")
                page.screenshot(path=str(out / f"{stem}_{width}.png"), full_page=True)
                if width == 390 and name.startswith("notebooks/05"):
                    for which in ("primary", "secondary"):
                        page.evaluate("window.scrollTo(0, 0)")
                        page.locator(f"button.{which}-toggle").first.click()
                        page.wait_for_timeout(400)
                        page.screenshot(path=str(out / f"{stem}_{which}_drawer_{width}.png"))
                        page.keyboard.press("Escape")
                        page.wait_for_timeout(300)
                page.close()
        browser.close()
    httpd.shutdown()
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
