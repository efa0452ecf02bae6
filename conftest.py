"""Test-run wide rules, for every path pytest is given (tests/, ccb_helpers/ doctests, notebooks/).

Here, not in tests/conftest.py, because a conftest only acts on the folder it sits in: run as
``pytest notebooks/01_information_propagation.ipynb``, the notebook's cells must still stay on one
xdist worker (they share one kernel). The fixtures the tests share are in tests/conftest.py.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

# ---------------------------------------------------------------------------------------------
# Compiled bytecode is cached even under PYTHONDONTWRITEBYTECODE (issue #30)
#
# With that variable set (some shells and container images set it), no process of the run wrote a
# .pyc: every pytest process recompiled ccb_helpers and re-did pytest's assertion rewriting of
# every test module at collection (7.6 CPU-s per process instead of 3.5), and every MPI rank,
# notebook kernel and graded submission recompiled the package before its first line of work.
# The test run writes the caches where Python puts them by default (`__pycache__/`, ignored by
# git); the processes it starts keep the variable and read them.
sys.dont_write_bytecode = False

# ---------------------------------------------------------------------------------------------
# Markers and grouping for pytest-xdist

# Test files whose every test is slow: a browser, a built edition, nbgrader, mpiexec or a
# subprocess per test. `pytest -m "not slow"` leaves them out (with the notebooks under nbval).
# The ipywidgets explorers (a figure rendered per update), the fuzzer and the live explorers'
# exports count too: seconds per test, run them by file while working on them.
# (test_site.py: some of its tests ask for an edition through request.getfixturevalue.)
SLOW_FILES = {
    "test_assignments.py",
    "test_mpi.py",
    "test_mpi_methodology.py",
    "test_site.py",
    "test_site_phone.py",
    "test_explorers.py",
    "test_fuzz.py",
    "test_jupyterlab.py",
}
# Fixtures that mean a browser or a built edition.
SLOW_FIXTURES = {"browser", "live_browser", "reader_site", "student_site", "site_page", "open_site_page"}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "slow: needs a browser, a built site, nbgrader, mpiexec or a notebook kernel "
        "(deselect with -m 'not slow' while editing)",
    )


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks into the node ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        path = pathlib.Path(str(item.fspath))
        if path.suffix == ".ipynb":
            # nbval runs a notebook's cells in order in one kernel: the whole notebook on one worker.
            item.add_marker(pytest.mark.xdist_group(f"nbval-{path.stem}"))
            item.add_marker(pytest.mark.slow)
        elif (
            path.name in SLOW_FILES
            or path.name.startswith("test_live_")
            or SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
            or item.get_closest_marker("browser")
        ):
            item.add_marker(pytest.mark.slow)
        if "student_site" in getattr(item, "fixturenames", ()):
            # One worker builds (or finds in the cache) the student edition and runs its checks.
            item.add_marker(pytest.mark.xdist_group("student-site"))
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        for item in items:
            _suffix_group(item)


def _suffix_group(item) -> None:
    """Give a grouped test the ``@group`` node id suffix that ``--dist loadgroup`` schedules by.

    pytest-xdist 3.8.0 writes the suffix into ``item._nodeid``, which pytest 9.2's structured node
    ids no longer read: every group was silently scattered over the workers, the nbval notebooks'
    cells too (pytest-xdist issue #1386). Until xdist's fix is released the suffix is set here, on
    pytest's ``NodeId``; xdist's own hook (after this one) then changes nothing that counts, and
    once it works again a doubled ``@group@group`` still names the same group (the last ``@``)."""
    groups = sorted(
        {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
    )
    nodeid = item.nodeid
    if not groups or nodeid.rfind("@") > nodeid.rfind("]"):
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2: xdist's ``_nodeid`` suffix works
        return
    item._id = NodeId.parse(f"{nodeid}@{'_'.join(groups)}")


def pytest_runtest_teardown(item, nextitem):
    # A doctest that draws leaves its figures open in pyplot's registry (the reader's notebook
    # shows them; the doctest has no `plt.close`): close them, or a worker holds every doctest's
    # figures to the end and matplotlib warns about more than 20 open figures.
    if type(item).__name__ == "DoctestItem":
        import sys

        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close("all")
