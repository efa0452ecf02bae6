"""Sphinx extension for the book's build: clean pages, Chinese typography, a Chinese UI, better search.

What it does to every HTML page:

- Drops ``sphinx_thebe``'s scripts (Jupyter Book always loads it; its configuration names a CDN
  and is added twice on Sphinx 7) and any other script that appears twice.
- Drops the ipywidgets state myst-nb embeds (60–111 KB a chapter): the site shows each explorer's
  PNG and loads no widget JavaScript, so the state is never read.
- Binds inline math (and inline code) to the Chinese punctuation that follows it (and to an opening
  bracket or quote before it) in a ``span.ccb-nobr`` (``white-space: nowrap``), so "，" "。" "）" never start
  a line after a formula, and allows a break after that punctuation (``<wbr>``); code inside the span
  still wraps (ccb.css), so no page is wider than a phone.
- In table cells, joins a number to its unit ("84.3 µs", "1 MiB") and a relation sign to its
  operands ("N ≥ 6") with no-break spaces.
- Drops the blanks between two Chinese characters: a line break in the Markdown source between
  "调度。" and "本书" (HTML shows it as a space), a space before a link whose text is Chinese
  ("见 参考文献"), after a closing quote (“Tree” 其实); a break between Latin words stays a space.
- Renders sphinx-proof's hard-coded "Proof." as 证明.
- Translates the theme's remaining English labels and tooltips (Sphinx, pydata-sphinx-theme,
  sphinx-book-theme and sphinx-proof message catalogs, plus a few strings hard-coded in templates).
- Bibliography in author-year form, like the citations in the text: the label of an entry is
  "Chan et al., 2007" (not "CHPvdG07"), and works with the same authors and year get "2024a",
  "2024b" in both the text and the list.
- Serves every notebook figure in a ``<picture>`` with its phone rendering, panels stacked
  (:mod:`ccb_helpers.phone_pictures`).
- Makes every explorer live (:mod:`ccb_helpers.live.build`): its data, exported from the Python
  code, inline after the cell, and ``_static/live/ccb-live.js`` + the explorer's script on that page.
- Has the notebooks executed at build time talk to their kernels over encrypted transport (no
  "TCP without encryption" warning from every kernel).
- Gives the site its icon (``_static/favicon.svg``).
- Serves ``_static/ccb.css`` / ``ccb.js``: tables that scroll sideways get a visible hint, and the
  search page's snippets drop TeX source, buttons and the page TOC, and list each page once.
"""

from __future__ import annotations

import functools
import gettext
import json
import pathlib
import re

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

STATIC = pathlib.Path(__file__).parent / "_static"

# Closing punctuation that must not start a line (and opening punctuation that must not end one).
CLOSING = "。，、：；！？”’）》」』】〉…"
OPENING = "“‘（《「『【〈"
# Spaces around a relation sign in a table cell ("S ≥", "N ≥ 6") do not break either.
_RELATION = re.compile(r" (?=[≥≤=≠≈<>])|(?<=[≥≤=≠≈<>]) ")
_UNIT = re.compile(r"(\d) (?=(?:[µmnk]?s|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB|[KMGT]?B/s|GB/s|GiB/s|TB/s|α|β)(?![A-Za-z]))")

# English UI strings of Sphinx, the themes and sphinx-proof that the zh_CN catalogs leave untranslated.
TRANSLATIONS = {
    "sphinx": {
        "Link to this heading": "链接到本节",
        "Link to this equation": "链接到本公式",
        "Link to this table": "链接到本表",
        "Link to this image": "链接到本图",
        "Link to this code": "链接到本代码",
        "Color mode": "配色模式",
        "System Settings": "跟随系统",
        "Light": "浅色",
        "Dark": "深色",
        "© Copyright %(copyright)s.": "© %(copyright)s 版权所有。",
        "Back to top": "回到顶部",
        "Skip to main content": "跳到正文",
        "previous page": "上一页",
        "next page": "下一页",
        "Previous": "上一页",
        "Next": "下一页",
        "Section Navigation": "本节导航",
        "Site navigation": "全书导航",
        "On this page": "本页内容",
        "Search": "搜索",
        "Search the docs ...": "搜索本书……",
        "Created using": "构建工具",
        "Built with the": "构建工具：",
    },
    "booktheme": {
        "Launch interactive content": "在线运行本章（Binder / Colab）",
        "Launch on": "运行于",
        "Repository": "源码仓库",
        "Source repositories": "源码仓库",
        "Open issue": "报告问题",
        "Open an issue": "报告问题",
        "open issue": "报告问题",
        "Print to PDF": "打印为 PDF",
        "Download this page": "下载本页",
        "Download notebook file": "下载 notebook 文件",
        "Download source file": "下载源文件",
        "Fullscreen mode": "全屏",
        "Search": "搜索",
        "logo": "图标",
        "Toggle navigation": "显示或隐藏导航",
    },
    "proof": {"Proof": "证明"},
}

# Labels hard-coded in the themes' templates and scripts (exact attribute values).
HARD_CODED = {
    'title="Toggle primary sidebar"': 'title="显示或隐藏章节目录"',
    'title="Toggle secondary sidebar"': 'title="显示或隐藏本页目录"',
    'aria-label="Toggle primary sidebar"': 'aria-label="显示或隐藏章节目录"',
    'aria-label="Toggle secondary sidebar"': 'aria-label="显示或隐藏本页目录"',
    'aria-label="Main"': 'aria-label="章节目录"',
    'aria-label="Page"': 'aria-label="本页目录"',
    'aria-label="Search this book..."': 'aria-label="搜索本书……"',
    'placeholder="Search this book..."': 'placeholder="搜索本书……"',
    'aria-label="Toggle hidden content"': 'aria-label="显示或隐藏内容"',
}


class _Overrides(gettext.NullTranslations):
    """A message catalog that answers from a dict and falls back to the catalog it replaces."""

    def __init__(self, table: dict[str, str]):
        super().__init__()
        self._table = table

    def gettext(self, message):
        if message in self._table:
            return self._table[message]
        return self._fallback.gettext(message) if self._fallback else message

    def ngettext(self, singular, plural, n):
        if singular in self._table:
            return self._table[singular]
        return self._fallback.ngettext(singular, plural, n) if self._fallback else (singular if n == 1 else plural)


def _install_translations(app) -> None:
    if not str(app.config.language or "").startswith("zh"):
        return
    from sphinx import locale

    for catalog, table in TRANSLATIONS.items():
        key = ("general", catalog)
        mine = _Overrides(table)
        old = locale.translators.get(key)
        if old is not None:
            mine.add_fallback(old)
        locale.translators[key] = mine
        if catalog == "sphinx":
            app.translator = mine
            templates = getattr(app.builder, "templates", None)
            if templates is not None and hasattr(templates, "environment"):
                templates.environment.install_gettext_translations(mine)


def _add_favicon(app, config) -> None:
    """The book's icon (``_static/favicon.svg``) unless the configuration names one: without it every
    browser asked for ``/favicon.ico``, the site's only 404 (#43)."""
    if not config.html_favicon:
        config.html_favicon = str(STATIC / "favicon.svg")


def _add_static(app) -> None:
    if app.builder.format != "html":
        return
    app.config.html_static_path.append(str(STATIC))
    app.add_css_file("ccb.css")
    macros = (app.config.mathjax3_config or {}).get("tex", {}).get("macros", {})
    app.add_js_file(None, body="window.CCB_TEX_MACROS = " + json.dumps(macros, ensure_ascii=False) + ";")
    app.add_js_file("ccb.js")
    _install_translations(app)


def _drop_thebe_widget_state_and_duplicates(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    kept, seen = [], set()
    for script in scripts:
        filename = str(getattr(script, "filename", script) or "")
        attributes = getattr(script, "attributes", {}) or {}
        body = str(attributes.get("body", ""))
        if (
            "THEBE_JS_URL" in body
            or filename.endswith("sphinx-thebe.js")
            or ("thebe" in filename and "unpkg" in filename)
        ):
            continue
        if attributes.get("type") == "application/vnd.jupyter.widget-state+json":
            continue
        key = (filename, body)
        if key in seen:
            continue
        seen.add(key)
        kept.append(script)
    context["script_files"] = kept


# Characters set without spaces between them: CJK ideographs, kana, CJK and full-width punctuation.
_CJK = re.compile(
    r"[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
)
# Quotes and dashes Chinese text shares with English: joined only when the other side is CJK.
_SHARED = "“”‘’…—"
# Whose text is not prose: a soft break next to them is a real space ("用 `ring`\n算法" keeps it).
_OPAQUE = (
    nodes.FixedTextElement,
    nodes.literal,
    nodes.math,
    nodes.raw,
    nodes.comment,
    nodes.image,
    nodes.substitution_definition,
)


def _joins(before: str, after: str) -> bool:
    """Whether a line break between these two characters is no space in Chinese typesetting."""
    cjk_before, cjk_after = bool(_CJK.match(before)), bool(_CJK.match(after))
    return (cjk_before and (cjk_after or after in _SHARED)) or (cjk_after and before in _SHARED)


def _prose_runs(block):
    """The block's text in reading order: Text nodes, and ``None`` for each opaque inline (math, code)."""
    for node in block.findall(include_self=False):
        inside, ancestor = False, node.parent
        while ancestor is not None and ancestor is not block:
            if isinstance(ancestor, _OPAQUE):
                inside = True
                break
            ancestor = ancestor.parent
        if inside:
            continue
        if isinstance(node, _OPAQUE):
            yield None
        elif isinstance(node, nodes.Text):
            yield node


def _neighbour(texts: list, j: int, step: int) -> str:
    """The nearest non-blank character from ``texts[j]`` on in direction ``step`` ("" at an opaque node)."""
    while 0 <= j < len(texts):
        if texts[j] is None:
            return ""
        stripped = texts[j].strip(" \t\n")
        if stripped:
            return stripped[-1] if step < 0 else stripped[0]
        j += step
    return ""


_BLANKS = re.compile(r"[ \t\n]+")


def join_cjk_soft_breaks(document) -> int:
    """Drop every run of blanks (a source line break, a space) between two CJK characters; return how many.

    Markdown keeps a paragraph's line breaks as newlines, which HTML shows as a space: right
    between English words, wrong between Chinese ones ("调度。 本书"). Chinese typesetting
    (CSS Text 3's segment-break rules, pandoc's ``east_asian_line_breaks``) drops them there.
    Run after references are resolved, so the text of a ``{doc}`` link counts ("见 参考文献").
    """
    joined = 0
    blocks = [n for n in document.findall(nodes.TextElement) if not isinstance(n, (nodes.Inline, *_OPAQUE))]
    for block in blocks:
        runs = list(_prose_runs(block))
        texts = [str(r) if r is not None else None for r in runs]
        for i, text in enumerate(texts):
            if not text or not _BLANKS.search(text):
                continue
            pieces, last = [], 0
            for match in _BLANKS.finditer(text):
                head, tail = text[: match.start()], text[match.end() :]
                before = head[-1] if head else _neighbour(texts, i - 1, -1)
                after = tail[0] if tail else _neighbour(texts, i + 1, 1)
                if before and after and _joins(before, after):
                    pieces.append(text[last : match.start()])
                    last = match.end()
                    joined += 1
            if last:
                texts[i] = "".join(pieces) + text[last:]
                parent = runs[
                    i
                ].parent  # by identity: Text nodes are strs, parent.replace would take an equal earlier "\n"
                parent[next(k for k, child in enumerate(parent.children) if child is runs[i])] = nodes.Text(texts[i])
    return joined


class CJKSoftBreaks(SphinxPostTransform):
    """No blank between two Chinese characters (:func:`join_cjk_soft_breaks`), once references have their text."""

    default_priority = 899  # after every reference and exercise title is resolved, before ChineseTypography

    def run(self, **kwargs) -> None:
        join_cjk_soft_breaks(self.document)


def encrypt_kernel_transport(app=None, config=None) -> bool:
    """Notebooks run at build time talk to their kernel over CurveZMQ-encrypted TCP; return whether set.

    ipykernel 7 warns "Kernel is running over TCP without encryption" once per kernel (six lines
    in every build log). myst-nb gives no way to configure the kernel manager it creates, so the
    default of jupyter_client's ``KernelManager.transport_encryption`` is set to ``"auto"`` in this
    (build) process: keys are provisioned when the kernelspec declares ``supported_encryption:
    curve`` (ipykernel's does) and nothing changes for a kernel that does not.
    """
    try:
        import zmq
        from jupyter_client.manager import KernelManager
    except ImportError:
        return False
    trait = getattr(KernelManager, "transport_encryption", None)
    if trait is None or not zmq.has("curve"):  # an older jupyter_client, or libzmq without libsodium
        return False
    trait.default_value = "auto"
    return True


def _fallback_alt(image) -> str:
    """The alt text of a figure whose output carries none (``ccb_alt``, an output stored before it
    existed): the section it illustrates, "图：交互：改变 N 与 k（由代码生成）"."""
    section = image.parent
    while section is not None and not isinstance(section, nodes.section):
        section = section.parent
    title = section.next_node(nodes.title) if section is not None else None
    return f"图：{title.astext()}（由代码生成）" if title is not None else "图（由代码生成）"


def _is_inline_math_or_code(node) -> bool:
    return isinstance(node, (nodes.math, nodes.literal)) and not isinstance(node, nodes.math_block)


class ChineseTypography(SphinxPostTransform):
    """Keep punctuation with the formula before it, units with their numbers, and say 证明."""

    default_priority = 900

    def run(self, **kwargs) -> None:
        for math in list(self.document.findall(_is_inline_math_or_code)):
            self._bind(math)
        for cell in list(self.document.findall(nodes.entry)):
            for text in list(cell.findall(nodes.Text)):
                new = _RELATION.sub("\u00a0", _UNIT.sub("\\1\u00a0", str(text)))
                if new != str(text):
                    text.parent.replace(text, nodes.Text(new))
        for image in self.document.findall(nodes.image):
            if not image.get("alt"):  # else the page says the file name (e.g. for figures from code cells)
                image["alt"] = _fallback_alt(image)
        for admonition in list(self.document.findall(nodes.admonition)):
            if "proof" in admonition["classes"] and admonition.children and isinstance(admonition[0], nodes.paragraph):
                first = admonition[0]
                if first.children and isinstance(first[0], nodes.Text) and str(first[0]).startswith("Proof. "):
                    rest = str(first[0])[len("Proof. ") :]
                    first.replace(first[0], nodes.Text(rest))
                    first.insert(0, nodes.Text("："))
                    first.insert(0, nodes.strong("证明", "证明"))

    @staticmethod
    def _bind(math) -> None:
        parent = math.parent
        if parent is None or isinstance(parent, nodes.inline) and "ccb-nobr" in parent["classes"]:
            return
        # Positions by identity: Text nodes are strs, so list.index/remove would match an equal earlier one.
        index = next(i for i, child in enumerate(parent.children) if child is math)
        after = parent[index + 1] if index + 1 < len(parent) else None
        before = parent[index - 1] if index > 0 else None
        tail = head = ""
        if isinstance(after, nodes.Text):
            text = str(after)
            tail = text[: len(text) - len(text.lstrip(CLOSING))]
        if isinstance(before, nodes.Text):
            text = str(before)
            n = len(text) - len(text.rstrip(OPENING))
            head = text[len(text) - n :] if n else ""
        if not tail and not head:
            return
        wrapper = nodes.inline(classes=["ccb-nobr"])
        start, stop = index, index + 1  # the slice of parent's children the wrapper replaces
        if head:
            wrapper += nodes.Text(head)
            start = index - 1
        wrapper += math
        if tail:
            wrapper += nodes.Text(tail)
            stop = index + 2
        replacement = []
        if head and len(str(before)) > len(head):
            replacement.append(nodes.Text(str(before)[: len(str(before)) - len(head)]))
        replacement.append(wrapper)
        if tail:  # a line may break after "，" "、": without <wbr>, "`a`、`b`、`c`" is one unbreakable run (the
            # quotes around code forbid a break next to them, UAX #14 LB19), which made the home page 964 px wide
            replacement.append(nodes.raw("", "<wbr>", format="html"))
        if tail and len(str(after)) > len(tail):
            replacement.append(nodes.Text(str(after)[len(tail) :]))
        parent.children[start:stop] = []
        for offset, node in enumerate(replacement):
            parent.insert(start + offset, node)


@functools.lru_cache(maxsize=1)
def _text_backend():
    """pybtex's plain-text backend, looked up once: ``render_as("text")`` looks the plugin up
    among every installed distribution's entry points on each call (11 ms; 66 calls a bibliography)."""
    from pybtex.plugin import find_plugin

    return find_plugin("pybtex.backends", "text")()


def _latex_text(value: str) -> str:
    from pybtex.richtext import Text

    return Text.from_latex(value).render(_text_backend())


def _authors(entry) -> str:
    """ "Chan et al.", "Patarasuk and Yuan", "NVIDIA": the author part of an author-year label."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    last = [_latex_text(" ".join(p.prelast_names + p.last_names)) for p in persons]
    if not last:
        return _latex_text(entry.fields.get("title", entry.key))
    if len(last) == 1:
        return last[0]
    if len(last) == 2:
        return f"{last[0]} and {last[1]}"
    return f"{last[0]} et al."


def disambiguated_years(entries) -> dict[str, str]:
    """The year each entry is cited with: same authors, same year get 2024a, 2024b (by title).

    ``entries`` maps keys to pybtex entries (their ``year`` field as in the .bib). Used by the
    site (citations and bibliography) and by ``tools/sync_notebooks.py`` (the citations a
    reader sees in JupyterLab), so both print the same "Chan et al., 2007".
    """
    years = {key: entry.fields.get("ccb_year", entry.fields.get("year", "")) for key, entry in entries.items()}
    groups: dict[tuple[str, str], list] = {}
    for key, entry in entries.items():
        groups.setdefault((_authors(entry), years[key]), []).append(key)
    for (_author, year), keys in groups.items():
        if len(keys) > 1 and year:
            ordered = sorted(keys, key=lambda k: _latex_text(entries[k].fields.get("title", "")).lower())
            for letter, key in zip("abcdefghijklmnopqrstuvwxyz", ordered):
                years[key] = year + letter
    return years


def _disambiguate_years(app) -> None:
    """Same authors, same year: 2024a, 2024b (by title), in the citations and the bibliography alike."""
    try:
        domain = app.env.get_domain("cite")
    except Exception:  # sphinxcontrib-bibtex not loaded
        return
    entries = domain.bibdata.data.entries
    for key, year in disambiguated_years(entries).items():
        entries[key].fields.setdefault("ccb_year", entries[key].fields.get("year", ""))
        entries[key].fields["year"] = year


#: A Markdown link whose title is a MyST role, ``[(1.1)](01_x.ipynb#eq-a "{eq}`eq:a`")``: what
#: ``tools/sync_notebooks.py`` writes into the notebooks for a citation or a reference to another
#: chapter, which JupyterLab (jupyterlab-myst) can show as a working link, while a role there is an
#: orange "not found" marker (it has no bibliography and sees one notebook at a time).
ROLE_LINK = re.compile(r"\[(?:\\.|[^\\\[\]\n])*\]\((?P<url>[^\s()]+) \"(?P<role>\{[\w:-]+\}`[^`\"\n]+`)\"\)")


def restore_roles(markdown: str) -> str:
    r"""``markdown`` with every role-carrying link (:data:`ROLE_LINK`) replaced by its role.

    >>> restore_roles(r'见 [\[Chan et al., 2007\]](#ref-chan2007 "{cite:p}`chan2007`")。')
    '见 {cite:p}`chan2007`。'
    """
    return ROLE_LINK.sub(lambda m: m["role"], markdown)


def _restore_roles_in_notebook(app, docname: str, source: list) -> None:
    """``source-read``: the notebook's role-carrying links back to their roles, so the site renders
    exactly the ``{cite:p}`` / ``{eq}`` / ``{prf:ref}`` roles the chapters were written with."""
    path = app.env.doc2path(docname)
    if not str(path).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    changed = False
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        restored = restore_roles(text)
        if restored != text:
            cell["source"] = restored
            changed = True
    if changed:
        source[0] = json.dumps(notebook, ensure_ascii=False, indent=1)


def _register_bibliography_style() -> None:
    from pybtex.plugin import register_plugin
    from pybtex.style.formatting.plain import Style as PlainStyle
    from pybtex.style.labels import BaseLabelStyle
    from pybtex.style.sorting import BaseSortingStyle

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            for entry in sorted_entries:
                yield f"{_authors(entry)}, {entry.fields.get('year', 'n.d.')}"

    class AuthorYearSorting(BaseSortingStyle):  # alphabetical by the label's authors ("{NVIDIA}" sorted after "Z")
        def sorting_key(self, entry):
            return (
                _authors(entry).lower(),
                entry.fields.get("year", ""),
                _latex_text(entry.fields.get("title", "")).lower(),
            )

    class AuthorYearStyle(PlainStyle):
        default_label_style = "ccb_author_year"
        default_sorting_style = "ccb_author_year"

    register_plugin("pybtex.style.labels", "ccb_author_year", AuthorYearLabels, force=True)
    register_plugin("pybtex.style.sorting", "ccb_author_year", AuthorYearSorting, force=True)
    register_plugin("pybtex.style.formatting", "ccb_author_year", AuthorYearStyle, force=True)


_TITLE_TWICE = re.compile(r"<title>([^<]+?) &#8212; \1</title>")


def _rewrite_hard_coded_labels(app, exception) -> None:
    if exception is not None or app.builder.format != "html" or not str(app.config.language or "").startswith("zh"):
        return
    out = pathlib.Path(app.outdir)
    for path in [*out.rglob("*.html"), out / "_static" / "togglebutton.js"]:
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        new = text
        for old, replacement in HARD_CODED.items():
            new = new.replace(old, replacement)
        # The home page's title is the book's: "集合通信理论下界 — 集合通信理论下界" said it twice.
        new = _TITLE_TWICE.sub(r"<title>\1</title>", new, count=1)
        if new != text:
            path.write_text(new, encoding="utf-8")


def setup(app):
    from . import phone_pictures  # figures on a phone (issue #31)
    from .live import build as live_build  # the live explorers (issue #25)

    _register_bibliography_style()
    live_build.setup(app)
    phone_pictures.setup(app)
    app.connect("config-inited", encrypt_kernel_transport)
    app.connect("config-inited", _add_favicon)
    app.connect("builder-inited", _add_static)
    app.connect("builder-inited", _disambiguate_years, priority=600)  # after sphinxcontrib-bibtex reads the .bib
    app.connect("source-read", _restore_roles_in_notebook)
    app.connect("html-page-context", _drop_thebe_widget_state_and_duplicates, priority=900)
    app.connect("build-finished", _rewrite_hard_coded_labels)
    app.add_post_transform(CJKSoftBreaks)
    app.add_post_transform(ChineseTypography)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
