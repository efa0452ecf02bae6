"""Chapter 7's live explorer (SynthesisExplorer) on the static site: the page equals Python.

Key numbers are derived here from the stored schedule itself (``ccb.stored_schedule``): its
rounds R, the chunks of the drawn step counted from the round's transfers, each arrow's capacity
from the topology's parallel links times the step's rounds -- not from the explorer's state.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

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
from ccb_helpers.live.build import live_html
from ccb_helpers.live.synthesis_explorer import export
from ccb_helpers.synthesis_figures import SynthesisExplorer, _explorer_topology, synthesis_state

PAGE = "notebooks/07_synthesis"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = pytest.mark.xdist_group(f"site-{PAGE}")
NAME = "SynthesisExplorer"


def _low(topology):
    return ccb.steps_lower_bound(_explorer_topology(topology), "all_gather")


def _expected(state) -> dict:
    topo = _explorer_topology(state["topology"])
    schedule = ccb.stored_schedule(topo, "all_gather", state["steps"], state["chunks"])
    step = min(state["step"], state["steps"])
    rnd = schedule.rounds[step - 1]
    pairs = {}
    for s, d in zip(rnd.src.tolist(), rnd.dst.tolist()):
        if s != d:
            pairs[s, d] = pairs.get((s, d), 0) + 1
    rounds = int(schedule.algorithm.split("R=")[1].split()[0])
    r_step = schedule.step_rounds[step - 1]
    links = {(u, v): k for u, v, k in topo.graph.edges(data="links", default=1)}
    capacity = sorted(r_step * links.get((u, v), links.get((v, u), 1)) for u, v in pairs)
    return {
        "chunks": sum(pairs.values()),
        "arrows": len(pairs),
        "capacity": capacity,
        "current": [state["steps"], float(Fraction(rounds, state["chunks"]))],
    }


KEY_NUMBERS_JS = """f => { const [g, p] = f.panels; const arrows = g.graph.edges.filter(e => e.arrow);
  return {chunks: arrows.reduce((a, e) => a + e.chunks, 0), arrows: arrows.length,
          capacity: arrows.map(e => e.capacity).sort((a, b) => a - b), current: (s => [s.x[0], s.y[0]])(p.series.find(s => s.hollow))}; }"""


def _random_states(rng, count):
    states = []
    for _ in range(count):
        topology = rng.choice(SynthesisExplorer.TOPOLOGIES)
        steps = _low(topology) + rng.randint(0, 2)
        states.append(
            {"topology": topology, "steps": steps, "chunks": rng.randint(1, 6), "step": rng.randint(1, steps)}
        )
    return states


@pytest.fixture(scope="module")
def exported():
    return export()


def test_export_has_the_python_controls(exported):
    with SynthesisExplorer() as e:
        controls = {c["name"]: c for c in exported["controls"]}
        assert list(controls) == list(e.controls)
        for name, widget in e.controls.items():
            assert controls[name]["default"] == widget.value
    assert {t: d["low"] for t, d in exported["data"]["topologies"].items()} == {
        t: _low(t) for t in SynthesisExplorer.TOPOLOGIES
    }
    assert len(live_html(NAME, [], {}, exported).encode()) < 1_000_000  # what the page carries (gzip + base64)


def test_refresh_shows_the_pure_state():
    with SynthesisExplorer() as e:
        for values in [
            {"topology": "ring 6", "steps": 5, "chunks": 2, "step": 5},
            {"step": 1},
            {"topology": "torus 3x3"},
        ]:
            e.update(**values)
            assert e.readout.value == synthesis_state(**e.values)["readout"]


@pytest.mark.browser
def test_page_evaluate_equals_python_on_1000_random_states(live_harness, exported):
    rng = random.Random(7)
    states = _random_states(rng, 1000)
    body = json.loads(live_html(NAME, [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0])
    got = live_harness.evaluate(
        f"""async ([body, states]) => {{
        const exported = await CCBLive.inflate(body); const textOf = {TEXT_OF_JS}; const keys = {KEY_NUMBERS_JS};
        return states.map(s => {{ const r = CCBLive.evaluate('{NAME}', exported.data, s);
                                 return [textOf(r.readout), keys(r.figure)]; }}); }}""",
        [body, states],
    )
    expected_cache = {}
    for state, (text, numbers) in zip(states, got):
        assert text == text_of(synthesis_state(**state)["readout"]), state
        key = json.dumps(state, sort_keys=True)
        if key not in expected_cache:
            expected_cache[key] = _expected(state)
        assert numbers == expected_cache[key], state


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
    defaults = {"topology": "DGX-1 (V100)", "steps": 3, "chunks": 6, "step": 1}
    read = lambda: {k: python_value(v, defaults[k]) for k, v in page.evaluate(READ_CONTROLS_JS, handle).items()}  # noqa: E731
    assert read() == defaults
    rng = random.Random(21)
    for i in range(20):
        name = ["topology", "steps", "chunks", "step"][i % 4]
        values = read()
        low = _low(values["topology"])
        target = {
            "topology": SynthesisExplorer.TOPOLOGIES[(i // 4) % 4],
            "steps": rng.randint(low, low + 2),
            "chunks": rng.randint(1, 6),
            "step": rng.randint(1, values["steps"]),
        }[name]
        before = values
        page.evaluate(SET_CONTROL_JS, [handle, name, target])
        values = read()
        if name == "topology" and target == before["topology"]:  # no change, no adjustment (as ipywidgets)
            assert values == before
        elif name == "topology":  # steps jump to the topology's bound; the drawn step follows
            assert values["steps"] == _low(target) and values["step"] <= values["steps"]
        else:
            assert values[name] == target
        assert _shown(page, handle) == text_of(synthesis_state(**values)["readout"]), values
        # one arrow head per (sender, receiver) pair of the drawn step, one disc per GPU
        drawn = page.evaluate(
            """r => { const g = r.querySelectorAll('.ccb-live-panel')[0];
            return {heads: g.querySelectorAll('polygon').length, discs: g.querySelectorAll('circle').length}; }""",
            handle,
        )
        state = synthesis_state(**values)
        assert drawn == {"heads": len(state["drawing"]["arrows"]), "discs": len(state["drawing"]["pos"])}, (
            values,
            drawn,
        )
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != default_svg
    with SynthesisExplorer(**values) as e:  # the DOM contract: ccb.SynthesisExplorer(**values).readout
        assert text_of(e.readout.value) == _shown(page, handle)
    assert site.errors == [] and site.external == [] and site.failed == []


@pytest.mark.browser
def test_live_on_a_phone_fits_is_readable_and_follows_touch(live_site_page):
    site = live_site_page(PAGE, mobile=True)
    page = site.page
    root = page.locator(f'[data-explorer="{NAME}"]')
    root.scroll_into_view_if_needed()
    handle = root.element_handle()
    # ring 6, S = 3, C = 1: R = 3, a schedule with links that have room left (labelled chunks/capacity)
    page.evaluate(SET_CONTROL_JS, [handle, "topology", "ring 6"])
    page.evaluate(SET_CONTROL_JS, [handle, "chunks", 1])
    sizes = page.evaluate(
        """r => ({scroll: r.scrollWidth, width: r.getBoundingClientRect().width,
        targets: Array.from(r.querySelectorAll('[data-control]')).map(c => Math.min(c.getBoundingClientRect().height, c.getBoundingClientRect().width)),
        fonts: Array.from(r.querySelectorAll('svg text')).map(t => parseFloat(getComputedStyle(t).fontSize)),
        panels: Array.from(r.querySelectorAll('.ccb-live-panel')).map(g => g.getBBox().y),
        labels: Array.from(r.querySelectorAll('.ccb-live-panel')[0].querySelectorAll('text.ccb-live-edge-label')).map(t => {
          const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })})""",
        handle,
    )
    assert sizes["scroll"] <= 390 and sizes["width"] <= 390
    assert min(sizes["targets"]) >= 32, sizes["targets"]
    assert min(sizes["fonts"]) >= 9
    assert sizes["panels"][1] > sizes["panels"][0] + 100, "panels not stacked at 390 px"
    boxes = sizes["labels"]
    for i, a in enumerate(boxes):  # the chunks/capacity labels of one step do not overlap
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    before = page.evaluate("r => r.querySelector('svg').outerHTML", handle)
    slider = page.locator(f'[data-explorer="{NAME}"] [data-control="step"]')
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * 0.95, box["y"] + box["height"] / 2)
    values = {k: int(v) if k != "topology" else v for k, v in page.evaluate(READ_CONTROLS_JS, handle).items()}
    assert values["step"] == values["steps"], values
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != before
    assert _shown(page, handle) == text_of(synthesis_state(**values)["readout"])
    assert site.errors == [] and site.external == []


@pytest.mark.browser
def test_step_counts_never_overlap_at_phone_and_desktop_width(live_harness, exported):
    """Issue #31 on the page: in every exported step, drawn at a phone's and a desktop's width, no
    chunks/capacity label overlaps another label or a node, and every label is 9 px or larger."""
    body = json.loads(live_html(NAME, [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0])
    states = []
    for key in exported["data"]["steps"]:
        topology, steps, chunks, step = key.rsplit("|", 3)
        states.append({"topology": topology, "steps": int(steps), "chunks": int(chunks), "step": int(step)})
    got = live_harness.evaluate(
        """async ([body, states]) => {
        const exported = await CCBLive.inflate(body); const box = document.getElementById('box'); const out = [];
        for (const width of [358, 688]) {
          box.style.width = width + 'px';
          for (const s of states) {
            const r = CCBLive.evaluate('SynthesisExplorer', exported.data, s);
            const svg = CCBLive.render(box, r.figure, width);
            const panel = svg.querySelectorAll('.ccb-live-panel')[0];
            const rect = e => { const b = e.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; };
            out.push({width, state: s, labels: Array.from(panel.querySelectorAll('text.ccb-live-edge-label')).map(rect),
                      sizes: Array.from(panel.querySelectorAll('text.ccb-live-edge-label')).map(t => parseFloat(getComputedStyle(t).fontSize)),
                      nodes: Array.from(panel.querySelectorAll('circle')).map(c => [+c.getAttribute('cx'), +c.getAttribute('cy'), +c.getAttribute('r')])});
          }
        }
        return out; }""",
        [body, states],
    )
    labelled = 0
    for shot in got:
        boxes, where = shot["labels"], (shot["width"], shot["state"])
        labelled += len(boxes)
        assert all(size >= 9 for size in shot["sizes"]), where
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (where, a, b)
            for x, y, r in shot["nodes"]:  # the box keeps clear of every node disc
                nearest_x, nearest_y = min(max(x, a[0]), a[2]), min(max(y, a[1]), a[3])
                assert (nearest_x - x) ** 2 + (nearest_y - y) ** 2 >= (r - 1) ** 2, (where, a, (x, y, r))
    assert labelled > 300  # the spare links of every step were drawn (and checked)


@pytest.mark.browser
def test_the_3_cube_shows_8_nodes_live_and_in_the_png(live_harness, exported):
    """Issue #43: the synthesized 3-cube drew nodes 2 and 5 at the centre, their labels "2/5" on
    one another. Every step: 8 discs, none covering another, on the page and in the PNG."""
    states = [{"topology": "hypercube 3-d", "steps": 3, "chunks": 1, "step": s} for s in (1, 2, 3)]
    drawn = live_harness.evaluate(
        GRAPH_DISCS_JS, ["SynthesisExplorer", live_body("SynthesisExplorer", exported), states, [688, 390]]
    )
    for panels in drawn:
        assert len(panels[0]) == 8 and not disc_overlaps(panels[0]), disc_overlaps(panels[0])[:3]
    with ccb.SynthesisExplorer(**states[0]) as e:
        assert not disc_overlaps(png_discs(e.figure, 8))
