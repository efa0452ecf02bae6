"""Screenshots of every live explorer of the built site, at 1280 and 390 px, in the theme's light and
dark modes: before and after a control change, and with the crosshair reading the figure.

Usage: python tools/live_screenshots.py [--site _build/html] [--out screenshots/live] [--only NAME ...]
       [--modes light dark]

Serves the built site on 127.0.0.1, opens each chapter page that holds a live explorer
(``[data-explorer]``) in headless Chromium (tools/browser.py, the book's CJK font; at 390 px as a
phone: touch, device scale 2), waits for ``CCBLive.ready``, and saves the explorer element as
``<Explorer>-<width>-<mode>-before.png``; then moves one control as a reader would (a slider to 3/4
of its range with ``input`` events, the next option of a select, a checkbox toggled), and saves
``<Explorer>-<width>-<mode>-after.png``; then points at the middle of the figure's first plot (a tap
on a phone) and saves ``<Explorer>-<width>-<mode>-crosshair.png``. The mode is what the theme's
colour-mode button sets (``html[data-theme]``). Prints, per shot, the readout and whether the figure changed,
and exits 1 if a page logged an error, a request left the site, or a control change left the
figure as it was.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import pathlib
import re
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from browser import launch  # noqa: E402

#: Moves the explorer's "most telling" control: the first slider if there is one, else the first select, else a checkbox.
CHANGE_JS = """root => {
  const controls = Array.from(root.querySelectorAll('[data-control]')).filter(c => !c.disabled);
  const c = controls.find(c => c.type === 'range') || controls.find(c => c.tagName === 'SELECT') || controls[0];
  const name = c.getAttribute('data-control');
  if (c.type === 'checkbox') { c.click(); return name; }
  if (c.tagName === 'SELECT') { c.selectedIndex = (c.selectedIndex + 1) % c.options.length; c.dispatchEvent(new Event('change', {bubbles: true})); return name; }
  const lo = +c.min, hi = +c.max, step = +c.step || 1, from = +c.value;
  let to = lo + Math.round((hi - lo) * 0.75 / step) * step;
  if (Math.abs(to - from) < step / 2) to = lo + Math.round((hi - lo) * 0.25 / step) * step;
  for (let i = 1; i <= 5; i++) { c.value = String(from + (to - from) * i / 5); c.dispatchEvent(new Event('input', {bubbles: true})); }
  c.dispatchEvent(new Event('change', {bubbles: true}));
  return name;
}"""


#: What the theme's colour-mode button sets (pydata-sphinx-theme: html[data-theme] and [data-mode]).
MODE_JS = "m => { document.documentElement.dataset.theme = m; document.documentElement.dataset.mode = m; }"

#: Where a reader would point to read the figure: the middle of its first plot with data, in page px.
POINT_JS = """root => {
  const live = root.ccbLive, layout = live && CCBLive.layoutOf(live.figure);
  if (!layout) return null;
  const geo = layout.panels.find(g => (g.panel.series || []).some(s => s.x && s.x.length)) || layout.panels[0];
  const s = (geo.panel.series || []).find(s => ['line', 'step', 'scatter', 'bar'].includes(s.kind) && s.x.length);
  const node = geo.panel.graph && geo.panel.graph.nodes[0];
  const px = s ? geo.sx(s.x[Math.floor(s.x.length / 2)]) : node ? geo.sx(node.x) : (geo.x0 + geo.x1) / 2;
  const py = s || !node ? (geo.y0 + geo.y1) / 2 : geo.sy(node.y);
  const r = layout.svg.getBoundingClientRect(), k = r.width / layout.width;
  return {x: r.left + px * k, y: r.top + py * k};
}"""


def live_pages(site: pathlib.Path) -> dict[str, list[str]]:
    """``{page path without .html: [explorer names]}`` for every page of the site with a live explorer."""
    found = {}
    for path in sorted(site.rglob("*.html")):
        names = re.findall(r'data-explorer="([A-Za-z0-9]+)"', path.read_text(encoding="utf-8"))
        if names:
            found[path.relative_to(site).with_suffix("").as_posix()] = names
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=pathlib.Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "screenshots" / "live")
    parser.add_argument("--only", nargs="*", default=None, help="explorer class names to shoot (default: all)")
    parser.add_argument("--modes", nargs="*", default=["light", "dark"], choices=["light", "dark"])
    args = parser.parse_args(argv)
    if not (args.site / "intro.html").is_file():
        print(f"no built site in {args.site}: run `jupyter-book build . -W -n --keep-going` first", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(args.site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    problems = []
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        for page_name, names in live_pages(args.site).items():
            for width, mode in [(w, m) for w in (1280, 390) for m in args.modes]:
                phone = width < 600
                context = browser.new_context(
                    viewport={"width": width, "height": 900 if not phone else 844},
                    is_mobile=phone,
                    has_touch=phone,
                    device_scale_factor=2 if phone else 1,
                )
                page = context.new_page()
                errors, external = [], []
                page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
                page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
                page.on(
                    "request",
                    lambda r, external=external: (
                        external.append(r.url)
                        if not r.url.startswith(("http://127.0.0.1", "data:", "blob:", "about:"))
                        else None
                    ),
                )
                page.goto(f"{base}/{page_name}.html", wait_until="load")
                page.evaluate(MODE_JS, mode)
                page.wait_for_function("window.CCBLive && CCBLive.ready", timeout=60_000)
                page.evaluate("async () => { await CCBLive.ready; }")
                for name in names:
                    if args.only and name not in args.only:
                        continue
                    root = page.locator(f'[data-explorer="{name}"]').first
                    root.scroll_into_view_if_needed()
                    page.wait_for_timeout(200)
                    before_svg = root.evaluate("r => (r.querySelector('svg') || {}).outerHTML")
                    shot = f"{name}-{width}-{mode}"
                    root.screenshot(path=str(args.out / f"{shot}-before.png"))
                    control = root.evaluate(CHANGE_JS)
                    page.wait_for_timeout(150)
                    after_svg = root.evaluate("r => (r.querySelector('svg') || {}).outerHTML")
                    root.screenshot(path=str(args.out / f"{shot}-after.png"))
                    spot = root.evaluate(POINT_JS)
                    if spot:
                        (page.touchscreen.tap if phone else page.mouse.move)(spot["x"], spot["y"])
                        page.wait_for_timeout(150)
                        root.screenshot(path=str(args.out / f"{shot}-crosshair.png"))
                        page.mouse.move(0, 0)
                    readout = root.evaluate("r => r.querySelector('[data-readout]').innerText.replace(/\\s+/g, ' ')")
                    fits = root.evaluate("r => r.scrollWidth <= r.getBoundingClientRect().width + 1")
                    changed = before_svg != after_svg
                    tip = root.evaluate(
                        "r => { const t = r.querySelector('.ccb-live-tip'); return t && !t.hidden ? t.innerText : ''; }"
                    )
                    print(
                        f"{name} {width}px {mode}: crosshair {'reads ' + repr(tip[:40]) if tip else 'shows nothing'}; moved {control}; figure {'changed' if changed else 'UNCHANGED'}; "
                        f"{'fits' if fits else 'OVERFLOWS'}; readout: {readout[:110]}"
                    )
                    if not changed or not fits:
                        problems.append(f"{name} at {width} px")
                if errors or external:
                    problems.append(f"{page_name} at {width} px: errors {errors[:3]}, external {external[:3]}")
                context.close()
        browser.close()
    httpd.shutdown()
    for problem in problems:
        print("PROBLEM:", problem)
    print(f"screenshots in {args.out}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
