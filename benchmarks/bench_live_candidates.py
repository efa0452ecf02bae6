"""Choosing the live-explorer design (issue #25): page weight and update latency of the candidates.

Usage:
  python benchmarks/bench_live_candidates.py bokeh-page OUT.html        # with a Python that has bokeh (3.9.0 measured)
  python benchmarks/bench_live_candidates.py measure --bokeh OUT.html [--html-manager DIR] [--anywidget DIR]

(a) the book's design: data exported by the build step + ``ccb-live.js`` (plain SVG) — measured
on chapter 1's built page (PropagationExplorer: bars, (k+1)^t line, N line and the k-nomial tree).
(c) a minimal Bokeh standalone document with ``CustomJS``: BokehJS inline (from the wheel, as a
self-contained site must), sliders N and k, the bars of informed nodes per round and the (k+1)^t
line recomputed in the callback, a Div readout — less than (a) draws, so its latency is a lower
bound for a full Bokeh port. (b) an anywidget front end on the site through
``@jupyter-widgets/html-manager``: weighed from its npm release (``embed.js``) and anywidget's
front-end module from its wheel; its default module loader fetches widget modules such as
anywidget's from cdn.jsdelivr.net, so a self-contained site needs a custom loader and the module
vendored (not prototyped further: its weight alone is past the 1 MB per chapter budget).

Latency, as in bench_live_explorers.py: a control's value set as a user's event does, to the next
animation frame after it (the frame that paints), median and p95 of 40 changes, at full speed and
with 4x CPU throttling. Nothing is asserted; the table goes to benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import pathlib
import shutil
import statistics
import sys
import tempfile
import threading

ROOT = pathlib.Path(__file__).resolve().parents[1]


def bokeh_page(out: pathlib.Path) -> None:
    """Write the (c) prototype: a standalone Bokeh document with INLINE resources."""
    from bokeh.embed import file_html
    from bokeh.layouts import column, row
    from bokeh.models import ColumnDataSource, CustomJS, Div, Slider
    from bokeh.plotting import figure
    from bokeh.resources import INLINE

    source = ColumnDataSource(
        {"t": list(range(7)), "informed": [2**t for t in range(7)], "ideal": [2**t for t in range(7)]}
    )
    plot = figure(width=340, height=320, y_axis_type="log", title="rounds", name="plot")
    plot.vbar(x="t", top="informed", bottom=0.7, width=0.8, source=source, color="#1f77b4", alpha=0.75)
    plot.line(x="t", y="ideal", source=source, color="#d62728", line_dash="dashed")
    n = Slider(start=2, end=1024, step=1, value=64, title="节点数 N", name="n")
    k = Slider(start=1, end=8, step=1, value=1, title="端口数 k", name="k")
    readout = Div(text="", name="readout")
    callback = CustomJS(
        args={"source": source, "n": n, "k": k, "readout": readout},
        code="""
        const N = n.value, K = k.value; let t = 0, reach = 1; while (reach < N) { t += 1; reach *= K + 1; }
        const ts = [], informed = [], ideal = [];
        for (let i = 0; i <= t; i++) { ts.push(i); ideal.push((K + 1) ** i); informed.push(Math.min(N, (K + 1) ** i)); }
        source.data = {t: ts, informed: informed, ideal: ideal};
        readout.text = `<b>N = ${N}，k = ${K}</b>：下界 ⌈log<sub>${K + 1}</sub> N⌉ = <b>${t}</b> 轮`;""",
    )
    n.js_on_change("value", callback)
    k.js_on_change("value", callback)
    out.write_text(file_html(column(row(n, k), readout, plot), INLINE, "bokeh prototype"), encoding="utf-8")


TIME_A = """async ([seed]) => {
  const c = document.querySelector('[data-explorer="PropagationExplorer"] [data-control="n"]');
  c.value = String(2 + (seed * 7919) % 1023);
  const t0 = performance.now(); c.dispatchEvent(new Event('input', {bubbles: true}));
  await new Promise(r => requestAnimationFrame(() => r()));
  return performance.now() - t0; }"""

TIME_C = """async ([seed]) => {
  const model = Bokeh.documents[0].get_model_by_name('n');
  const t0 = performance.now(); model.value = 2 + (seed * 7919) % 1023;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())));  // BokehJS paints in a frame it requests
  return performance.now() - t0; }"""


def _serve(folder: pathlib.Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def _latency(browser, url: str, ready: str, script: str, rate: int) -> tuple[float, float]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.wait_for_function(ready, timeout=60_000)
    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    for seed in range(5):
        page.evaluate(script, [seed + 500])
    times = sorted(page.evaluate(script, [seed]) for seed in range(40))
    context.close()
    return statistics.median(times), times[round(0.95 * (len(times) - 1))]


def _size(path: pathlib.Path) -> tuple[int, int]:
    data = path.read_bytes()
    return len(data), len(gzip.compress(data, 6))


def measure(args) -> int:
    sys.path.insert(0, str(ROOT / "tools"))
    from browser import launch

    site = ROOT / "_build" / "html"
    page_a = site / "notebooks" / "01_information_propagation.html"
    if not page_a.is_file() or not args.bokeh.is_file():
        print("needs the built site and the Bokeh page (bokeh-page OUT.html)", file=sys.stderr)
        return 2
    text = page_a.read_text(encoding="utf-8")
    start = text.index('<div class="ccb-live"')
    live_a = text[start : text.index("</script></div>", start) + len("</script></div>")].encode("utf-8")
    static = site / "_static" / "live"
    a_raw = len(live_a) + sum(_size(static / f)[0] for f in ("ccb-live.js", "ccb-live.css", "propagation_explorer.js"))
    a_gz = len(gzip.compress(live_a, 6)) + sum(
        _size(static / f)[1] for f in ("ccb-live.js", "ccb-live.css", "propagation_explorer.js")
    )
    c_raw, c_gz = _size(args.bokeh)
    rows = [("(a) build-step data + ccb-live.js (SVG), PropagationExplorer, full", a_raw, a_gz)]
    rows.append(("(c) Bokeh 3.9.0 standalone + CustomJS, bars + line only", c_raw, c_gz))
    if args.html_manager:
        embed = args.html_manager / "dist" / "embed.js"
        raw, gz = _size(embed)
        extra = ""
        if args.anywidget:
            module = args.anywidget / "nbextension" / "index.js"
            r2, g2 = _size(module)
            raw, gz, extra = raw + r2, gz + g2, " + anywidget 0.11.0 front end"
        rows.append((f"(b) @jupyter-widgets/html-manager 1.0.15 embed.js{extra} (before any data)", raw, gz))
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(args.bokeh, pathlib.Path(tmp) / "bokeh.html")
        httpd_c, base_c = _serve(pathlib.Path(tmp))
        httpd_a, base_a = _serve(site)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = launch(p)
            lat = {}
            for rate in (1, 4):
                lat[("a", rate)] = _latency(
                    browser,
                    f"{base_a}/notebooks/01_information_propagation.html",
                    "window.CCBLive && CCBLive.instances.length >= 1",
                    TIME_A,
                    rate,
                )
                lat[("c", rate)] = _latency(
                    browser,
                    f"{base_c}/bokeh.html",
                    "window.Bokeh && Bokeh.documents.length >= 1 && Bokeh.documents[0].get_model_by_name('n')",
                    TIME_C,
                    rate,
                )
            browser.close()
        httpd_a.shutdown()
        httpd_c.shutdown()
    print(
        "| candidate | page weight added raw / gzip | update → painted, desktop median / p95 | 4× throttled median / p95 |"
    )
    print("|---|---|---|---|")
    for label, raw, gz in rows:
        key = label[1]
        times = (
            (
                f"{lat[(key, 1)][0]:.1f} / {lat[(key, 1)][1]:.1f} ms",
                f"{lat[(key, 4)][0]:.1f} / {lat[(key, 4)][1]:.1f} ms",
            )
            if (key, 1) in lat
            else ("not measured", "not measured")
        )
        print(f"| {label} | {raw / 1024:.0f} KiB / {gz / 1024:.0f} KiB | {times[0]} | {times[1]} |")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("bokeh-page")
    make.add_argument("out", type=pathlib.Path)
    run = sub.add_parser("measure")
    run.add_argument("--bokeh", type=pathlib.Path, required=True)
    run.add_argument(
        "--html-manager", type=pathlib.Path, help="node_modules/@jupyter-widgets/html-manager of an npm install"
    )
    run.add_argument("--anywidget", type=pathlib.Path, help="the anywidget package folder of a pip install")
    args = parser.parse_args(argv)
    if args.command == "bokeh-page":
        bokeh_page(args.out)
        return 0
    return measure(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
