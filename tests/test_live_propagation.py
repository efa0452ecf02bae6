"""Chapter 1's live explorer (PropagationExplorer) on the static site: the page equals Python.

Expected values are derived here independently of the export: rounds by repeated multiplication,
informed nodes as min(N, (k+1)^t), the readout from the explorer itself.
"""

from __future__ import annotations

import json
import random

import pytest
from live_support import READ_CONTROLS_JS, SET_CONTROL_JS, TEXT_OF_JS, python_value, text_of

from ccb_helpers.explorers import PropagationExplorer
from ccb_helpers.explorers.propagation import readout_html
from ccb_helpers.live.build import live_html
from ccb_helpers.live.propagation_explorer import export

PAGE = "notebooks/01_information_propagation"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = pytest.mark.xdist_group(f"site-{PAGE}")


def _rounds(n: int, k: int) -> int:
    t, reach = 0, 1
    while reach < n:
        t, reach = t + 1, reach * (k + 1)
    return t


def _expected_numbers(n: int, k: int, all_port: bool) -> dict:
    k = n - 1 if all_port else k
    t = _rounds(n, k)
    return {
        "bars": [min(n, (k + 1) ** i) for i in range(t + 1)],
        "ideal": [(k + 1) ** i for i in range(t + 1)],
        "n_line": [n],
        "tree_nodes": n if n <= 64 else 0,
    }


KEY_NUMBERS_JS = """f => { const [left, right] = f.panels; const s = left.series;
  return {bars: s[0].y, ideal: s[1].y, n_line: s[2].y, tree_nodes: right.graph ? right.graph.nodes.length : 0}; }"""


@pytest.fixture(scope="module")
def exported():
    return export()


def test_export_has_the_python_controls(exported):
    e = PropagationExplorer()
    try:
        controls = {c["name"]: c for c in exported["controls"]}
        for name, widget in e.controls.items():
            assert controls[name]["default"] == widget.value and controls[name]["label"] == widget.description
            if hasattr(widget, "min"):
                assert (controls[name]["min"], controls[name]["max"], controls[name]["step"]) == (
                    widget.min,
                    widget.max,
                    widget.step,
                )
    finally:
        e.close()
    assert exported["explorer"] == "PropagationExplorer" and exported["args"] == []


def test_the_explorer_shows_the_pure_readout():
    """refresh() returns readout_html: the page (built from readout_html) and Jupyter cannot disagree."""
    with PropagationExplorer(n=64, k=1) as e:
        for values in [
            {"n": 2},
            {"n": 1024, "k": 8},
            {"all_port": True},
            {"n": 65, "k": 3, "all_port": False},
            {"n": 9, "k": 8},
        ]:
            e.update(**values)
            assert text_of(e.readout.value) == text_of(readout_html(**e.values)), e.values


@pytest.mark.browser
def test_page_evaluate_equals_python_on_1000_random_states(live_harness, exported):
    rng = random.Random(1)
    states = [
        {
            "n": rng.randint(2, 1024) if rng.random() < 0.7 else rng.randint(2, 70),
            "k": rng.randint(1, 8),
            "all_port": rng.random() < 0.25,
        }
        for _ in range(1000)
    ]
    states += [
        {"n": 2, "k": 1, "all_port": False},
        {"n": 1024, "k": 8, "all_port": True},
        {"n": 64, "k": 8, "all_port": False},
    ]
    body = json.loads(
        live_html("PropagationExplorer", [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0]
    )
    got = live_harness.evaluate(
        f"""async ([body, states]) => {{
        const exported = await CCBLive.inflate(body); const textOf = {TEXT_OF_JS}; const keys = {KEY_NUMBERS_JS};
        return states.map(s => {{ const r = CCBLive.evaluate('PropagationExplorer', exported.data, s);
                                 return [textOf(r.readout), keys(r.figure)]; }}); }}""",
        [body, states],
    )
    for state, (text, numbers) in zip(states, got):
        assert text == text_of(readout_html(**state)), state
        assert numbers == _expected_numbers(**state), state


# -- the built site ---------------------------------------------------------------------------------


@pytest.mark.browser
def test_live_on_the_site_follows_a_drag_through_20_states(live_site_page):
    site = live_site_page(PAGE)
    page = site.page
    root = page.locator('[data-explorer="PropagationExplorer"]')
    assert root.count() == 1
    handle = root.element_handle()
    assert page.evaluate(
        "r => r.querySelector('[data-readout]') !== null && r.querySelectorAll('label').length >= 3", handle
    )
    default_svg = page.evaluate("r => r.querySelector('svg').outerHTML", handle)
    assert (
        page.evaluate(
            "r => getComputedStyle(r.closest('.cell_output').querySelector('img.ccb-live-fallback')).display", handle
        )
        == "none"
    )
    defaults = {"n": 64, "k": 1, "all_port": False}
    assert {k: python_value(v, defaults[k]) for k, v in page.evaluate(READ_CONTROLS_JS, handle).items()} == defaults
    rng = random.Random(20)
    for i in range(20):
        name = ["n", "k", "all_port"][i % 3]
        target = {"n": rng.randint(2, 1024), "k": rng.randint(1, 8), "all_port": rng.random() < 0.5}[name]
        page.evaluate(SET_CONTROL_JS, [handle, name, target])
        values = {k: python_value(v, defaults[k]) for k, v in page.evaluate(READ_CONTROLS_JS, handle).items()}
        assert values[name] == target
        shown = page.evaluate(f"r => ({TEXT_OF_JS})(r.querySelector('[data-readout]').innerHTML)", handle)
        assert shown == text_of(readout_html(**values)), values
        assert page.evaluate("r => r.querySelector('[data-control=k]').disabled", handle) == values["all_port"]
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != default_svg
    # A few states through Python's own explorer, as the DOM contract says: ccb.PropagationExplorer(**values).
    with PropagationExplorer(**values) as e:
        assert text_of(e.readout.value) == page.evaluate(
            f"r => ({TEXT_OF_JS})(r.querySelector('[data-readout]').innerHTML)", handle
        )
    assert (site.errors, site.external, site.failed) == ([], [], [])


@pytest.mark.browser
def test_live_on_a_phone_fits_and_follows_touch(live_site_page):
    site = live_site_page(PAGE, mobile=True)
    page = site.page
    root = page.locator('[data-explorer="PropagationExplorer"]')
    root.scroll_into_view_if_needed()
    handle = root.element_handle()
    sizes = page.evaluate(
        """r => ({scroll: r.scrollWidth, width: r.getBoundingClientRect().width, doc: document.documentElement.scrollWidth,
        targets: Array.from(r.querySelectorAll('[data-control]')).map(c => Math.min(c.getBoundingClientRect().height, c.getBoundingClientRect().width)),
        fonts: Array.from(r.querySelectorAll('svg text')).map(t => parseFloat(getComputedStyle(t).fontSize)),
        panels: Array.from(r.querySelectorAll('.ccb-live-panel')).map(g => g.getBBox().y)})""",
        handle,
    )
    assert sizes["scroll"] <= 390 and sizes["width"] <= 390
    assert min(sizes["targets"]) >= 32, sizes["targets"]
    assert min(sizes["fonts"]) >= 9
    assert sizes["panels"][1] > sizes["panels"][0] + 100, "panels not stacked at 390 px"
    before = page.evaluate("r => r.querySelector('svg').outerHTML", handle)
    page.locator('[data-explorer="PropagationExplorer"] [data-control="all_port"]').tap()
    assert page.evaluate("r => r.querySelector('[data-control=all_port]').checked", handle)
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != before
    box = page.locator('[data-explorer="PropagationExplorer"] [data-control="n"]').bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    n = int(page.evaluate("r => r.querySelector('[data-control=n]').value", handle))
    assert n > 700, f"a tap at 90 % of the N slider gave N = {n}"
    shown = page.evaluate(f"r => ({TEXT_OF_JS})(r.querySelector('[data-readout]').innerHTML)", handle)
    assert shown == text_of(readout_html(n, 1, True))
    assert (site.errors, site.external) == ([], [])
