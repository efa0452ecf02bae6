"""Check and screenshot every figure of the built site's chapters at 1280 px and 390 px.

For each chapter page, each figure (``img`` in the page body) is measured: its natural width (in
CSS px, a 2x PNG counting half), the width the page shows it at, and so the scale its text is
drawn at. A figure's smallest text is 7.5 pt = 10.4 CSS px at scale 1 (``ccb_helpers.plotting``
keeps every label at least that big), so at 1280 px a scale below 0.87 would put text under the
9 CSS px the book promises. Screenshots of every figure go to ``--out``.

Usage: python tools/site_figures.py [--site _build/html] [--out /tmp/site_figures] [--port 8103]
(build the site first: jupyter-book build . -W -n --keep-going). Exits non-zero when a figure
is not 2x or is shrunk too far at 1280 px.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import pathlib
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("0[1-9]_*.ipynb"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SMALLEST_TEXT_PX = 7.5 * 100 / 72  # CSS px of the smallest figure text at scale 1
PROMISE_PX = 9.0

MEASURE = """() => Array.from(document.querySelectorAll('main img, article img, .bd-article img'))
    .filter(img => img.naturalWidth > 0 && img.getBoundingClientRect().width > 0)
    .map(img => ({src: img.getAttribute('src'), natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
                  attr: img.getAttribute('width') || img.style.width || ''}))"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=pathlib.Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("/tmp/site_figures"))
    parser.add_argument("--port", type=int, default=8103)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(args.site))
    handler.func.log_message = lambda *a, **k: None  # quiet server
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    args.out.mkdir(parents=True, exist_ok=True)
    problems = 0
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for width in (1280, 390):
                page = browser.new_page(viewport={"width": width, "height": 900})
                for chapter in CHAPTERS:
                    page.goto(f"http://127.0.0.1:{args.port}/notebooks/{chapter}.html", wait_until="networkidle")
                    figures = page.evaluate(MEASURE)
                    for i, fig in enumerate(figures):
                        css = fig["natural"] / 2  # every figure is a 2x PNG shown at half its pixels
                        scale = fig["shown"] / css
                        text = SMALLEST_TEXT_PX * scale
                        bad = width == 1280 and text < PROMISE_PX
                        problems += bad
                        print(
                            f"{'SMALL' if bad else 'ok   '} {width:4d}px {chapter} fig {i}: natural {css:.0f} CSS px, "
                            f"shown {fig['shown']:.0f} px (scale {scale:.2f}, smallest text {text:.1f} px) {fig['attr']}"
                        )
                        element = page.locator(f"img[src='{fig['src']}']").first
                        element.scroll_into_view_if_needed()
                        element.screenshot(path=str(args.out / f"{width}-{chapter}-{i}.png"))
                page.close()
            browser.close()
    finally:
        server.shutdown()
    print(f"{problems} figure(s) too small at 1280 px; screenshots in {args.out}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
