"""A student's Markdown made inert for the teacher's browser (the Formgrader, the feedback page).

nbgrader's Formgrader renders a submitted notebook's Markdown cells with nbconvert's
``markdown2html`` in the teacher's logged-in session, raw HTML included (``escape=False``,
harmful link protocols allowed, a ``mermaid`` code block written out unescaped): an
``<img src=x onerror=…>`` in a written answer ran with the teacher's rights, wrote files through
``/api/contents`` and changed grades through ``/formgrader/api/grade`` (#40).
``c.HTMLExporter.sanitize_html`` does not help: the Formgrader's template renders Markdown cells
itself.

:func:`inert_markdown` turns the student's Markdown into HTML *before* the notebook reaches any
renderer (``assignments/ccb_nbgrader.py`` applies it at ``autograde`` to every Markdown and raw
cell the student wrote):

1. rendered by nbconvert's own Markdown-with-math parser with escaping on: the student's raw HTML
   becomes text, ``javascript:`` / ``data:`` links become ``#harmful-link``, a ``mermaid`` block is
   an ordinary (escaped) code block; formulas stay ``$…$`` for MathJax, with the TeX commands
   that make links, styles, classes or load extensions (``\\href``, ``\\unicode``, ``\\require``…)
   broken by a zero-width space;
2. cleaned by ``bleach`` with an allow-list: text markup, lists, tables, code, links to
   ``http``/``https``/``mailto`` only, images from the cell's own attachments (``data:image/…``)
   only — no external request leaves the teacher's browser — and no ``id``, ``style`` or event
   attribute;
3. written on one line inside ``<div class="ccb-student-text">``, an HTML block that a Markdown
   renderer passes through unchanged; the result is rendered once more the way the Formgrader
   does, and used only if it comes back unchanged (else the text is shown escaped in a ``<pre>``).
"""

from __future__ import annotations

import html
import re

__all__ = ["MAX_MARKDOWN_CHARS", "MAX_NOTEBOOK_CHARS", "inert_markdown", "inert_text", "not_shown"]

#: Characters of a cell rendered as Markdown; a longer cell is shown as escaped text.
MAX_MARKDOWN_CHARS = 200_000
#: Characters of a notebook's student-written cells made inert in all. Rendering and cleaning
#: take ~20 µs a character in the grader (200 000 ``<``: 7 s), outside every time budget, and a
#: notebook can hold any number of cells: past this total a cell is replaced by :func:`not_shown`.
MAX_NOTEBOOK_CHARS = 400_000

_WRAPPER = '<div class="ccb-student-text">{}</div>'
_TAGS = frozenset(
    {
        "p", "br", "hr", "em", "strong", "del", "s", "sup", "sub", "code", "pre", "blockquote",
        "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr",
        "th", "td", "a", "img", "span", "div",
    }
)  # fmt: skip
_IMAGES = ("data:image/png;base64,", "data:image/jpeg;base64,", "data:image/gif;base64,", "data:image/webp;base64,")
# TeX commands of MathJax that make a link, set a class, style or id, insert HTML or load an
# extension. nbconvert loads MathJax with its "Safe" extension; this does not rely on it.
_UNSAFE_TEX = re.compile(
    r"\\(?=(?:href|url|class|cssId|style|unicode|require|html|data|attr|mmlToken|toggle|mathtip|texttip)(?![A-Za-z]))"
)


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    if tag == "a" and name == "href":
        return value.lower().startswith(("http://", "https://", "mailto:", "#"))
    if tag == "a" and name == "title":
        return True
    if tag == "img":
        return name in ("alt", "title") or (name == "src" and value.startswith(_IMAGES))
    if tag in ("ol",) and name == "start":
        return value.isdigit()
    if tag in ("span", "div", "pre", "code") and name == "class":
        # pygments' token classes and its "highlight" box: styling only, no name the
        # Formgrader's own scripts look for (score, comment, tabbable…).
        return all(re.fullmatch(r"[a-z][a-z0-9]{0,3}|highlight", word) for word in value.split())
    return False


def _escaped(text: str) -> str:
    return "<pre>" + html.escape(text, quote=True) + "</pre>"


def _one_line(fragment: str) -> str:
    return _WRAPPER.format(fragment.replace("\r", "").replace("\n", "&#10;"))


def _rendered(source: str, attachments: dict) -> str:
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    class Renderer(IPythonRenderer):
        def block_mermaidjs(self, code: str) -> str:
            return "<pre><code>" + html.escape(code, quote=False) + "</code></pre>\n"

    renderer = Renderer(escape=True, allow_harmful_protocols=False, exclude_anchor_links=True, attachments=attachments)
    return MarkdownWithMath(renderer=renderer).render(source)


def _passes_through(block: str) -> bool:
    """Whether the Formgrader's renderer (nbconvert's ``markdown2html``) leaves ``block`` as it is."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    return markdown2html_mistune(block).strip() == block


def inert_markdown(source: str, attachments: dict | None = None) -> str:
    """``source`` (a student's Markdown cell) as one inert HTML block that renders as the Markdown did.

    Parameters
    ----------
    source : str
        The cell's Markdown, at most :data:`MAX_MARKDOWN_CHARS` characters rendered (a longer
        cell is shown as escaped text, as is one whose rendering fails).
    attachments : dict, optional
        The cell's ``attachments`` (``{name: {mimetype: base64}}``): ``attachment:`` images are
        embedded as ``data:`` URIs, the only images kept.

    Returns
    -------
    str
        ``<div class="ccb-student-text">…</div>`` on one line: no element, attribute or URL of
        the student's choosing beyond what Markdown syntax makes (module docstring). Needs
        nbconvert and bleach (the teacher's requirements).

    Examples
    --------
    >>> inert_markdown("**proof** <img src=x onerror=alert(1)> $a<b$")
    '<div class="ccb-student-text"><p><strong>proof</strong> &lt;img src=x onerror=alert(1)&gt; $a&lt;b$</p>&#10;</div>'
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be str, got {type(source).__name__}")
    if attachments is not None and not isinstance(attachments, dict):
        raise TypeError(f"attachments must be a dict or None, got {type(attachments).__name__}")
    import bleach

    fragment = None
    if len(source) <= MAX_MARKDOWN_CHARS:
        try:
            fragment = _rendered(source, dict(attachments or {}))
        except Exception:  # noqa: BLE001 - a missing attachment, a parser failure: shown as text
            fragment = None
    if fragment is None:
        fragment = _escaped(source[:MAX_MARKDOWN_CHARS])
    cleaned = bleach.clean(
        _UNSAFE_TEX.sub("\\\\\u200b", fragment),
        tags=_TAGS,
        attributes=_allowed_attribute,
        protocols=["http", "https", "mailto", "data"],
        strip=False,
        strip_comments=True,
    )
    block = _one_line(cleaned)
    if _passes_through(block):
        return block
    block = _one_line(bleach.clean(_escaped(_UNSAFE_TEX.sub("\\\\\u200b", source[:MAX_MARKDOWN_CHARS])), tags={"pre"}))
    if _passes_through(block):
        return block
    return _WRAPPER.format("（这个单元格的内容无法安全显示：请在 submitted/ 里的原文件中查看）")


def inert_text(text: str) -> str:
    """``text`` shown as it is (a raw cell's content): one inert HTML block, the text escaped in a ``<pre>``.

    >>> inert_text("<script>x</script>")
    '<div class="ccb-student-text"><pre>&lt;script&gt;x&lt;/script&gt;</pre></div>'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    block = _one_line(_escaped(_UNSAFE_TEX.sub("\\\u200b", text[:MAX_MARKDOWN_CHARS])))
    return (
        block
        if _passes_through(block)
        else _WRAPPER.format("（这个单元格的内容无法安全显示：请在 submitted/ 里的原文件中查看）")
    )


def not_shown(length: int) -> str:
    """The inert block that stands for a student's cell past :data:`MAX_NOTEBOOK_CHARS`.

    >>> not_shown(12)
    '<div class="ccb-student-text">（这个单元格没有显示：学生写的文字超过了一本 notebook 能显示的 400000 个字符；它有 12 个字符，请在 submitted/ 里的原文件中查看）</div>'
    """
    if type(length) is not int or length < 0:
        raise ValueError(f"length must be an int >= 0, got {length!r}")
    return _WRAPPER.format(
        f"（这个单元格没有显示：学生写的文字超过了一本 notebook 能显示的 {MAX_NOTEBOOK_CHARS} 个字符；"
        f"它有 {length} 个字符，请在 submitted/ 里的原文件中查看）"
    )
