"""Shared test configuration: hypothesis profile, and the fixtures every expensive test shares.

One ``pytest`` runs on two workers (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject.toml);
what is expensive is made once and shared:

* ``browser`` — one headless Chromium per worker (session scope), for every browser test, and
  ``page_pool`` — its pages, lent to the tests and taken back clean (``tests/_site.py: PagePool``):
  a page navigated anew costs far less than a new one;
* ``reader_site`` / ``site_server`` — the reader's edition built by README command 1
  (``_build/html``) and one local HTTP server for it; ``site_page(name, width)`` — a page of it
  loaded once (every non-local request recorded, console errors recorded) and shared by every
  read-only check of that page and width. A test that clicks, scrolls or navigates opens its
  own page with ``open_site_page`` instead;
* ``student_site`` — the student edition (``tools/build_student_site.py``) built once per source
  state: cached in ``_build/test-cache/`` under a hash of everything the build reads, and built
  under a file lock, so parallel workers and later runs reuse one build.

Tests that share a page or a built edition carry ``pytest.mark.xdist_group`` marks (one group per
site page; nbval notebooks and the student edition's checks get theirs from the root
conftest.py), so one worker runs the whole group and the shared object is made once.
``pytest -m "not slow"`` leaves out what needs a browser, a built site, nbgrader, mpiexec or a
notebook kernel (the editing loop, about a minute).
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import os
import pathlib
import shutil

import matplotlib
import pytest
from _site import LIVE_READY_JS, PHONE, PHONE_VIEWPORT, LoadedPage, PagePool, chromium, require, serve
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parents[1]

settings.register_profile(
    "book",
    max_examples=int(os.environ.get("CCB_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    # Under CI the examples depend only on the test (not on a random seed): a CI run cannot fail
    # by chance on an example that local runs never drew. Locally every run explores new ones.
    derandomize=bool(os.environ.get("CI")),
)
settings.load_profile("book")

# The live explorers' session-wide browser, harness page and site pages (tests/live_support.py).
# (``live_browser`` is this file's: the one Chromium of the worker.)
from live_support import live_harness  # noqa: E402, F401

# Markers (slow) and xdist groups are set by the repository's root conftest.py, for every path.


# ---------------------------------------------------------------------------------------------
# The browser and the reader's edition

SITE = ROOT / "_build" / "html"


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium (Debian's, with the book's CJK font) for every browser test of this worker."""
    with chromium() as b:
        yield b


@pytest.fixture(scope="session")
def page_pool(browser):
    """The worker's Chromium pages, lent and taken back clean (:class:`_site.PagePool`)."""
    pool = PagePool(browser)
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def live_browser(browser):
    """The live explorers' tests (tests/live_support.py) share the same Chromium."""
    return browser


@pytest.fixture(scope="session")
def reader_site():
    """The reader's edition, built by README command 1 into ``_build/html`` (skipped without it)."""
    require((SITE / "intro.html").exists(), "site not built: run `jupyter-book build . -W -n --keep-going` first")
    return SITE


@pytest.fixture(scope="session")
def site_server(reader_site):
    """Base URL of a local server for the reader's edition."""
    with serve(reader_site) as url:
        yield url


@pytest.fixture
def open_site_page(page_pool, site_server):
    """``open_site_page(name, width=1280)``: a fresh page of the reader's edition for a test that
    changes it (clicks, navigates); closed after the test."""
    opened = []

    def open_page(name: str, width: int = 1280) -> LoadedPage:
        loaded = LoadedPage(page_pool, f"{site_server}/{name}.html", width)
        opened.append(loaded)
        return loaded

    yield open_page
    for loaded in opened:
        loaded.close()


# Pages kept open per worker: a page's checks run one after another (one xdist group per page),
# so a few suffice; more would only hold memory.
_KEEP_PAGES = 4
#: The theme's drawers slide (CSS transitions); on the shared phone page they play this many times
#: faster (Chromium's Animation domain: the same transitions to the same end; tests/test_site_phone.py).
PHONE_ANIMATION_RATE = 10


@pytest.fixture(scope="session")
def site_page(page_pool, site_server):
    """``site_page(name, width=1280)``: the page ``name`` of the reader's edition, loaded once per
    width and shared by every check of it -- the site's, the live explorers' and the phone's (#44;
    one xdist group per page, ``site-<name>``). At 390 px it is a phone (touch, 2x; its theme's
    transitions played :data:`PHONE_ANIMATION_RATE` x faster). Returns a :class:`LoadedPage`;
    MathJax has finished typesetting when it returns. A check that changes the page puts back what
    a later reader of it would see (a control it moved, the viewport it resized); one that
    navigates away uses ``open_site_page``."""
    cache: collections.OrderedDict = collections.OrderedDict()

    def get(name: str, width: int = 1280) -> LoadedPage:
        key = (name, width)
        if key in cache:
            cache.move_to_end(key)
            # The page the check reads is the one in front: Chromium stops animation frames in a
            # page another one was opened over (waits polled per frame would never end there).
            cache[key].page.bring_to_front()
            return cache[key]
        while len(cache) >= _KEEP_PAGES:  # first, so that the page given back is the one lent next
            cache.popitem(last=False)[1].close()
        # Settled: typeset, fonts in, ccb.js's re-measure of the tables after MathJax laid out.
        if width <= PHONE_VIEWPORT["width"]:
            loaded = LoadedPage(
                page_pool,
                f"{site_server}/{name}.html",
                width,
                PHONE_VIEWPORT["height"],
                animation_rate=PHONE_ANIMATION_RATE,
                **PHONE,
            )
        else:
            loaded = LoadedPage(page_pool, f"{site_server}/{name}.html", width)
        cache[key] = loaded
        return loaded

    yield get
    for loaded in cache.values():
        loaded.close()


@pytest.fixture(scope="session")
def live_site_page(site_page):
    """``open(name, mobile=False)``: the shared ``site_page`` of ``name`` (1280 px, or the 390 px
    phone) once its live explorers are mounted, each back in the state the page opened with (an
    earlier check may have moved its controls: ``Live.reset``, what reloading the page would do)."""

    def open_page(name: str, mobile: bool = False) -> LoadedPage:
        loaded = site_page(name, PHONE_VIEWPORT["width"] if mobile else 1280)
        loaded.page.wait_for_function("window.CCBLive && CCBLive.instances.length >= 1", timeout=30_000)
        loaded.page.evaluate(LIVE_READY_JS)  # mounted; not CCBLive.ready itself (its value is huge)
        loaded.page.evaluate("() => { for (const live of CCBLive.instances) live.reset(); }")
        return loaded

    return open_page


# ---------------------------------------------------------------------------------------------
# The student edition, built once per state of its sources

CACHE = ROOT / "_build" / "test-cache"


def _student_build_key() -> str:
    """Hash of everything ``tools/build_student_site.py`` reads: the files it copies (the
    repository less its SKIP patterns), the tool itself, and the installed packages' versions."""
    spec = importlib.util.spec_from_file_location("build_student_site_key", ROOT / "tools" / "build_student_site.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    ignore = shutil.ignore_patterns(*tool.SKIP)
    digest = hashlib.sha256()

    def walk(folder: pathlib.Path) -> None:
        names = sorted(os.listdir(folder))
        skipped = ignore(str(folder), names)
        for name in names:
            if name in skipped:
                continue
            path = folder / name
            if path.is_dir() and not path.is_symlink():
                walk(path)
            elif path.is_file():
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")

    walk(ROOT)
    digest.update((ROOT / "tools" / "build_student_site.py").read_bytes())
    versions = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    digest.update("\n".join(versions).encode())
    digest.update(os.environ.get("CCB_PACKAGE_SOURCE", "").encode())
    return digest.hexdigest()[:16]


@contextlib.contextmanager
def _locked(path: pathlib.Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


@pytest.fixture(scope="session")
def student_site(request):
    """The student edition's ``_build/html``: built by ``tools/build_student_site.py`` unless a
    build of the same sources is in ``_build/test-cache/`` (one build shared by workers and runs).

    The key is computed once per test run (the first worker writes it next to the cache, the
    others read it), so a file edited while the run goes on cannot give two workers two builds,
    nor make one worker delete the build another is reading."""
    run = getattr(request.config, "workerinput", {}).get("testrunuid") or f"pid-{os.getpid()}"
    with _locked(CACHE / "student.lock"):
        current = CACHE / "student-run"
        recorded = current.read_text(encoding="utf-8").split() if current.exists() else []
        key = recorded[1] if recorded[:1] == [run] and len(recorded) == 2 else _student_build_key()
        current.write_text(f"{run} {key}\n", encoding="utf-8")
        output = CACHE / f"student-{key}"
        complete = output / "BUILD-COMPLETE"  # written last: a build that was cut short is redone
        if not complete.exists():
            for old in CACHE.glob("student-*"):  # one cached build: the newest sources
                if old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
            spec = importlib.util.spec_from_file_location(
                "build_student_site", ROOT / "tools" / "build_student_site.py"
            )
            tool = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(tool)
            assert tool.main(["--output", str(output)]) == 0, "tools/build_student_site.py failed"
            assert (output / "_build" / "html" / "index.html").exists()
            complete.write_text(key + "\n", encoding="utf-8")
    return output / "_build" / "html"
