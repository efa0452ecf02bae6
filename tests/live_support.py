"""Shared fixtures and helpers of the live-explorer tests (issue #25; tests/test_live_*.py).

Test time matters (the whole suite must stay within 240 s), so everything heavy is shared by the
whole session: the worker's Chromium (``live_browser``, tests/conftest.py), one blank *harness*
page with the runtime and every explorer's script (:func:`live_harness`, where
``CCBLive.evaluate`` is compared with Python on thousands of states in one ``page.evaluate``), and
the site's pages: ``live_site_page`` (tests/conftest.py) is the shared ``site_page`` of the site's
own checks, one load per page and width for all of them (#44).
The built site is not built here: README command 1 builds it before ``pytest`` (as for
tests/test_site.py); without it the site tests skip (fail under CI).
"""

from __future__ import annotations

import html
import json
import os
import pathlib
import re
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
STATIC = ROOT / "ccb_helpers" / "_static" / "live"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

#: Strips tags and collapses whitespace, the DOM contract's text comparison (Python side).
_TAG = re.compile(r"<[^>]+>")


def text_of(readout_html: str) -> str:
    """The text of a readout: tags stripped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(_TAG.sub(" ", readout_html)).split())


#: The same in the page: innerHTML -> text with tags replaced by spaces (a <br> separates lines).
TEXT_OF_JS = (
    "h => { const d = document.createElement('div'); d.innerHTML = h.replace(/<[^>]+>/g, ' '); "
    "return d.textContent.split(/\\s+/).filter(Boolean).join(' '); }"
)


def require(condition: bool, message: str) -> None:
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(message + " (required under CI)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def live_harness(live_browser):
    """A blank page with ``ccb-live.js`` and every explorer script loaded (no site, no network)."""
    page = live_browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_content(
        "<!doctype html><html><head><meta charset='utf-8'></head><body><div id='box' style='width:688px'></div></body></html>"
    )
    from ccb_helpers.live.build import RUNTIME

    for name in RUNTIME:  # as the page loads them
        page.add_script_tag(path=str(STATIC / name))
    for path in sorted(STATIC.glob("*.js")):
        if path.name not in RUNTIME:
            page.add_script_tag(path=str(path))
    page.errors = errors
    yield page
    page.close()


#: Reads the controls of a live explorer by the DOM contract: data-value if present, else value.
READ_CONTROLS_JS = """root => Object.fromEntries(Array.from(root.querySelectorAll('[data-control]')).map(c => {
  const raw = c.hasAttribute('data-value') ? c.getAttribute('data-value') : c.value;
  return [c.getAttribute('data-control'), raw]; }))"""


def python_value(raw: str, kind_of_default):
    """A control's Python value from its DOM string (``data-value`` / ``value``), typed like the default."""
    if isinstance(kind_of_default, bool):
        return json.loads(raw)
    if isinstance(kind_of_default, int):
        return int(raw)
    if isinstance(kind_of_default, float):
        return float(raw)
    return raw


#: Sets a control as a user does: a range input moves through intermediate values with an
#: ``input`` event each (a drag) and a ``change`` at the end; a select or checkbox gets ``change``.
SET_CONTROL_JS = """([root, name, target]) => {
  const c = root.querySelector(`[data-control="${name}"]`);
  if (c.type === 'checkbox') { if (c.checked !== target) c.click(); return; }
  if (c.tagName === 'SELECT') { c.value = target; c.dispatchEvent(new Event('change', {bubbles: true})); return; }
  const from = +c.value, to = +target, steps = 4;
  for (let i = 1; i <= steps; i++) {
    c.value = String(i === steps ? to : from + (to - from) * i / steps);
    c.dispatchEvent(new Event('input', {bubbles: true}));
  }
  c.dispatchEvent(new Event('change', {bubbles: true}));
}"""


# -- drawings of graphs: every node at its own place (issue #43: the hypercube hid nodes) ----------

#: The discs of every graph panel of explorer ``name`` in ``states``, drawn by ccb-live.js at each
#: of ``widths`` px: ``[[[cx, cy, r], ...] per graph panel] per (state, width)`` (node discs only,
#: not the ring around the root). ``body``: the live element's JSON (:func:`live_body`).
GRAPH_DISCS_JS = """async ([name, body, states, widths]) => {
  const exported = await CCBLive.inflate(body);
  const box = document.createElement('div'); document.body.appendChild(box);
  const out = [];
  for (const state of states) for (const width of widths) {
    const figure = CCBLive.evaluate(name, exported.data, state).figure;
    const svg = CCBLive.render(box, figure, width);
    out.push(Array.from(svg.querySelectorAll('g.ccb-live-panel')).map(g =>
      Array.from(g.querySelectorAll('circle')).filter(c => c.getAttribute('fill') !== 'none')
        .map(c => [+c.getAttribute('cx'), +c.getAttribute('cy'), +c.getAttribute('r')]))
      .filter(discs => discs.length));
  }
  box.remove();
  return out; }"""


def live_body(name: str, exported: dict) -> dict:
    """The JSON the live element of ``name`` carries (what the page's runtime inflates)."""
    from ccb_helpers.live.build import live_html

    return json.loads(live_html(name, [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0])


def disc_overlaps(discs) -> list[tuple]:
    """Pairs of discs ``(x, y, r)`` whose centres are closer than their radii's sum: one covers the other."""
    return [
        (a, b)
        for i, a in enumerate(discs)
        for b in discs[i + 1 :]
        if ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 < a[2] + b[2] - 0.5
    ]


def png_discs(figure, count: int) -> list[tuple]:
    """The node discs ``(x, y, r)`` in device pixels of the matplotlib ``figure`` (drawn): the
    offsets of the scatter with ``count`` points, their radius from the marker area (points²)."""
    figure.canvas.draw()
    for ax in figure.axes:
        for collection in ax.collections:
            offsets = collection.get_offsets()
            if len(offsets) == count and len(collection.get_sizes()):
                xy = collection.get_offset_transform().transform(offsets)
                r = (collection.get_sizes()[0] ** 0.5) / 2 * figure.dpi / 72
                return [(float(x), float(y), float(r)) for x, y in xy]
    raise AssertionError(f"no scatter of {count} nodes in the figure")
