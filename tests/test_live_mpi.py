"""Chapter 6's live MPIResultExplorer (on the book's example result): the page's JavaScript against Python (issue #25)."""

from __future__ import annotations

import random

import pytest
from live_compare import check_drags_on_site, check_phone, compare, evaluate_all
from live_support import ROOT, python_value, text_of

import ccb_helpers as ccb
from ccb_helpers.live.mpi_result_explorer import export
from ccb_helpers.mpi.explorer import mpi_frame
from ccb_helpers.mpi.plots import runs_by_pair

RESULT = ROOT / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json"
STATES = 1000
PAGE = "notebooks/06_mpi_runs"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group(f"site-{PAGE}")]
KINDS = {"pair": "", "m": 1, "alpha_us": 1.0, "beta_gbps": 1.0, "ratio": False}


def typed(raw: dict) -> dict:
    return {name: python_value(value, KINDS[name]) for name, value in raw.items()}


def expected_text(values: dict) -> str:
    return text_of(mpi_frame(runs_by_pair(str(RESULT)), 4, **values).readout)


def python_text(values: dict) -> str:
    with ccb.MPIResultExplorer(str(RESULT), **values) as e:
        return text_of(e.readout.value)


@pytest.fixture(scope="module")
def exported():
    return export(str(RESULT))


def random_states(exported: dict, count: int, seed: int) -> list[dict]:
    """Random states a reader can reach: any pair, one of its sizes, any α and β position, either plot."""
    rng = random.Random(seed)
    c = {s["name"]: s for s in exported["controls"]}
    states = []
    for _ in range(count):
        pair = rng.choice(c["pair"]["options"])[1]
        m = rng.choice(exported["data"]["pairs"][pair]["options"])[1]
        states.append(
            {
                "pair": pair,
                "m": m,
                "alpha_us": rng.choice(c["alpha_us"]["values"]),
                "beta_gbps": rng.choice(c["beta_gbps"]["values"]),
                "ratio": rng.random() < 0.5,
            }
        )
    return states


def test_export_holds_the_models_coefficients(exported):
    run = exported["data"]["pairs"]["bruck:all_gather"]["runs"][-1]  # 64 MiB on N = 4
    # Bruck AllGather (by hand): ceil(log2 4) = 2 rounds, (N-1) M / N bytes; the bound's 2 rounds, same bytes.
    assert (run["m"], run["steps"], run["bytes"], run["bound_steps"], run["max_sr"]) == (
        2**26,
        2,
        3 * 2**24,
        2,
        3 * 2**24,
    )


def test_random_states_equal_python(live_harness, exported):
    by_pair, n = runs_by_pair(str(RESULT)), exported["data"]["n"]
    states = random_states(exported, STATES, seed=7)
    results = evaluate_all(live_harness, "MPIResultExplorer", exported["data"], states)
    assert not live_harness.errors
    compare(results, states, lambda **state: mpi_frame(by_pair, n, **state), text_of)


def test_adjust_mirrors_python(live_harness, exported):
    """A new pair brings its own sizes and the nearest to the old size (MPIResultExplorer._adjust)."""
    run = """([data, steps]) => { const impl = CCBLive.registry.MPIResultExplorer; const out = [];
      for (const [value, state] of steps) { const s = Object.assign({}, state); let options = null;
        const controls = {set: (n, props) => { if ('value' in props) s[n] = props.value; if ('options' in props) options = props.options; }};
        s.pair = value; impl.adjust("pair", s, controls, data); out.push([s, options]); }
      return out; }"""
    start = random_states(exported, 6, seed=8)
    pairs = [c for c in exported["controls"] if c["name"] == "pair"][0]["options"]
    steps = [(pairs[i % len(pairs)][1], state) for i, state in enumerate(start)]
    results = live_harness.evaluate(run, [exported["data"], steps])
    e = ccb.MPIResultExplorer(str(RESULT))
    try:
        for (pair, state), (values, options) in zip(steps, results):
            e.update(**state)
            e.controls["pair"].value = pair  # what a reader's control does
            assert values == e.values, (pair, state)
            assert options == [list(o) for o in e.controls["m"].options]
    finally:
        e.close()


def test_live_on_the_site_follows_a_drag_through_20_states(live_site_page):
    check_drags_on_site(
        live_site_page(PAGE),
        "MPIResultExplorer",
        typed,
        expected_text,
        python_text,
        seed=23,
        args=["mpi_sweep_example"],  # the notebook names the shipped example (ccb.MPI_EXAMPLES)
    )


def test_live_on_a_phone_fits_and_follows_touch(live_site_page):
    check_phone(live_site_page(PAGE, mobile=True), "MPIResultExplorer", "beta_gbps", typed, expected_text)
