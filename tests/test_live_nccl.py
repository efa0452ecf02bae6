"""Chapter 8's live explorer (NcclExplorer) on the static site: the page equals Python.

The page evaluates NCCL's time model and the bounds from exported coefficients, so this file is
the ">= 1000 random states" comparison of the contract: the pick and the marked point against the
public ``ccb.nccl_vs_bound`` / ``ccb.nccl_predict`` (computed here, not by the export), a random
point of every curve against ``ccb.nccl_predict``'s times, and whole curves against the Jupyter
explorer's ``nccl_state`` -- all exactly (the same floating-point operations in the same order).
"""

from __future__ import annotations

import json
import random

import pytest
from live_support import READ_CONTROLS_JS, SET_CONTROL_JS, TEXT_OF_JS, python_value, text_of

import ccb_helpers as ccb
from ccb_helpers.live.build import live_html
from ccb_helpers.live.nccl_explorer import export, rank_counts
from ccb_helpers.nccl_figures import NCCL_PICK_COLORS, NcclExplorer, _nccl_point, nccl_state

PAGE = "notebooks/08_nccl"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = pytest.mark.xdist_group(f"site-{PAGE}")
NAME = "NcclExplorer"


def _random_states(rng, count):
    states = []
    for _ in range(count):
        preset = rng.choice(list(ccb.NCCL_TOPOLOGIES))
        states.append(
            {
                "preset": preset,
                "n": rng.choice(list(rank_counts(preset))),
                "log2_m": rng.randint(3, 34),
                "efficiency": rng.random() < 0.3,
            }
        )
    return states


FIGURE_JS = """(f, j) => { const p = f.panels[0]; const curves = {};
  p.series.filter(s => s.kind === 'line').forEach(s => { curves[s.label] = s.y; });
  const mark = p.series.find(s => s.kind === 'scatter');
  return {pick: p.texts[0].text.split('，')[0], mark: [mark.x[0], mark.y[0]], ylim: p.ylim,
          point: Object.fromEntries(Object.entries(curves).map(([k, y]) => [k, y[j]])), curves: curves}; }"""


@pytest.fixture(scope="module")
def exported():
    return export()


def test_export_has_the_python_controls(exported):
    with NcclExplorer() as e:
        controls = {c["name"]: c for c in exported["controls"]}
        assert list(controls) == list(e.controls)
        for name, widget in e.controls.items():
            assert controls[name]["default"] == widget.value
    assert set(exported["data"]["communicators"]["dgx_h100"]) == {str(n) for n in range(2, 9)}
    assert len(exported["data"]["communicators"]["ib_h100"]) == 2048 // 8
    assert len(live_html(NAME, [], {}, exported).encode()) < 1_000_000  # what the page carries (gzip + base64)


def test_refresh_shows_the_pure_state():
    with NcclExplorer() as e:
        for values in [{"log2_m": 34, "n": 2}, {"efficiency": True}, {"preset": "ib_h100"}, {"n": 2048, "log2_m": 3}]:
            e.update(**values)
            assert e.readout.value == nccl_state(**e.values)["readout"]


@pytest.mark.browser
def test_page_evaluate_equals_python_on_1000_random_states(live_harness, exported):
    rng = random.Random(8)
    states = _random_states(rng, 1000) + [
        {"preset": "ib_h100", "n": 2048, "log2_m": 34, "efficiency": True},
        {"preset": "dgx_h100", "n": 2, "log2_m": 3, "efficiency": False},
    ]
    sizes = exported["data"]["sizes"]
    probes = [rng.randrange(len(sizes)) for _ in states]
    body = json.loads(live_html(NAME, [], {}, exported).split('class="ccb-live-data">')[1].split("</script>")[0])
    got = live_harness.evaluate(
        f"""async ([body, states, probes]) => {{
        const exported = await CCBLive.inflate(body); const textOf = {TEXT_OF_JS}; const fig = {FIGURE_JS};
        return states.map((s, i) => {{ const r = CCBLive.evaluate('{NAME}', exported.data, s); const f = fig(r.figure, probes[i]);
                                       if (i >= 60) delete f.curves; return [textOf(r.readout), f]; }}); }}""",
        [body, states, probes],
    )
    for i, (state, (text, fig)) in enumerate(zip(states, got)):
        preset, n, log2_m = state["preset"], state["n"], state["log2_m"]
        nodes = 1 if preset == "dgx_h100" else n // 8
        assert text == text_of(_readout(state)), state
        m = 2**log2_m
        r = ccb.nccl_vs_bound("all_reduce", n, nodes, m, preset)
        assert fig["pick"] == r.pick, state
        if state["efficiency"]:
            assert fig["mark"] == [m, 1.0 if r.efficiency is None else r.efficiency], state
        else:
            assert fig["mark"] == [m, r.nccl_time * 1e6], state
        size = sizes[probes[i]]
        predicted = ccb.nccl_predict("all_reduce", n, nodes, size, preset)
        for label, y in fig["point"].items():
            if label in NCCL_PICK_COLORS and not state["efficiency"]:
                key = next(k for k in predicted.times if f"{k}" and _label(k) == label)
                assert y == predicted.times[key] * 1e6, (state, label, size)
        if "curves" in fig:  # whole curves and limits against the Jupyter explorer's own numbers
            python = nccl_state(**state)
            assert fig["ylim"] == list(python["ylim"]), state
            for label, y in python["lines"].items():
                assert fig["curves"][label] == [float(v) for v in y], (state, label)
            if not state["efficiency"]:
                assert fig["curves"]["下界"] == [float(v) for v in python["bound_us"]], state


def _readout(values) -> str:
    """nccl_state(**values)["readout"] without computing its curves (the readout's part of it)."""
    return _nccl_point(values["preset"], values["n"], values["log2_m"])["readout"]


def _label(key) -> str:
    from ccb_helpers.nccl_figures import _label as label

    return label(key)


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
    defaults = {"preset": "dgx_h100", "n": 8, "log2_m": 21, "efficiency": False}  # the notebook's call sets log2_m=21
    read = lambda: {k: python_value(v, defaults[k]) for k, v in page.evaluate(READ_CONTROLS_JS, handle).items()}  # noqa: E731
    assert read() == defaults
    rng = random.Random(22)
    for i in range(20):
        name = ["preset", "n", "log2_m", "efficiency", "n"][i % 5]
        values = read()
        target = {
            "preset": ["ib_h100", "dgx_h100"][(i // 5) % 2],
            "n": rng.choice(list(rank_counts(values["preset"]))),
            "log2_m": rng.randint(3, 34),
            "efficiency": not values["efficiency"],
        }[name]
        page.evaluate(SET_CONTROL_JS, [handle, name, target])
        values = read()
        if name == "preset":  # N jumps to the preset's default: 8 GPUs, or 2 nodes of 8
            assert values["n"] == (8 if target == "dgx_h100" else 16)
        else:
            assert values[name] == target
        assert _shown(page, handle) == text_of(_readout(values)), values
        # a curve per algorithm/protocol NCCL considers (and the two bounds in time mode) and the pick marked
        drawn = page.evaluate(
            "r => ({curves: r.querySelectorAll('.ccb-live-panel path').length, "
            "mark: r.querySelectorAll('.ccb-live-panel circle').length})",
            handle,
        )
        nodes = 1 if values["preset"] == "dgx_h100" else values["n"] // 8
        pairs = len(ccb.nccl_predict("all_reduce", values["n"], nodes, 2**20, values["preset"]).times)
        assert drawn["curves"] == pairs + (0 if values["efficiency"] else 2) and drawn["mark"] >= 1, (values, drawn)
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != default_svg
    with NcclExplorer(**values) as e:  # the DOM contract: ccb.NcclExplorer(**values).readout
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
        fonts: Array.from(r.querySelectorAll('svg text')).map(t => parseFloat(getComputedStyle(t).fontSize))})""",
        handle,
    )
    assert sizes["scroll"] <= 390 and sizes["width"] <= 390
    assert min(sizes["targets"]) >= 32, sizes["targets"]
    assert min(sizes["fonts"]) >= 9
    before = page.evaluate("r => r.querySelector('svg').outerHTML", handle)
    box = page.locator(f'[data-explorer="{NAME}"] [data-control="log2_m"]').bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * 0.95, box["y"] + box["height"] / 2)
    log2_m = int(page.evaluate("r => r.querySelector('[data-control=log2_m]').value", handle))
    assert log2_m >= 32, f"a tap at 95 % of the size slider gave log2 M = {log2_m}"
    assert page.evaluate("r => r.querySelector('svg').outerHTML", handle) != before
    assert _shown(page, handle) == text_of(_readout({"preset": "dgx_h100", "n": 8, "log2_m": log2_m}))
    assert site.errors == [] and site.external == []
