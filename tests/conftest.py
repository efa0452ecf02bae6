"""Shared test configuration: hypothesis profile for this 2-core machine, the built sites (session fixtures)."""

import importlib.util
import os
import pathlib

import matplotlib
import pytest
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

_ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def reader_site() -> pathlib.Path:
    """The reader's edition as README command 1 built it (``_build/html``); skips (fails under CI) without it."""
    from _site import require

    site = _ROOT / "_build" / "html"
    require((site / "intro.html").exists(), "site not built: run `jupyter-book build . -W -n --keep-going` first")
    return site


@pytest.fixture(scope="session")
def student_site(tmp_path_factory) -> pathlib.Path:
    """The student edition, built once per test run by ``tools/build_student_site.py`` into a scratch folder."""
    spec = importlib.util.spec_from_file_location("build_student_site", _ROOT / "tools" / "build_student_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    output = tmp_path_factory.mktemp("student")
    assert module.main(["--output", str(output)]) == 0
    html_dir = output / "_build" / "html"
    assert (html_dir / "index.html").exists()
    return html_dir
