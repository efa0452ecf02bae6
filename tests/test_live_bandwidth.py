"""Chapter 3's live BandwidthExplorer: the page's JavaScript against Python (issue #25)."""

from __future__ import annotations

import random

import pytest
from live_compare import check_drags_on_site, check_phone, compare, evaluate_all
from live_support import python_value, text_of

import ccb_helpers as ccb
from ccb_helpers.explorers.bandwidth import bandwidth_frame
from ccb_helpers.live.bandwidth_explorer import export

STATES = 1000
PAGE = "notebooks/03_bandwidth"
# Every check of the chapter page on one worker, with the site's and the phone's checks of it:
# they read one load of the page per width (tests/conftest.py: site_page, #44).
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group(f"site-{PAGE}")]
DEFAULTS = {"primitive": "all_reduce", "n": 8, "k": 1, "m": 2.0**30, "beta_gbps": 100.0}  # the chapter's call


def typed(raw: dict) -> dict:
    return {name: python_value(value, DEFAULTS[name]) for name, value in raw.items()}


def expected_text(values: dict) -> str:
    return text_of(bandwidth_frame(**values).readout)


def python_text(values: dict) -> str:
    with ccb.BandwidthExplorer(**values) as e:
        return text_of(e.readout.value)


@pytest.fixture(scope="module")
def exported():
    return export()


def random_states(controls: list[dict], count: int, seed: int) -> list[dict]:
    """Random control values drawn from the exported controls (every option, position and value)."""
    rng = random.Random(seed)
    by_name = {c["name"]: c for c in controls}
    states = []
    for _ in range(count):
        state = {}
        for name, c in by_name.items():
            if c["kind"] == "select":
                state[name] = rng.choice(c["options"])[1]
            elif c["kind"] == "checkbox":
                state[name] = rng.random() < 0.5
            elif "values" in c:
                state[name] = rng.choice(c["values"])
            else:
                state[name] = rng.randint(c["min"], c["max"])
        states.append(state)
    return states


def test_export_matches_the_explorer_controls(exported):
    names = [c["name"] for c in exported["controls"]]
    assert names == ["primitive", "n", "k", "m", "beta_gbps"]
    assert exported["data"]["primitives"]["all_gather"]["send"][8 - 2] == 7 / 8  # (N-1)/N, by hand
    assert exported["data"]["primitives"]["broadcast"]["roles"][0][0][10] == 1.0  # the root sends M


def test_random_states_equal_python(live_harness, exported):
    states = random_states(exported["controls"], STATES, seed=3)
    # Extremes the random draw may miss: both ends of every range.
    states += [
        dict(states[0], n=2, k=8, m=2.0**10, beta_gbps=1.0),
        dict(states[1], n=256, k=1, m=2.0**34, beta_gbps=1000.0),
    ]
    results = evaluate_all(live_harness, "BandwidthExplorer", exported["data"], states)
    assert not live_harness.errors
    compare(results, states, bandwidth_frame, text_of)


def test_the_frame_is_what_the_explorer_shows(exported):
    for state in random_states(exported["controls"], 5, seed=4):
        with ccb.BandwidthExplorer(**state) as e:
            assert text_of(e.readout.value) == text_of(bandwidth_frame(**state).readout)


def test_live_on_the_site_follows_a_drag_through_20_states(live_site_page):
    check_drags_on_site(live_site_page(PAGE), "BandwidthExplorer", typed, expected_text, python_text, seed=21)


def test_live_on_a_phone_fits_and_follows_touch(live_site_page):
    check_phone(live_site_page(PAGE, mobile=True), "BandwidthExplorer", "n", typed, expected_text)
