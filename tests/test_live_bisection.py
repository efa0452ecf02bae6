"""Chapter 5's live explorer (BisectionExplorer) on the static site: the page equals Python.

Key numbers are derived here independently of the export: both bounds from the library's public
functions on a topology built here (ring / torus / fat-tree with its oversubscription, 1:1 where
the factor cannot be built), not from the explorer's state.
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

import ccb_helpers as ccb
from ccb_helpers.explorers import BisectionExplorer
from ccb_helpers.explorers.bisection import bisection_state
from ccb_helpers.live.bisection_explorer import export
from ccb_helpers.live.build import live_html

PAGE = "notebooks/05_bisection"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = pytest.mark.xdist_group(f"site-{PAGE}")
NAME = "BisectionExplorer"
M, BETA = 2**30, 50e9


def _topology(family, size, factor):
    if family != "fat_tree":
        return ccb.family_instance(family, size)
    try:
        return ccb.fat_tree(size, oversubscription=factor)
    except ValueError:  # e.g. 4:1 with 2 hosts per leaf
        return ccb.fat_tree(size)


def _expected(state) -> dict:
    topo = _topology(state["family"], state["size"], state["oversubscription"])
    return {
        "n": topo.n,
        "bisection": ccb.bisection_lower_bound(state["primitive"], topo, M, BETA),
        "node": ccb.node_lower_bound(state["primitive"], topo, M, BETA, ports=max(topo.degree, 1)),
        "cut": topo.bisection_links,
    }


KEY_NUMBERS_JS = """f => { const [g, c] = f.panels; const s = c.series;
  return {n: s[2].x[0], bisection: s[2].y[0], node: s[3].y[0],
          cut: +/切断 (\\d+) 条链路/.exec(g.title)[1]}; }"""


def _random_states(rng, count):
    states = []
    for _ in range(count):
        family = rng.choice(list(BisectionExplorer.SIZES))
        lo, hi, _ = BisectionExplorer.SIZES[family]
        states.append(
            {
                "family": family,
                "size": rng.randint(lo, hi),
                "primitive": rng.choice(list(ccb.PRIMITIVES)),
                "oversubscription": rng.choice([1.0, 2.0, 4.0]),
            }
        )
    return states


@pytest.fixture(scope="module")
def exported():
    return export()


def test_export_has_the_python_controls(exported):
    with BisectionExplorer() as e:
        controls = {c["name"]: c for c in exported["controls"]}
        assert list(controls) == list(e.controls)
        for name, widget in e.controls.items():
            assert controls[name]["default"] == widget.value and controls[name]["disabled"] == widget.disabled
    assert exported["data"]["sizes"] == {f: list(v) for f, v in BisectionExplorer.SIZES.items()}
    assert len(live_html(NAME, [], {}, exported).encode()) < 1_000_000  # what the page carries (gzip + base64)


def test_refresh_shows_the_pure_state():
    """refresh() returns bisection_state's readout: the page (built from it) and Jupyter cannot disagree."""
    with BisectionExplorer() as e:
        for values in [
            {"family": "fat_tree", "oversubscription": 4.0, "size": 4},
            {"primitive": "all_reduce"},
            {"family": "ring", "size": 48},
            {"family": "mesh2d", "primitive": "scatter"},
        ]:
            e.update(**values)
            assert e.readout.value.replace(' style="line-height:0"', "") == bisection_state(**e.values)["readout"]


@pytest.mark.browser
def test_page_evaluate_equals_python_on_1000_random_states(live_harness, exported):
    rng = random.Random(5)
    states = _random_states(rng, 1000) + [
        {"family": "fat_tree", "size": 4, "primitive": "all_to_all", "oversubscription": 4.0},
        {"family": "ring", "size": 48, "primitive": "broadcast", "oversubscription": 2.0},
    ]
    body = json.loads(live_html(NAME, [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0])
    got = live_harness.evaluate(
        f"""async ([body, states]) => {{
        const exported = await CCBLive.inflate(body); const textOf = {TEXT_OF_JS}; const keys = {KEY_NUMBERS_JS};
        return states.map(s => {{ const r = CCBLive.evaluate('{NAME}', exported.data, s);
                                 return [textOf(r.readout), keys(r.figure)]; }}); }}""",
        [body, states],
    )
    for state, (text, numbers) in zip(states, got):
        assert text == text_of(bisection_state(**state)["readout"]), state
        expected = _expected(state)
        assert numbers["n"] == expected["n"] and numbers["bisection"] == expected["bisection"], state
        assert numbers["node"] == expected["node"], state
        assert numbers["cut"] == expected["cut"], state  # the links the drawn cut crosses: the closed form's


# -- the built site ---------------------------------------------------------------------------------


def _shown(page, handle):
    return page.evaluate(f"r => ({TEXT_OF_JS})(r.querySelector('[data-readout]').innerHTML)", handle)


@pytest.mark.browser
def test_live_on_the_site_follows_a_drag_through_20_states(live_site_page):
    site = live_site_page(PAGE)
    page = site.page
    root = page.locator(f'[data-explorer="{NAME}"]')
    assert root.count() == 1
    handle = root.element_handle()
    default_svg = page.evaluate("r => r.querySelector('svg').outerHTML", handle)
    defaults = {"family": "torus2d", "size": 4, "primitive": "all_to_all", "oversubscription": 1.0}
    read = lambda: {k: python_value(v, defaults[k]) for k, v in page.evaluate(READ_CONTROLS_JS, handle).items()}  # noqa: E731
    assert read() == defaults
    assert page.evaluate("r => r.querySelector('[data-control=oversubscription]').disabled", handle)
    rng = random.Random(20)
    families = list(BisectionExplorer.SIZES)
    for i in range(21):
        name = ["family", "size", "primitive", "oversubscription"][i % 4]
        values = read()
        if name == "family":
            target = families[i % len(families)]
        elif name == "size":
            lo, hi, _ = BisectionExplorer.SIZES[values["family"]]
            target = rng.randint(lo, hi)
        elif name == "primitive":
            target = rng.choice(list(ccb.PRIMITIVES))
        else:
            if values["family"] != "fat_tree":
                page.evaluate(SET_CONTROL_JS, [handle, "family", "fat_tree"])
            target = rng.choice([0, 1, 2])  # the option's index (its values are floats)
        page.evaluate(SET_CONTROL_JS, [handle, name, str(target) if name == "oversubscription" else target])
        values = read()
        if name == "family":  # the size jumps to the family's default and the factor greys out elsewhere
            assert values["size"] == BisectionExplorer.SIZES[target][2]
            assert page.evaluate("r => r.querySelector('[data-control=oversubscription]').disabled", handle) == (
                target != "fat_tree"
            )
        elif name == "oversubscription":
            assert values[name] == [1.0, 2.0, 4.0][target]
        else:
            assert values[name] == target
        assert _shown(page, handle) == text_of(bisection_state(**values)["readout"]), values
        # the cut is drawn: one disc per endpoint, red links across the cut, both bounds marked at N
        drawn = page.evaluate(
            """r => { const [g, c] = r.querySelectorAll('.ccb-live-panel');
            return {discs: g.querySelectorAll('circle').length, red: g.querySelectorAll('[stroke="#d62728"]').length,
                    marks: c.querySelectorAll('circle').length}; }""",
            handle,
        )
        topo = _topology(values["family"], values["size"], values["oversubscription"])
        assert drawn["discs"] == topo.n and drawn["red"] > 0 and drawn["marks"] >= 2, (values, drawn)
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != default_svg
    with BisectionExplorer(**values) as e:  # the DOM contract: ccb.BisectionExplorer(**values).readout
        assert text_of(e.readout.value) == _shown(page, handle)
    assert site.errors == [] and site.external == [] and site.failed == []


@pytest.mark.browser
def test_live_on_a_phone_fits_and_follows_touch(live_site_page):
    site = live_site_page(PAGE, mobile=True)
    page = site.page
    root = page.locator(f'[data-explorer="{NAME}"]')
    root.scroll_into_view_if_needed()
    handle = root.element_handle()
    sizes = page.evaluate(
        """r => ({scroll: r.scrollWidth, width: r.getBoundingClientRect().width,
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
    box = page.locator(f'[data-explorer="{NAME}"] [data-control="size"]').bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    size = int(page.evaluate("r => r.querySelector('[data-control=size]').value", handle))
    assert size >= 8, f"a tap at 90 % of the size slider (2 ... 10) gave {size}"
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != before
    assert _shown(page, handle) == text_of(bisection_state("torus2d", size, "all_to_all", 1.0)["readout"])
    assert site.errors == [] and site.external == []


@pytest.mark.browser
def test_every_hypercube_node_has_its_own_place_live_and_in_the_png(live_harness, exported):
    """Issue #43: at d = 3, 5, 6, 7 two hypercube nodes were drawn at one point (live and PNG)."""
    states = [
        {"family": "hypercube", "size": d, "primitive": "all_reduce", "oversubscription": 1.0}
        for d in range(BisectionExplorer.SIZES["hypercube"][0], BisectionExplorer.SIZES["hypercube"][1] + 1)
    ]
    assert {3, 5, 6, 7} <= {s["size"] for s in states}
    drawn = live_harness.evaluate(GRAPH_DISCS_JS, [NAME, live_body(NAME, exported), states, [688, 390]])
    for i, panels in enumerate(drawn):
        d = states[i // 2]["size"]
        assert len(panels[0]) == 2**d and not disc_overlaps(panels[0]), (d, disc_overlaps(panels[0])[:3])
    with BisectionExplorer(**states[0]) as e:
        for state in states:
            e.update(**state)
            discs = png_discs(e.figure, 2 ** state["size"])
            assert not disc_overlaps(discs), state["size"]
