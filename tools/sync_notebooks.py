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

With ``--check`` nothing is written; the exit status is 1 if a notebook is out of step
(``tests/test_notebook_sync.py`` runs the same check).
"""

from __future__ import annotations

import json
import pathlib
import sys

import nbformat
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
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


def macro_source(cfg: dict | None = None) -> str:
    """YAML front matter with the book's MathJax macros in MyST's ``math:`` form."""
    cfg = cfg or config()
    macros = cfg["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    lines = ["---", f"{MACRO_MARK}, generated from _config.yml by tools/sync_notebooks.py", "math:"]
    for name, definition in macros.items():
        body = definition[0] if isinstance(definition, list) else definition
        lines.append(f"  {json.dumps(chr(92) + name)}: {json.dumps(body)}")
    lines.append("---")
    return "\n".join(lines)


def _is_install_cell(cell) -> bool:
    return cell.cell_type == "code" and INSTALL_MARK in cell.source and "%pip install" in cell.source


def _is_macro_cell(cell) -> bool:
    return cell.cell_type == "markdown" and MACRO_MARK in cell.source


def sync(nb, cfg: dict | None = None) -> bool:
    """Bring ``nb``'s generated cells up to date in place; return whether anything changed."""
    cfg = cfg or config()
    changed = False
    want_macros = macro_source(cfg)
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
    return changed


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [pathlib.Path(p) for p in argv if p != "--check"] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    cfg = config()
    stale = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if sync(nb, cfg):
            stale.append(path.name)
            if not check:
                nbformat.write(nb, path)
    verb = "out of step" if check else "updated"
    print(f"{verb}: {', '.join(stale)}" if stale else "all notebooks in step with _config.yml")
    return 1 if (check and stale) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
