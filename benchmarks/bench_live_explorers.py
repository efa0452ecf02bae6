"""The live explorers on the built site: update latency (desktop and 4x CPU throttling) and page weight.

Usage: python benchmarks/bench_live_explorers.py [--site _build/html] [--updates 60] [--only NAME ...]

Serves the built site on 127.0.0.1 and opens every chapter page with a live explorer in headless
Chromium. For each explorer, ``--updates`` random control changes are made as a reader makes them
(a slider moved to a random position, a select to a random option, a checkbox toggled), each
timed in the page from dispatching the control's ``input``/``change`` event to (1) the readout and
the SVG figure rebuilt and laid out (the handler ran, then a forced layout) and (2) the next
animation frame after it (the frame that paints them). Median and p95 per explorer, once at full
speed and once with ``Emulation.setCPUThrottlingRate`` = 4 (the DevTools "mid-tier phone"
setting). The baseline measured in the same run and page is an empty handler (an ``input`` event
on a detached range input followed by a forced layout and one animation frame): latency = the
explorer's time above what any page pays.

Page weight: what each chapter page carries for its live explorers (the live elements embedded in
the HTML, ``ccb-live.js``/``ccb-live.css`` and the explorer's script), raw and gzip-compressed (as a
web server sends it), and the same summed over the whole site (the shared files counted once).
Goals (issue #25): median <= 30 ms and p95 <= 60 ms on desktop, p95 <= 120 ms throttled; <= 1 MB
per chapter and <= 8 MB for the site. Nothing is asserted: the numbers are printed as a Markdown
table for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import pathlib
import re
import statistics
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from browser import launch  # noqa: E402

from ccb_helpers.live.build import module_name  # noqa: E402

LIVE_ELEMENT = re.compile(r'<div class="ccb-live" data-explorer="([A-Za-z0-9]+)".*?</script></div>', re.S)

#: One timed update: a random new value for a random enabled control, its event, then layout and a frame.
UPDATE_JS = """async ([name, seed]) => {
  let s = seed; const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const root = document.querySelector(`[data-explorer="${name}"]`);
  const controls = Array.from(root.querySelectorAll('[data-control]')).filter(c => !c.disabled);
  const c = controls[Math.floor(rnd() * controls.length)];
  let type = 'change';
  if (c.type === 'checkbox') { c.checked = !c.checked; }
  else if (c.tagName === 'SELECT') { c.selectedIndex = Math.floor(rnd() * c.options.length); }
  else { const lo = +c.min, hi = +c.max, step = +c.step || 1;
         c.value = String(lo + Math.round(rnd() * (hi - lo) / step) * step); type = 'input'; }
  const svg = root.querySelector('svg');
  const t0 = performance.now();
  c.dispatchEvent(new Event(type, {bubbles: true}));
  root.getBoundingClientRect(); document.body.offsetHeight;   // style + layout of the new readout and SVG
  const t1 = performance.now();
  await new Promise(r => requestAnimationFrame(() => r()));
  const t2 = performance.now();
  return [t1 - t0, t2 - t0, root.querySelector('svg') !== svg];
}"""

BASELINE_JS = """async () => {
  const c = document.createElement('input'); c.type = 'range'; c.addEventListener('input', () => {});
  const t0 = performance.now();
  c.dispatchEvent(new Event('input')); document.body.offsetHeight;
  const t1 = performance.now();
  await new Promise(r => requestAnimationFrame(() => r()));
  return [t1 - t0, performance.now() - t0];
}"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def weights(site: pathlib.Path) -> tuple[dict, dict]:
    """Per page: bytes of its live elements and scripts (raw, gzip); and the site's total."""
    static = site / "_static" / "live"

    def size(data: bytes) -> tuple[int, int]:
        return len(data), len(gzip.compress(data, 6))

    pages, shared_raw, shared_gz, elements_raw, elements_gz, scripts = {}, 0, 0, 0, 0, set()
    for path in sorted(site.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        found = [(m.group(1), m.group(0).encode("utf-8")) for m in LIVE_ELEMENT.finditer(text)]
        if not found:
            continue
        files = ["ccb-live.js", "ccb-live.css"] + sorted({module_name(n) + ".js" for n, _ in found})
        raw = sum(size(b)[0] for _, b in found)
        gz = sum(size(b)[1] for _, b in found)
        file_raw = sum(size((static / f).read_bytes())[0] for f in files)
        file_gz = sum(size((static / f).read_bytes())[1] for f in files)
        html_raw, html_gz = size(text.encode("utf-8"))
        pages[path.relative_to(site).with_suffix("").as_posix()] = {
            "explorers": [n for n, _ in found],
            "element": (raw, gz),
            "scripts": (file_raw, file_gz),
            "added": (raw + file_raw, gz + file_gz),
            "html_before": (html_raw - raw, None),
        }
        elements_raw += raw
        elements_gz += gz
        scripts |= set(files)
    for f in scripts:
        r, g = size((static / f).read_bytes())
        shared_raw, shared_gz = shared_raw + r, shared_gz + g
    return pages, {"raw": elements_raw + shared_raw, "gzip": elements_gz + shared_gz}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=pathlib.Path, default=ROOT / "_build" / "html")
    parser.add_argument("--updates", type=int, default=60)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    if not (args.site / "intro.html").is_file():
        print(f"no built site in {args.site}: build it first", file=sys.stderr)
        return 2
    if not 5 <= args.updates <= 1000:
        print("--updates must be between 5 and 1000", file=sys.stderr)
        return 2
    pages, total = weights(args.site)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(args.site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    rows = []
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        for page_name, info in pages.items():
            for name in info["explorers"]:
                if args.only and name not in args.only:
                    continue
                row = {"page": page_name, "explorer": name}
                for rate in (1, 4):
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    page.goto(f"{base}/{page_name}.html", wait_until="load")
                    page.wait_for_function("window.CCBLive && CCBLive.ready", timeout=60_000)
                    page.evaluate("CCBLive.ready")
                    page.locator(f'[data-explorer="{name}"]').first.scroll_into_view_if_needed()
                    cdp = context.new_cdp_session(page)
                    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
                    for seed in range(5):  # warm-up: JIT, first decode of lazily unpacked frames
                        page.evaluate(UPDATE_JS, [name, 7 + seed])
                    base_times = [page.evaluate(BASELINE_JS) for _ in range(20)]
                    times = [page.evaluate(UPDATE_JS, [name, 1000 + seed]) for seed in range(args.updates)]
                    layout = [t[0] for t in times]
                    frame = [t[1] for t in times]
                    row[rate] = {
                        "median": statistics.median(layout),
                        "p95": percentile(layout, 0.95),
                        "frame_median": statistics.median(frame),
                        "frame_p95": percentile(frame, 0.95),
                        "base": statistics.median(b[0] for b in base_times),
                        "base_frame": statistics.median(b[1] for b in base_times),
                    }
                    context.close()
                rows.append(row)
                d, t = row[1], row[4]
                print(
                    f"{name}: desktop {d['median']:.1f}/{d['p95']:.1f} ms (frame {d['frame_median']:.1f}/{d['frame_p95']:.1f}); "
                    f"4x {t['median']:.1f}/{t['p95']:.1f} ms (frame {t['frame_median']:.1f}/{t['frame_p95']:.1f})",
                    flush=True,
                )
        browser.close()
    httpd.shutdown()

    print(
        "\n| explorer | desktop median / p95 (ms) | next frame median / p95 | 4× throttled median / p95 | next frame median / p95 |"
    )
    print("|---|---|---|---|---|")
    for row in rows:
        d, t = row[1], row[4]
        print(
            f"| {row['explorer']} | {d['median']:.1f} / {d['p95']:.1f} | {d['frame_median']:.1f} / {d['frame_p95']:.1f} | "
            f"{t['median']:.1f} / {t['p95']:.1f} | {t['frame_median']:.1f} / {t['frame_p95']:.1f} |"
        )
    if rows:
        print(
            f"| (baseline: empty handler + layout) | {rows[0][1]['base']:.2f} | {rows[0][1]['base_frame']:.1f} | "
            f"{rows[0][4]['base']:.2f} | {rows[0][4]['base_frame']:.1f} |"
        )
    print("\n| chapter page | explorers | live elements raw / gzip | scripts raw / gzip | added raw / gzip |")
    print("|---|---|---|---|---|")
    kb = lambda n: f"{n / 1024:.0f} KiB"  # noqa: E731
    for page_name, info in pages.items():
        print(
            f"| {page_name} | {', '.join(info['explorers'])} | {kb(info['element'][0])} / {kb(info['element'][1])} | "
            f"{kb(info['scripts'][0])} / {kb(info['scripts'][1])} | {kb(info['added'][0])} / {kb(info['added'][1])} |"
        )
    print(f"| **whole site** (shared files once) | | | | {kb(total['raw'])} / {kb(total['gzip'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
