"""Keep what every chapter notebook repeats in step with ``_config.yml`` (the single source of truth).

Usage: python tools/sync_notebooks.py [--check] [notebooks/NAME.ipynb ...]   (default: all of notebooks/)

Two cells are generated, never edited by hand:

1. **The install block** at the top of the install cell (the first code cell, tagged
   ``hide-input``; what follows the block is the chapter's own). On Colab, where the package is
   missing, it installs ``ccb_helpers`` from the repository named in ``_config.yml``
   (``repository.url``) at the ref the launch buttons open (``repository.branch``), so the
   notebook and the package come from the same commit. Change the URL or the ref there, then run
   this tool.
2. **The macro cell** (the first cell, a Markdown cell tagged ``remove-cell``): YAML front matter
   that defines the book's TeX macros (``\\ceil``, ``\\Tamin`` …, from ``mathjax3_config`` in
   ``_config.yml``) for ``jupyterlab-myst``, so the chapters' math renders in JupyterLab. Jupyter
   Book drops ``remove-cell`` cells, so the site does not show it (the site gets the macros from
   ``_config.yml`` directly).

And what jupyterlab-myst cannot resolve is rewritten into what it can (the site is unchanged:
``ccb_helpers.sphinxext`` turns these links back into the roles when it reads a notebook):

3. **Citations** ``{cite:p}`key``` become links to a generated 参考文献 cell at the end of the
   notebook (tagged ``remove-cell``: the site has its bibliography page), with the site's
   author-year text, ``[\\[Chan et al., 2007\\]](03_bandwidth.ipynb#ref-chan2007 "{cite:p}`chan2007`")``: the
   link's title keeps the role. jupyterlab-myst has no bibliography, so a role showed the key as an
   orange "Citation Not Found".
4. **References to another chapter** (``{eq}`` and ``{prf:ref}`` whose label is defined in another
   notebook or in ``intro.md``) become links to that file with the site's number,
   ``[(1.1)](01_information_propagation.ipynb#eq-cc-bound-info-1port "{eq}`eq:cc-bound-info-1port`")``
   (jupyterlab-myst resolves labels within one notebook only). The macro cell numbers the
   chapter's equations, theorems and exercises as the site does (``numbering.enumerator``, "3.1").
5. **Solutions** (``solution-start`` … ``solution-end``) start and end on cell boundaries, and
   the cells inside are collapsed in JupyterLab (``jupyter.source_hidden`` /
   ``outputs_hidden``): the dropdown box shows the solution's first text, the rest of it (code,
   outputs, text) stays folded until the reader opens it.

6. **The hint above every explorer** (the Markdown cell before a cell that is one explorer call)
   ends with :data:`EXPLORER_HINT`, the one text that says where the explorer is live: any other
   sentence there about Jupyter / Colab (chapters 3-8 told the site's reader "静态页面显示默认参数下
   的图" long after the site's explorers went live) is replaced by it.

7. **Line breaks inside Chinese text** are joined: a Markdown line break is a space in HTML,
   right between English words and wrong between Chinese ones ("对比表， 并回答"). The site drops
   them (``ccb_helpers.sphinxext.join_cjk_soft_breaks``); JupyterLab cannot, so the notebooks
   have none (:func:`join_cjk_soft_breaks`).

With ``--check`` nothing is written; the exit status is 1 if a notebook is out of step
(``tests/test_notebook_sync.py`` runs the same check).
"""

from __future__ import annotations

import json
import pathlib
import re
import sys
import unicodedata
from functools import lru_cache

import nbformat
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ccb_helpers.sphinxext import _authors, _joins, _text_backend, disambiguated_years, restore_roles  # noqa: E402

REFERENCES_ID = "ccb-references"
REFERENCES_MARK = "<!-- 本格由 tools/sync_notebooks.py 从 references.bib 生成 -->"
CITE = re.compile(r"\{(?P<role>cite(?::[a-z]+)?)\}`(?P<keys>[^`]+)`")
XREF = re.compile(r"\{(?P<role>eq|prf:ref)\}`(?P<label>[^`<>]+)`")
EQ_LABEL = re.compile(r"\$\$\s*\((?P<label>[^)\s]+)\)")
PRF = re.compile(r"```\{prf:(?P<kind>[a-z]+)\}[^\n]*\n(?::[^\n]*\n)*?:label: *(?P<label>\S+)")
SOLUTION_START = re.compile(r"```\{solution-start\}")
SOLUTION_END = re.compile(r"```\{solution-end\}[ \t]*\n```[ \t]*\n?")
#: sphinx-proof's names of the kinds in Chinese (the site's "定理 3.1").
#: First line of a folded Markdown cell of a solution: JupyterLab shows a folded cell's first line,
#: which would otherwise give the answer away; a MyST comment, so neither the site nor
#: jupyterlab-myst renders it.
FOLD_NOTE = "% 解答（续）：点左侧的竖条或 ⋯ 展开"
PRF_NAMES = {
    "theorem": "定理",
    "definition": "定义",
    "lemma": "引理",
    "proposition": "命题",
    "corollary": "推论",
    "example": "例",
    "remark": "注",
    "algorithm": "算法",
    "conjecture": "猜想",
    "observation": "观察",
    "property": "性质",
}
#: The last paragraph of the Markdown cell above every explorer: true on the site (the explorer
#: is live there, computed in advance), in JupyterLab and on Colab (the Python explorer). Written by
#: :func:`sync_explorer_hints`; change it here and run this tool.
EXPLORER_HINT = (
    "在本书的网站上，下面的探索器可以直接操作：拖动滑块、在数字框里输入数值（手机上更准），"
    "把指针移到图上（或在图上按住拖动）读出曲线上的数值；数字全部由 `ccb_helpers` 预先算好，"
    "不需要内核。在 JupyterLab / Colab 中运行本章（网站页面顶部的火箭按钮），"
    "得到的是同一个探索器的 Python 版。"
)
#: A sentence of an older hint (any sentence naming Jupyter / Colab in that cell): replaced.
_OLD_HINT = re.compile(r"[^。\n]*Jupyter */ *Colab[^。\n]*。")
MACRO_TAG = "remove-cell"
MACRO_MARK = "# TeX macros for JupyterLab (jupyterlab-myst)"
INSTALL_MARK = "import ccb_helpers as ccb"


def config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


def install_source(cfg: dict | None = None) -> str:
    """The install block (the start of the install cell): import the package, installing it if missing."""
    cfg = cfg or config()
    url = cfg["repository"]["url"].rstrip("/")
    ref = cfg["repository"].get("branch") or "main"
    return (
        "try:\n"
        "    import ccb_helpers as ccb\n"
        "except ImportError:  # on Colab / Binder: install the book's helpers first\n"
        f'    BOOK = "git+{url}@{ref}"\n'
        '    %pip install -q "ccb_helpers @ {BOOK}"\n'
        "    import ccb_helpers as ccb"
    )


def _with_install_block(source: str, block: str) -> str:
    """``source`` with its try/except install block (up to the second ``import ccb_helpers``) replaced."""
    lines = source.split("\n")
    first = next(i for i, line in enumerate(lines) if line.strip() == "try:")
    imports = [i for i, line in enumerate(lines) if line.strip() == INSTALL_MARK]
    last = imports[1] if len(imports) > 1 else imports[0]
    return "\n".join(lines[:first] + block.split("\n") + lines[last + 1 :])


def macro_source(cfg: dict | None = None, chapter: int | None = None) -> str:
    """YAML front matter with the book's MathJax macros in MyST's ``math:`` form.

    With ``chapter``, jupyterlab-myst numbers equations, theorems and exercises "3.1", "3.2" as the
    site does (``numbering.enumerator``).
    """
    cfg = cfg or config()
    macros = cfg["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    lines = ["---", f"{MACRO_MARK}, generated from _config.yml by tools/sync_notebooks.py"]
    if chapter is not None:
        lines += ["numbering:", f'  enumerator: "{chapter}.%s"']
    lines.append("math:")
    for name, definition in macros.items():
        body = definition[0] if isinstance(definition, list) else definition
        lines.append(f"  {json.dumps(chr(92) + name)}: {json.dumps(body)}")
    lines.append("---")
    return "\n".join(lines)


def chapter_number(path: pathlib.Path) -> int | None:
    """3 for ``notebooks/03_bandwidth.ipynb`` (the site's chapter number), None for other files."""
    match = re.match(r"(\d\d)_", path.name)
    return int(match.group(1)) if match and path.suffix == ".ipynb" else None


def _markdown_of(path: pathlib.Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join(
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells
            if c["cell_type"] == "markdown" and MACRO_MARK not in "".join(c["source"])
        )
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=4)
def targets(root: pathlib.Path = ROOT) -> dict[str, tuple[pathlib.Path, str]]:
    """Every labelled equation and proof-box of the book: label -> (file, the site's text).

    The site numbers labelled equations "(3.1)" and each kind of ``prf`` box "定理 3.1" in the
    order they appear in a chapter (``intro.md``, not a numbered chapter: "定义 1"); every display
    equation of the book is labelled, so jupyterlab-myst counts them the same way.
    """
    found: dict[str, tuple[pathlib.Path, str]] = {}
    for path in [root / "intro.md", *sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))]:
        text = _markdown_of(path)
        number = chapter_number(path)
        prefix = f"{number}." if number is not None else ""
        for i, match in enumerate(EQ_LABEL.finditer(text), 1):
            found[match["label"]] = (path, f"({prefix}{i})")
        counts: dict[str, int] = {}
        for match in PRF.finditer(text):
            kind = match["kind"]
            counts[kind] = counts.get(kind, 0) + 1
            found[match["label"]] = (path, f"{PRF_NAMES.get(kind, kind)} {prefix}{counts[kind]}")
    return found


def html_id(label: str) -> str:
    """The id jupyterlab-myst gives a labelled node (``eq:cc-a`` -> ``eq-cc-a``)."""
    return re.sub(r"[^a-z0-9-]+", "-", label.lower()).strip("-")


def bibliography(bib: pathlib.Path = ROOT / "references.bib") -> dict[str, tuple[str, str, str]]:
    """key -> (authors, year as the site prints it, the entry as text) from ``references.bib``."""
    return _bibliography(pathlib.Path(bib).resolve())  # one cache entry per file, however it is named


@lru_cache(maxsize=2)
def _bibliography(bib: pathlib.Path) -> dict[str, tuple[str, str, str]]:
    from pybtex.database import parse_file
    from pybtex.plugin import find_plugin

    entries = parse_file(str(bib)).entries
    years = disambiguated_years(entries)
    style = find_plugin("pybtex.style.formatting", "plain")()
    out = {}
    for key, entry in entries.items():
        text = style.format_entry(key, entry).text.render(_text_backend())
        out[key] = (_authors(entry), years[key], text)
    return out


def _escape(text: str) -> str:
    return re.sub(r"([\[\]\\*_`<])", r"\\\1", text)


def cite_link(role: str, keys: str, bib: dict, here: str = "") -> str:
    """A citation as a link to the chapter's 参考文献 cell, with the site's author-year text.

    ``here``: the notebook's file name; the link is ``here#ref-key`` (a link to a fragment of the
    notebook itself, ``#ref-key``, was checked by jupyterlab-myst against the targets of the cell it
    is in, and logged "No target for internal reference" for each, #43; JupyterLab's extension
    ccb-reader scrolls a link to the notebook itself to its anchor).
    """
    names = [k.strip() for k in re.split(r"[,;]", keys) if k.strip()]
    missing = [k for k in names if k not in bib]
    if missing:
        raise ValueError(f"citation of {missing} not in references.bib")
    # The site lists a group's works in its bibliography's order (sphinxcontrib-bibtex sorts them).
    ordered = sorted(dict.fromkeys(names), key=lambda k: (bib[k][0].lower(), bib[k][1]))
    if role.startswith("cite:t"):
        text = ", ".join(f"{bib[k][0]} [{bib[k][1]}]" for k in ordered)
    else:
        text = "[" + ", ".join(f"{bib[k][0]}, {bib[k][1]}" for k in ordered) + "]"
    return f'[{_escape(text)}]({here}#ref-{names[0]} "{{{role}}}`{keys}`")'


def portable_markdown(source: str, here: pathlib.Path, index: dict, bib: dict) -> str:
    """``source`` with citations and references to other files as links JupyterLab can follow."""
    source = restore_roles(source)
    source = CITE.sub(lambda m: cite_link(m["role"], m["keys"], bib, here.name), source)

    def xref(match):
        label = match["label"].strip()
        if label not in index:
            raise ValueError(f"{here.name}: {{{match['role']}}}`{label}` names no label of the book")
        path, text = index[label]
        if path == here:
            return match.group(0)  # jupyterlab-myst resolves it within the notebook
        rel = path.name if path.parent == here.parent else f"../{path.name}"
        return f'[{_escape(text)}]({rel}#{html_id(label)} "{match.group(0)}")'

    return XREF.sub(xref, source)


def references_source(keys: list[str], bib: dict) -> str:
    """The 参考文献 cell: each cited work once, in the site's order, as the target of its links."""
    lines = [REFERENCES_MARK, "## 参考文献", "", "本章引用的文献（全书的参考文献见网站的“参考文献”一页）。"]
    for key in sorted(set(keys), key=lambda k: (bib[k][0].lower(), bib[k][1])):
        authors, year, text = bib[key]
        # (the .bib's \\url{…} comes out of pybtex's text backend as "\\url https://…": a link here)
        parts = re.split(r"\\url\{?\s*(https?://[^\s{}]+?)\}?(?=[,;]?(?:\s|$))", text)
        body = "".join(f"<{part}>" if i % 2 else _escape(part) for i, part in enumerate(parts))
        lines += ["", f"({'ref-' + key})=", f"**{_escape(authors)}, {year}**：{body}"]
    return "\n".join(lines)


_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
_DIRECTIVE = re.compile(r"\{(?P<name>[^}\s]+)\}")
#: Directives whose body is not Markdown prose (code, math, tables as data, reST).
_NOT_PROSE = {"code", "code-block", "code-cell", "sourcecode", "math", "raw", "literalinclude", "csv-table",
              "mermaid", "graphviz", "bibliography", "glossary", "include", "toctree", "tableofcontents",
              "eval-rst"}  # fmt: skip
#: A line that starts a block of its own (heading, list item, table row, quote, directive option,
#: comment, display math, label target, HTML, rule, fence): no line break before it is joined.
_BLOCK_LINE = re.compile(
    r"^\s*(?:#{1,6}(?:\s|$)|[-*+](?:\s|$)|\d+[.)](?:\s|$)|\||>|:|%|\$\$|\([^)]*\)=\s*$|<|`{3,}|~{3,}"
    r"|-{3,}\s*$|\+{3}|={3,}\s*$)"
)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_EMPHASIS = "*_~"


def _last_visible(line: str) -> str:
    """The character a reader sees last on ``line`` (through emphasis marks and a link's target)."""
    text = line.rstrip().rstrip(_EMPHASIS)
    link = re.search(r"\[((?:[^\[\]\\]|\\.)*)\]\([^()]*\)$", text)
    if link:
        text = link[1].rstrip(_EMPHASIS)
    return text[-1:] if text else ""


def _first_visible(line: str) -> str:
    """The character a reader sees first on ``line`` (through emphasis marks and a link's ``[``)."""
    text = line.lstrip().lstrip(_EMPHASIS)
    if text.startswith("[") and not text.startswith("[\\"):
        text = text[1:].lstrip(_EMPHASIS)
    return text[:1]


def _blank_joins(before_text: str, after_text: str) -> bool:
    """Whether the blank between ``before_text`` and ``after_text`` is dropped (the site's rule).

    Not next to an emphasis mark around punctuation: CommonMark would no longer close ``**…。**``
    before a letter, nor open ``**“…``  after one, once the blank is gone.
    """
    before, after = _last_visible(before_text), _first_visible(after_text)
    if not (before and after and _joins(before, after)):
        return False
    if before_text.rstrip()[-1:] in _EMPHASIS and unicodedata.category(before).startswith("P"):
        return False
    return not (after_text.lstrip()[:1] in _EMPHASIS and unicodedata.category(after).startswith("P"))


_MASKED = re.compile(r"(`+)(?:(?!\1).)+?\1|(?<!\\)\$[^$]+(?<!\\)\$|\]\([^()]*\)")


def _inline_blanks(line: str) -> list[tuple[int, int]]:
    """The runs of blanks inside ``line`` (a prose line) between two Chinese characters."""
    masked = _MASKED.sub(lambda m: "\0" * len(m.group(0)), line)
    runs = []
    for match in re.finditer(r"[ \t]+", masked):
        head, tail = line[: match.start()], line[match.end() :]
        if head.strip() and tail.strip() and _blank_joins(head, tail):
            runs.append((match.start(), match.end()))
    return runs


def _open_inline(paragraph: str) -> bool:
    """Whether ``paragraph`` (up to a line's end) ends inside a code span or inline math."""
    text = _CODE_SPAN.sub("", paragraph)
    if "`" in text:
        return True
    dollars = len(re.findall(r"(?<!\\)\$", text))
    return dollars % 2 == 1


def _prose_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it is a line of a prose paragraph (see :func:`cjk_soft_breaks`)."""
    fences: list[tuple[str, bool]] = []  # (closing fence, whether its body is prose)
    prose = [False] * len(lines)
    in_math, in_options = False, False
    for i, line in enumerate(lines):
        fence = _FENCE.match(line)
        if in_math:  # until the closing "$$" (or "$$ (label)")
            in_math = "$$" not in line
            continue
        if fences and fence and fence["fence"].startswith(fences[-1][0]) and not fence["info"].strip():
            fences.pop()
            continue
        if fences and not fences[-1][1]:
            continue  # inside code
        if fence:
            directive = _DIRECTIVE.match(fence["info"].strip())
            body_is_prose = bool(directive) and directive["name"] not in _NOT_PROSE
            fences.append((fence["fence"], body_is_prose))
            in_options = body_is_prose
            continue
        stripped = line.strip()
        if in_options:  # a directive's options: ":key: value" lines, or a "---" YAML block
            if stripped == "---":
                in_options = "yaml" if in_options is True else False
                continue
            if in_options == "yaml" or stripped.startswith(":"):
                continue
            in_options = False
        if stripped.startswith("$$") and stripped.count("$$") == 1:
            in_math = True
            continue
        # a list item's first line is prose (the break after it may join), no other block line is
        list_item = re.match(r"^\s*(?:[-*+]|\d+[.)])\s+\S", line)
        prose[i] = bool(stripped) and (bool(list_item) or not _BLOCK_LINE.match(line))
    return prose


def cjk_soft_breaks(markdown: str) -> list[int]:
    """Indices of the lines of ``markdown`` whose line break is between two Chinese characters.

    A break is joined (:func:`join_cjk_soft_breaks`) where the site drops it
    (``ccb_helpers.sphinxext._joins``: CJK on both sides, or CJK and a quote or dash they share
    with English), only inside a paragraph of prose: never in a code fence or a code span, in
    math (``$…$``, ``$$…$$``), on a directive's fence or option lines, or before or after a
    heading, a table row, a quote, a comment, a label, and never before a list item.
    """
    lines = markdown.split("\n")
    prose = _prose_lines(lines)
    found = []
    for i in range(len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if not (prose[i] and prose[i + 1]) or _BLOCK_LINE.match(b) or a.endswith(("  ", "\\")):
            continue
        start = max((j for j in range(i + 1) if j == 0 or not prose[j - 1]), default=0)
        if _open_inline("\n".join(lines[start : i + 1])):
            continue
        if _blank_joins(a, b):
            found.append(i)
    return found


def cjk_blanks(markdown: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of every blank inside a prose line between two Chinese characters
    ("**发送。** 它用"): the site drops them too (a blank typed, not a line break)."""
    lines = markdown.split("\n")
    prose = _prose_lines(lines)
    found = []
    for i, line in enumerate(lines):
        start = max((j for j in range(i + 1) if j == 0 or not prose[j - 1]), default=0)
        if prose[i] and not (i > start and _open_inline("\n".join(lines[start:i]))):
            found += [(i, a, b) for a, b in _inline_blanks(line)]
    return found


def join_cjk_soft_breaks(markdown: str) -> str:
    """``markdown`` without a line break (:func:`cjk_soft_breaks`) or a blank (:func:`cjk_blanks`)
    between two Chinese characters.

    >>> join_cjk_soft_breaks("先画对比表，\n并回答。\nThen\nEnglish。")
    '先画对比表，并回答。\nThen\nEnglish。'
    """
    lines = markdown.split("\n")
    for i, start, end in reversed(cjk_blanks(markdown)):
        lines[i] = lines[i][:start] + lines[i][end:]
    markdown = "\n".join(lines)
    for i in reversed(cjk_soft_breaks(markdown)):
        lines[i : i + 2] = [lines[i].rstrip() + lines[i + 1].lstrip()]
    return "\n".join(lines)


def _new_cell_id(nb, base: str) -> str:
    taken = {c.get("id") for c in nb.cells}
    for n in range(1, 1000):
        candidate = f"{base[:50]}-s{n}"
        if candidate not in taken:
            return candidate
    raise ValueError("no free cell id")


def split_solutions(nb) -> bool:
    """Split Markdown cells so that each solution starts and ends on a cell boundary."""
    changed = False
    i = 0
    while i < len(nb.cells):
        cell = nb.cells[i]
        if cell.cell_type == "markdown":
            cuts = [m.start() for m in SOLUTION_START.finditer(cell.source)]
            cuts += [m.end() for m in SOLUTION_END.finditer(cell.source)]
            cut = next((c for c in sorted(cuts) if cell.source[:c].strip() and cell.source[c:].strip()), None)
            if cut is not None:
                head, tail = cell.source[:cut].rstrip("\n"), cell.source[cut:].lstrip("\n")
                cell.source = head
                new = nbformat.v4.new_markdown_cell(tail, metadata={k: v for k, v in cell.metadata.items()})
                new["id"] = _new_cell_id(nb, cell.get("id", "cell"))
                nb.cells.insert(i + 1, new)
                changed = True
                continue  # the head may hold another cut
        i += 1
    return changed


def fold_solutions(nb) -> bool:
    """Collapse in JupyterLab every cell after a ``solution-start`` cell up to its ``solution-end``."""
    changed = False
    inside = False
    for cell in nb.cells:
        is_md = cell.cell_type == "markdown"
        starts = is_md and SOLUTION_START.search(cell.source) is not None
        ends = is_md and SOLUTION_END.search(cell.source) is not None
        fold = inside and not starts
        jupyter = dict(cell.metadata.get("jupyter", {}))
        want = dict(jupyter)
        for key in ("source_hidden", "outputs_hidden"):
            want.pop(key, None)
        if fold:
            want["source_hidden"] = True
            if cell.cell_type == "code":
                want["outputs_hidden"] = True
        if is_md:
            noted = cell.source.startswith(FOLD_NOTE + "\n")
            if fold and not noted:
                cell.source = FOLD_NOTE + "\n" + cell.source
                changed = True
            elif noted and not fold:
                cell.source = cell.source[len(FOLD_NOTE) + 1 :]
                changed = True
        if want != jupyter:
            if want:
                cell.metadata["jupyter"] = want
            else:
                cell.metadata.pop("jupyter", None)
            changed = True
        # JupyterLab mirrors outputs_hidden in nbformat's "collapsed" and saves it: written here too,
        # a notebook saved unchanged in JupyterLab stays as it is.
        collapsed = cell.cell_type == "code" and fold
        if bool(cell.metadata.get("collapsed")) != collapsed:
            if collapsed:
                cell.metadata["collapsed"] = True
            else:
                cell.metadata.pop("collapsed", None)
            changed = True
        if starts and not ends:
            inside = True
        elif ends:
            inside = False
    return changed


def _is_explorer_cell(cell) -> bool:
    from ccb_helpers.live.build import explorer_call

    return cell.cell_type == "code" and explorer_call(cell.source) is not None


def with_explorer_hint(markdown: str) -> str:
    """``markdown`` with every older hint sentence dropped and :data:`EXPLORER_HINT` as its last paragraph.

    >>> with_explorer_hint("拖动 N。在 Jupyter / Colab 中运行本页即可操作控件。") == "拖动 N。\\n\\n" + EXPLORER_HINT
    True
    """
    paragraphs = (_OLD_HINT.sub("", p).strip() for p in markdown.split("\n\n") if p.strip() != EXPLORER_HINT)
    kept = [p for p in paragraphs if p]
    return "\n\n".join(kept + [EXPLORER_HINT])


def sync_explorer_hints(nb) -> bool:
    """The Markdown cell before each explorer cell ends with :data:`EXPLORER_HINT`; return whether any changed."""
    changed = False
    for before, cell in zip(nb.cells, nb.cells[1:]):
        if _is_explorer_cell(cell):
            if before.cell_type != "markdown":
                raise ValueError(f"the cell before the explorer {cell.source.strip()!r} must be Markdown (its hint)")
            new = with_explorer_hint(before.source)
            if new != before.source:
                before.source = new
                changed = True
    return changed


def navigation_line(path: pathlib.Path, cfg: dict) -> str:
    """ "《书名》第 3 章 · 上一章：… · 下一章：…" (links to the neighbouring notebooks), shown in JupyterLab."""
    chapters = sorted(path.parent.glob("[0-9][0-9]_*.ipynb"))
    if path not in chapters:
        return ""
    i = chapters.index(path)

    def title(p):
        match = re.search(r"(?m)^# +(.+)$", _markdown_of(p))
        return match.group(1).strip() if match else p.stem

    parts = [f"《{cfg['title']}》第 {chapter_number(path)} 章"]
    if i > 0:
        parts.append(f"上一章：[{title(chapters[i - 1])}]({chapters[i - 1].name})")
    if i + 1 < len(chapters):
        parts.append(f"下一章：[{title(chapters[i + 1])}]({chapters[i + 1].name})")
    return " · ".join(parts)


def _is_install_cell(cell) -> bool:
    return cell.cell_type == "code" and INSTALL_MARK in cell.source and "%pip install" in cell.source


def _is_macro_cell(cell) -> bool:
    return cell.cell_type == "markdown" and MACRO_MARK in cell.source


def sync(nb, cfg: dict | None = None, path: pathlib.Path | None = None) -> bool:
    """Bring ``nb``'s generated cells up to date in place; return whether anything changed.

    With ``path`` (the notebook's file) also the chapter's numbering and navigation line, its
    citations and references to other chapters, the 参考文献 cell and the folded solutions.
    """
    cfg = cfg or config()
    changed = False
    want_macros = macro_source(cfg, chapter_number(path) if path else None)
    if path is not None and (nav := navigation_line(path.resolve(), cfg)):
        want_macros += "\n" + nav
    if nb.cells and _is_macro_cell(nb.cells[0]):
        cell = nb.cells[0]
        if cell.source != want_macros or MACRO_TAG not in cell.metadata.get("tags", []):
            cell.source = want_macros
            cell.metadata["tags"] = [MACRO_TAG]
            changed = True
    else:
        nb.cells = [c for c in nb.cells if not _is_macro_cell(c)]
        cell = nbformat.v4.new_markdown_cell(want_macros, metadata={"tags": [MACRO_TAG]})
        cell.pop("id", None)
        if nb.nbformat_minor >= 5:
            cell["id"] = "ccb-tex-macros"
        nb.cells.insert(0, cell)
        changed = True
    block = install_source(cfg)
    for cell in nb.cells:
        if _is_install_cell(cell):
            wanted = _with_install_block(cell.source, block)
            if cell.source != wanted:
                cell.source = wanted
                changed = True
            break
    else:
        raise ValueError("no install cell (a code cell with `import ccb_helpers as ccb` and `%pip install`)")
    if path is not None:
        before = nbformat.writes(nb)
        _sync_links_and_solutions(nb, path.resolve())
        changed |= nbformat.writes(nb) != before
    return changed


def _sync_links_and_solutions(nb, path: pathlib.Path) -> bool:
    changed = False
    index, bib = targets(path.parents[1]), bibliography(path.parents[1] / "references.bib")
    cells = [c for c in nb.cells if c.get("id") != REFERENCES_ID and REFERENCES_MARK not in c.source]
    if len(cells) != len(nb.cells):
        nb.cells = cells
        changed = True  # put back below if still wanted
    cited = []
    for cell in nb.cells:
        if cell.cell_type != "markdown" or _is_macro_cell(cell):
            continue
        for match in CITE.finditer(restore_roles(cell.source)):
            cited += [k.strip() for k in re.split(r"[,;]", match["keys"]) if k.strip()]
        new = join_cjk_soft_breaks(portable_markdown(cell.source, path, index, bib))
        if new != cell.source:
            cell.source = new
            changed = True
    if cited:
        cell = nbformat.v4.new_markdown_cell(references_source(cited, bib), metadata={"tags": [MACRO_TAG]})
        cell["id"] = REFERENCES_ID
        nb.cells.append(cell)
    changed |= split_solutions(nb)
    changed |= fold_solutions(nb)
    changed |= sync_explorer_hints(nb)
    return changed


def main(argv: list[str]) -> int:
    if any(arg in ("-h", "--help") for arg in argv):
        print(__doc__)
        return 0
    unknown = [arg for arg in argv if arg.startswith("-") and arg != "--check"]
    if unknown:
        print(f"sync_notebooks: unknown option {unknown[0]} (the only option is --check)", file=sys.stderr)
        return 2
    check = "--check" in argv
    paths = [pathlib.Path(p) for p in argv if p != "--check"] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    cfg = config()
    stale = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        sync(nb, cfg, path)
        if nbformat.writes(nb) != before:
            stale.append(path.name)
            if not check:
                nbformat.write(nb, path)
    verb = "out of step" if check else "updated"
    print(f"{verb}: {', '.join(stale)}" if stale else "all notebooks in step with _config.yml")
    return 1 if (check and stale) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
