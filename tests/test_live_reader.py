"""Every live explorer as readers meet it (issue #43): in the dark, with a screen reader, on a phone,
pointing at the figure, on old browsers and without JavaScript.

Per chapter page with an explorer, on the page's shared loads (tests/conftest.py ``site_page``: the
site's, the phone's and the live explorers' checks read one load per page and width, #44):

- both colour modes of the theme's button: every text of the figure, the readout and the controls
  keeps a contrast of at least 4.5:1 with what lies behind it, dark curves 3:1 (they were 1.12:1);
- screen readers: the figure has an accessible name, every slider a value text (a log slider's
  "102", not its exponent; a size slider's "2 GiB", not its index), every number field a name,
  every figure of the page a real alt text;
- touch: the values a chapter names -- the defaults, the ends of each range, every power of two of a
  size slider, every decade of a log slider -- typed into the number field by a phone, land on the
  slider exactly (as Python's grid has them); the field is a 36 px target inside the screen;
- one redraw per action (a key press, a selection, a typed value), none for a value unchanged;
- the crosshair: pointed at a plotted size it reads each curve there, the numbers the readout says
  (chapters 6 and 8 name them at the chosen size); a tap shows it on a phone;
- ``data-args`` on every explorer, the notebook call's arguments; float options written as floats.

And once per build: the explorers go live without ``DecompressionStream`` (ccb-live-inflate.js), and
say so where nothing can inflate them; without JavaScript every figure fits a phone; over many random
states (the page's own controls driving the page's own runtime) no text leaves the figure at 390
px, no legend covers a curve at 688 px, and curves of one colour differ in their dash.
"""

from __future__ import annotations

import json
import math
import pathlib
import random
import re

import nbformat
import pytest
from live_support import READ_CONTROLS_JS, STATIC, live_body, text_of

from ccb_helpers.live.build import explorer_call, module_name

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _explorer_pages() -> dict[str, list]:
    """``{page: [(explorer class, args, kwargs)]}`` for every chapter notebook with an explorer cell."""
    found = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        calls = [explorer_call(c.source) for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        calls = [c for c in calls if c is not None]
        if calls:
            found[f"notebooks/{path.stem}"] = calls
    return found


EXPLORER_PAGES = _explorer_pages()
per_page = pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xdist_group(f"site-{n}"), id=n.split("/")[1][:2]) for n in EXPLORER_PAGES],
)
pytestmark = pytest.mark.browser


# -- colours ---------------------------------------------------------------------------------------

# Contrast of what is drawn against what lies behind it: the first ancestor with a background colour
# (or the SVG paper behind a text: a label box), WCAG 2 relative luminance.
CONTRAST_JS = r"""root => {
  const rgb = c => { const m = /rgba?\(([^)]+)\)/.exec(c); if (!m) return null; const v = m[1].split(',').map(parseFloat);
                     return v.length > 3 && v[3] === 0 ? null : v.slice(0, 3); };
  const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const behind = el => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c) return c; }
                         return [255, 255, 255]; };
  const ground = behind(root.querySelector('.ccb-live-figure'));
  const out = {texts: [], strokes: [], html: []};
  for (const t of root.querySelectorAll('svg.ccb-live-svg text')) {
    if (!t.textContent.trim() || t.closest('.ccb-live-cursor')) continue;
    const fill = rgb(getComputedStyle(t).fill);
    if (!fill) continue;
    // A node's label sits on its disc (the disc's colour is its background, chosen with it).
    let back = ground;
    if (t.classList.contains('ccb-live-node-label')) continue;
    out.texts.push([t.textContent.slice(0, 24), ratio(fill, back)]);
  }
  for (const p of root.querySelectorAll('svg.ccb-live-svg path, svg.ccb-live-svg line')) {
    const s = rgb(getComputedStyle(p).stroke);
    if (!s || p.closest('.ccb-live-cursor')) continue;
    if (lum(s) < lum([90, 90, 90])) out.strokes.push([p.tagName, ratio(s, ground)]);  // the dark (black) curves
  }
  for (const e of root.querySelectorAll('.ccb-live-readout, .ccb-live-control label, .ccb-live-number')) {
    out.html.push([e.textContent.slice(0, 16) || e.value, ratio(rgb(getComputedStyle(e).color), behind(e))]);
  }
  return out;
}"""

MODE_JS = """mode => { document.documentElement.dataset.theme = mode; document.documentElement.dataset.mode = mode;
  return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r()))); }"""


@per_page
def test_both_colour_modes_keep_the_figure_readable(live_site_page, name):
    site = live_site_page(name)
    page = site.page
    button = page.locator(".theme-switch-button").first
    assert button.count() == 1, "the theme's colour-mode button"
    original = page.evaluate("() => [document.documentElement.dataset.theme, document.documentElement.dataset.mode]")
    try:
        for mode in ("dark", "light"):
            # What the theme's button sets (pydata-sphinx-theme: html[data-theme], html[data-mode]).
            page.evaluate(MODE_JS, mode)
            assert page.evaluate("() => document.documentElement.dataset.theme") == mode
            for root in page.locator("[data-explorer]").element_handles():
                found = page.evaluate(CONTRAST_JS, root)
                low = [t for t in found["texts"] if t[1] < 4.5]
                assert found["texts"] and low == [], (mode, low[:5])
                assert [s for s in found["strokes"] if s[1] < 3] == [], (mode, found["strokes"][:5])
                assert [h for h in found["html"] if h[1] < 4.5] == [], (mode, found["html"][:5])
    finally:
        page.evaluate(MODE_JS, original[0] or "light")
        page.evaluate("m => { document.documentElement.dataset.mode = m; }", original[1] or "")


# -- screen readers --------------------------------------------------------------------------------

ARIA_JS = r"""root => ({
  svgs: Array.from(root.querySelectorAll('svg[role="img"]')).map(s => s.getAttribute('aria-label') || ''),
  described: Array.from(root.querySelectorAll('svg[role="img"]')).map(s => {
    const id = s.getAttribute('aria-describedby'); return !!(id && document.getElementById(id)); }),
  sliders: Array.from(root.querySelectorAll('input[type=range][data-control]')).map(i => ({
    name: i.getAttribute('data-control'), text: i.getAttribute('aria-valuetext'), value: i.value,
    label: !!document.querySelector(`label[for="${i.id}"]`),
    shown: (i.parentElement.querySelector('.ccb-live-number') || i.parentElement.querySelector('output') || {}).value
           || (i.parentElement.querySelector('output') || {}).textContent})),
  fields: Array.from(root.querySelectorAll('.ccb-live-number')).map(f => f.getAttribute('aria-label') || ''),
})"""


@per_page
def test_screen_readers_get_names_and_values(live_site_page, name):
    site = live_site_page(name)
    page = site.page
    for root in page.locator("[data-explorer]").element_handles():
        found = page.evaluate(ARIA_JS, root)
        assert found["svgs"] and all(label.startswith("图：") and len(label) > 4 for label in found["svgs"]), found
        assert all(found["described"]), "the figure is described by the readout"
        for slider in found["sliders"]:
            # What the reader sees next to the slider is what a screen reader says: "102", "2 GiB".
            assert slider["label"] and slider["text"] and slider["text"] == slider["shown"], slider
        assert all(label.endswith("（输入数值）") for label in found["fields"]), found["fields"]
    alts = page.evaluate("() => Array.from(document.querySelectorAll('article img')).map(i => i.getAttribute('alt'))")
    generic = [a for a in alts if not a or a == "图（由代码生成）" or len(a) < 6]
    assert alts and generic == [], generic[:5]


# -- touch -----------------------------------------------------------------------------------------


def _named_values(control: dict) -> list:
    """The values a chapter names for a numeric slider: its default, its ends, and every power of
    two (a size) or power of ten (a log slider) in between."""
    if control.get("log_base"):
        lo, hi = control["values"][0], control["values"][-1]
        decades = [10.0**e for e in range(math.ceil(math.log10(lo)), math.floor(math.log10(hi)) + 1)]
        return [control["default"], lo, hi, *decades]
    values = [control["default"], control["min"], control["max"]]
    if control["widget"] == "IntSlider" and control["max"] >= 64:
        values += [
            2**e for e in range(0, 31) if control["min"] <= 2**e <= control["max"] and 2**e % control["step"] == 0
        ]
    return values


def _landing(control: dict, value):
    """Where a typed ``value`` must land: itself (on the grid) or the log slider's nearest position."""
    if control.get("log_base"):
        return min(control["values"], key=lambda v: abs(math.log(v) - math.log(value)))
    return value


@per_page
def test_the_values_a_chapter_names_are_reachable_by_touch(live_site_page, name):
    site = live_site_page(name, mobile=True)
    page = site.page
    for root in page.locator("[data-explorer]").element_handles():
        controls = page.evaluate("r => r.ccbLive.exported.controls", root)
        for control in [c for c in controls if c["kind"] == "range"]:
            field = page.locator(f'[data-explorer] [data-control-field="{control["name"]}"]').first
            if field.is_disabled():
                continue
            field.scroll_into_view_if_needed()
            box = field.bounding_box()
            assert box["height"] >= 36 and box["x"] >= 0 and box["x"] + box["width"] <= 390, (control["name"], box)
            for value in _named_values(control):
                if page.evaluate(f"r => r.ccbLive.specs['{control['name']}'].disabled", root):
                    break
                box = field.bounding_box()
                page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                field.select_text()
                page.keyboard.type(repr(value) if isinstance(value, float) else str(value))
                page.keyboard.press("Enter")
                raw = page.evaluate(READ_CONTROLS_JS, root)[control["name"]]
                expected = _landing(control, value)
                got = float(raw) if control.get("log_base") or control["widget"] == "FloatSlider" else int(raw)
                assert got == expected, (name, control["name"], value, raw, expected)
        page.evaluate("r => r.ccbLive.reset()", root)


# -- one redraw per action -------------------------------------------------------------------------


@per_page
def test_one_redraw_per_action(live_site_page, name):
    site = live_site_page(name)
    page = site.page
    count = "r => r.ccbLive.updates"
    for root in page.locator("[data-explorer]").element_handles():
        for control in page.evaluate("r => r.ccbLive.exported.controls", root):
            handle = root.query_selector(f'[data-control="{control["name"]}"]')
            if handle.is_disabled():
                continue
            before = page.evaluate(count, root)
            if control["kind"] == "checkbox":
                handle.click()
            elif handle.evaluate("e => e.tagName") == "SELECT":
                options = handle.evaluate("s => s.options.length")
                if options < 2:
                    continue
                handle.select_option(index=(handle.evaluate("s => s.selectedIndex") + 1) % options)
            else:
                handle.focus()
                at_max = handle.evaluate("i => +i.value >= +i.max")
                page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")  # "input" and "change" both fire
            assert page.evaluate(count, root) == before + 1, (name, control["name"])
            field = root.query_selector(f'[data-control-field="{control["name"]}"]')
            if field is not None and not field.is_disabled():
                before = page.evaluate(count, root)
                field.focus()
                page.keyboard.press("Enter")  # the value shown, typed again: no change, no redraw
                assert page.evaluate(count, root) == before, (name, control["name"], "same value redrew")
        page.evaluate("r => r.ccbLive.reset()", root)


# -- the crosshair ----------------------------------------------------------------------------------

# Points at data x of panel `panel` (its first line's point nearest `fraction` of the plot's width)
# with the mouse and returns what the box says.
POINT_JS = r"""([root, panel, dataX]) => {
  const live = root.ccbLive, layout = CCBLive.layoutOf(live.figure), geo = layout.panels[panel];
  const px = geo.sx(dataX), py = (geo.y0 + geo.y1) / 2;
  const r = layout.svg.getBoundingClientRect(), k = r.width / layout.width;
  return {x: r.left + px * k, y: r.top + py * k};
}"""
TIP_JS = """r => { const t = r.querySelector('.ccb-live-tip'); return t && !t.hidden ?
  Array.from(t.querySelectorAll('.ccb-live-tip-row')).map(row => row.textContent) : null; }"""


def _point(page, root, panel: int, x) -> list[str] | None:
    spot = page.evaluate(POINT_JS, [root, panel, x])
    page.mouse.move(spot["x"] - 30, spot["y"])
    page.mouse.move(spot["x"], spot["y"])
    page.wait_for_function(
        "r => { const t = r.querySelector('.ccb-live-tip'); return t && !t.hidden; }", arg=root, timeout=3000
    )
    return page.evaluate(TIP_JS, root)


@per_page
def test_the_crosshair_reads_the_plotted_numbers(live_site_page, name):
    site = live_site_page(name)
    page = site.page
    for root in page.locator("[data-explorer]").element_handles():
        root.scroll_into_view_if_needed()
        panels = page.evaluate(
            """r => CCBLive.layoutOf(r.ccbLive.figure).panels.map(g => ({
                 xs: (g.panel.series || []).filter(s => ['line', 'step', 'scatter', 'bar'].includes(s.kind))
                       .flatMap(s => s.x).filter(v => typeof v === 'number')}))""",
            root,
        )
        read = 0
        for i, panel in enumerate(panels):
            if not panel["xs"]:
                continue
            rows = _point(page, root, i, panel["xs"][len(panel["xs"]) // 2])
            assert rows and not any(bad in " ".join(rows) for bad in ("NaN", "undefined", "—")), rows
            read += 1
        assert read, "no panel read"
    explorer = EXPLORER_PAGES[name][0][0]
    root = page.locator("[data-explorer]").first.element_handle()
    readout = page.evaluate("r => r.querySelector('[data-readout]').innerText", root)
    values = {k: v for k, v in page.evaluate(READ_CONTROLS_JS, root).items()}
    if explorer == "NcclExplorer":  # at the chosen size: NCCL's pick and its estimate, as the readout says
        pick, estimate = re.search(r"模型选 (\S+)，估计 ([\d.]+ \S+?)；", readout).groups()
        rows = _point(page, root, 0, 2.0 ** int(values["log2_m"]))
        assert f"NCCL 的选择 {pick}：{estimate}" in rows, (rows, readout)
    if explorer == "MPIResultExplorer":  # at the chosen size: measured, model, bound, as the readout says
        rows = _point(page, root, 0, float(values["m"]))
        for what in ("实测", "模型", "下界"):
            value = re.search(rf"{what} ([\d.]+ \S+?)[，；]", readout).group(1)
            assert f"{what}：{value}" in rows, (what, rows, readout)
    page.mouse.move(0, 0)


@per_page
def test_a_tap_on_the_figure_reads_it_on_a_phone(live_site_page, name):
    site = live_site_page(name, mobile=True)
    page = site.page
    figure = page.locator("[data-explorer] .ccb-live-figure").first
    figure.scroll_into_view_if_needed()
    layout = page.evaluate(
        """f => { const l = CCBLive.layoutOf(f), r = l.svg.getBoundingClientRect(), k = r.width / l.width;
           const g = l.panels.find(g => !g.panel.graph) || l.panels[0];
           const s = (g.panel.series || []).find(s => ['line', 'step', 'scatter', 'bar'].includes(s.kind) && s.x.length);
           const node = g.panel.graph && g.panel.graph.nodes[0];
           const px = s ? g.sx(s.x[Math.floor(s.x.length / 2)]) : g.sx(node.x), py = node && !s ? g.sy(node.y) : (g.y0 + g.y1) / 2;
           return {x: r.left + px * k, y: r.top + py * k}; }""",
        figure.element_handle(),
    )
    page.touchscreen.tap(layout["x"], layout["y"])
    tip = page.locator("[data-explorer] .ccb-live-tip").first
    tip.wait_for(state="visible", timeout=3000)
    box = tip.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box


# -- the DOM contract -------------------------------------------------------------------------------


@per_page
def test_data_args_are_the_calls_and_floats_stay_floats(live_site_page, name):
    site = live_site_page(name)
    page = site.page
    roots = page.locator("[data-explorer]")
    calls = EXPLORER_PAGES[name]
    assert roots.count() == len(calls)
    for i, (explorer, args, _kwargs) in enumerate(calls):
        root = roots.nth(i)
        assert root.get_attribute("data-explorer") == explorer
        assert root.get_attribute("data-args") is not None
        shown = json.loads(root.get_attribute("data-args"))
        assert len(shown) == len(args) and all(
            a == b or (isinstance(a, str) and a.endswith(b.split("/")[-1])) for a, b in zip(shown, args)
        ), (shown, args)
        controls = root.evaluate("r => r.ccbLive.exported.controls")
        for control in controls:
            if control.get("floats") or control["widget"] in ("FloatSlider", "FloatLogSlider"):
                raw = root.locator(f'[data-control="{control["name"]}"]').get_attribute("data-value")
                assert raw is not None and ("." in raw or "e" in raw or raw in ("inf", "nan")), (control["name"], raw)
                assert repr(float(raw)) == raw, (control["name"], raw)  # Python's repr of a float


# -- once per build ---------------------------------------------------------------------------------


def _gzip_page() -> str:
    """A chapter whose explorer's data are embedded gzip-compressed (inflated by the page)."""
    for page in EXPLORER_PAGES:
        html = (ROOT / "_build" / "html" / f"{page}.html").read_text(encoding="utf-8")
        if '"encoding":"gzip+base64"' in html:
            return page
    pytest.fail("no explorer's data are compressed: the no-DecompressionStream path is not exercised")


NO_STREAMS_JS = "delete window.DecompressionStream; delete window.CompressionStream;"
NO_INFLATER_JS = NO_STREAMS_JS + (
    "Object.defineProperty(window, 'CCBLiveInflate', {configurable: false, get: () => undefined, set: () => {}});"
)


@pytest.mark.xdist_group("site-once")
def test_without_decompression_stream_the_explorers_go_live_or_say_why(page_pool, site_server, reader_site):
    name = _gzip_page()
    page = page_pool.borrow({"width": 1280, "height": 900})
    try:
        page.add_init_script(NO_STREAMS_JS)
        page.goto(f"{site_server}/{name}.html", wait_until="load")
        assert page.evaluate("typeof DecompressionStream") == "undefined"
        page.wait_for_function("window.CCBLive && CCBLive.instances.length >= 1", timeout=30_000)
        page.evaluate("async () => { await CCBLive.ready; }")
        roots = page.locator("[data-explorer]").count()
        assert page.evaluate("CCBLive.instances.length") == roots
        assert page.locator(".ccb-live-failure").count() == 0
        # The same readout as Python's explorer with the notebook's arguments (inflated by ccb-live-inflate.js).
        explorer, args, kwargs = EXPLORER_PAGES[name][0]
        import ccb_helpers as ccb

        with getattr(ccb, explorer)(*args, **kwargs) as e:
            assert text_of(page.locator("[data-readout]").first.inner_html()) == text_of(e.readout.value)
    finally:
        page.context.close()  # not given back: its init script would stay with the page
    page = page_pool.borrow({"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        page.add_init_script(NO_INFLATER_JS)
        page.goto(f"{site_server}/{name}.html", wait_until="load")
        page.wait_for_function("window.CCBLive && document.querySelector('.ccb-live-failure')", timeout=30_000)
        note = page.locator(".ccb-live-failure").first
        assert note.is_visible() and "静态图" in note.inner_text() and "JupyterLab / Colab" in note.inner_text()
        png = page.locator("[data-explorer]").first.locator("xpath=..").locator("img").first
        assert png.is_visible() and png.bounding_box()["width"] <= 390
    finally:
        page.context.close()  # not given back: its init script would stay with the page


@pytest.mark.xdist_group("site-once")
def test_without_javascript_every_figure_fits_a_phone(browser, site_server, reader_site):
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 390, "height": 844}, is_mobile=True, device_scale_factor=2
    )
    try:
        page = context.new_page()
        for name in EXPLORER_PAGES:
            page.goto(f"{site_server}/{name}.html", wait_until="load")
            wide = page.evaluate(
                """() => Array.from(document.querySelectorAll('article .cell_output img'))
                     .map(i => [i.getAttribute('src'), i.getBoundingClientRect().right]).filter(([, r]) => r > 390.5)"""
            )
            assert wide == [], (name, wide[:3])
            assert page.locator("article img.ccb-live-png").first.is_visible(), name
    finally:
        context.close()


@pytest.mark.xdist_group("site-once")
def test_the_site_has_its_icon(reader_site):
    html = (reader_site / "intro.html").read_text(encoding="utf-8")
    icon = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert icon and (reader_site / icon.group(1)).is_file(), "a favicon: browsers asked every page for /favicon.ico"


# -- many states through the page's own controls (the harness, no site) ---------------------------

STATES_JS = r"""async ([bodies, counts, seed]) => {
  let s = seed; const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const out = {};
  for (const [name, body] of Object.entries(bodies)) {
    const problems = [];
    for (const width of [390, 688]) {
      const host = document.createElement('div'); host.style.width = width + 'px'; document.body.appendChild(host);
      const root = document.createElement('div'); root.className = 'ccb-live'; root.setAttribute('data-explorer', name);
      const script = document.createElement('script'); script.type = 'application/json'; script.className = 'ccb-live-data';
      script.textContent = JSON.stringify(body); root.appendChild(script); host.appendChild(root);
      const live = await CCBLive.mount(root); live.width = width;
      for (let i = 0; i < counts[name]; i++) {
        const inputs = Array.from(root.querySelectorAll('[data-control]')).filter(c => !c.disabled);
        const c = inputs[Math.floor(rnd() * inputs.length)];
        if (c.type === 'checkbox') c.click();
        else if (c.tagName === 'SELECT') { c.selectedIndex = Math.floor(rnd() * c.options.length); c.dispatchEvent(new Event('change')); }
        else { c.value = String(+c.min + Math.round(rnd() * (+c.max - +c.min) / (+c.step || 1)) * (+c.step || 1)); c.dispatchEvent(new Event('change')); }
        live.draw();
        const svg = root.querySelector('svg.ccb-live-svg'), box = svg.getBoundingClientRect();
        const state = JSON.stringify(live.state);
        if (width < 600) {  // a phone: no text leaves the figure
          for (const t of svg.querySelectorAll('text')) {
            const b = t.getBoundingClientRect();
            if (t.textContent.trim() && (b.left < box.left - 0.5 || b.right > box.right + 0.5))
              problems.push(['clipped', width, t.textContent.slice(0, 30), state]);
          }
          continue;
        }
        for (const g of svg.querySelectorAll('.ccb-live-panel')) {
          // legend entries a reader tells apart without colour: no two alike in colour, dash and marker,
          // and the entries of one family ("Ring/LL", "Ring/LL128", "Ring/Simple") differ in their dash
          const entries = Array.from(g.querySelectorAll('.ccb-live-legend-entry')).map(e => ({
            label: e.textContent, look: [e.dataset.color, e.dataset.dash, e.dataset.marker, e.dataset.kind].join('|'),
            dash: e.dataset.dash, family: e.textContent.includes('/') ? e.textContent.split('/')[0] : null }));
          const looks = new Set(), dashes = {};
          for (const e of entries) {
            if (looks.has(e.look)) problems.push(['look alike', width, e.label, state]);
            looks.add(e.look);
            if (e.family) { dashes[e.family] = dashes[e.family] || new Set();
              if (dashes[e.family].has(e.dash)) problems.push(['same dash in a family', width, e.label, state]);
              dashes[e.family].add(e.dash); }
          }
          // a legend inside the plot covers no curve
          const legend = g.querySelector('.ccb-live-legend:not(.ccb-live-legend-below) > rect');
          if (legend) {
            const lb = legend.getBBox();
            for (const p of g.querySelectorAll('g[clip-path] path')) {
              if (p.getAttribute('fill') !== 'none') continue;
              const n = p.getTotalLength();
              for (let d = 0; d <= n; d += 5) { const q = p.getPointAtLength(d);
                if (q.x > lb.x && q.x < lb.x + lb.width && q.y > lb.y && q.y < lb.y + lb.height) { problems.push(['legend', width, state]); d = n + 1; } }
            }
          }
        }
      }
      host.remove();
    }
    out[name] = problems;
  }
  return out;
}"""


def test_many_states_keep_text_inside_legends_off_curves(live_harness):
    """Over random states reached through the page's own controls: at 390 px no text of the figure
    is clipped (AlgorithmExplorer's title in 33 of 150 states, NcclExplorer's title and pick label in
    43 of 150 were); at 688 px a legend inside the plot covers no curve (AlgorithmExplorer's did)."""
    import importlib

    bodies, counts = {}, {}
    for calls in EXPLORER_PAGES.values():
        for explorer, args, _kwargs in calls:
            module = importlib.import_module(f"ccb_helpers.live.{module_name(explorer)}")
            data = module.export(*[str(ROOT / "notebooks" / a) if isinstance(a, str) and "/" in a else a for a in args])
            bodies[explorer] = live_body(explorer, data)
            counts[explorer] = 100 if explorer in ("AlgorithmExplorer", "NcclExplorer") else 30
    found = live_harness.evaluate(STATES_JS, [bodies, counts, 43])
    problems = {name: p[:3] for name, p in found.items() if p}
    assert problems == {}, problems


def test_tick_labels_have_one_format_per_axis_and_dashes_differ(live_harness):
    labels = live_harness.evaluate(
        "() => [[0, 0.5, 1, 1.5, 2], [0, 250000, 500000, 750000, 1000000], [0, 2, 4, 6]].map(v => CCBLive.tickLabels(v).map(t => t[1]))"
    )
    assert labels == [
        ["0.0", "0.5", "1.0", "1.5", "2.0"],
        ["0", "250\u2009000", "500\u2009000", "750\u2009000", "1\u2009000\u2009000"],
        ["0", "2", "4", "6"],
    ]
    dashes = live_harness.evaluate("() => ['dashed', 'dotted', 'dashdot', true, false].map(CCBLive.dashArray)")
    assert len(set(dashes[:3])) == 3 and dashes[3] == dashes[0] and dashes[4] is None


def test_the_javascript_inflater_equals_zlib(live_harness):
    """ccb-live-inflate.js (the path without DecompressionStream) against Python's gzip on random data."""
    import base64
    import gzip

    rng = random.Random(7)
    cases = [b"", b"a" * 100_000, bytes(range(256)) * 64, json.dumps({"x": list(range(5000))}).encode()]
    cases += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 5000))) for _ in range(6)]
    cases += ["中文的读数 ≥ 9 px".encode() * 300]
    payloads = [(base64.b64encode(gzip.compress(c, level)).decode(), len(c)) for c in cases for level in (1, 9)]
    got = live_harness.evaluate(
        """cases => cases.map(([b64]) => { const bin = atob(b64), bytes = new Uint8Array(bin.length);
             for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
             const out = CCBLiveInflate.gunzip(bytes); let s = ''; for (const b of out) s += String.fromCharCode(b); return btoa(s); })""",
        payloads,
    )
    expected = [base64.b64encode(c).decode() for c in cases for _level in (1, 9)]
    assert got == expected
    assert (STATIC / "ccb-live-inflate.js").stat().st_size < 12_000
