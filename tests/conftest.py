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
