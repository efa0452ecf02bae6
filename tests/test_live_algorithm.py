"""Chapter 4's live AlgorithmExplorer: the page's JavaScript against Python (issue #25)."""

from __future__ import annotations

import random

import pytest
from live_compare import check_drags_on_site, check_phone, compare, evaluate_all
from live_support import python_value, text_of

import ccb_helpers as ccb
from ccb_helpers.explorers.algorithm import algorithm_frame
from ccb_helpers.live.algorithm_explorer import export

STATES = 1000
PAGE = "notebooks/04_combined_bounds"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group(f"site-{PAGE}")]
KINDS = {
    "preset": "",
    "alpha_us": 1.0,
    "beta_gbps": 1.0,
    "gamma_ps": 1.0,
    "with_gamma": False,
    "primitive": "",
    "n": 1,
    "k": 1,
    "efficiency": False,
}


def typed(raw: dict) -> dict:
    return {name: python_value(value, KINDS[name]) for name, value in raw.items()}


def expected_text(values: dict) -> str:
    return text_of(algorithm_frame(**values).readout)


def python_text(values: dict) -> str:
    with ccb.AlgorithmExplorer(**values) as e:
        return text_of(e.readout.value)


@pytest.fixture(scope="module")
def exported():
    return export()


def random_states(exported: dict, count: int, seed: int) -> list[dict]:
    """Random states a reader can reach: a preset sets α and β (γ is free); "custom" takes any slider position."""
    rng = random.Random(seed)
    c = {s["name"]: s for s in exported["controls"]}
    presets = exported["data"]["presets"]
    states = []
    for _ in range(count):
        preset = rng.choice(c["preset"]["options"])[1]
        if preset == "custom":
            alpha_us, beta_gbps = rng.choice(c["alpha_us"]["values"]), rng.choice(c["beta_gbps"]["values"])
        else:
            alpha_us, beta_gbps = presets[preset]["alpha_us"], presets[preset]["beta_gbps"]
        n = rng.choice([rng.randint(2, 64), rng.randint(2, 1024), 2 ** rng.randint(1, 10)])
        states.append(
            {
                "preset": preset,
                "alpha_us": alpha_us,
                "beta_gbps": beta_gbps,
                "gamma_ps": rng.choice(c["gamma_ps"]["values"]),
                "with_gamma": rng.random() < 0.5,
                "primitive": rng.choice(c["primitive"]["options"])[1],
                "n": n,
                "k": rng.randint(1, 2),
                "efficiency": rng.random() < 0.3,
            }
        )
    return states


def test_export_holds_the_models_coefficients(exported):
    data = exported["data"]
    k2 = data["primitives"]["all_reduce"]["ports"]["2"]
    i = 16 - data["n_min"]
    # Bidirectional ring AllReduce at N = 16 (by hand): 2 floor(N/2) rounds, 2 (N-1)M/(2N) bytes per
    # port, and it adds each of the N - 1 blocks of the reduce-scatter once.
    ring = k2["linear"]["bidirectional_ring"]
    assert (ring["steps"][i], ring["per_byte"][i], ring["reduced"][i]) == (16, 15 / 16, 15 / 16)
    # Double binary tree, 2 ports: 2 (H + C - 1) rounds with H = log2 16 = 4; it adds two chunks a
    # round on its reduce path but one in the last: 2 (H + C - 1) - 1.
    assert (k2["dbt"]["a"][i], k2["dbt"]["b"][i], k2["dbt"]["gaps"][i]) == (2, 6, [])
    assert (k2["dbt"]["ra"][i], k2["dbt"]["rb"][i], k2["dbt"]["rgaps"][i]) == (2, 5, [])
    # Bruck AllReduce, 1 port, N = 12: 2 ceil(log2 12) rounds and 2 (N-1)/N bytes per byte.
    bruck = data["primitives"]["all_reduce"]["ports"]["1"]["linear"]["bruck"]
    assert (bruck["steps"][12 - data["n_min"]], bruck["per_byte"][12 - data["n_min"]]) == (8, 22 / 12)
    # Pipelined chain Reduce, N = 16: N - 2 + s rounds, one segment added a round.
    chain = data["primitives"]["reduce"]["ports"]["1"]["pipelined"]["pipelined_chain"]
    assert (chain["fill"][i], chain["per"][i], chain["added"][i], chain["mul"][i], chain["sub"][i]) == (14, 1, 14, 1, 0)
    # Pipelined binary tree Reduce, 2 ports, N = 16 = 2^4: H = 4, and the last level's one node
    # leaves the last round single: added segments 2 rounds - 1, fill C = 2 (H - 1) - 1.
    tree = data["primitives"]["reduce"]["ports"]["2"]["pipelined"]["pipelined_binary_tree"]
    assert (tree["fill"][i], tree["per"][i], tree["added"][i], tree["mul"][i], tree["sub"][i]) == (3, 1, 5, 2, 1)


def test_random_states_equal_python(live_harness, exported):
    states = random_states(exported, STATES, seed=5)
    states.append(dict(states[0], preset="custom", alpha_us=0.1, beta_gbps=1000.0, n=1024, k=2))
    states.append(dict(states[0], preset="custom", alpha_us=100.0, beta_gbps=1.0, n=2, k=1))
    for primitive in ("all_reduce", "reduce_scatter", "broadcast", "reduce"):  # each with gamma, both port counts
        for k in (1, 2):
            states.append(dict(states[0], primitive=primitive, with_gamma=True, gamma_ps=1000.0, n=48, k=k))
    results = evaluate_all(live_harness, "AlgorithmExplorer", exported["data"], states)
    assert not live_harness.errors
    compare(results, states, algorithm_frame, text_of)


def test_adjust_mirrors_python(live_harness, exported):
    """A preset sets the sliders; a slider moved off the preset switches to custom (as AlgorithmExplorer._adjust)."""
    run = """([data, steps]) => { const impl = CCBLive.registry.AlgorithmExplorer; const out = [];
      for (const [name, value, state] of steps) { const s = Object.assign({}, state);
        const controls = {set: (n, props) => { if ('value' in props) s[n] = props.value; }};
        s[name] = value; impl.adjust(name, s, controls, data); out.push(s); }
      return out; }"""
    start = {
        "preset": "a100_nvlink",
        "alpha_us": exported["data"]["presets"]["a100_nvlink"]["alpha_us"],
        "beta_gbps": exported["data"]["presets"]["a100_nvlink"]["beta_gbps"],
        "gamma_ps": exported["data"]["presets"]["a100_nvlink"]["gamma_ps"],
        "with_gamma": False,
        "primitive": "all_reduce",
        "n": 16,
        "k": 1,
        "efficiency": False,
    }
    steps = [
        ("preset", "ib_ndr", start),
        ("alpha_us", 20.0, start),
        ("preset", "custom", start),
        ("preset", "h100_nvswitch", dict(start, gamma_ps=100.0)),  # a preset with a gamma sets it
        ("gamma_ps", 5.0, start),  # gamma is free: the preset stays
    ]
    results = live_harness.evaluate(run, [exported["data"], steps])
    for (name, value, state), result in zip(steps, results):
        with ccb.AlgorithmExplorer(**state) as e:
            e.controls[name].value = value  # what a reader's control does
            assert result == e.values, (name, value)


def test_live_on_the_site_follows_a_drag_through_20_states(live_site_page):
    check_drags_on_site(live_site_page(PAGE), "AlgorithmExplorer", typed, expected_text, python_text, seed=22)


def test_live_on_a_phone_fits_and_follows_touch(live_site_page):
    check_phone(live_site_page(PAGE, mobile=True), "AlgorithmExplorer", "n", typed, expected_text)


# Each panel's plot area (its clip rectangle) and legend box, in the SVG's px (its viewBox is its width).
_LEGEND_JS = r"""root => Array.from(root.querySelectorAll('svg .ccb-live-panel')).map(g => {
  const box = el => el && ['x', 'y', 'width', 'height'].map(k => parseFloat(el.getAttribute(k)));
  return {plot: box(g.querySelector('clipPath rect')), legend: box(g.querySelector('.ccb-live-legend > rect')),
          svg: root.querySelector('svg').getBoundingClientRect().width};
})"""


def _overlap(a, b) -> float:
    (ax, ay, aw, ah), (bx, by, bw, bh) = a, b
    return max(0.0, min(ax + aw, bx + bw) - max(ax, bx)) * max(0.0, min(ay + ah, by + bh) - max(ay, by))


def test_on_a_phone_the_legend_leaves_the_plot_free(live_site_page):
    # On a 390 px phone the legend drawn in the plot's corner covered a third of its lines (issue #31).
    site = live_site_page(PAGE, mobile=True)
    handle = site.page.locator('[data-explorer="AlgorithmExplorer"]').element_handle()
    for efficiency in (False, True):  # the efficiency plot has its own legend (no bound line)
        box = site.page.locator('[data-explorer="AlgorithmExplorer"] [data-control="efficiency"]')
        if box.is_checked() != efficiency:
            box.tap()
        panels = site.page.evaluate(_LEGEND_JS, handle)
        assert len(panels) == 1 and panels[0]["legend"] is not None, panels
        panel = panels[0]
        assert panel["svg"] <= 390, panel
        assert _overlap(panel["plot"], panel["legend"]) == 0, panel
        assert panel["legend"][0] + panel["legend"][2] <= panel["svg"] + 0.5, panel  # and it fits the width
    assert site.errors == [] and site.external == []
