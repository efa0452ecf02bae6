"""The built site on a phone (390 x 844, mobile, touch) and a tablet (768 px), both editions, every page.

What a reader found on a phone and no desktop test could: pages wider than the screen (a
``white-space: nowrap`` span around a long inline code made the home page 964 px wide), so the
browser laid the drawers out in the wider page (the page TOC opened at x = 614, off-screen; the
chapter menu's links started below the screen; search panned sideways), and the page TOC drawer
stayed open over the section a tapped entry led to. On every page, at both widths:

- ``document.scrollingElement.scrollWidth`` is at most the viewport width;
- each drawer — chapter menu, page TOC (where the page has one), search — opened by a tap lies
  inside the viewport, and its first link (the search field) is visible inside it;
- header buttons are tap targets of at least 44 x 44 CSS px and a tap leaves no tooltip open.

And on a chapter: a tapped page-TOC entry closes the drawer and shows its section. At 390 px,
every figure of every chapter (static PNG and live explorer SVG) lies inside the screen with no
box scrolling sideways, and its smallest text, measured, is at least 9 CSS px.
One browser per worker. The reader's edition is checked page by page on the one 390 px phone load
each page has for all its checks (tests/conftest.py ``site_page``, shared with the site's and the
live explorers' checks, #44), then at 768 px by resizing it; the student edition in one pass over
every page (:func:`phone_pass`): each page loaded once as a phone, the same checks on that load.
"""

from __future__ import annotations

import contextlib
import pathlib

import pytest
from _site import LIVE_READY_JS, PHONE, listen, serve, settle, site_pages, watch_requests

VIEWPORTS = {390: {"width": 390, "height": 844}, 768: {"width": 768, "height": 1024}}
CHAPTER = "notebooks/05_bisection.html"

# Everything one page reports, measured after MathJax has typeset (formulas change line widths).
_WIDTH_JS = r"""() => {
  const vw = document.documentElement.clientWidth, sw = document.scrollingElement.scrollWidth;
  let widest = null;
  if (sw > vw) {  // name the culprit: the outermost element reaching past the right edge
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.right > vw + 1 && r.width > 0 && getComputedStyle(el).position !== 'fixed') {
        let p = el.parentElement, clipped = false;
        while (p && p !== document.body) { const o = getComputedStyle(p).overflowX; if (o !== 'visible') { clipped = true; break; } p = p.parentElement; }
        if (!clipped) { widest = el.tagName.toLowerCase() + '.' + el.className + ' ' + (el.textContent || '').trim().slice(0, 40) + ' right=' + Math.round(r.right); }
      }
    }
  }
  return {vw, sw, widest};
}"""

# Where a tap on a header button lands: the centre of the first button Playwright would call visible
# (a non-empty box, not visibility: hidden), once that point hits the button -- what Playwright's
# tap() waits for before it taps (a drawer that was just closed slides out over the header for a
# moment), polled in the page for at most 3 s, in one round trip. onTop false: still covered.
_BUTTON_JS = r"""async (selector) => {
  const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
  const start = performance.now();
  for (;;) {
    const b = Array.from(document.querySelectorAll(selector)).find(b => {
      const r = b.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(b).visibility !== 'hidden'; });
    if (!b) return null;
    const r = b.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    const onTop = !!hit && (hit === b || b.contains(hit));
    if (onTop || performance.now() - start > 3000) return {x, y, onTop};
    await frame();
  }
}"""

# After a tap: wait (at most 3 s) until the dialog is open, then until the transitions and animations
# running inside it have ended (a drawer that slides in) and one more frame is laid out; measure the
# dialog and its first link; close it, and wait until what runs in the page has ended (the sidebar
# slides back out over the header; a tap during that slide can be lost, as Playwright's tap() knew
# by waiting until the next button was stable and reachable). One round trip; null if it did not open.
_DRAWER_JS = r"""async ([selector, firstSelector]) => {
  const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
  const start = performance.now();
  let d = document.querySelector(selector);
  while (!(d && d.open)) {
    if (performance.now() - start > 3000) return null;
    await frame();
    d = document.querySelector(selector);
  }
  await frame();  // a transition starts on the frame after the change that triggers it
  const running = d.getAnimations({subtree: true}).filter(a => a.effect && isFinite(a.effect.getComputedTiming().endTime));
  await Promise.race([Promise.all(running.map(a => a.finished.catch(() => null))),
                      new Promise(resolve => setTimeout(resolve, 3000))]);
  await frame();
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const r = d.getBoundingClientRect();
  const first = Array.from(d.querySelectorAll(firstSelector)).find(a => a.getClientRects().length);
  const f = first ? first.getBoundingClientRect() : null;
  const hit = f ? document.elementFromPoint(f.x + Math.min(8, f.width / 2), f.y + f.height / 2) : null;
  const box = {open: d.open, left: r.left, right: r.right, top: r.top, width: r.width, vw, vh,
               first: f && {left: f.left, right: f.right, top: f.top, bottom: f.bottom, onTop: !!hit && (hit === first || first.contains(hit) || hit.contains(first))}};
  d.close();
  await frame();
  const closing = document.getAnimations().filter(a => a.effect && isFinite(a.effect.getComputedTiming().endTime));
  await Promise.race([Promise.all(closing.map(a => a.finished.catch(() => null))),
                      new Promise(resolve => setTimeout(resolve, 3000))]);
  await frame();
  return box;
}"""

_HEADER_JS = r"""() => Array.from(document.querySelectorAll('.bd-header button, .bd-header-article button, .bd-header-article a.btn'))
  .filter(b => b.getClientRects().length && getComputedStyle(b).visibility !== 'hidden')
  .map(b => { const r = b.getBoundingClientRect(); return {label: b.getAttribute('aria-label') || b.getAttribute('title') || b.className,
                                                         w: Math.round(r.width), h: Math.round(r.height)}; })"""

DRAWERS = [  # (name, button, dialog, its first link)
    ("chapter menu", "button.primary-toggle", "#pst-primary-sidebar-modal", "a[href]"),
    ("page TOC", "button.secondary-toggle", "#pst-secondary-sidebar-modal", "a[href]"),
    ("search", "button.search-button__button", "#pst-search-dialog", "input"),
]


# One xdist group per edition: the tests of an edition share its server and its phone pass
# (:func:`phone_pass`), so one worker runs them all and the pass is made once.
EDITIONS = [
    pytest.param(name, marks=pytest.mark.xdist_group(f"phone-{name}"), id=name) for name in ("reader", "student")
]
per_edition = pytest.mark.parametrize("edition", EDITIONS, indirect=True)
# The student edition's pass loads its pages itself; the reader's edition is checked page by page
# on the loads the site's and the live explorers' checks share (#44: tests/conftest.py site_page,
# one xdist group per page): the same checks, on the one 390 px phone load of each page.
STUDENT = pytest.mark.parametrize(
    "edition", [pytest.param("student", marks=pytest.mark.xdist_group("phone-student"), id="student")], indirect=True
)
ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = sorted(f"notebooks/{p.stem}" for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
READER_PAGES = ["intro", "bibliography", *CHAPTERS, "search"]


@pytest.fixture(scope="module")
def edition(request, page_pool):  # conftest.py: the worker's Chromium pages, and each edition built once
    site = request.getfixturevalue(f"{request.param}_site")
    with serve(site) as url:
        yield request.param, site, url, page_pool


# The theme's drawers slide in and out (CSS transitions); the checks wait for every transition to
# finish and then measure where the drawer is. Played 10x faster (Chromium's Animation domain, the
# same transitions to the same end), a phone pass spent 24-29 s instead of 34-36 s per edition,
# most of it waiting idle for frames (2026-12-05, A/B with the same tree CPU): what is checked is
# where the drawer ends and that a tap opens and closes it, not how long it slides.
_ANIMATION_PLAYBACK_RATE = 10


def _tab(pool, width: int):
    """A phone page borrowed from the worker's pool, its transitions played faster (give it back
    with ``pool.give_back``): ``(page, external, errors)``."""
    page = pool.borrow(VIEWPORTS[width], animation_rate=_ANIMATION_PLAYBACK_RATE, **PHONE)
    errors: list[str] = []
    listen(page, "pageerror", lambda exc: errors.append(str(exc)))
    external, _failed = watch_requests(page)  # recorded, not intercepted: nothing a reader gets is blocked
    return page, external, errors


def _open(page, url: str) -> None:
    page.goto(url, wait_until="load")  # the theme wires its drawer buttons on load
    settle(page)  # MathJax typeset (formulas change line widths), fonts in, layout done


def _visible_button(page, selector: str):
    buttons = page.locator(selector)
    return next((buttons.nth(i) for i in range(buttons.count()) if buttons.nth(i).is_visible()), None)


def _check_drawer(page, name: str, selector: str, dialog: str, first: str) -> str | None:
    """Tap the button ``selector``; return what is wrong with the drawer it opens (None: nothing),
    then close it."""
    button = page.evaluate(_BUTTON_JS, selector)
    if button is None:
        return None if name == "page TOC" else f"{name}: no visible button"
    if not button["onTop"]:
        return f"{name}: something covers its button for 3 s, a tap would not reach it"
    page.touchscreen.tap(button["x"], button["y"])  # a real tap (touch events, then the click)
    box = page.evaluate(_DRAWER_JS, [dialog, first])
    if box is None:
        return f"{name}: a tap did not open it"
    if box["left"] < -1 or box["right"] > box["vw"] + 1 or box["width"] < 100:
        return f"{name}: outside the viewport ({box['left']:.0f}..{box['right']:.0f} of {box['vw']} px)"
    f = box["first"]
    if f is None:
        return f"{name}: no visible link"
    if f["left"] < -1 or f["right"] > box["vw"] + 1 or f["top"] < -1 or f["bottom"] > box["vh"] + 1 or not f["onTop"]:
        return f"{name}: first link not visible ({f})"
    return None


@pytest.fixture(scope="module")
def phone_pass(edition):
    """Every page of the edition loaded once as a phone, every read-only check of it made on that
    load; returns what each check found, for the tests below to assert (each names its check).

    A chapter page was loaded twice per edition, once for the fit and drawers and once for its
    figures, each load a full layout, MathJax typesetting and the explorers' start-up. Per page:
    loaded at 390 px, settled; the figures measured (:func:`_figure_problems`, notebooks only),
    then the page width and the three drawers; the viewport turned into a tablet (768 px), the
    page width and the drawers again. The figures come first, on the page as loaded."""
    name, site, url, pool = edition
    pages = site_pages(site)
    page, external, errors = _tab(pool, 390)
    fits, figures, counts, widths = [], [], {"png": 0, "svg": 0}, {}
    try:
        for path in pages:
            # Loaded as a phone: the viewport is set on a blank page, not by laying the last page out again.
            page.goto("about:blank")
            page.set_viewport_size(VIEWPORTS[390])
            _open(page, f"{url}/{path}")
            if path.startswith("notebooks/"):
                figures += _figure_problems(page, site, path, counts)
                widths[path] = page.evaluate("document.scrollingElement.scrollWidth")
            for width in sorted(VIEWPORTS):
                if width != 390:
                    page.set_viewport_size(VIEWPORTS[width])
                    page.wait_for_function("w => document.documentElement.clientWidth === w", arg=width, timeout=3000)
                size = page.evaluate(_WIDTH_JS)
                if size["sw"] > size["vw"]:
                    fits.append(f"{path} at {width} px: {size['sw']} px wide ({size['widest']})")
                    continue  # the drawers of a too-wide page are laid out in it: one finding is enough
                if path == "search.html":
                    continue  # the search page is its own search field
                for drawer in DRAWERS:
                    problem = _check_drawer(page, *drawer)
                    if problem:
                        fits.append(f"{path} at {width} px: {problem}")
    finally:
        pool.give_back(page)
    return {
        "edition": name,
        "pages": pages,
        "fits": fits,
        "external": external,
        "errors": errors,
        "figures": figures,
        "counts": counts,
        "widths": widths,
    }


@STUDENT
def test_every_page_fits_and_its_drawers_open_inside_the_screen(phone_pass):
    name, pages = phone_pass["edition"], phone_pass["pages"]
    assert len(pages) >= 10 and "intro.html" in pages and CHAPTER in pages, pages
    assert phone_pass["fits"] == [], f"{name} edition:\n" + "\n".join(phone_pass["fits"])
    assert phone_pass["external"] == [] and phone_pass["errors"] == [], (
        phone_pass["external"][:3],
        phone_pass["errors"][:3],
    )


@per_edition
def test_a_tapped_toc_entry_closes_the_drawer_and_shows_its_section(edition):
    name, site, url, pool = edition
    page, _external, _errors = _tab(pool, 390)
    try:
        _open(page, f"{url}/{CHAPTER}")
        _visible_button(page, "button.secondary-toggle").tap()
        page.wait_for_function("document.querySelector('#pst-secondary-sidebar-modal').open", timeout=3000)
        links = page.locator("#pst-secondary-sidebar-modal nav a[href^='#']")
        assert links.count() >= 3
        link = links.nth(2)
        target = link.get_attribute("href")[1:]
        link.tap()
        try:
            page.wait_for_function("!document.querySelector('#pst-secondary-sidebar-modal').open", timeout=3000)
        except Exception:
            pytest.fail(f"{name}: the page TOC drawer stayed open over the section after a tap on an entry")
        shown = "id => { const top = document.getElementById(id).getBoundingClientRect().top; return top >= 0 && top < innerHeight / 2; }"
        try:  # the theme scrolls smoothly: wait for the section to arrive
            page.wait_for_function(shown, arg=target, timeout=5000)
        except Exception:
            top = page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", target)
            pytest.fail(f"{name}: section #{target} not shown after the tap (its top at {top:.0f} px)")
    finally:
        pool.give_back(page)


@per_edition
def test_header_buttons_are_tap_targets_and_leave_no_tooltip(edition):
    name, site, url, pool = edition
    page, _external, _errors = _tab(pool, 390)
    try:
        _open(page, f"{url}/{CHAPTER}")
        buttons = page.evaluate(_HEADER_JS)
        assert len(buttons) >= 4, buttons
        small = [b for b in buttons if b["w"] < 44 or b["h"] < 44]
        assert small == [], f"{name}: header buttons smaller than 44 x 44 px: {small}"
        toggle = _visible_button(page, ".theme-switch-button")
        toggle.tap()
        # Bootstrap shows the button's tooltip ~0.5 s after the tap (its delay) and, without the fix, leaves
        # it there: wait until it is shown (at most the 1 s this waited in full before), then look.
        with contextlib.suppress(Exception):  # playwright's TimeoutError: no tooltip was added at all
            page.wait_for_function("document.querySelector('.tooltip.show')", timeout=1000)
        shown = page.evaluate(
            "Array.from(document.querySelectorAll('.tooltip.show')).filter(t => t.getClientRects().length)"
            ".map(t => t.innerText)"
        )
        assert shown == [], f"{name}: a tap left tooltips open: {shown}"
    finally:
        pool.give_back(page)


# Every figure at 390 px, measured where it is shown and without scrolling: a static figure's
# smallest text is recorded in its PNG (ccb_helpers.plotting.phone.with_text_size: points at the
# PNG's CSS size, half its pixels), so its CSS size is that x 100/72 x shown width / CSS width; an
# explorer's SVG text is its font size x the SVG's shown width / its viewBox width. Each must be
# >= 9 CSS px, and each figure must lie inside the screen with no box around it scrolling sideways
# (figures shrunk to the phone had 5.3-8.8 px text; scrolled inside a box, the panels of a
# two-panel figure could not be seen together). The desktop figures are >= 600 CSS px wide: a
# phone must be served the phone rendering (<picture>, ccb_helpers.phone_pictures) to pass.
_FIGURES_JS = r"""() => {
  const vw = document.documentElement.clientWidth, out = [];
  for (const img of document.querySelectorAll('article img')) {
    if (img.closest('[data-explorer], .btn, .dropdown-menu') || !(img.getBoundingClientRect().width > 0)) continue;
    const r = img.getBoundingClientRect();
    let scroller = null;
    for (let p = img.parentElement; p && p !== document.body; p = p.parentElement) {
      if (p.scrollWidth > p.clientWidth + 1 && getComputedStyle(p).overflowX !== 'visible') { scroller = p.className; break; }
    }
    out.push({kind: 'png', src: new URL(img.currentSrc || img.src).pathname, shown: r.width, left: r.left, right: r.right, vw,
              scroller, href: (img.closest('a[href]') || {}).href || ''});
  }
  for (const svg of document.querySelectorAll('article [data-explorer] svg.ccb-live-svg')) {
    const r = svg.getBoundingClientRect(), view = svg.viewBox.baseVal.width || r.width;
    const fonts = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim())
      .map(t => parseFloat(getComputedStyle(t).fontSize) * r.width / view);
    out.push({kind: 'svg', src: svg.closest('[data-explorer]').getAttribute('data-explorer'), left: r.left, right: r.right, vw,
              smallest: fonts.length ? Math.min(...fonts) : null, scroller: null, href: 'live'});
  }
  return out;
}"""


# ccb.js's "图较宽：左右滑动" hint above an output that does not scroll (it stayed above every live
# explorer on a phone: measured while the explorer's no-JS PNG, hidden later, was still wide).
_STALE_HINTS_JS = r"""() => Array.from(document.querySelectorAll('.ccb-figure-hint'))
  .filter(h => !h.hidden && h.nextElementSibling && h.nextElementSibling.scrollWidth <= h.nextElementSibling.clientWidth + 1)
  .length"""


def _png_text_px(site, fig) -> tuple[float | None, float]:
    """(smallest text in CSS px as shown, CSS width of the PNG) for a figure the page shows."""
    from ccb_helpers.plotting.phone import png_width, text_size_of_png

    data = (site / fig["src"].lstrip("/")).read_bytes()
    css = png_width(data) / 2  # every book PNG is 2x
    points = text_size_of_png(data)
    return (None if points is None else points * 100 / 72 * fig["shown"] / css), css


def _figure_problems(page, site, path: str, counts: dict) -> list[str]:
    """What is wrong with the figures of the loaded chapter ``path`` at 390 px; counts them by kind."""
    problems = []
    if page.locator("[data-explorer]").count():
        page.wait_for_function("window.CCBLive && CCBLive.instances.length >= 1", timeout=30_000)
        page.evaluate(LIVE_READY_JS)  # mounted (CCBLive.ready itself resolves to the instances: huge)
    # ccb.js sized the figures in its load handlers (run before goto returned): two frames lay them out.
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))")
    stale = page.evaluate(_STALE_HINTS_JS)
    if stale:
        problems.append(f"{path}: {stale} 'scroll sideways' hint(s) over output that does not scroll")
    for fig in page.evaluate(_FIGURES_JS):
        counts[fig["kind"]] += 1
        where = f"{path} {fig['src'].split('/')[-1][:16]}"
        if fig["left"] < -0.5 or fig["right"] > fig["vw"] + 0.5 or fig["scroller"]:
            problems.append(
                f"{where}: not inside the screen ({fig['left']:.0f}..{fig['right']:.0f}, scrolls in {fig['scroller']})"
            )
        if fig["kind"] == "svg":
            text_px, detail = fig["smallest"], "SVG"
        else:
            text_px, css = _png_text_px(site, fig)
            detail = f"shown {fig['shown']:.0f} of {css:.0f} px"
            if not fig["href"].endswith(".png"):
                problems.append(f"{where}: a tap does not open it")
        if text_px is None:
            problems.append(f"{where}: no text size recorded in the figure")
        elif text_px < 9:
            problems.append(f"{where}: text {text_px:.1f} px ({detail})")
    return problems


@STUDENT
def test_every_figure_reads_at_9px_on_a_phone_without_scrolling_and_opens_on_a_tap(phone_pass):
    name, counts, problems = phone_pass["edition"], phone_pass["counts"], phone_pass["figures"]
    wide = {path: width for path, width in phone_pass["widths"].items() if width > 390}
    assert wide == {}, f"figures widened the page: {wide}"
    assert counts["png"] >= 20 and counts["svg"] >= 8, f"only {counts} figures measured"
    assert problems == [], f"{name} edition at 390 px:\n" + "\n".join(problems)


# -- the reader's edition, page by page on the shared phone load ---------------------------------------


def test_every_page_of_the_reader_edition_is_checked(reader_site):
    """The pages checked one by one below are the site's pages (a page added to the book is one of them)."""
    assert sorted(f"{name}.html" for name in READER_PAGES) == site_pages(reader_site)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xdist_group(f"site-{n}"), id=n) for n in READER_PAGES]
)
def test_reader_page_on_a_phone_and_a_tablet(site_page, reader_site, name):
    """On the shared 390 px phone load (tests/conftest.py ``site_page``): the figures of a chapter
    (inside the screen, text >= 9 CSS px, a tap opens a PNG whole), the page no wider than the
    screen, the three drawers opening inside it; then as a 768 px tablet (the viewport resized),
    the width and drawers again; the viewport is put back for the page's next reader."""
    loaded = site_page(name, 390)
    page, path = loaded.page, f"{name}.html"
    counts, problems = {"png": 0, "svg": 0}, []
    try:
        if name.startswith("notebooks/"):
            problems += _figure_problems(page, reader_site, path, counts)
            assert counts["png"] >= 1 and counts["svg"] >= 1, f"{path}: only {counts} figures measured"
            assert page.evaluate("document.scrollingElement.scrollWidth") <= 390, f"{path}: figures widened the page"
        for width in sorted(VIEWPORTS):
            if width != 390:
                page.set_viewport_size(VIEWPORTS[width])
                page.wait_for_function("w => document.documentElement.clientWidth === w", arg=width, timeout=3000)
            size = page.evaluate(_WIDTH_JS)
            if size["sw"] > size["vw"]:
                problems.append(f"{path} at {width} px: {size['sw']} px wide ({size['widest']})")
                continue
            if name == "search":
                continue  # the search page is its own search field
            for drawer in DRAWERS:
                problem = _check_drawer(page, *drawer)
                if problem:
                    problems.append(f"{path} at {width} px: {problem}")
    finally:
        page.set_viewport_size(VIEWPORTS[390])
        page.wait_for_function("() => document.documentElement.clientWidth === 390", timeout=3000)
    assert problems == [], "\n".join(problems)
    assert loaded.external == [] and loaded.errors == [], (loaded.external[:3], loaded.errors[:3])
