"""Chapter 2's live explorer (TopologyExplorer) on the static site: the page equals Python.

Every reachable state (family x size x k, about 900) is evaluated in the page in one call, which
covers more than 1000 random draws would; the numbers are compared with the library's (diameter
of the graph, ceil(log_{p+1} N) by repeated multiplication, minimum broadcast rounds).
"""

from __future__ import annotations

import json
import random

import pytest
from live_support import (
    GRAPH_DISCS_JS,
    READ_CONTROLS_JS,
    SET_CONTROL_JS,
    TEXT_OF_JS,
    disc_overlaps,
    live_body,
    png_discs,
    python_value,
    text_of,
)

from ccb_helpers.broadcast import broadcast_steps
from ccb_helpers.diameter import family_instance
from ccb_helpers.explorers import TopologyExplorer
from ccb_helpers.explorers.topology import SIZES, readout_html
from ccb_helpers.live.build import live_html
from ccb_helpers.live.topology_explorer import export

PAGE = "notebooks/02_topology_diameter"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = pytest.mark.xdist_group(f"site-{PAGE}")


def _rounds(n: int, p: int) -> int:
    t, reach = 0, 1
    while reach < n:
        t, reach = t + 1, reach * (p + 1)
    return t


def _states():
    return [
        {"family": f, "size": s, "k": k}
        for f, (lo, hi, _) in SIZES.items()
        for s in range(lo, hi + 1)
        for k in range(1, 7)
    ]


def _expected_numbers(family: str, size: int, k: int) -> dict:
    topo = family_instance(family, size)
    try:
        broadcast = broadcast_steps(topo, k=k)
    except ValueError:
        broadcast = None
    vertices = topo.graph.number_of_nodes()
    return {
        "bars": [topo.step_diameter, _rounds(topo.n, max(1, min(k, topo.degree))), broadcast or 0],
        "labels": [
            str(topo.step_diameter),
            str(_rounds(topo.n, max(1, min(k, topo.degree)))),
            "未知" if broadcast is None else str(broadcast),
        ],
        "nodes": vertices,
    }


KEY_NUMBERS_JS = """f => { const [drawing, bars] = f.panels;
  return {bars: bars.series.map(s => s.y[0]), labels: bars.texts.map(t => t.text), nodes: drawing.graph.nodes.length}; }"""


@pytest.fixture(scope="module")
def exported():
    return export()


def test_export_has_the_python_controls_and_ranges(exported):
    with TopologyExplorer() as e:
        controls = {c["name"]: c for c in exported["controls"]}
        assert [o[1] for o in controls["family"]["options"]] == list(
            e.controls["family"].options[i][1] for i in range(len(e.controls["family"].options))
        )
        assert (controls["k"]["min"], controls["k"]["max"]) == (e.controls["k"].min, e.controls["k"].max)
        for family, (lo, hi, default) in SIZES.items():  # what the page's adjust gives the size slider
            e.update(family=family)
            assert (e.controls["size"].min, e.controls["size"].max, e.controls["size"].value) == (lo, hi, default)
            assert exported["data"]["sizes"][family] == [lo, hi, default]


def test_the_explorer_shows_the_pure_readout():
    with TopologyExplorer(family="ring", size=12, k=1) as e:
        for values in [
            {"family": "hypercube"},
            {"family": "fat_tree", "size": 64, "k": 6},
            {"family": "torus3d", "size": 5},
        ]:
            e.update(**values)
            assert text_of(e.readout.value) == text_of(readout_html(**e.values)), e.values


@pytest.mark.browser
def test_page_evaluate_equals_python_on_every_state(live_harness, exported):
    states = _states()
    assert len(states) > 800
    body = json.loads(
        live_html("TopologyExplorer", [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0]
    )
    got = live_harness.evaluate(
        f"""async ([body, states]) => {{
        const exported = await CCBLive.inflate(body); const textOf = {TEXT_OF_JS}; const keys = {KEY_NUMBERS_JS};
        return states.map(s => {{ const r = CCBLive.evaluate('TopologyExplorer', exported.data, s);
                                 return [textOf(r.readout), keys(r.figure)]; }}); }}""",
        [body, states],
    )
    for state, (text, numbers) in zip(states, got):
        assert text == text_of(readout_html(**state)), state
        assert numbers == _expected_numbers(**state), state


@pytest.mark.browser
def test_live_on_the_site_follows_20_states(live_site_page):
    site = live_site_page(PAGE)
    page = site.page
    root = page.locator('[data-explorer="TopologyExplorer"]')
    assert root.count() == 1
    handle = root.element_handle()
    default_svg = page.evaluate("r => r.querySelector('svg').outerHTML", handle)
    defaults = {"family": "ring", "size": 12, "k": 1}
    read = lambda: {k: python_value(v, defaults[k]) for k, v in page.evaluate(READ_CONTROLS_JS, handle).items()}  # noqa: E731
    assert read() == defaults
    rng = random.Random(2)
    for i in range(20):
        name = ["family", "size", "k"][i % 3]
        before = read()
        lo, hi, _ = SIZES[before["family"]]
        target = {"family": rng.choice(list(SIZES)), "size": rng.randint(lo, hi), "k": rng.randint(1, 6)}[name]
        page.evaluate(SET_CONTROL_JS, [handle, name, target])
        values = read()
        assert values[name] == target
        lo, hi, default = SIZES[values["family"]]
        assert page.evaluate(
            "r => [+r.querySelector('[data-control=size]').min, +r.querySelector('[data-control=size]').max]", handle
        ) == [lo, hi]
        if name == "family" and target == before["family"]:  # no change, no adjustment (as ipywidgets)
            assert values == before
        elif name == "family":
            assert values["size"] == default  # _adjust: the family's default size
        shown = page.evaluate(f"r => ({TEXT_OF_JS})(r.querySelector('[data-readout]').innerHTML)", handle)
        assert shown == text_of(readout_html(**values)), values
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != default_svg
    with TopologyExplorer(**values) as e:
        assert text_of(e.readout.value) == shown
    assert (site.errors, site.external, site.failed) == ([], [], [])


@pytest.mark.browser
def test_live_on_a_phone_fits_and_follows_touch(live_site_page):
    site = live_site_page(PAGE, mobile=True)
    page = site.page
    root = page.locator('[data-explorer="TopologyExplorer"]')
    root.scroll_into_view_if_needed()
    handle = root.element_handle()
    sizes = page.evaluate(
        """r => ({scroll: r.scrollWidth, width: r.getBoundingClientRect().width,
        targets: Array.from(r.querySelectorAll('[data-control]')).map(c => Math.min(c.getBoundingClientRect().height, c.getBoundingClientRect().width)),
        fonts: Array.from(r.querySelectorAll('svg text')).map(t => parseFloat(getComputedStyle(t).fontSize))})""",
        handle,
    )
    assert sizes["scroll"] <= 390 and sizes["width"] <= 390
    assert min(sizes["targets"]) >= 32, sizes["targets"]
    assert min(sizes["fonts"]) >= 9
    before = page.evaluate("r => r.querySelector('svg').outerHTML", handle)
    box = page.locator('[data-explorer="TopologyExplorer"] [data-control="size"]').bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * 0.95, box["y"] + box["height"] / 2)
    size = int(page.evaluate("r => r.querySelector('[data-control=size]').value", handle))
    assert size > 40, f"a tap at 95 % of the size slider (ring: 3..48) gave {size}"
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != before
    shown = page.evaluate(f"r => ({TEXT_OF_JS})(r.querySelector('[data-readout]').innerHTML)", handle)
    assert shown == text_of(readout_html("ring", size, 1))
    assert (site.errors, site.external) == ([], [])


@pytest.mark.browser
def test_every_hypercube_node_has_its_own_place_live_and_in_the_png(live_harness, exported):
    """Issue #43: the 3-cube drew nodes 2 and 5 both at the centre (7 discs for N = 8), and the 5-,
    6- and 7-cubes hid nodes too. Now N discs, none covering another, on the page at desktop and
    phone width and in the explorer's PNG."""
    states = [{"family": "hypercube", "size": d, "k": 1} for d in range(1, 8)]
    drawn = live_harness.evaluate(
        GRAPH_DISCS_JS, ["TopologyExplorer", live_body("TopologyExplorer", exported), states, [688, 390]]
    )
    for i, panels in enumerate(drawn):
        d = states[i // 2]["size"]
        assert len(panels[0]) == 2**d and not disc_overlaps(panels[0]), (d, disc_overlaps(panels[0])[:3])
    with TopologyExplorer(family="hypercube", size=3) as e:
        for d in range(1, 8):
            e.update(size=d)
            discs = png_discs(e.figure, 2**d)
            assert len({(round(x), round(y)) for x, y, _ in discs}) == 2**d and not disc_overlaps(discs), d
