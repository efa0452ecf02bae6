"""Shared test configuration: hypothesis profile for this 2-core machine."""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

settings.register_profile(
    "book",
    max_examples=int(os.environ.get("CCB_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("book")

# The live explorers' session-wide browser, harness page and site pages (tests/live_support.py).
from live_support import live_browser, live_harness, live_site_page, live_site_server  # noqa: E402, F401
