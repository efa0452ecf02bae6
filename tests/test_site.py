"""The built site: self-contained (no external requests), math typeset, figures and boxes present, Chinese search.

Needs the site built first (README command 1) and, for the browser test, Debian's chromium and the
``playwright`` package. Under CI (``CI`` set) a missing build or browser fails the test; elsewhere
it is skipped with a message saying how to enable it.
"""

from __future__ import annotations

import html.parser
import json
import pathlib
import re

import pytest
from _site import LoadedPage, after_transitions

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Every chapter notebook (chapters 6-8 join as their owners add them); 01-05 follow the source chapter.
CHAPTERS = sorted(f"notebooks/{p.stem}" for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOURCE_CHAPTERS = [c for c in CHAPTERS if c.split("/")[1][:2] in {"01", "02", "03", "04", "05"}]
PAGES = ["intro", "bibliography"] + CHAPTERS


# The browser, the server and the shared pages are tests/conftest.py's session fixtures (one
# Chromium per worker; each page loaded once per width for all its read-only checks).
@pytest.fixture(scope="module")
def site(reader_site):  # conftest.py: skips (fails under CI) when the site is not built
    return reader_site


@pytest.fixture(scope="module")
def server(site_server):
    return site_server


def _load(page_pool, url: str, width: int = 1280) -> LoadedPage:
    """Load ``url`` in a page of its own (settled, requests recorded; ``close()`` gives it back).
    For tests that click or navigate; read-only checks use the shared ``site_page``."""
    return LoadedPage(page_pool, url, width)


# A 400 ms animation on the page, timed on its own clocks (#44): how far the wall clock
# (performance.now()) and the document timeline the animation plays on (which Chromium's
# Animation.setPlaybackRate speeds up) advanced over it, and the wall time since the frame it
# started on (its startTime, on the timeline: the same origin and units as the wall clock at rate 1).
# The frame can precede the call by up to a frame (16.7 ms), so a wall time from the call could be
# 384 ms at rate 1; from startTime it is >= 400 however loaded the machine, and negative when the
# timeline runs ahead of the wall clock.
_ANIMATION_JS = """async () => { const box = document.createElement('div'); document.body.append(box);
  const wall = performance.now(), timeline = document.timeline.currentTime;
  const animation = box.animate([{opacity: 0}, {opacity: 1}], 400); await animation.finished;
  const now = performance.now(), times = {wall: now - wall, timeline: document.timeline.currentTime - timeline,
    sinceStart: now - animation.startTime}; box.remove(); return times; }"""


def test_a_page_given_back_dirty_is_lent_again_clean(page_pool, server):
    """The pages tests borrow are reused (tests/_site.py: PagePool): one given back after a test
    changed what it can is lent again as a fresh page would be -- or not lent again at all."""
    from _site import listen

    page = page_pool.borrow({"width": 500, "height": 600}, animation_rate=10)
    heard = []
    listen(page, "console", lambda msg: heard.append(msg.text))
    page.goto(f"{server}/intro.html")
    page.evaluate("""() => { localStorage.setItem('ccb-dirty', '1'); sessionStorage.setItem('ccb-dirty', '1');
                             document.cookie = 'ccb-dirty=1'; console.log('dirty'); }""")
    page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    page.route("**/*.css", lambda route: route.abort())
    assert "dirty" in heard
    fast = page.evaluate(_ANIMATION_JS)  # at 10x the timeline runs ahead: a busy machine stretches both clocks
    assert fast["timeline"] >= 3 * fast["wall"], f"a 400 ms animation at 10x speed: {fast}"
    page_pool.give_back(page)

    again = page_pool.borrow({"width": 1280, "height": 900})
    try:
        assert again is page and again.url == "about:blank"
        assert again.viewport_size == {"width": 1280, "height": 900}
        failed = []
        listen(again, "requestfailed", lambda request: failed.append(request.url))
        again.goto(f"{server}/intro.html", wait_until="load")
        state = again.evaluate("""() => ({local: localStorage.getItem('ccb-dirty'), session: sessionStorage.getItem('ccb-dirty'),
            cookie: document.cookie, dark: matchMedia('(prefers-color-scheme: dark)').matches,
            reduced: matchMedia('(prefers-reduced-motion: reduce)').matches, styled: document.styleSheets.length > 0})""")
        assert state == {"local": None, "session": None, "cookie": "", "dark": False, "reduced": False, "styled": True}
        assert failed == []
        again.evaluate("() => console.log('clean')")
        assert "clean" not in heard, "a listener of the last loan still hears the page"
        normal = again.evaluate(_ANIMATION_JS)  # 400 ms of timeline from its start; 1 ms for the clocks' rounding
        assert normal["sinceStart"] >= 399, f"the last loan's animation speed stayed: {normal}"
    finally:
        page_pool.give_back(again)

    # A page that showed two sites is not lent again (its second site's storage is not tracked).
    wandered = page_pool.borrow({"width": 1280, "height": 900})
    wandered.goto(f"{server}/intro.html")
    wandered.goto(server.replace("127.0.0.1", "localhost") + "/intro.html")
    page_pool.give_back(wandered)
    assert wandered.is_closed()

    # A page given back twice is still lent once.
    twice = page_pool.borrow({"width": 1280, "height": 900})
    page_pool.give_back(twice)
    page_pool.give_back(twice)
    first, second = page_pool.borrow({"width": 1280, "height": 900}), page_pool.borrow({"width": 1280, "height": 900})
    page_pool.give_back(first)
    page_pool.give_back(second)
    assert first is not second


def per_page(names):
    """Parameters for a test run on each of ``names``: one xdist group per page, so one worker
    runs every check of a page on the one copy ``site_page`` loaded."""
    return [pytest.param(name, marks=pytest.mark.xdist_group(f"site-{name}"), id=name) for name in names]


@pytest.mark.parametrize("name", per_page(PAGES))
def test_page_is_self_contained_and_renders(site_page, name):
    loaded = site_page(name)
    page, external, failed, errors = loaded.page, loaded.external, loaded.failed, loaded.errors
    assert external == [], f"external requests: {external[:5]}"
    assert failed == [], f"failed requests: {failed[:5]}"
    assert errors == [], f"console errors: {errors[:5]}"
    broken = page.evaluate(
        "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
    )
    assert broken == [], f"images that did not load: {broken[:5]}"
    if name != "bibliography":
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000)
        page.evaluate("MathJax.startup.promise")
        assert page.locator("mjx-container").count() > 0, "no typeset math"
        text = page.inner_text("article")
        assert "$$" not in text and "\\[" not in text and "\\begin{equation" not in text, "raw TeX left on the page"
    if name in CHAPTERS:
        assert page.locator("article img").count() >= 2, "chapter without figures"
        assert page.locator("div.admonition.important").count() >= 1, "no takeaway box"
        assert page.locator(".exercise").count() >= 4, "fewer than four exercises"
        if name in SOURCE_CHAPTERS[1:]:  # the source's mistakes are marked from chapter 2 on
            errata = page.locator("div.admonition.warning")
            assert errata.count() >= 1 and "勘误" in errata.first.inner_text(), "no errata box"


def test_no_page_references_external_assets(site):
    # Links to other sites are fine; scripts, stylesheets, fonts and icons must be served locally.
    import re

    asset = re.compile(r'<(script|link)\b[^>]*?\b(?:src|href)="((?:https?:)?//[^"]+)"')
    external = [
        (str(path.relative_to(site)), url)
        for path in site.rglob("*.html")
        for _tag, url in asset.findall(path.read_text(encoding="utf-8"))
    ]
    assert external == [], f"pages load external assets: {external[:5]}"


def _search_index(site):
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


@pytest.mark.parametrize(
    "term, page",
    [
        ("带宽", "notebooks/03_bandwidth"),
        ("直径", "notebooks/02_topology_diameter"),
        ("拓扑", "notebooks/02_topology_diameter"),
        ("传播", "notebooks/01_information_propagation"),
        ("选型", "notebooks/04_combined_bounds"),
        ("bisect", "notebooks/05_bisection"),
    ],
)
def test_chinese_search_finds_the_chapter(site, term, page):
    index = _search_index(site)
    hits = set()
    for key in ("terms", "titleterms"):
        value = index[key].get(term)
        if value is not None:
            hits |= set(value if isinstance(value, list) else [value])
    assert page in {index["docnames"][i] for i in hits}


# ---------------------------------------------------------------------------------------------
# Reading on a phone (390 px) and a desktop (1280 px): navigation, typography, tables, search, UI.

WIDTHS = [390, 1280]

PUNCT_JS = r"""() => {
  const CLOSING = /[。，、：；！？”’）》」』】〉…]/;
  const root = document.querySelector('article') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  function lastBox(el) {
    if (el.nodeType === 1) { const rs = el.getClientRects(); return rs.length ? rs[rs.length - 1] : null; }
    if (!el.textContent.length) return null;
    const r = document.createRange(); r.setStart(el, el.length - 1); r.setEnd(el, el.length);
    const rs = r.getClientRects(); return rs.length ? rs[rs.length - 1] : null;
  }
  function previousLeaf(node) {
    let n = node;
    while (n && n !== root) {
      let p = n.previousSibling;
      while (p && p.nodeType === 3 && !p.textContent.trim()) p = p.previousSibling;
      if (p) return p;
      n = n.parentNode;
    }
    return null;
  }
  const found = [];
  let node;
  while ((node = walker.nextNode())) {
    const text = node.textContent;
    if (!text.length || !CLOSING.test(text[0]) || node.parentElement.closest('code, pre')) continue;  // prose only
    const r = document.createRange(); r.setStart(node, 0); r.setEnd(node, 1);
    const rs = r.getClientRects(); if (!rs.length || rs[0].width === 0) continue;
    const c = rs[0];
    const prev = previousLeaf(node); if (!prev) continue;
    const pb = lastBox(prev); if (!pb || pb.width === 0) continue;
    const mid = (c.top + c.bottom) / 2;
    if (mid > pb.bottom) {
      const isMath = prev.nodeType === 1 && (prev.matches('.math, mjx-container') || !!prev.querySelector('mjx-container'));
      found.push({char: text[0], after: (prev.textContent || '').slice(-25), math: isMath, context: text.slice(0, 20)});
    }
  }
  return found;
}"""

TABLES_JS = r"""() => {
  const UNIT = /\d(?:[\d.,]*)\s?(?:[µmnk]?s|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB|GB\/s|GiB\/s|B\/s|%)(?![A-Za-z])/g;
  return Array.from(document.querySelectorAll('article table')).map((t, i) => {
    const cont = t.closest('.pst-scrollable-table-container') || t.parentElement;
    const head = t.rows[0] ? Array.from(t.rows[0].cells) : [];
    const widths = head.map(c => Math.round(c.getBoundingClientRect().width));
    const lastCol = head.length ? head[head.length - 1].getBoundingClientRect() : null;
    const oneChar = [], wrapped = [];
    for (const cell of t.querySelectorAll('td, th')) {
      const text = cell.innerText.trim();
      if (text.length >= 2 && !cell.querySelector('mjx-container')) {
        const tops = new Set();
        const tw = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT); let tn;
        while ((tn = tw.nextNode())) { if (!tn.textContent.trim()) continue; const r = document.createRange(); r.selectNodeContents(tn);
          for (const x of r.getClientRects()) if (x.width > 0) tops.add(Math.round(x.top)); }
        if (tops.size >= 2 && text.replace(/\s/g, '').length <= tops.size * 1.5) oneChar.push(text.slice(0, 20));
      }
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT); let n;
      while ((n = walker.nextNode())) {
        for (const m of n.textContent.matchAll(UNIT)) {
          const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
          const tops = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0).map(x => Math.round(x.top)));
          if (tops.size > 1) wrapped.push(m[0]);
        }
      }
    }
    const caption = (t.closest('.cell_output, .output') || t.parentElement).innerText.split('\n').slice(-1)[0].slice(0, 40);
    return {i, cols: head.length, tableW: Math.round(t.getBoundingClientRect().width), contW: cont.clientWidth,
            scrollable: cont.scrollWidth > cont.clientWidth + 1, lastRight: lastCol ? Math.round(lastCol.right) : null,
            vw: window.innerWidth, minW: Math.min(...widths), widths, oneChar, wrapped,
            hint: !!(cont.parentElement && cont.parentElement.querySelector('.ccb-scroll-hint')) && cont.scrollWidth > cont.clientWidth + 1,
            head: head.map(c => c.textContent.replace(/\\s+/g, ' ').slice(0, 14)).join('|')};
  });
}"""


_BOX = """s => { const e = document.querySelector(s); if (!e) return null; const b = e.getBoundingClientRect();
  const c = getComputedStyle(e); return {x: b.x, w: b.width, shown: c.visibility !== 'hidden' && c.display !== 'none' && b.width > 0,
  open: e.open === undefined ? null : e.open}; }"""


def _visible_toggle(page, which: str):
    buttons = page.locator(f"button.{which}-toggle")
    return next((buttons.nth(i) for i in range(buttons.count()) if buttons.nth(i).is_visible()), None)


@pytest.mark.parametrize("width", WIDTHS)
def test_sidebar_toggles_open_the_chapter_menu_and_page_toc(page_pool, server, width):
    loaded = _load(page_pool, f"{server}/notebooks/05_bisection.html", width)
    page = loaded.page
    try:
        primary = _visible_toggle(page, "primary")
        assert primary is not None, "no visible chapter-menu button"
        if width < 960:  # drawers: the menu and the page TOC open as dialogs over the page
            primary.click()
            after_transitions(page)
            box = page.evaluate(_BOX, "#pst-primary-sidebar-modal")
            assert box["open"] and box["shown"] and box["w"] > 200 and box["x"] >= 0, (
                f"chapter menu did not open: {box}"
            )
            assert page.locator("#pst-primary-sidebar-modal a[href*='01_information_propagation']").first.is_visible()
            page.keyboard.press("Escape")
            after_transitions(page)
            secondary = _visible_toggle(page, "secondary")
            assert secondary is not None, "no visible page-TOC button"
            secondary.click()
            after_transitions(page)
            box = page.evaluate(_BOX, "#pst-secondary-sidebar-modal")
            assert box["open"] and box["shown"] and box["w"] > 200 and box["x"] + box["w"] <= width + 1, (
                f"page TOC did not open: {box}"
            )
            assert page.locator("#pst-secondary-sidebar-modal nav a").first.is_visible()
        else:  # desktop: the menu is shown, the button hides it and shows it again; the page TOC is shown
            assert page.evaluate(_BOX, "#pst-primary-sidebar")["shown"]
            primary.click()
            after_transitions(page)
            assert not page.evaluate(_BOX, "#pst-primary-sidebar")["shown"], "the menu button did nothing"
            _visible_toggle(page, "primary").click()
            after_transitions(page)
            box = page.evaluate(_BOX, "#pst-primary-sidebar")
            assert box["shown"] and box["x"] >= 0 and box["w"] > 200, f"chapter menu did not come back: {box}"
            secondary = _visible_toggle(page, "secondary")
            if secondary is not None:
                secondary.click()
                after_transitions(page)
            box = page.evaluate(_BOX, "#pst-secondary-sidebar")
            assert box["shown"] and box["w"] > 150 and box["x"] + box["w"] <= width + 1, f"page TOC not shown: {box}"
        searches = page.locator(".search-button-field, .search-button__button")
        assert sum(searches.nth(i).is_visible() for i in range(searches.count())) == 1, (
            "more than one search box in the header"
        )
    finally:
        loaded.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", per_page(["intro"] + CHAPTERS))
def test_chinese_punctuation_never_starts_a_line(site_page, name, width):
    page = site_page(name, width).page  # typeset: site_page waits for MathJax
    starts = page.evaluate(PUNCT_JS)
    assert starts == [], f"lines starting with punctuation: {[(s['char'], s['after']) for s in starts][:10]}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", per_page(["intro"] + CHAPTERS))
def test_tables_read_on_phone_and_desktop(site_page, name, width):
    page = site_page(name, width).page  # typeset, and ccb.js has re-measured the tables after MathJax
    for t in page.evaluate(TABLES_JS):
        where = f"table {t['i']} ({t['head'][:40]})"
        assert t["oneChar"] == [], f"{where}: cells broken one character a line: {t['oneChar'][:5]}"
        assert t["wrapped"] == [], f"{where}: numbers split from their units: {t['wrapped'][:5]}"
        assert t["minW"] >= 24, f"{where}: a column {t['minW']} px wide"
        if width >= 1280:
            assert not t["scrollable"], (
                f"{where}: wider than the page column at {width} px ({t['tableW']} > {t['contW']})"
            )
        elif t["scrollable"]:
            assert t["hint"], f"{where}: scrolls sideways at {width} px with no visible hint"
        else:
            assert t["lastRight"] <= t["vw"], f"{where}: last (verdict) column off-screen"


def _search(page):
    """The results of the search page ``page`` was opened on (``search.html?q=…``), once listed."""
    page.wait_for_function(
        "document.querySelector('#search-results .search-summary') && "
        "document.querySelector('#search-results .search-summary').innerText.length > 0",
        timeout=20000,
    )
    page.wait_for_function(
        "Array.from(document.querySelectorAll('#search-results li')).every(li => li.querySelector('.context'))",
        timeout=20000,
    )
    return page.evaluate("""() => Array.from(document.querySelectorAll('#search-results ul.search > li')).map(li => ({
        href: li.querySelector('a').getAttribute('href'), title: li.querySelector('a').innerText,
        context: (li.querySelector('.context') || {}).innerText || ''}))""")


@pytest.mark.parametrize("term", ["带宽", "ceil", "bisection", "下界"])
def test_search_snippets_are_prose_and_pages_listed_once(page_pool, server, term):
    # Opened on the search page itself (it was the home page, typeset, then a second navigation).
    loaded = _load(page_pool, f"{server}/search.html?q={term}")
    page = loaded.page
    try:
        results = _search(page)
        assert results, f"no results for {term}"
        pages = [r["href"].split("?")[0].split("#")[0] for r in results]
        assert len(pages) == len(set(pages)), f"a page listed twice: {pages}"
        for r in results:
            text = r["context"]
            for raw in ("\\(", "\\)", "\\[", "\\ceil", "\\frac", "\\left", "\\alpha", "$$"):
                assert raw not in text, f"raw TeX {raw!r} in the snippet of {r['href']}: {text[:120]}"
            for label in ("显示代码", "隐藏代码", ".pdf", ".ipynb", "目录", "Proof."):
                assert label not in text, f"UI text {label!r} in the snippet of {r['href']}: {text[:120]}"
    finally:
        loaded.close()


_UI_ENGLISH = r"""() => {
  const out = new Set();
  const ok = /^(Ctrl|K|Binder|Colab|\.ipynb|\.pdf|\.md)$/;
  const outside = el => !el.closest('article') || el.closest('.prev-next-area');
  for (const el of document.querySelectorAll('body *')) {
    for (const attr of ['title', 'aria-label', 'data-bs-title', 'data-bs-original-title', 'placeholder', 'alt']) {
      const v = el.getAttribute(attr);
      if (v && /[A-Za-z]{3,}/.test(v) && !/[\u4e00-\u9fff]/.test(v) && !ok.test(v.trim()) && (outside(el) || attr === 'alt' || el.matches('a.headerlink, button')))
        out.add(attr + '=' + v.slice(0, 50));
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); let n;
  while ((n = walker.nextNode())) {
    const t = n.textContent.trim(), el = n.parentElement;
    if (!t || !el || !outside(el) || el.closest('script, style') || /[\u4e00-\u9fff]/.test(t) || ok.test(t)) continue;
    if (/[A-Za-z]{3,}/.test(t) && !el.closest('.bd-sidebar-primary .bd-links, .bd-toc, .bd-toc-nav, .page-toc, .onlyprint, .prev-next-area')) out.add('text=' + t.slice(0, 50));
  }
  for (const p of document.querySelectorAll('article .proof')) if (p.innerText.trim().startsWith('Proof')) out.add('Proof.');
  return [...out];
}"""


@pytest.mark.parametrize("name", per_page(["intro", "bibliography", "notebooks/05_bisection", "search"]))
def test_interface_is_in_chinese(site_page, name):
    assert site_page(name).page.evaluate(_UI_ENGLISH) == []  # site_page settled the page after MathJax


def test_chapter_pages_have_working_launch_buttons(page_pool, server):
    import yaml

    repository = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]
    owner_repo = repository.split("github.com/")[1].strip("/")
    loaded = _load(page_pool, f"{server}/notebooks/03_bandwidth.html")
    page = loaded.page
    try:
        launch = page.locator(".dropdown-launch-buttons button").first
        assert launch.is_visible() and page.locator(".dropdown-launch-buttons .fa-rocket").count() == 1
        launch.click()
        after_transitions(page)
        links = page.evaluate("Array.from(document.querySelectorAll('.dropdown-launch-buttons a')).map(a => a.href)")
        assert any(h.startswith(f"https://mybinder.org/v2/gh/{owner_repo}/") for h in links), links
        assert any(
            h.startswith(f"https://colab.research.google.com/github/{owner_repo}/") and h.endswith("03_bandwidth.ipynb")
            for h in links
        ), links
    finally:
        loaded.close()


def test_chapter_pages_carry_no_widget_state(site):
    for name in CHAPTERS:
        html = (site / f"{name}.html").read_text(encoding="utf-8")
        assert "application/vnd.jupyter.widget-state+json" not in html, name


def test_bibliography_labels_are_author_year_like_the_citations(site):
    import re

    bibliography = (site / "bibliography.html").read_text(encoding="utf-8")
    labels = re.findall(r'<span class="label"><span class="fn-bracket">\[</span>([^<]*)<', bibliography)
    assert labels and all(re.fullmatch(r".+, \d{4}[a-z]?", label) for label in labels), labels
    # Two NVIDIA works of 2024: told apart as 2024a / 2024b in the list and in the text.
    assert {"NVIDIA, 2024a", "NVIDIA, 2024b"} <= set(labels)
    cited = "".join((site / f"{name}.html").read_text(encoding="utf-8") for name in CHAPTERS)
    assert ">NVIDIA, 2024<" not in cited and ("NVIDIA, 2024a<" in cited or "NVIDIA, 2024b<" in cited)


# ---------------------------------------------------------------------------------------------
# Chinese typesetting in the HTML itself: no space between two Chinese characters.

_CJK_CHAR = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65“”‘’"
_STRAY = re.compile(f"([{_CJK_CHAR}])[ \t\n\r]+([{_CJK_CHAR}])")
_BLOCK_TAGS = {
    "p",
    "li",
    "td",
    "th",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "caption",
    "figcaption",
    "div",
    "section",
    "article",
    "blockquote",
    "table",
    "tr",
    "ul",
    "ol",
    "dl",
    "br",
    "summary",
    "details",
}
_OPAQUE_TAGS = {"pre", "code", "script", "style", "img", "svg", "textarea", "kbd", "samp"}


class _ProseText(html.parser.HTMLParser):
    """The visible prose of a page's article, one string per block; code and math are a neutral "X"."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.current, self.skip, self.in_article, self.stack = [], [], 0, 0, []

    def _flush(self):
        if self.current:
            self.blocks.append("".join(self.current))
            self.current = []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        opaque = tag in _OPAQUE_TAGS or "math" in classes or "headerlink" in classes
        if tag in ("img", "br", "wbr", "input", "meta", "link", "hr"):  # void elements: no end tag
            if tag == "img" and self.in_article and not self.skip:
                self.current.append("X")
            elif tag == "br":
                self._flush()
            return
        if tag == "article":
            self.in_article += 1
        if tag in _BLOCK_TAGS:
            self._flush()
        if opaque and not self.skip and self.in_article:
            self.current.append("X")
        self.stack.append(opaque)
        self.skip += opaque

    def handle_endtag(self, tag):
        if tag in ("img", "br", "wbr", "input", "meta", "link", "hr") or not self.stack:
            return
        self.skip -= self.stack.pop()
        if tag in _BLOCK_TAGS:
            self._flush()
        if tag == "article":
            self.in_article -= 1

    def handle_data(self, data):
        if self.in_article and not self.skip:
            self.current.append(data)


def _stray_cjk_spaces(page: pathlib.Path) -> list[str]:
    parser = _ProseText()
    parser.feed(page.read_text(encoding="utf-8"))
    parser._flush()
    found = []
    for block in parser.blocks:
        for m in _STRAY.finditer(block):
            found.append(block[max(0, m.start() - 8) : m.end() + 8].replace("\n", "⏎"))
    return found


@pytest.mark.parametrize("edition", ["reader", "student"])
def test_no_space_between_chinese_characters_on_any_page(request, edition):
    from _site import site_pages

    site = request.getfixturevalue(f"{edition}_site")
    found = {name: s for name in site_pages(site) if (s := _stray_cjk_spaces(site / name))}
    assert sum(map(len, found.values())) == 0, {k: v[:5] for k, v in found.items()}


def test_stray_space_counter_finds_what_a_reader_saw(tmp_path):
    page = tmp_path / "p.html"
    page.write_text(
        "<article><p>最后跑调度。\n本书用代码重算。</p><p>用 <code>ring</code>\n算法，N 个节点</p>"
        "<p>对 <span class='math'>\\(N\\)</span>\n个 the ring\nalgorithm</p><pre>代码 块</pre></article>"
        "<p>文章 之外</p>",
        encoding="utf-8",
    )
    assert _stray_cjk_spaces(page) == ["最后跑调度。⏎本书用代码重算。"]


def test_home_title_once_and_no_empty_or_orphan_index_pages(site):
    import html as html_lib

    import yaml

    book = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["title"]
    titles = {
        name: html_lib.unescape(
            re.search(r"<title>(.*?)</title>", (site / f"{name}.html").read_text(encoding="utf-8"), re.S).group(1)
        ).strip()
        for name in ["intro", "notebooks/05_bisection"]
    }
    assert titles["intro"] == book, titles
    assert titles["notebooks/05_bisection"].endswith(" — " + book) and titles["notebooks/05_bisection"] != book
    # genindex.html was an empty 索引 page, prf-prf.html an English "Proof Index" no page linked to.
    assert not (site / "genindex.html").exists() and not list(site.glob("prf-*.html"))


SNIPPET_MATH = [
    ("\\frac{2(N-1)}{N}M", "2(N-1)/N·M"),  # was "(2(N-1))/NM", read as 2(N-1)/(NM)
    ("\\frac{M}{N\\beta}", "M/(Nβ)"),
    ("\\frac{a+b}{c}", "(a+b)/c"),
    ("\\Tamin = \\ceil{\\log_2 N} \\cdot \\alpha", "T_αᵐⁱⁿ = ⌈log₂ N⌉ · α"),  # was "T_α^(min)"
]


@pytest.mark.xdist_group("site-search")  # ccbTexToText is a pure function: the shared search page will do
def test_search_snippet_math_reads_right(site_page):
    page = site_page("search").page
    got = [page.evaluate("tex => ccbTexToText(tex)", tex) for tex, _ in SNIPPET_MATH]
    assert got == [text for _, text in SNIPPET_MATH]


# Each numbered display formula: the part of the formula a reader sees (clipped to its scrolling
# box) and its number's box. The number must not cover the formula; a formula that fits the column
# must be seen whole; one wider than the column must scroll.
EQUATIONS_JS = r"""() => [...document.querySelectorAll('article div.math')].map(box => {
  const number = box.querySelector(':scope > .eqno');
  const container = box.querySelector(':scope > mjx-container');
  const formula = container && container.querySelector(':scope > mjx-math');
  if (!number || !formula) return null;
  const n = number.getBoundingClientRect(), f = formula.getBoundingClientRect(), c = container.getBoundingClientRect();
  const seen = {left: Math.max(f.left, c.left), right: Math.min(f.right, c.right),
                top: Math.max(f.top, c.top), bottom: Math.min(f.bottom, c.bottom)};
  const covered = Math.min(seen.right, n.right) - Math.max(seen.left, n.left) > 1
               && Math.min(seen.bottom, n.bottom) - Math.max(seen.top, n.top) > 1;
  const fits = f.width <= box.clientWidth + 1;
  const clipped = fits && seen.right - seen.left < f.width - 1;
  const stuck = !fits && !['auto', 'scroll'].includes(getComputedStyle(container).overflowX);
  return {label: number.textContent.replace('#', '').trim(), covered, clipped, stuck,
          formula: Math.round(f.width), shown: Math.round(seen.right - seen.left), column: box.clientWidth};
}).filter(e => e && (e.covered || e.clipped || e.stuck))"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", per_page(CHAPTERS))
def test_numbered_formulas_are_seen_whole_beside_or_above_their_number(site_page, name, width):
    """On a phone the theme floats the equation number at the right and squeezes the formula into
    what is left: chapter 8's (8.1) read "c(N) = max" and stopped at "(8.1)", with nothing saying
    it scrolls. A formula that fits the column is seen whole (its number goes below it when both do
    not fit on one line); one wider than the column scrolls sideways; the number never covers it."""
    page = site_page(name, width).page  # typeset: site_page waits for MathJax and the fonts
    bad = page.evaluate(EQUATIONS_JS)
    assert bad == [], f"{name} at {width} px: {bad}"
