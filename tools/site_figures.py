"""Check and screenshot every figure of the built site's chapters at 1280 px and at 390 px (a phone).

For each chapter page, each figure (``img`` in the page body, whichever source its ``<picture>``
picked) is measured: the CSS width of the PNG shown (a 2x PNG: half its pixels), the width the
page shows it at, and the smallest text the PNG records (``ccb_helpers.plotting.phone``), so the
CSS size of its smallest text. Below 9 CSS px, or reaching past the screen, it is reported. At
390 px the phone rendering (panels stacked, 350 px) is what a notebook figure shows. Screenshots
of every figure, and of each live explorer, go to ``--out``.

Usage: python tools/site_figures.py [--site _build/html] [--out /tmp/site_figures] [--port 8103]
(build the site first: jupyter-book build . -W -n --keep-going). Exits non-zero when a figure's
text is under 9 CSS px or it does not fit the screen.
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
PROMISE_PX = 9.0

MEASURE = """() => Array.from(document.querySelectorAll('main img, article img, .bd-article img'))
    .filter(img => img.naturalWidth > 0 && img.getBoundingClientRect().width > 0 && !img.closest('[data-explorer]'))
    .map(img => ({src: new URL(img.currentSrc || img.src).pathname, shown: img.getBoundingClientRect().width,
                  right: img.getBoundingClientRect().right, vw: document.documentElement.clientWidth}))"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=pathlib.Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("/tmp/site_figures"))
    parser.add_argument("--port", type=int, default=8103)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    from ccb_helpers.plotting.phone import png_width, text_size_of_png

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
                phone = width < 600
                context = browser.new_context(
                    viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone, device_scale_factor=2
                )
                page = context.new_page()
                for chapter in CHAPTERS:
                    page.goto(f"http://127.0.0.1:{args.port}/notebooks/{chapter}.html", wait_until="networkidle")
                    if page.locator("[data-explorer]").count():  # the live explorers draw (and hide their PNG)
                        page.wait_for_function("window.CCBLive && CCBLive.instances.length >= 1", timeout=30_000)
                        page.evaluate("CCBLive.ready")
                    for i, fig in enumerate(page.evaluate(MEASURE)):
                        data = (args.site / fig["src"].lstrip("/")).read_bytes()
                        css = png_width(data) / 2  # every book figure is a 2x PNG
                        points = text_size_of_png(data)
                        text = None if points is None else points * 100 / 72 * fig["shown"] / css
                        bad = text is None or text < PROMISE_PX or fig["right"] > fig["vw"] + 0.5
                        problems += bad
                        print(
                            f"{'BAD  ' if bad else 'ok   '} {width:4d}px {chapter} fig {i}: {fig['src'].split('/')[-1][:20]} "
                            f"{css:.0f} CSS px shown at {fig['shown']:.0f} px, smallest text "
                            + ("not recorded" if text is None else f"{text:.1f} px")
                        )
                        element = page.locator(f"img[src$='{fig['src'].split('/')[-1].replace('.phone', '')}']").first
                        element.scroll_into_view_if_needed()
                        element.screenshot(path=str(args.out / f"{width}-{chapter}-{i}.png"))
                    for j, live in enumerate(page.locator("[data-explorer]").all()):
                        live.scroll_into_view_if_needed()
                        live.screenshot(path=str(args.out / f"{width}-{chapter}-explorer{j}.png"))
                context.close()
            browser.close()
    finally:
        server.shutdown()
    print(
        f"{problems} figure(s) with text under {PROMISE_PX:g} CSS px or wider than the screen; screenshots in {args.out}"
    )
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
